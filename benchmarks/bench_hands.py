"""Hands per CPU second under random play: GinRummy-v0 and the vector env against OpenSpiel and RLCard, in one run.

    python benchmarks/bench_hands.py [--seconds 3] [--rounds 3] [--sizes 64 256 1024 16384]
                                     [--json out.json] [--plot out.png]

Every row plays whole hands, in one process, and counts hands finished per CPU second of that process
(``time.process_time``), so other load on the machine does not count against a row:

* ``GinRummy-v0`` (``episode="hand"``, random opponent inside ``step``): a uniformly random legal learner action
  from ``action_masks()`` each step; ``step`` builds the learner's observation at every learner decision.
* vector env, N games (``GinRummyVectorEnv``, random opponent): the same for N games per ``step``; the learner's
  random actions are drawn inside the timed loop too.
* OpenSpiel (``pyspiel.load_game("gin_rummy")``): random chance outcomes and random legal actions for both
  players, ``observation_tensor(0)`` at each of player 0's decisions.
* RLCard (``rlcard.make("gin-rummy")``): ``env.step`` with a random legal action for both players (RLCard builds
  the next player's state in every step).

Rows run in turn, ``--rounds`` times, and each reports its best round. Memory per game: for our rows, the peak of
numpy and Python allocations (``tracemalloc``) while making the env, resetting it and stepping it ten times (after
doing so once untraced, which loads the compiled kernels), divided by the games; for OpenSpiel, the growth of the
process's resident memory when it holds 4,096 states mid-hand, divided by 4,096 (its states live in C++, out of
``tracemalloc``'s sight).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_env.batch.hand_batch import masks_to_bits, random_set_bit  # noqa: E402  (after the path setup above: a checkout runs as is)
from gin_env.envs.gin_rummy import GinRummyEnv  # noqa: E402
from gin_env.envs.vector import GinRummyVectorEnv  # noqa: E402

#: A row: given a CPU-time budget in seconds, play and return how many hands it finished.
Runner = Callable[[float], int]

OPENSPIEL = "OpenSpiel"
RLCARD = "RLCard"
GYM = "GinRummy-v0"
#: The issue's floors: our hands/s over OpenSpiel's, per row (None: no regression asked, nothing to meet).
FLOORS = {GYM: 2.0, "vector env, 64 games": 10.0, "vector env, 256 games": 20.0, "vector env, 1,024 games": 50.0,
          "vector env, 16,384 games": None}
#: Resident memory is read from here (pages), for OpenSpiel's states that tracemalloc cannot see.
_STATM = Path("/proc/self/statm")


def vector_name(n: int) -> str:
    return f"vector env, {n:,} games"


def openspiel(seed: int) -> Runner | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(seed)

    def run(budget: float) -> int:
        hands = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                    continue
                if state.current_player() == 0:
                    state.observation_tensor(0)
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            hands += 1
        return hands

    return run


def rlcard_env(seed: int) -> Runner | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)

    def run(budget: float) -> int:
        hands = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[rng.randrange(len(legal))])
            hands += 1
        return hands

    return run


def gym_env(seed: int) -> Runner:
    env = GinRummyEnv(opponent="random")
    pick = random.Random(seed)
    env.reset(seed=seed)

    def run(budget: float) -> int:
        hands = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            legal = env.action_masks().nonzero()[0]
            _, _, terminated, truncated, _ = env.step(int(legal[pick.randrange(legal.size)]))
            if terminated or truncated:
                hands += 1
                env.reset()
        return hands

    return run


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``: floor(u * n) among the row's n legal actions, found
    in the mask packed to bits (a quarter of the cost of ranking 108 random keys per row at 1,024 games)."""
    return random_set_bit(masks_to_bits(masks), rng)


def vector_env(seed: int, n: int, rules: str = "standard") -> Runner:
    env = GinRummyVectorEnv(num_envs=n, opponent="random", rules=rules)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def run(budget: float) -> int:
        hands = 0
        deadline = time.process_time() + budget
        while time.process_time() < deadline:
            _, _, terminated, truncated, _ = env.step(random_actions(env.action_masks(), rng))
            hands += int(np.count_nonzero(terminated | truncated))
        return hands

    return run


def our_memory_per_game(make: Callable[[], object], games: int, seed: int) -> float:
    """Peak bytes allocated while making an env, resetting it and taking ten random steps, per game. The same is
    done once untraced first, so that loading the compiled kernels (once per process) is not counted per game."""
    _make_and_play(make, seed)
    tracemalloc.start()
    _make_and_play(make, seed)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / games


def _make_and_play(make: Callable[[], object], seed: int) -> None:
    rng = np.random.default_rng(seed)
    env = make()
    env.reset(seed=seed)
    for _ in range(10):
        masks = env.action_masks()
        if masks.ndim == 1:
            env.step(int(random_actions(masks[None], rng)[0]))
        else:
            env.step(random_actions(masks, rng))


def resident_bytes() -> int:
    import resource

    return int(_STATM.read_text().split()[1]) * resource.getpagesize()


def openspiel_memory_per_game(seed: int, games: int = 4096) -> float | None:
    """Resident memory growth per OpenSpiel state held mid-hand (30 random moves in)."""
    try:
        import pyspiel
    except ImportError:
        return None
    if not _STATM.exists():
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(seed)
    before = resident_bytes()
    held = []
    for _ in range(games):
        state = game.new_initial_state()
        moves = 0
        while moves < 30 and not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                moves += 1
        held.append(state)
    return (resident_bytes() - before) / games


def measure(runners: dict[str, Runner], seconds: float, rounds: int) -> dict[str, float]:
    """Best hands per CPU second of each row over ``rounds`` interleaved rounds, with a progress bar."""
    best = dict.fromkeys(runners, 0.0)
    with tqdm(total=rounds * len(runners), unit="row", desc="measuring") as bar:
        for _ in range(rounds):
            for name, run in runners.items():
                bar.set_postfix_str(name)
                start = time.process_time()
                hands = run(seconds)
                best[name] = max(best[name], hands / (time.process_time() - start))
                bar.update()
    return best


def table(rates: dict[str, float], memory: dict[str, float | None]) -> str:
    lines = ["| what | hands per CPU second | x OpenSpiel | x RLCard | floor (x OpenSpiel) | memory per game |",
             "|---|---:|---:|---:|---|---:|"]
    for name, rate in rates.items():
        ratios = [f"{rate / rates[b]:.1f}x" if rates.get(b) else "-" for b in (OPENSPIEL, RLCARD)]
        floor = "-"
        if name in FLOORS:
            target = FLOORS[name]
            if target is None:
                floor = "no regression"
            elif rates.get(OPENSPIEL):
                floor = f"{target:g}x: {'met' if rate / rates[OPENSPIEL] >= target else 'NOT met'}"
        mem = memory.get(name)
        mem_text = "-" if mem is None else f"{mem / 1024:,.1f} KiB"
        lines.append(f"| {name} | {rate:,.0f} | {ratios[0]} | {ratios[1]} | {floor} | {mem_text} |")
    return "\n".join(lines)


def plot(rates: dict[str, float], sizes: list[int], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot(sizes, [rates[vector_name(n)] for n in sizes], "o-", label="GinRummyVectorEnv, random play")
    for name, style in ((GYM, ":"), (OPENSPIEL, "--"), (RLCARD, "-.")):
        if name in rates:
            ax.axhline(rates[name], color="gray", linestyle=style, label=name)
    if OPENSPIEL in rates:
        floors = [FLOORS.get(vector_name(n)) for n in sizes]
        ax.plot([n for n, f in zip(sizes, floors) if f], [f * rates[OPENSPIEL] for f in floors if f], "v",
                color="tab:red", label="floor (x OpenSpiel)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("games per batch (N)")
    ax.set_ylabel("hands per CPU second (one process)")
    ax.set_title("Hands per second, random play with observations")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per row and round (default 3)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best counts (default 3)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024, 16384], help="vector env sizes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG of hands/s against N")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or min(args.sizes) < 1:
        parser.error("--seconds must be positive, --rounds and every size at least 1")

    memory: dict[str, float | None] = {
        GYM: our_memory_per_game(lambda: GinRummyEnv(opponent="random"), 1, args.seed),
        **{vector_name(n): our_memory_per_game(lambda n=n: GinRummyVectorEnv(num_envs=n, opponent="random"), n,
                                               args.seed) for n in args.sizes},
        OPENSPIEL: openspiel_memory_per_game(args.seed),
    }
    runners: dict[str, Runner] = {}
    for name, runner in ((OPENSPIEL, openspiel(args.seed)), (RLCARD, rlcard_env(args.seed))):
        if runner is None:
            print(f"{name} is not installed: its row and ratios are left out")
        else:
            runners[name] = runner
    runners[GYM] = gym_env(args.seed)
    for n in args.sizes:
        runners[vector_name(n)] = vector_env(args.seed, n)
    rates = measure(runners, args.seconds, args.rounds)
    print(f"\nOpenSpiel {_version('open_spiel')}, RLCard {_version('rlcard')}, numpy {np.__version__}; "
          f"best of {args.rounds} rounds of {args.seconds:g} CPU s per row\n")
    print(table(rates, memory))
    if args.json:
        Path(args.json).write_text(json.dumps({"seconds": args.seconds, "rounds": args.rounds, "seed": args.seed,
                                               "hands_per_cpu_second": rates, "memory_per_game_bytes": memory},
                                              indent=2))
        print(f"wrote {args.json}")
    if args.plot:
        plot(rates, args.sizes, args.plot)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
