"""``gin-env train-belief``: a belief network (``gin_env.belief.network``) fitted to the hidden cards of played
games.

Each game of the run pairs two players drawn from ``--players`` (with replacement, by the game's own generator) and
plays a duplicate game to the target under ``--rules`` (with any ``--rule KEY=VALUE`` change). At a ``--keep``
share of the decisions (drawn by the game's generator) the view of the player to act is encoded (the network's
inputs) with the opponent's hidden cards (its hand less what the view shows), and the network learns each unseen
card's chance of being one of them (binary cross-entropy over the unseen cards). The last ``--held-out`` share of
the games is kept out of the fit; the command prints the held-out loss beside a uniform guess's, and the share of
the hidden cards that the network's most likely hands get right beside the uniform share. The same seed and options
give the same data whatever ``--workers``; the fit is repeatable given the seed on one machine (torch's float sums
may differ across CPUs).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gin_env import agents, files
from gin_env.arguments import ArgumentParser, at_least
from gin_env.belief.network import INPUTS, check_hidden_widths, layers_of, logits
from gin_env.evaluation import duel, runner
from gin_env.game import cards, engine, rule_options
from gin_env.game.observation import OBS_LAYOUT, encode, view
from gin_env.game.rules import Rules
from gin_env.optional import require
from gin_env.training.opponents import listed

#: The players the shipped ``belief-v1`` watched: the networks, the expert, simple and the styles.
PLAYERS = ("ppo", "ppo-expert", "exit", "expert", "simple", "early-knocker", "gin-hunter", "knocker", "undercutter")
#: Games per piece of work sent to a worker.
CHUNK = 25
#: The most games (``--games``): their kept decisions are held in memory for the fit, a few kB a game.
MAX_GAMES = 200_000
#: Rows per step of the fit.
BATCH = 1024
#: The learning rate at the peak of the one-cycle schedule.
PEAK_RATE = 2e-3
#: The hidden layers of the network :func:`fit` trains, each of ``--width`` units.
HIDDEN_LAYERS = 2


@dataclass(frozen=True)
class Recipe:
    """What the games are: the players to draw from, the rules, the seed and the share of decisions kept."""

    players: tuple[str, ...]
    rules: Rules
    seed: int
    keep: float


def play_games(recipe: Recipe, start: int, stop: int,
               on_game: Callable[[], None] = lambda: None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kept decisions of games ``start`` to ``stop - 1``: ``(rows, INPUTS)`` float16 inputs, ``(rows,)`` uint64
    hidden cards and ``(rows,)`` the game each row came from; ``on_game()`` after each game."""
    loaded = {name: agents.load(name) for name in set(recipe.players)}
    rows = _Rows(recipe.keep)
    for game in range(start, stop):
        rows.rng, rows.game = np.random.default_rng([recipe.seed, game]), game
        a, b = rows.rng.integers(len(recipe.players), size=2)
        duel.play_duplicate(recipe.rules, loaded[recipe.players[a]], loaded[recipe.players[b]], recipe.seed, game,
                            observers=(rows.watch, rows.watch))
        on_game()
    inputs, hidden, of_game = rows.inputs, rows.hidden, rows.of_game
    x = np.stack(inputs) if inputs else np.empty((0, INPUTS), dtype=np.float16)
    return x, np.asarray(hidden, dtype=np.uint64), np.asarray(of_game, dtype=np.int64)


class _Rows:
    """The duel observer that keeps a ``keep`` share of the decisions of the game ``game``, drawn by ``rng``."""

    def __init__(self, keep: float) -> None:
        self.keep, self.rng, self.game = keep, np.random.default_rng(0), -1
        self.inputs: list[np.ndarray] = []
        self.hidden: list[int] = []
        self.of_game: list[int] = []

    def watch(self, state: engine.HandState, action: int) -> None:
        if self.rng.random() < self.keep:
            v = view(state, state.current)
            self.inputs.append(encode(v)[:INPUTS].astype(np.float16))
            self.hidden.append(state.hands[1 - state.current] & v.unseen)
            self.of_game.append(self.game)


def collect(recipe: Recipe, games: range, workers: int,
            progress: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`play_games` of ``games`` on ``workers`` processes, in game order, with a bar."""
    parts = runner.play_in_pieces(play_games, recipe, games, CHUNK, workers, progress, "game")
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def unseen_of(x: np.ndarray) -> np.ndarray:
    """(rows, 52) bool: the unseen cards of each encoded view, the only cards the loss and the guesses read."""
    return x[:, OBS_LAYOUT["unseen"]] > 0.5


def fit(x: np.ndarray, hidden: np.ndarray, width: int, epochs: int, seed: int, progress: bool) -> dict:
    """A network of two rectified hidden layers of ``width`` units fitted to the rows: the weights file's arrays."""
    torch = require("torch", "training")
    tqdm = require("tqdm", "training's progress bar").tqdm
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(INPUTS, width), torch.nn.ReLU(), torch.nn.Linear(width, width),
                              torch.nn.ReLU(), torch.nn.Linear(width, cards.N_CARDS))
    inputs = torch.from_numpy(x.astype(np.float32))
    targets = torch.from_numpy(cards.masks_to_array(hidden).astype(np.float32))
    unseen = torch.from_numpy(unseen_of(x).astype(np.float32))
    steps = max(1, len(x) // BATCH)
    optimizer = torch.optim.Adam(net.parameters(), lr=PEAK_RATE)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, PEAK_RATE, total_steps=epochs * steps)
    generator = torch.Generator().manual_seed(seed)
    with tqdm(total=epochs * steps, desc="fitting", unit="step", disable=not progress) as bar:
        for _ in range(epochs):
            order = torch.randperm(len(x), generator=generator)
            for i in range(steps):
                rows = order[i * BATCH:(i + 1) * BATCH]
                loss = _loss(torch, net(inputs[rows]), targets[rows], unseen[rows])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
                bar.update()
                bar.set_postfix(loss=f"{loss.item():.4f}", refresh=False)
    layers = [m for m in net if isinstance(m, torch.nn.Linear)]
    arrays = {f"w{i}": m.weight.detach().numpy().T.astype(np.float32) for i, m in enumerate(layers)}
    arrays.update({f"b{i}": m.bias.detach().numpy().astype(np.float32) for i, m in enumerate(layers)})
    return arrays


def _loss(torch, logits, targets, unseen):
    """Mean binary cross-entropy over the unseen cards of the rows."""
    per_card = torch.nn.functional.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    return (per_card * unseen).sum() / unseen.sum()


def held_out_report(arrays: dict, x: np.ndarray, hidden: np.ndarray) -> dict[str, float]:
    """How the network does on held-out rows, beside a uniform guess: the mean cross-entropy per unseen card, and
    the share of the hidden cards among each row's most likely ones (as many as it hides)."""
    p = 1.0 / (1.0 + np.exp(-logits(layers_of(arrays), x.astype(np.float32)).astype(np.float64)))
    unseen, held = unseen_of(x), cards.masks_to_array(hidden)
    count = held.sum(axis=1, keepdims=True)
    uniform = count / np.maximum(unseen.sum(axis=1, keepdims=True), 1)

    def cross_entropy(q):
        q = np.clip(q, 1e-7, 1 - 1e-7)
        return float((-(held * np.log(q) + ~held * np.log(1 - q)) * unseen).sum() / unseen.sum())

    ranked = np.argsort(-np.where(unseen, p, -1.0), axis=1, kind="stable")
    top = np.arange(cards.N_CARDS)[None, :] < count
    guessed = np.take_along_axis(held, ranked, axis=1) & top
    rows = count[:, 0] > 0
    return {"network loss": cross_entropy(p), "uniform loss": cross_entropy(np.broadcast_to(uniform, p.shape)),
            "network guessed": float(guessed[rows].sum() / count[rows].sum()),
            "uniform guessed": float((uniform[rows, 0] * count[rows, 0]).sum() / count[rows].sum())}


DESCRIPTION = __doc__.split("\n\n")[1].replace("\n", " ")


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Play, fit, report and write the weights file; 0 on success, 2 for bad options (before any game)."""
    parser = ArgumentParser(prog=prog, description=DESCRIPTION)
    parser.add_argument("--out", required=True, metavar="FILE", help="the weights file to write (.npz)")
    parser.add_argument("--players", default=",".join(PLAYERS),
                        help="agents to draw each game's pair from, separated by commas (a name twice: drawn twice as "
                             "often); default: %(default)s")
    parser.add_argument("--games", type=at_least(2, most=MAX_GAMES), default=20_000,
                        help="duplicate games (default %(default)s)")
    rule_options.add_options(parser, default="eaai")
    parser.add_argument("--keep", type=float, default=0.25, help="share of decisions kept (default %(default)s)")
    parser.add_argument("--held-out", type=float, default=0.1,
                        help="share of the games kept out of the fit (default %(default)s)")
    parser.add_argument("--width", type=at_least(1), default=256, help="units per hidden layer (default %(default)s)")
    parser.add_argument("--epochs", type=at_least(1), default=8, help="passes over the rows (default %(default)s)")
    parser.add_argument("--seed", type=at_least(0), default=0, help="seed of the games and the fit (default 0)")
    parser.add_argument("--workers", type=runner.worker_count, default=1,
                        help=f"processes playing games (default 1, at most {runner.MAX_WORKERS_PER_CORE} per core)")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bars")
    args = parser.parse_args(argv)
    try:
        recipe = _check(args)
    except (OSError, ValueError) as err:
        parser.error(str(err))
    held_out = held_out_games(args)
    x, hidden, of_game = collect(recipe, range(args.games), args.workers, args.progress)
    fitted = of_game < args.games - held_out
    if not fitted.any() or fitted.all():  # only a --keep so small that whole games keep no decision
        parser.error(f"--keep {args.keep} kept {fitted.sum()} rows to fit and {(~fitted).sum()} to hold out; keep "
                     "more of the decisions or play more games")
    arrays = fit(x[fitted], hidden[fitted], args.width, args.epochs, args.seed, args.progress)
    report = held_out_report(arrays, x[~fitted], hidden[~fitted])
    print(f"rows: {fitted.sum():,} fitted, {(~fitted).sum():,} held out ({held_out} games)")
    print(f"{'held out':<28}{'network':>10}{'uniform':>10}")
    print(f"{'cross-entropy per card':<28}{report['network loss']:>10.4f}{report['uniform loss']:>10.4f}")
    print(f"{'hidden cards guessed':<28}{report['network guessed']:>10.1%}{report['uniform guessed']:>10.1%}")
    try:
        with files.atomic_write(args.out, "wb", encoding=None) as out:
            np.savez(out, **arrays)
    except OSError as err:
        print(f"{parser.prog}: error: could not write {args.out}: {err}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}")
    return 0


def held_out_games(args: argparse.Namespace) -> int:
    """The number of games, the last ones, kept out of the fit."""
    return round(args.games * args.held_out)


def _check(args: argparse.Namespace) -> Recipe:
    """Before any game: the output can be written and is no player's file, every player loads, the shares are
    shares. The recipe of the games; ``OSError`` or ``ValueError`` naming the option."""
    rules = rule_options.rules_from(args.rules, args.rule)
    if not args.out.endswith(".npz"):
        raise ValueError(f"--out {args.out}: a belief weights file's name ends in .npz")
    check_hidden_widths((args.width,) * HIDDEN_LAYERS, f"--width {args.width}: a network of {HIDDEN_LAYERS} hidden "
                        "layers of that width")
    files.check_output_file(args.out, "--out")
    players = tuple(listed(args.players))
    if not players:
        raise ValueError(f"--players {args.players!r}: no agent named")
    files.check_distinct({"--players": [path for name in players for path in agents.files_read(name)]},
                         {"--out": args.out})
    for name in sorted(set(players)):
        try:
            agents.load(name)
        except (OSError, ValueError, TypeError) as err:
            raise ValueError(f"--players: {err}") from None
    if not 0 < args.keep <= 1:
        raise ValueError(f"--keep must be a share in (0, 1], got {args.keep}")
    if not 0 < args.held_out < 1:
        raise ValueError(f"--held-out must be a share in (0, 1), got {args.held_out}")
    held_out = held_out_games(args)
    if not 1 <= held_out < args.games:
        raise ValueError(f"--held-out {args.held_out} of --games {args.games} holds out {held_out} games; at least "
                         "one must be held out and one fitted")
    return Recipe(players, rules, args.seed, args.keep)
