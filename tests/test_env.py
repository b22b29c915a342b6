"""GinRummy-v0: API conformance, determinism, no peeking, rewards on scripted hands, matches, masks, training."""

from __future__ import annotations

import functools
import pickle
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest

import gin_env
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.game import actions, cards, engine, match
from gin_env.game.observation import OBS_SIZE, encode, view
from gin_env.game.rules import Rules
from tests.scripted import make_deck


def passive(v, rng) -> int:
    """Never takes a face-up card, never knocks: pass, draw from the stock, discard the highest card id."""
    if v.phase in (engine.OFFER, engine.WALL):
        return actions.PASS
    if v.phase == engine.DRAW:
        return actions.DRAW_STOCK
    return max(a for a in v.legal_actions if actions.is_discard(a))


class Script:
    """An opponent that plays the given action names in order, then plays :func:`passive`."""

    def __init__(self, *names: str) -> None:
        self.actions = [actions.parse(n) for n in names]
        self.played = 0

    def act(self, v, rng) -> int:
        self.played += 1
        return self.actions.pop(0) if self.actions else passive(v, rng)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])


def make(**kwargs) -> GinRummyEnv:
    return gym.make("GinRummy-v0", **kwargs).unwrapped


# ---------------------------------------------------------------------------------------------------------------
# API conformance
# ---------------------------------------------------------------------------------------------------------------

def test_registered_on_import_and_import_stays_light():
    assert gin_env.ENV_ID == "GinRummy-v0" and gin_env.ENV_ID in gym.registry
    code = ("import sys, gin_env, gymnasium as gym; gym.make('GinRummy-v0');"
            "heavy = [m for m in ('pettingzoo', 'stable_baselines3', 'sb3_contrib', 'torch') if m in sys.modules];"
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("kwargs", [{}, {"episode": "match", "opponent": "random", "render_mode": "ansi"},
                                    {"rules": "openspiel", "opponent": "simple"}])
def test_gymnasium_check_env_passes_without_warnings(kwargs):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(make(**kwargs))


def test_sb3_check_env_passes_without_warnings():
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(make(), warn=True)


def test_spaces_masks_and_observation_agree_with_the_engine():
    env = make(opponent="random")
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    assert env.action_space == gym.spaces.Discrete(108)
    assert env.observation_space.shape == (OBS_SIZE,) and env.observation_space.dtype == np.float32
    for _ in range(300):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (108,) and mask.any()
        np.testing.assert_array_equal(mask, info["action_mask"])
        np.testing.assert_array_equal(mask, engine.legal_mask(env.state))
        assert env.state.current == env.learner
        np.testing.assert_array_equal(obs, encode(view(env.state, env.learner)))
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(random_legal(mask, rng))
        if terminated:
            assert not info["action_mask"].any()
            obs, info = env.reset()


def test_render_ansi_shows_hands_pile_stock_and_scores():
    env = make(render_mode="ansi", episode="match", learner_seat=0)
    env.reset(seed=4, options={"dealer": 1})
    text = env.render()
    s = env.state
    assert f"learner              {cards.to_str(s.hands[0])}" in text
    assert f"opponent (dealer)    {cards.to_str(s.hands[1])}" in text
    assert f"stock: {engine.stock_size(s)} cards" in text and "match to 100: learner 0, opponent 0" in text


@pytest.mark.parametrize("kwargs, message", [
    ({"episode": "game"}, "episode"), ({"illegal_action": "ignore"}, "illegal_action"),
    ({"reward_scale": 0}, "reward_scale"), ({"learner_seat": 2}, "learner_seat"), ({"max_steps": 0}, "max_steps"),
    ({"render_mode": "window"}, "render_mode"), ({"rules": "bridge"}, "preset"), ({"opponent": "nobody"}, "nobody"),
])
def test_bad_arguments_are_rejected_by_name(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GinRummyEnv(**kwargs)


def test_opponent_may_be_a_name_an_agent_or_a_callable():
    from gin_env.agents.simple import SimpleAgent

    assert isinstance(GinRummyEnv(opponent="simple").opponent, SimpleAgent)
    agent = Script()
    assert GinRummyEnv(opponent=agent).opponent is agent
    env = GinRummyEnv(opponent=passive, learner_seat=0)
    env.reset(seed=0, options={"dealer": 0})  # the opponent opens: it passed the upcard before reset returned
    assert env.state.declined[1] == 1 << env.state.pile[-1]
    with pytest.raises(TypeError, match="opponent"):
        GinRummyEnv(opponent=42)


def test_an_opponent_assigned_mid_episode_plays_its_next_action():
    env = GinRummyEnv(opponent="random", learner_seat=0)
    _, info = env.reset(seed=0)
    script = Script()
    env.opponent = script
    assert env.opponent is script and env.roles["opponent"] == [script]
    rng, done = np.random.default_rng(0), False
    while not done and not script.played:
        _, _, terminated, truncated, info = env.step(random_legal(info["action_mask"], rng))
        done = terminated or truncated
    assert script.played


# ---------------------------------------------------------------------------------------------------------------
# Determinism
# ---------------------------------------------------------------------------------------------------------------

def rollout(env: GinRummyEnv, seed: int, episodes: int) -> list:
    """Every (obs, reward, terminated, truncated, info) of ``episodes`` episodes under seeded random masked play."""
    rng = np.random.default_rng(seed + 1000)
    trace = []
    obs, info = env.reset(seed=seed)
    trace.append((obs, info))
    done = 0
    while done < episodes:
        out = env.step(random_legal(env.action_masks(), rng))
        trace.append(out)
        if out[2] or out[3]:
            done += 1
            trace.append(env.reset())
    return trace


def same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("kwargs, episodes", [
    ({"opponent": "simple"}, 8),
    ({"opponent": "simple", "episode": "match", "rules": Rules.preset("standard", target=40)}, 2),
])
def test_same_seed_same_actions_give_identical_episodes(kwargs, episodes):
    a = rollout(make(**kwargs), seed=21, episodes=episodes)
    b = rollout(make(**kwargs), seed=21, episodes=episodes)
    assert same(a, b)
    c = rollout(make(**kwargs), seed=22, episodes=episodes)
    assert not same(a, c), "a different seed gave the same episodes: the comparison cannot fail"


def test_reset_without_seed_continues_the_seeded_stream():
    def episodes(env):
        env.reset(seed=9)
        trace = [rollout_one(env, 0)]
        env.reset()
        trace.append(rollout_one(env, 1))
        return trace

    assert same(episodes(make()), episodes(make()))


def rollout_one(env: GinRummyEnv, seed: int) -> list:
    rng = np.random.default_rng(seed)
    trace = []
    while True:
        out = env.step(random_legal(env.action_masks(), rng))
        trace.append(out)
        if out[2] or out[3]:
            return trace


# ---------------------------------------------------------------------------------------------------------------
# Rewards on scripted hands (docs/rules.md X2, X3, X7, R37) under two presets
# ---------------------------------------------------------------------------------------------------------------

def scripted_hand(preset: str, learner_cards: str, opponent_cards: str, upcard: str, stock: str, opponent: Script,
                  learner_actions: list[str]) -> tuple[float, dict, GinRummyEnv]:
    """Deal with the learner as the non-dealer (player 0), play the learner's actions, return the last reward."""
    env = make(rules=preset, opponent=opponent, learner_seat=0)
    deck = make_deck(learner_cards, opponent_cards, upcard, stock)
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    for i, name in enumerate(learner_actions):
        _, reward, terminated, truncated, info = env.step(actions.parse(name))
        assert terminated == (i == len(learner_actions) - 1) and not truncated
    return reward, info, env


POINTS = {  # docs/rules.md section 12: (standard, eaai)
    "knock": (3, 3),        # X2: F 5 - K 2
    "undercut": (11, 26),   # X3: 1 + U
    "gin": (51, 56),        # X7: F 31 + G
}


@pytest.mark.parametrize("preset, column", [("standard", 0), ("eaai", 1)])
def test_knock_pays_the_knocker(preset, column):
    reward, info, env = scripted_hand(
        preset, "3S 4S 5S 8C 8D 8H JC QC KC 2D", "2S 6S 7S 8S 9C 9D 9H AH 4H TC", "KH", "QH", Script("PASS"),
        ["PASS", "DRAW_STOCK", "KNOCK(QH)"])
    assert info["outcome"]["kind"] == "knock" and info["outcome"]["winner"] == "learner"
    assert reward == pytest.approx(POINTS["knock"][column] / 100)
    assert_zero_sum(env, reward)


@pytest.mark.parametrize("preset, column", [("standard", 0), ("eaai", 1)])
def test_undercut_pays_the_defender(preset, column):
    reward, info, env = scripted_hand(
        preset, "5H 6H 7H QC QD QS 2C 3C 4C 6D", "8H 9H 5C AC QH KD KH KS 3D 2S", "TS", "KC", Script("PASS"),
        ["PASS", "DRAW_STOCK", "KNOCK(KC)"])
    assert info["outcome"]["kind"] == "undercut" and info["outcome"]["winner"] == "opponent"
    assert info["outcome"]["knocker"] == "learner"
    assert reward == pytest.approx(-POINTS["undercut"][column] / 100)
    assert_zero_sum(env, reward)


@pytest.mark.parametrize("preset, column", [("standard", 0), ("eaai", 1)])
def test_opponent_gin_costs_the_learner(preset, column):
    reward, info, env = scripted_hand(
        preset, "5S KD 7S 8C 8H 8S 2H 3H 4H 9C", "AS 2S 3S 4S 7C 7D 7H TD JD QD", "TC", "6C KC",
        Script("PASS", "DRAW_STOCK", "KNOCK(KC)"), ["PASS", "DRAW_STOCK", "DISCARD(6C)"])
    assert info["outcome"] == {"kind": "gin", "capped": False, "winner": "opponent", "points": -POINTS["gin"][column],
                               "knocker": "opponent", "knocker_deadwood": 0, "defender_deadwood": 31}
    assert reward == pytest.approx(-POINTS["gin"][column] / 100)
    assert_zero_sum(env, reward)


@pytest.mark.parametrize("preset", ["standard", "eaai"])
def test_dead_hand_pays_nothing(preset):
    env = make(rules=preset, opponent=passive)
    obs, info = env.reset(seed=31)
    steps = 0
    while True:
        _, reward, terminated, truncated, info = env.step(passive(view(env.state, env.learner), None))
        steps += 1
        if terminated:
            break
        assert reward == 0.0
    assert info["outcome"]["kind"] == "dead" and reward == 0.0
    assert engine.stock_size(env.state) == Rules.preset(preset).wall  # R37: the discard that left 2 cards
    assert steps >= 14


def assert_zero_sum(env: GinRummyEnv, reward: float) -> None:
    outcome = env.state.outcome
    assert outcome.player_points(env.learner) == -outcome.player_points(1 - env.learner)
    assert reward * env.reward_scale == pytest.approx(outcome.player_points(env.learner))


def test_reward_scale_divides_the_points():
    env = make(opponent=Script("PASS"), learner_seat=0, reward_scale=1)
    env.reset(seed=0, options={"deck": make_deck("3S 4S 5S 8C 8D 8H JC QC KC 2D", "2S 6S 7S 8S 9C 9D 9H AH 4H TC",
                                                 "KH", "QH"), "dealer": 1})
    for name in ("PASS", "DRAW_STOCK"):
        env.step(actions.parse(name))
    assert env.step(actions.parse("KNOCK(QH)"))[1] == 3.0


# ---------------------------------------------------------------------------------------------------------------
# Matches
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("preset, target", [("standard", 60), ("eaai", 60), ("openspiel", None)])
def test_match_reaches_the_target_and_pays_the_bonuses_of_match_py(preset, target):
    rules = Rules.preset(preset, target=target)
    env = make(rules=rules, episode="match", opponent="simple")
    rng = np.random.default_rng(7)
    env.reset(seed=7)
    total, hand_points = 0.0, 0
    while True:
        _, reward, terminated, truncated, info = env.step(random_legal(env.action_masks(), rng))
        total += reward
        assert not truncated
        if terminated:
            break
        if "outcome" in info:
            hand_points += info["outcome"]["points"]
            assert reward * 100 == pytest.approx(info["outcome"]["points"])
    m = env.match
    me, opp = env.learner, 1 - env.learner
    totals = match.final_totals(m)
    assert m.over and (target is None or max(m.scores) >= target)
    assert info["match"]["final_totals"] == (totals[me], totals[opp])
    assert info["match"]["scores"] == (m.scores[me], m.scores[opp])
    assert total * 100 == pytest.approx(totals[me] - totals[opp])
    last_hand = info["outcome"]["points"]
    bonus = (totals[me] - totals[opp]) - (m.scores[me] - m.scores[opp])
    assert reward * 100 == pytest.approx(last_hand + bonus)
    assert hand_points + last_hand == m.scores[me] - m.scores[opp]
    if preset == "standard":
        assert bonus != 0, "no bonus paid: the test would not see a missing bonus"
    else:
        assert bonus == 0


def test_match_hand_lost_before_the_learner_acts_is_paid_on_the_first_step():
    # The learner deals; the opponent takes the upcard QC and knocks with KC at once (E7): deadwood QC = 10.
    deck = make_deck("AS 2S 3S 4H 5H 6H 7D 8D 9D KC", "TS JH QH 2C 4C 6C 8C TD QD KD", "QC")
    env = make(episode="match", opponent=Script("TAKE_DISCARD", "KNOCK(KC)"), learner_seat=1)
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    first = env.match.history[0]
    assert first.kind == "knock" and first.winner == 0 and len(env.match.history) == 1
    _, reward, terminated, _, info = env.step(actions.PASS)
    assert not terminated and info["outcome"]["points"] == -first.points
    assert reward == pytest.approx(-first.points / 100)


@pytest.mark.parametrize("seed", [1229, 2964])
def test_a_step_that_ends_two_hands_reports_both(seed):
    """In a match, the opponent can end the next hand before the learner's first decision of it (R13: it takes the
    upcard and knocks), within the step that ended the last one. The reward pays both hands; ``outcome`` describes
    the second, ``hands_ended`` counts both and ``hand_points`` sums the learner's points, so over the match they add
    up to the scores (R34, R43). With these seeds a step ends two hands: mid-match (1229), and at the match's end
    (2964)."""
    env = make(rules="eaai", episode="match", opponent="simple")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    total, hand_points, hands, most = 0.0, 0, 0, 0
    while True:
        _, reward, terminated, truncated, info = env.step(random_legal(env.action_masks(), rng))
        total += reward
        if "outcome" in info:
            hand_points += info["hand_points"]
            hands += info["hands_ended"]
            most = max(most, info["hands_ended"])
            if info["hands_ended"] == 1:
                assert info["hand_points"] == info["outcome"]["points"]
        else:
            assert "hands_ended" not in info and "hand_points" not in info
        if terminated or truncated:
            break
    assert most == 2, "no step ended two hands: the seed no longer shows the case"
    me, opp = env.learner, 1 - env.learner
    assert hand_points == env.match.scores[me] - env.match.scores[opp]
    assert hands == info["match"]["hands"] == len(env.match.history)
    assert total * 100 == pytest.approx(hand_points)  # eaai: no end-of-game bonuses


def test_scripted_deck_that_ends_before_the_learner_acts_is_refused_in_hand_episodes():
    deck = make_deck("AS 2S 3S 4H 5H 6H 7D 8D 9D KC", "TS JH QH 2C 4C 6C 8C TD QD KD", "QC")
    env = make(opponent=Script("TAKE_DISCARD", "KNOCK(KC)"), learner_seat=1)
    with pytest.raises(ValueError, match="before the learner's first decision"):
        env.reset(seed=0, options={"deck": deck, "dealer": 1})


# ---------------------------------------------------------------------------------------------------------------
# Illegal actions, truncation, seats
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [200, -1, np.int64(-5), np.uint64(2**63 + 1)])
def test_illegal_action_is_penalized_and_ends_the_episode(bad):
    env = make(learner_seat=0)
    env.reset(seed=1, options={"dealer": 1})  # the learner opens with the upcard offer: DRAW_STOCK is illegal
    for action in (actions.DRAW_STOCK, bad):
        env.reset(seed=1, options={"dealer": 1})
        obs, reward, terminated, truncated, info = env.step(action)
        assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
        assert not info["action_mask"].any() and env.observation_space.contains(obs)
        with pytest.raises(RuntimeError, match="reset"):
            env.step(actions.PASS)


@pytest.mark.parametrize("illegal_action", ["penalize", "raise"])
@pytest.mark.parametrize(("bad", "error", "message"), [
    (1.0, TypeError, "integer action id"), (float("nan"), TypeError, "integer action id"),
    (np.float32(1), TypeError, "integer action id"), ("1", TypeError, "integer action id"),
    (None, TypeError, "integer action id"), (True, TypeError, "integer action id"),
    (np.array([1]), ValueError, "shape"), (np.array([[1, 2]]), ValueError, "shape")])
def test_non_integer_actions_are_an_error_whatever_illegal_action_says(illegal_action, bad, error, message):
    """One rule in every env: an action is an integer; anything else is the caller's mistake and changes nothing."""
    env = make(learner_seat=0, illegal_action=illegal_action)
    env.reset(seed=1, options={"dealer": 1})
    with pytest.raises(error, match=message):
        env.step(bad)
    assert env.step(np.array(actions.PASS))[2] is False  # the episode goes on from where it was


def test_illegal_action_raise_names_the_action_phase_and_legal_actions():
    env = make(illegal_action="raise", learner_seat=0)
    env.reset(seed=1, options={"dealer": 1})
    with pytest.raises(ValueError) as err:
        env.step(np.int64(actions.discard(0)))
    message = str(err.value)
    assert "DISCARD(AS)" in message and "'offer'" in message and "TAKE_DISCARD, PASS" in message
    env.step(actions.PASS)  # the state was left as it was (R18)


def test_max_steps_truncates():
    env = make(max_steps=2, opponent=passive)
    env.reset(seed=2)
    assert env.step(passive(view(env.state, env.learner), None))[3] is False
    _, _, terminated, truncated, _ = env.step(passive(view(env.state, env.learner), None))
    assert truncated and not terminated


def test_learner_seat_is_drawn_unless_fixed():
    env = make()
    seats = {env.reset(seed=s) and env.learner for s in range(12)}
    assert seats == {0, 1}
    env = make(learner_seat=1)
    assert {env.reset(seed=s) and env.learner for s in range(6)} == {1}


def test_unknown_reset_option_is_rejected():
    with pytest.raises(ValueError, match="unknown reset options"):
        make().reset(seed=0, options={"dek": []})


# ---------------------------------------------------------------------------------------------------------------
# Pickling, subprocesses, training
# ---------------------------------------------------------------------------------------------------------------

def test_env_pickles_mid_episode_and_continues_identically():
    env = make(opponent="simple", episode="match")
    rng = np.random.default_rng(8)
    env.reset(seed=8)
    for _ in range(5):
        env.step(random_legal(env.action_masks(), rng))
    clone = pickle.loads(pickle.dumps(env))
    for _ in range(40):
        a = random_legal(env.action_masks(), rng)
        out, out_clone = env.step(a), clone.step(a)
        assert same(out, out_clone)
        if out[2]:
            break


def test_runs_under_subproc_vec_env_with_masks():
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv([functools.partial(GinRummyEnv, opponent="simple") for _ in range(2)], start_method="fork")
    try:
        venv.seed(5)
        obs = venv.reset()
        rng = np.random.default_rng(5)
        for _ in range(60):
            masks = np.stack(venv.env_method("action_masks"))
            assert masks.shape == (2, 108) and masks.dtype == bool and masks.any(axis=1).all()
            obs, rewards, dones, infos = venv.step(np.array([random_legal(m, rng) for m in masks]))
            assert obs.shape == (2, OBS_SIZE) and obs.dtype == np.float32
    finally:
        venv.close()


def test_maskable_ppo_trains_2048_steps_and_only_picks_legal_actions():
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    # "raise" turns any illegal pick during training into a test failure. The env keeps gym.make's wrappers, as a
    # user's would: MaskablePPO must find action_masks() through them.
    env = gym.make("GinRummy-v0", opponent="simple", illegal_action="raise")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny network: extra threads only add contention on a shared CI machine
    try:
        model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0, device="cpu",
                            policy_kwargs={"net_arch": [64, 64]})
        model.learn(total_timesteps=2048)
        assert model.num_timesteps >= 2048
        obs, _ = env.reset(seed=1)
        for _ in range(200):
            mask = env.unwrapped.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert mask[int(action)]
            obs, _, terminated, truncated, _ = env.step(int(action))
            if terminated or truncated:
                obs, _ = env.reset()
    finally:
        torch.set_num_threads(threads)


def test_benchmark_script_runs_and_writes_json(tmp_path, capsys):
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_env.py"
    spec = importlib.util.spec_from_file_location("bench_env", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "bench.json"
    assert bench.main(["--seconds", "0.05", "--rounds", "1", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["per_cpu_second"][bench.ENGINE] > 0
    assert "gin-env engine" in capsys.readouterr().out


def test_an_opponent_read_by_mask_plays_the_same_episodes_as_through_its_view():
    """An agent with ``act_on_mask`` (the random one) is called with the legal mask and no view; it must choose what
    ``act`` chooses from the view, so the episodes (observations, rewards, infos) are the same either way."""
    from gin_env.agents.random_agent import RandomAgent

    agent = RandomAgent()
    through_view = rollout(make(opponent=lambda v, rng: agent.act(v, rng)), seed=5, episodes=6)
    by_mask = rollout(make(opponent=agent), seed=5, episodes=6)
    assert same(through_view, by_mask)
    assert not same(by_mask, rollout(make(opponent=agent), seed=6, episodes=6))


def test_an_opponent_read_by_mask_that_picks_an_illegal_action_is_named_with_the_legal_ones():
    class Stubborn:
        def act(self, v, rng) -> int:
            raise AssertionError("an agent with act_on_mask gets no view")

        def act_on_mask(self, legal_mask, rng) -> int:
            return actions.BIG_GIN

    env = GinRummyEnv(opponent=Stubborn(), learner_seat=0)
    with pytest.raises(engine.IllegalActionError, match=r"chose 3, which is not legal: phase 'offer'.*PASS"):
        env.reset(seed=0, options={"dealer": 0})
