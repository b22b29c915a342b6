"""Golden trajectories: what GinRummy-v0, the vector env and the PettingZoo env return for fixed seeds, under every
preset, with ``episode="hand"`` and ``"match"``, kept as one sha256 per run over the exact bytes of every
observation, mask, reward, termination, truncation, info and ansi text, plus a few raw numbers to read.

``tests/test_golden.py`` replays the same runs and compares them with ``tests/data/golden/trajectories.json``, so a
refactoring that changes any of those bytes fails. Bytes are a fair promise there, on any CPU: every number an env
returns is an integer, a card plane of zeros and ones, or integer points divided by the reward scale, which IEEE
arithmetic rounds the same way everywhere. Reports, whose statistics and Elo go through reductions and a least
squares solve that differ in their last bits by CPU (OpenBLAS and numpy pick kernels by the instruction set), are
compared by :func:`assert_same_report`: exact for every string, integer and flag, within :data:`REPORT_RTOL` for
every float. To write the file again (only when a change of behaviour is
meant, and said in its commit)::

    python -m tests.golden
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys

import numpy as np

from gin_env.files import atomic_write
from gin_env.game.actions import BIG_GIN, KNOCK_BASE
from gin_env.game.rules import PRESETS

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "data", "golden", "trajectories.json")
EPISODES = ("hand", "match")
#: Episodes of GinRummy-v0 and of the PettingZoo env per (preset, episode kind); vector env steps per run.
SCALAR_EPISODES = {"hand": 20, "match": 3}
VECTOR_GAMES = 8
VECTOR_STEPS = {"hand": 100, "match": 200}
#: The opponent inside GinRummy-v0 and the vector env per episode kind (both have a batched form).
OPPONENTS = {"hand": "simple", "match": "expert"}
KNOCK_PREFERENCE = 0.8
#: Arguments of the runs besides the default ones, keyed by their name in the file: a fixed seat, another scale,
#: and truncation by ``max_steps`` (not for PettingZoo, which has none of them).
OPTIONS = {"default": {}, "seat1-scale10-max15": {"learner_seat": 1, "reward_scale": 10.0, "max_steps": 15}}


#: The relative tolerance of a report's floats (a win rate, an interval, an Elo) against the recorded ones: far below
#: any digit a report prints, far above the last-bit differences between CPUs.
REPORT_RTOL = 1e-9


def assert_same_report(actual, expected, where: str = "report") -> None:
    """``actual`` is the ``expected`` JSON value: the same keys in the same order, the same integers, strings,
    booleans and nulls exactly, and floats within :data:`REPORT_RTOL` (1e-12 absolute near zero); ``where`` names
    the place of a difference."""
    if isinstance(expected, float):
        assert isinstance(actual, float), f"{where}: {actual!r} is not a float like {expected!r}"
        assert math.isclose(actual, expected, rel_tol=REPORT_RTOL, abs_tol=1e-12), \
            f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), f"{where}: keys differ"
        for key in expected:
            assert_same_report(actual[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: lengths differ"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same_report(a, e, f"{where}[{i}]")
    else:
        assert type(actual) is type(expected) and actual == expected, f"{where}: {actual!r} != {expected!r}"


def canonical(value) -> bytes:
    """Exact bytes of a value returned by an env: arrays with dtype and shape, dicts by sorted key, floats by repr."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return b"O" + canonical(value.tolist())
        return f"A{value.dtype.str}{value.shape}".encode() + value.tobytes()
    if isinstance(value, dict):
        return b"{" + b",".join(canonical(k) + b":" + canonical(value[k]) for k in sorted(value)) + b"}"
    if isinstance(value, (list, tuple)):
        return b"[" + b",".join(canonical(v) for v in value) + b"]"
    if isinstance(value, (bool, np.bool_)):
        return b"T" if value else b"F"
    if isinstance(value, (int, np.integer)):
        return b"i" + str(int(value)).encode()
    if isinstance(value, (float, np.floating)):
        return b"f" + repr(float(value)).encode()
    if value is None or isinstance(value, str):
        return b"s" + repr(value).encode()
    raise TypeError(f"no canonical form for {type(value).__name__}")


def _picks(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row of ``masks``: with probability 0.8 a knock or big gin when one is legal (so that hands
    end and pay, and matches finish), otherwise uniform over the legal actions."""
    keys = rng.random(masks.shape)
    keys[:, KNOCK_BASE:] += rng.random((masks.shape[0], 1)) < KNOCK_PREFERENCE
    keys[:, BIG_GIN] += 1.0
    keys[~masks] = -1.0
    return keys.argmax(axis=1)


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(_picks(mask[None, :], rng)[0])


def scalar_run(preset: str, episode: str, **options) -> dict:
    """GinRummy-v0 with a random learner (``_picks``), ``SCALAR_EPISODES[episode]`` episodes from seed 11."""
    from gin_env.envs.gin_rummy import GinRummyEnv

    env = GinRummyEnv(rules=preset, opponent=OPPONENTS[episode], episode=episode, render_mode="ansi", **options)
    rng = np.random.default_rng(5)
    digest, steps, total = hashlib.sha256(), 0, 0.0
    for e in range(SCALAR_EPISODES[episode]):
        obs, info = env.reset(seed=11 + e)
        digest.update(canonical([obs, info]) + env.render().encode())
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(_pick(env.action_masks(), rng))
            digest.update(canonical([obs, reward, terminated, truncated, info]) + env.render().encode())
            steps, total, done = steps + 1, total + reward, terminated or truncated
    return {"sha256": digest.hexdigest(), "steps": steps, "reward_sum": total}


def vector_run(preset: str, episode: str, **options) -> dict:
    """The vector env with random learners (``_picks``): ``VECTOR_GAMES`` games for ``VECTOR_STEPS[episode]`` steps
    from seed 11."""
    from gin_env.envs.vector import GinRummyVectorEnv

    env = GinRummyVectorEnv(num_envs=VECTOR_GAMES, rules=preset, opponent=OPPONENTS[episode], episode=episode,
                            **options)
    rng = np.random.default_rng(5)
    obs, info = env.reset(seed=11)
    digest, total, ended = hashlib.sha256(canonical([obs, info])), 0.0, 0
    for _ in range(VECTOR_STEPS[episode]):
        obs, reward, terminated, truncated, info = env.step(_picks(env.action_masks(), rng))
        digest.update(canonical([obs, reward, terminated, truncated, info]))
        total += float(reward.sum())
        ended += int((terminated | truncated).sum())
    return {"sha256": digest.hexdigest(), "episodes_ended": ended, "reward_sum": total}


def pettingzoo_run(preset: str, episode: str) -> dict:
    """The PettingZoo env, player_0 random (``_picks``) and player_1 the simple agent (reading its view of the
    engine's state), ``SCALAR_EPISODES[episode]`` episodes from seed 11 (the reward sum is player_0's)."""
    from gin_env import agents
    from gin_env.envs.pettingzoo import GinRummyAEC
    from gin_env.game.observation import view

    simple = agents.load("simple")

    env = GinRummyAEC(rules=preset, episode=episode, render_mode="ansi")
    rng = np.random.default_rng(5)
    digest, steps, total = hashlib.sha256(), 0, 0.0
    for e in range(SCALAR_EPISODES[episode]):
        env.reset(seed=11 + e)
        while env.agents:
            agent = env.agent_selection
            obs, reward, terminated, truncated, info = env.last()
            digest.update(canonical([agent, obs, reward, terminated, truncated, info, env.rewards, env.infos,
                                     env.terminations, env.truncations]) + env.render().encode())
            if terminated or truncated:
                action = None
            elif agent == "player_0":
                action = _pick(obs["action_mask"].astype(bool), rng)
            else:
                action = simple.act(view(env.state, 1, env.match.scores if env.match else (0, 0)), rng)
            env.step(action)
            steps, total = steps + 1, total + env.rewards.get("player_0", 0.0)
    return {"sha256": digest.hexdigest(), "steps": steps, "reward_sum": total}


RUNS = {"scalar": scalar_run, "vector": vector_run, "pettingzoo": pettingzoo_run}


def cases() -> list[tuple[str, str, str, str]]:
    """Every run as (env, preset, episode, options name)."""
    return [(name, preset, episode, option) for name in RUNS for preset in PRESETS for episode in EPISODES
            for option in OPTIONS if option == "default" or name != "pettingzoo"]


def run_case(name: str, preset: str, episode: str, option: str) -> dict:
    return RUNS[name](preset, episode, **OPTIONS[option])


def key(name: str, preset: str, episode: str, option: str) -> str:
    return f"{name}/{preset}/{episode}/{option}"


def record() -> dict:
    """Every run's numbers, keyed ``env/preset/episode/options``."""
    return {key(*case): run_case(*case) for case in cases()}


def main() -> int:
    with atomic_write(GOLDEN_PATH) as f:
        json.dump(record(), f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {GOLDEN_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
