"""The envs under misuse (issue 29): masks a caller edits, absurd rule values, seats a room cannot take, rules under
which no deal reaches the learner, integer arguments of any type, actions in any array layout, and episode counting
under same-step autoreset."""

from __future__ import annotations

import os
import re

import gymnasium as gym
import numpy as np
import pytest

import gin_env  # noqa: F401  (registers GinRummy-v0)
from gin_env.batch import kernels as batch_kernels
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import engine
from gin_env.game.rules import CAP_KEYS, MAX_CAP, MAX_POINTS, POINT_KEYS, Rules
from gin_env.table.checks import MAX_REDEALS

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
#: Formats of GinRummy-v0 other than two players, as gym.make keyword arguments.
FORMATS = {"players=3": {"players": 3}, "players=4": {"players": 4},
           "room=(2, 2)": {"room": (2, 2), "teammates": ["random"], "opponents": ["random", "random"]}}
#: Player 0 deals every hand and the non-dealer discards first with 11 cards, and the first discard ends the hand
#: (R19): a learner in seat 0 never has a decision.
NO_DECISION = Rules(deal_mode="eleven", max_turns=1, first_dealer="P1")


def illegal_action(mask: np.ndarray) -> int:
    return int(np.flatnonzero(~mask)[0])


# ---------------------------------------------------------------------------------------------------------------
# Masks: what a caller is given is a copy
# ---------------------------------------------------------------------------------------------------------------

def test_editing_the_scalar_envs_masks_changes_nothing_it_accepts():
    env = GinRummyEnv(opponent="random", illegal_action="raise")
    _, info = env.reset(seed=3)
    bad = illegal_action(info["action_mask"])
    info["action_mask"][:] = True
    env.action_masks()[:] = True
    assert not env.action_masks()[bad]
    with pytest.raises(engine.IllegalActionError, match=r"^illegal action"):
        env.step(bad)
    # The refused action is no part of the hand: its replay plays back.
    rng, done = np.random.default_rng(3), False
    while not done:
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = terminated or truncated
    replay = env.replay()  # made by playing the recorded actions again: a refused one would not play
    assert replay.states()[-1].outcome == env.state.outcome


def test_editing_the_final_mask_gives_no_seat_legal_actions():
    env = GinRummyEnv(opponent="random")
    _, info = env.reset(seed=4)
    rng, terminated = np.random.default_rng(4), False
    while not terminated:
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    info["action_mask"][:] = True
    env.action_masks()[:] = True
    env.reset(seed=5)
    waiting = env.table.view(1 - env.state.current)
    assert not waiting.legal_mask.any()


@pytest.mark.parametrize("fmt", FORMATS)
def test_editing_the_format_envs_masks_changes_nothing_it_accepts(fmt):
    env = gym.make("GinRummy-v0", **FORMATS[fmt]).unwrapped
    _, info = env.reset(seed=6)
    bad = illegal_action(info["action_mask"])
    info["action_mask"][:] = True
    env.action_masks()[:] = True
    _, reward, terminated, _, info = env.step(bad)
    assert info["illegal_action"] and terminated and reward == -1.0


def test_editing_the_vector_envs_masks_changes_nothing_it_accepts():
    envs = GinRummyVectorEnv(num_envs=3, opponent="random")
    _, info = envs.reset(seed=7)
    bad = np.array([illegal_action(m) for m in info["action_mask"]])
    info["action_mask"][:] = True
    envs.action_masks()[:] = True
    _, rewards, terminated, _, info = envs.step(bad)
    assert info["illegal_action"].all() and terminated.all() and (rewards == -1.0).all()


def test_editing_a_pettingzoo_observation_changes_nothing_it_accepts():
    pettingzoo = pytest.importorskip("gin_env.envs.pettingzoo")
    aec = pettingzoo.env()
    aec.reset(seed=7)
    mask = aec.observe(aec.agent_selection)["action_mask"]
    bad = illegal_action(mask.astype(bool))
    mask[:] = 1
    with pytest.raises(engine.IllegalActionError):
        aec.step(bad)


# ---------------------------------------------------------------------------------------------------------------
# Rules: every number bounded, so no engine sum overflows
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [*POINT_KEYS, *CAP_KEYS])
def test_every_number_of_the_rules_has_a_documented_maximum(key):
    bound = MAX_POINTS if key in POINT_KEYS else MAX_CAP
    assert getattr(Rules(**{key: bound}), key) == bound
    for absurd in (bound + 1, 2**62):
        with pytest.raises(ValueError, match=rf"rules key '{key}' must be an integer \d+\.\.{bound:,}"):
            Rules(**{key: absurd})


def test_rules_at_their_maximum_score_exactly_in_the_batched_engine():
    """Gins and undercuts at the largest bonuses, doubled by a spade upcard (R47), and final totals with the largest
    game and box bonuses, doubled by a shutout: the vector env's rewards are the exact sums, never wrapped."""
    rules = Rules.preset("oklahoma", gin_bonus=MAX_POINTS, undercut_bonus=MAX_POINTS, big_gin_bonus=MAX_POINTS,
                         game_bonus=MAX_POINTS, box_bonus=MAX_POINTS, target=1, shutout="double_total")
    envs = GinRummyVectorEnv(num_envs=16, rules=rules, opponent="simple", episode="match", reward_scale=1.0)
    envs.reset(seed=8)
    rng, totals = np.random.default_rng(8), []
    for _ in range(60):
        actions = [rng.choice(np.flatnonzero(m)) for m in envs.action_masks()]
        _, rewards, _, _, info = envs.step(np.array(actions))
        # A hand pays at most 2 x (99 + bonus); the game's end adds the doubled game and box bonuses.
        assert (np.abs(rewards) <= 2 * (2 * (MAX_POINTS + 100) + 2 * MAX_POINTS)).all()
        if "match_totals" in info:
            won = info["_match_totals"] & ~info["match_abandoned"]
            totals.append(info["match_totals"][won])
    totals = np.concatenate(totals)
    # The winner's total holds the game bonus; nothing has wrapped around to a negative number.
    assert totals.size and (totals >= 0).all() and (totals.max(axis=1) >= MAX_POINTS).all()


# ---------------------------------------------------------------------------------------------------------------
# Rooms (R58-R59): the learner's seat is the one its agents were given for
# ---------------------------------------------------------------------------------------------------------------

def test_a_room_of_unequal_seats_refuses_the_other_seat_at_reset():
    env = gym.make("GinRummy-v0", room=(1, 2), learner_seat=0, teammates=[], opponents=["random", "random"])
    # A good reset first: gymnasium 1.4's passive checker cannot step an env whose very first reset raised.
    _, info = env.reset(seed=0)
    with pytest.raises(ValueError, match=r"learner_seat=1: a room of 1 and 2 members \(R58-R59\) seats 1 teammate "
                                         r"and 1 opponent around it, and this env holds 0 teammates and 2 opponents"):
        env.reset(seed=0, options={"learner_seat": 1})
    # Refused before any work: the episode under way goes on as it was.
    env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_a_room_of_equal_seats_takes_either_seat_at_reset():
    env = gym.make("GinRummy-v0", room=(2, 2), learner_seat=0, teammates=["random"], opponents=["random", "random"])
    for seat in (1, 0):
        _, info = env.reset(seed=seat, options={"learner_seat": seat})
        _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert env.unwrapped.table.seat_of(env.unwrapped.learner) == seat


# ---------------------------------------------------------------------------------------------------------------
# Rules under which no deal reaches the learner: a clear error after a bounded number of deals
# ---------------------------------------------------------------------------------------------------------------

NO_DECISION_MESSAGE = (rf"no deal reached the learner's first decision in {MAX_REDEALS:,} deals under rules "
                       r"'custom' \(deal_mode='eleven', first_dealer='P1', max_turns=1\b")


@pytest.mark.parametrize("make", [
    lambda: GinRummyEnv(rules=NO_DECISION, opponent="random", learner_seat=0),
    lambda: gym.make("GinRummy-v0", rules=NO_DECISION, players=4, learner_seat=0, partner="random",
                     opponents=["random", "random"]),
    lambda: gym.make("GinRummy-v0", rules=NO_DECISION, room=(1, 1), learner_seat=0, opponents=["random"]),
    lambda: GinRummyVectorEnv(num_envs=4, rules=NO_DECISION, opponent="random", learner_seat=0),
], ids=["GinRummyEnv", "GinRummyEnv players=4", "GinRummyEnv room", "GinRummyVectorEnv"])
def test_no_deal_reaching_the_learner_is_an_error_not_an_endless_reset(make):
    env = make()
    with pytest.raises(ValueError, match=NO_DECISION_MESSAGE):  # after MAX_REDEALS deals: an endless loop never returns
        env.reset(seed=0)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(np.zeros(4, dtype=np.int64) if isinstance(env, GinRummyVectorEnv) else 0)


def test_pettingzoo_deals_such_rules_at_once():
    pettingzoo = pytest.importorskip("gin_env.envs.pettingzoo")
    aec = pettingzoo.env(rules=NO_DECISION)
    aec.reset(seed=0)
    assert aec.agent_selection == "player_1"  # the non-dealer, to discard from 11 cards
    aec.step(int(np.flatnonzero(aec.observe("player_1")["action_mask"])[0]))
    assert all(aec.terminations.values()) and aec.infos["player_0"]["outcome"]["capped"]


# ---------------------------------------------------------------------------------------------------------------
# Integer arguments: any integer type, nothing else
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [np.int64(2), np.int8(2), np.uint16(2)])
def test_num_envs_takes_any_integer_type(n):
    envs = GinRummyVectorEnv(num_envs=n, opponent="random")
    obs, _ = envs.reset(seed=0)
    assert envs.num_envs == 2 and type(envs.num_envs) is int and obs.shape == (2, 375)


@pytest.mark.parametrize(("value", "error"), [(True, TypeError), (np.True_, TypeError), (4.0, TypeError),
                                              ("4", TypeError), (None, TypeError), (0, ValueError),
                                              (np.int64(-1), ValueError)])
def test_num_envs_refuses_anything_else_naming_it(value, error):
    with pytest.raises(error, match="num_envs"):
        GinRummyVectorEnv(num_envs=value)


@pytest.mark.parametrize("make", [
    lambda **kw: GinRummyEnv(opponent="random", **kw),
    lambda **kw: gym.make("GinRummy-v0", players=3, opponents=["random", "random"], **kw).unwrapped,
    lambda **kw: GinRummyVectorEnv(num_envs=2, opponent="random", **kw),
], ids=["GinRummyEnv", "GinRummyEnv players=3", "GinRummyVectorEnv"])
def test_max_steps_takes_any_integer_type_and_nothing_else(make):
    assert make(max_steps=np.int32(1)).max_steps == 1
    for bad in (True, 1.0, "1"):
        with pytest.raises(TypeError, match="max_steps"):
            make(max_steps=bad)


def test_players_and_seats_of_other_formats_take_any_integer_type_and_nothing_else():
    env = gym.make("GinRummy-v0", players=np.int64(3), learner_seat=np.uint8(2)).unwrapped
    assert (env.rules.players, env.learner_seat) == (3, 2)
    for key, bad in (("players", True), ("players", 3.0), ("learner_seat", True), ("learner_seat", 1.0)):
        with pytest.raises(TypeError, match=key):
            gym.make("GinRummy-v0", **{"players": 3, key: bad})
    pettingzoo = pytest.importorskip("gin_env.envs.pettingzoo")
    assert pettingzoo.env(players=np.int8(4)).rules.players == 4


# ---------------------------------------------------------------------------------------------------------------
# Actions in any array layout hit the one compiled step
# ---------------------------------------------------------------------------------------------------------------

def test_strided_and_read_only_actions_compile_no_new_step():
    envs = GinRummyVectorEnv(num_envs=4, opponent="random")
    envs.reset(seed=9)
    envs.step(envs.action_masks().argmax(axis=1))
    compiled = list(batch_kernels.step.signatures)
    strided = np.repeat(envs.action_masks().argmax(axis=1), 2)[::2]
    assert not strided.flags.c_contiguous
    envs.step(strided)
    read_only = envs.action_masks().argmax(axis=1)
    read_only.setflags(write=False)
    envs.step(read_only)
    envs.step(envs.action_masks().argmax(axis=1).astype(np.int32))
    assert batch_kernels.step.signatures == compiled


# ---------------------------------------------------------------------------------------------------------------
# Episode statistics under same-step autoreset (docs/vector.md)
# ---------------------------------------------------------------------------------------------------------------

def _docs_wrapper():
    """The ``EpisodeStatistics`` class of docs/vector.md, run as the page shows it."""
    with open(os.path.join(DOCS, "vector.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
    source = next(block for block in blocks if "class EpisodeStatistics" in block)
    namespace: dict = {}
    exec(compile(source.replace("num_envs=256", "num_envs=2"), "docs/vector.md", "exec"), namespace)
    return namespace["EpisodeStatistics"]


@pytest.mark.parametrize("illegal", [False, True], ids=["random play", "an illegal action each step"])
def test_the_docs_episode_wrapper_counts_every_step_of_every_episode(illegal):
    envs = _docs_wrapper()(GinRummyVectorEnv(num_envs=4, opponent="random"))
    envs.reset(seed=10)
    rng = np.random.default_rng(10)
    returns, lengths, episodes = np.zeros(4), np.zeros(4, dtype=np.int64), 0
    for _ in range(150):
        masks = envs.unwrapped.action_masks()
        actions = [illegal_action(m) if illegal else rng.choice(np.flatnonzero(m)) for m in masks]
        _, rewards, terminated, truncated, info = envs.step(np.array(actions))
        returns += rewards
        lengths += 1
        done = terminated | truncated
        if done.any():
            np.testing.assert_array_equal(info["_episode"], done)
            np.testing.assert_allclose(info["episode"]["r"][done], returns[done], atol=1e-9)
            np.testing.assert_array_equal(info["episode"]["l"][done], lengths[done])
            episodes += int(done.sum())
            returns[done], lengths[done] = 0.0, 0
    assert episodes >= 8


@pytest.mark.skipif(gym.__version__ != "1.2.2", reason="the miscount docs/vector.md describes is gymnasium 1.2.2's")
def test_gymnasiums_record_episode_statistics_drops_first_steps_as_the_docs_say():
    envs = gym.wrappers.vector.RecordEpisodeStatistics(GinRummyVectorEnv(num_envs=2, opponent="random"))
    _, info = envs.reset(seed=11)
    reported = []
    for _ in range(3):
        _, rewards, terminated, _, info = envs.step(np.array([illegal_action(m) for m in info["action_mask"]]))
        assert terminated.all() and (rewards == -1.0).all()
        reported.append((info["episode"]["r"].tolist(), info["episode"]["l"].tolist()))
    assert reported == [([-1.0, -1.0], [1, 1]), ([0.0, 0.0], [0, 0]), ([0.0, 0.0], [0, 0])]


# ---------------------------------------------------------------------------------------------------------------
# Text: counts agree with their nouns
# ---------------------------------------------------------------------------------------------------------------

def test_the_ansi_tables_say_one_card():
    env = GinRummyEnv(opponent="random", render_mode="ansi", learner_seat=0)
    env.reset(seed=0, options={"dealer": 1})  # the learner is offered the upcard: the pile holds it alone
    assert ", 1 card (" in env.render() and not re.search(r"\b1 cards", env.render())
    env = gym.make("GinRummy-v0", players=3, render_mode="ansi", learner_seat=0, opponents=["random", "random"])
    env.reset(seed=0)
    assert ", 1 card   stock: 31 cards" in env.unwrapped.render()


@pytest.mark.parametrize(("rules", "line"), [
    (Rules(wall=1, max_turns=None), "The stock is down to 1 card: dead hand"),
    (Rules(max_upcard_draws=1), "The cap of 1 take from the discard pile is reached"),
])
def test_the_showdown_of_a_dead_hand_says_one_card_or_take(rules, line):
    render = pytest.importorskip("gin_env.ui.render")
    rng = np.random.default_rng(0)
    for _ in range(200):
        state = engine.new_hand(rules, rng)
        while state.phase != engine.OVER:
            state = engine.step(state, int(rng.choice(engine.legal_actions(state))))
        said = " ".join(text.plain for text in render.showdown(state, ("you", "them")))
        if state.outcome.kind == "dead" and line.split(":")[0] in said:
            assert line in said
            return
    pytest.fail(f"no dead hand of the kind {line!r} in 200 random hands")
