"""The match record (``gin_env.game.match_record``; docs/env.md, "The match record"): how each player ended the
earlier hands of a match, counted for the player who knocked or went gin (R30-R35; a dead hand, R37, counts for
nobody), shown own first in every view of a two-seat match, in duels as in the envs, appended to the observation
with ``match_record=True``; the observation without it is unchanged, and a misuse is a clear error. The vector env
returns the same record as ``GinRummy-v0`` (tests/test_vector_vs_env.py)."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env import agents
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.evaluation import duel
from gin_env.game.match_record import EMPTY_RECORD, RECORD_KINDS, encode_record, record_after, seen_by
from gin_env.game.observation import (
    OBS_SIZE,
    PRIVILEGED_SIZE,
    RECORD_OBS_LAYOUT,
    RECORD_OBS_SIZE,
    encode,
    obs_bounds,
    observation_parts,
)
from gin_env.game.rules import Rules


def counted(history, viewer: int) -> tuple[int, ...]:
    """The record of ``history`` as ``viewer`` sees it, counted from the outcomes as the docs state it: a knock,
    undercut or tie is a knock of its knocker, an undercut also an undercut knock, gin and big gin a gin."""
    counts = {0: [0, 0, 0], 1: [0, 0, 0]}
    for outcome in history:
        if outcome.knocker is None:
            continue
        mine = counts[outcome.knocker]
        mine[0] += outcome.kind in ("knock", "undercut", "tie")
        mine[1] += outcome.kind == "undercut"
        mine[2] += outcome.kind in ("gin", "big_gin")
    return tuple(counts[viewer] + counts[1 - viewer])


def test_each_ending_counts_for_the_player_who_ended_the_hand():
    record = EMPTY_RECORD
    for kind, knocker, after in [("knock", 1, (0, 0, 0, 1, 0, 0)),      # R30
                                 ("undercut", 0, (1, 1, 0, 1, 0, 0)),   # R32: still a knock, and undercut
                                 ("gin", 1, (1, 1, 0, 1, 0, 1)),        # R34
                                 ("big_gin", 0, (1, 1, 1, 1, 0, 1)),    # R35
                                 ("tie", 1, (1, 1, 1, 2, 0, 1)),        # R33 without undercut_on_tie
                                 ("dead", None, (1, 1, 1, 2, 0, 1))]:   # R37: nobody's
        record = record_after(record, kind, knocker)
        assert record == after, kind
    assert seen_by(record, 0) == record
    assert seen_by(record, 1) == (2, 0, 1, 1, 1, 1)
    assert len(RECORD_KINDS) * 2 == len(EMPTY_RECORD)


def test_the_encoding_is_each_count_over_ten_capped_at_one():
    np.testing.assert_allclose(encode_record((0, 3, 10, 12, 1, 0)), [0.0, 0.3, 1.0, 1.0, 0.1, 0.0], atol=1e-7)
    assert RECORD_OBS_LAYOUT["record"] == slice(OBS_SIZE, RECORD_OBS_SIZE)


@pytest.mark.parametrize("preset", ["standard", "eaai", "oklahoma"])
def test_the_env_shows_the_record_of_the_earlier_hands_own_first(preset):
    rng = np.random.default_rng(3)
    seen = set()
    # Simple knocks at its first chance; the expert waits for gin and undercuts: together every count moves.
    for learner, opponent in (("simple", "expert"), ("expert", "simple")):
        player = agents.load(learner)
        env = GinRummyEnv(preset, opponent=opponent, episode="match", match_record=True)
        assert env.observation_space.shape == (RECORD_OBS_SIZE,)
        obs, _ = env.reset(seed=5)
        for _ in range(4):  # matches
            done = False
            while not done:
                view = env.table.agent_view(env.learner)
                expected = counted(env.match.history, env.learner)
                assert view.record == expected
                np.testing.assert_allclose(obs[RECORD_OBS_LAYOUT["record"]], encode_record(expected), atol=1e-7)
                np.testing.assert_array_equal(obs[:OBS_SIZE], encode(view))
                seen.update(i for i, n in enumerate(expected) if n)
                obs, _, terminated, truncated, _ = env.step(player.act(view, rng))
                done = terminated or truncated
            obs, _ = env.reset()
    assert seen == set(range(len(EMPTY_RECORD))), "every count of both players was seen"


def test_without_the_flag_the_observation_is_as_before():
    env = GinRummyEnv("eaai", opponent="simple", episode="match")
    with_record = GinRummyEnv("eaai", opponent="simple", episode="match", match_record=True)
    obs, _ = env.reset(seed=2)
    obs_record, _ = with_record.reset(seed=2)
    assert env.observation_space.shape == (OBS_SIZE,) and obs.shape == (OBS_SIZE,)
    np.testing.assert_array_equal(obs, obs_record[:OBS_SIZE])
    venv = GinRummyVectorEnv(4, "eaai", opponent="simple", episode="match")
    assert venv.reset(seed=0)[0].shape == (4, OBS_SIZE)


class Recorder:
    """An agent that plays as simple and notes the record of every view it is shown."""

    def __init__(self) -> None:
        self.simple = agents.load("simple")
        self.records: list[tuple[int, ...]] = []

    def act(self, view, rng) -> int:
        self.records.append(view.record)
        return self.simple.act(view, rng)


def test_duels_show_each_player_its_record():
    players = [Recorder(), Recorder()]
    result = duel.play_game(Rules.preset("eaai"), players, seed=4, game=0)
    assert len(result.outcomes) >= 3
    for seat, player in enumerate(players):
        # Every record a player saw is its own count of some prefix of the game's hands, in order, ending before
        # the last hand.
        prefixes = [counted(result.outcomes[:n], seat) for n in range(len(result.outcomes))]
        positions = [prefixes.index(record) for record in player.records]
        assert positions == sorted(positions) and positions[-1] == len(result.outcomes) - 1


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"episode": "match", "match_record": 1}, TypeError, "match_record must be True or False"),
    ({"episode": "hand", "match_record": True}, ValueError, "needs episode='match'"),
    ({"rules": "openspiel", "episode": "match", "match_record": True}, ValueError, "needs a game to a target"),
    ({"episode": "match", "players": 3, "match_record": True}, ValueError, "two seats"),
    ({"episode": "match", "players": 4, "match_record": True}, ValueError, "two seats"),
])
def test_misuse_is_named(kwargs, error, message):
    kwargs = {"rules": "eaai", **kwargs}
    with pytest.raises(error, match=message):
        GinRummyEnv(**kwargs)
    if kwargs.get("players") is None:
        with pytest.raises(error, match=message):
            GinRummyVectorEnv(2, **kwargs)


def test_an_observations_size_names_what_it_holds_after_the_view():
    """``observation_parts``: the one reading of an observation's width that loading, resuming and widening a model
    share, the match record and a privileged critic's hidden planes each on or off; any other width is refused."""
    assert observation_parts(OBS_SIZE) == (False, False)
    assert observation_parts(RECORD_OBS_SIZE) == (True, False)
    assert observation_parts(OBS_SIZE + PRIVILEGED_SIZE) == (False, True)
    assert observation_parts(RECORD_OBS_SIZE + PRIVILEGED_SIZE) == (True, True)
    for size in (0, OBS_SIZE - 1, OBS_SIZE + 1, RECORD_OBS_SIZE + PRIVILEGED_SIZE + 1):
        with pytest.raises(ValueError, match=f"no observation has {size} entries"):
            observation_parts(size)


@pytest.mark.parametrize("match_record", [False, True])
@pytest.mark.parametrize("privileged", [False, True])
def test_the_bounds_of_each_layout_have_the_width_that_names_it(match_record, privileged):
    """``obs_bounds`` gives every layout its bounds: the view's first, the record's counts and the hidden planes
    (a privileged critic's training env) each in [0, 1] after it, a width that ``observation_parts`` reads back."""
    low, high = obs_bounds(match_record, privileged)
    assert low.shape == high.shape and observation_parts(low.shape[0]) == (match_record, privileged)
    view_low, view_high = obs_bounds()
    np.testing.assert_array_equal(low[:OBS_SIZE], view_low)
    np.testing.assert_array_equal(high[:OBS_SIZE], view_high)
    assert (low[OBS_SIZE:] == 0).all() and (high[OBS_SIZE:] == 1).all()
