"""Environment speed: player actions per second under random legal play, ours against OpenSpiel and RLCard.

What is counted, the same way for every engine, in one process and one run:

* engine rows: a player action is one decision of a player (chance nodes are not counted). Each decision builds
  that player's observation, picks a uniformly random legal action and applies it; hands are dealt again as they
  end (dealing counts toward the time, not the actions). Ours: ``observation.view`` + ``encode`` and
  ``engine.step``; the batched engine does the same for 4,096 games at a time (``batch_view`` + ``encode_batch``
  and ``HandBatch.step``, each decision of each game counted once). OpenSpiel: ``pyspiel.load_game("gin_rummy")``,
  ``observation_tensor(player)`` and
  ``apply_action``. RLCard: ``rlcard.make("gin-rummy")`` and ``env.step``, which builds the next player's state.
* env rows: learner steps of ``GinRummy-v0`` (``env.step`` with a random legal action from ``action_masks()``),
  the opponent's moves happening inside; one learner step is about two player actions.

Time is CPU time of this process (``time.process_time``), so other load on the machine does not count against
any row. The rows run in turn, ``--rounds`` times, and each row reports its best round. OpenSpiel and RLCard rows
are skipped when they are not installed. Usage::

    python benchmarks/bench_env.py [--seconds 2] [--rounds 3] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_env.batch.hand_batch import HandBatch  # noqa: E402
from gin_env.batch.observation import batch_view, encode_batch  # noqa: E402
from gin_env.envs.gin_rummy import GinRummyEnv  # noqa: E402
from gin_env.game import engine
from gin_env.game.observation import encode, view  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


ENGINE = "gin-env engine (view + encode + step)"
BATCHED = "gin-env batched engine, 4096 games (same, batched)"
OPENSPIEL = f"OpenSpiel {_version('open_spiel')} (observation_tensor + step)"
RLCARD = f"RLCard {_version('rlcard')} (env.step)"
#: The floors of the issue: our engine's actions/s over each baseline's (the batched engine's, the faster of ours).
TARGETS = {OPENSPIEL: 2.0, RLCARD: 10.0}

#: A row: given a CPU-time budget in seconds, play and return how many actions (or learner steps) it made.
Runner = Callable[[float], int]


def ours(seed: int) -> Runner:
    rules = Rules.preset("standard")
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)  # the baselines' choice of action, so no row pays more for its dice

    def run(budget: float) -> int:
        actions = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            state = engine.new_hand(rules, rng, dealer=int(rng.integers(2)))
            while state.phase != engine.OVER:
                v = view(state, state.current)
                encode(v)
                legal = v.legal_mask.nonzero()[0]
                state = engine.step(state, int(legal[pick.randrange(legal.size)]))
                actions += 1
        return actions

    return run


def batched(seed: int, games: int = 4096) -> Runner:
    """The batched engine: every decision of every game builds the acting player's view and its encoding, picks a
    uniformly random legal action from the view's mask and applies it; finished hands are dealt again."""
    rules = Rules.preset("standard")
    rng = np.random.default_rng(seed)
    b = HandBatch(rules, games)
    everyone = np.arange(games)

    def deal(which: np.ndarray) -> None:
        b.deal(which, rng.permuted(np.tile(np.arange(52), (which.size, 1)), axis=1), rng.integers(2, size=which.size))

    deal(everyone)

    def run(budget: float) -> int:
        actions = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            v = batch_view(b, everyone, b.current)
            encode_batch(v)
            keys = rng.random(v.legal_mask.shape, dtype=np.float32)
            keys[~v.legal_mask] = -1.0
            b.step(everyone, keys.argmax(axis=1))
            actions += games
            over = np.flatnonzero(b.phase == engine.OVER)
            if over.size:
                deal(over)
        return actions

    return run


def openspiel(seed: int) -> Runner | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(seed)

    def run(budget: float) -> int:
        actions = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                    continue
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                actions += 1
        return actions

    return run


def rlcard_env(seed: int) -> Runner | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)

    def run(budget: float) -> int:
        actions = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[rng.randrange(len(legal))])
                actions += 1
        return actions

    return run


def gym_env(seed: int, opponent: str) -> Runner:
    env = GinRummyEnv(opponent=opponent)
    pick = random.Random(seed)
    env.reset(seed=seed)

    def run(budget: float) -> int:
        steps = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            legal = env.action_masks().nonzero()[0]
            _, _, terminated, truncated, _ = env.step(int(legal[pick.randrange(legal.size)]))
            steps += 1
            if terminated or truncated:
                env.reset()
        return steps

    return run


def measure(runners: dict[str, Runner | None], seconds: float, rounds: int) -> dict[str, float | None]:
    """Best rate of each row over ``rounds`` interleaved rounds, so a slow spell of the machine hits every row."""
    best: dict[str, float | None] = {name: None if run is None else 0.0 for name, run in runners.items()}
    for _ in range(rounds):
        for name, run in runners.items():
            if run is None:
                continue
            start = time.process_time()
            count = run(seconds)
            best[name] = max(best[name], count / (time.process_time() - start))
    return best


def table(rates: dict[str, float | None]) -> str:
    lines = [f"| {'':48} | {'per CPU second':>14} | {'x OpenSpiel':>11} | {'x RLCard':>8} |",
             f"|{'-' * 50}|{'-' * 15}:|{'-' * 12}:|{'-' * 9}:|"]
    for name, rate in rates.items():
        if rate is None:
            lines.append(f"| {name:48} | {'not installed':>14} | {'':>11} | {'':>8} |")
            continue
        ratios = [f"{rate / rates[b]:.2f}" if rates.get(b) else "-" for b in (OPENSPIEL, RLCARD)]
        lines.append(f"| {name:48} | {rate:>14,.0f} | {ratios[0]:>11} | {ratios[1]:>8} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per row and round (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best counts (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)

    runners = {
        ENGINE: ours(args.seed),
        BATCHED: batched(args.seed),
        OPENSPIEL: openspiel(args.seed),
        RLCARD: rlcard_env(args.seed),
        "GinRummy-v0, random opponent (learner steps)": gym_env(args.seed, "random"),
        "GinRummy-v0, simple opponent (learner steps)": gym_env(args.seed, "simple"),
    }
    rates = measure(runners, args.seconds, args.rounds)
    print(table(rates))
    verdicts = {}
    for baseline, target in TARGETS.items():
        if rates[baseline]:
            for name in (ENGINE, BATCHED):
                ratio = rates[name] / rates[baseline]
                verdicts[f"{name} vs {baseline}"] = {"ratio": ratio, "target": target, "met": ratio >= target}
                verdict = "met" if ratio >= target else "NOT met"
                print(f"{name} vs {baseline}: {ratio:.2f}x (target {target:g}x: {verdict})")
    if args.json:
        Path(args.json).write_text(json.dumps({"seconds": args.seconds, "rounds": args.rounds, "seed": args.seed,
                                               "per_cpu_second": rates, "targets": verdicts}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
