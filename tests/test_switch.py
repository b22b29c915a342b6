"""The switch agent (``agents.switch``, docs/agents.md): the waiting network against an opponent that the match
record shows winning hands by plain knocks, the racing network otherwise; one choice per view whether it decides
one game or a batch; its parameters and their errors."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env import agents
from gin_env.agents.switch import SwitchAgent
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.evaluation import duel
from gin_env.game.match_record import knocker_opponents
from gin_env.game.rules import Rules

SWITCH = agents.load("switch")


@pytest.mark.parametrize(("record", "knocker"), [
    ((0, 0, 0, 0, 0, 0), False),   # the first hand: nothing known
    ((0, 0, 0, 1, 0, 0), True),    # one plain knock won by the opponent
    ((0, 0, 0, 1, 1, 0), False),   # its knock was undercut: not a win by knocking
    ((0, 0, 0, 2, 0, 1), True),    # two knock wins, one gin
    ((0, 0, 0, 1, 0, 1), False),   # as many gins as knock wins
    ((1, 1, 0, 1, 0, 0), False),   # it undercut the viewer once: as many wins by waiting as by knocking
    ((3, 0, 2, 0, 0, 0), False),   # only the viewer's own hands
])
def test_an_opponent_is_a_knocker_when_it_wins_more_by_plain_knocks(record, knocker):
    assert knocker_opponents(np.array([record]))[0] == knocker


def views_of_a_game(seed: int) -> list:
    """Every view P1 (simple) decides from in an eaai game against simple: records of every kind."""
    seen = []

    def noted(view, rng):
        seen.append(view)
        return agents.load("simple").act(view, rng)

    duel.play_game(Rules.preset("eaai"), (agents.CallableAgent(noted), agents.load("simple")), seed, 0)
    return seen


def test_each_view_goes_to_the_network_its_record_picks():
    rng = np.random.default_rng(0)
    views = [v for seed in range(3) for v in views_of_a_game(seed)]
    knockers = knocker_opponents(np.array([v.record for v in views]))
    assert knockers.any() and not knockers.all()
    for view, knocker in zip(views, knockers):
        chosen = (SWITCH.waiter if knocker else SWITCH.racer).act(view, rng)
        assert SWITCH.act(view, rng) == chosen


class Checked:
    """The switch as a batched opponent, each batch's choices held to ``act`` of the same views one by one."""

    def __init__(self) -> None:
        self.rows = 0

    def act(self, view, rng) -> int:
        return SWITCH.act(view, rng)

    def act_batch(self, view, rng):
        chosen = SWITCH.act_batch(view, rng)
        assert chosen.tolist() == [SWITCH.act(view.player_view(i), rng) for i in range(chosen.size)]
        self.rows += chosen.size
        return chosen


def test_batched_choices_are_the_single_ones():
    opponent = Checked()
    venv = GinRummyVectorEnv(16, "eaai", opponent=opponent, episode="match")
    venv.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(150):
        masks = venv.action_masks()
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert opponent.rows > 1000 and venv.table.match_record.any()


def test_parameters_name_the_networks_and_bad_ones_are_named():
    assert SWITCH.name == "switch-v1"
    own = agents.load("switch[racer=ppo-expert,waiter=ppo]")
    assert own.name == "switch-v1[racer=ppo-expert,waiter=ppo]"
    with pytest.raises(ValueError, match="no parameter 'speed'"):
        agents.load("switch[speed=2]")
    with pytest.raises(ValueError, match="'racer' must be a policy network"):
        agents.load("switch[racer=simple]")
    with pytest.raises(TypeError, match="'waiter' must be an agent name or a model path"):
        SwitchAgent(waiter=3)
