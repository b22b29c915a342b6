"""Two ways to bring the search's worlds nearer the truth, and what each is worth: draw ``proposals`` times as many
worlds as the search plays, then resample them by

* ``discard``: the probability that the opponent's policy gives its last discard, in the view the opponent had when
  it made it, rebuilt in each world (its hand then: its hidden cards now and the discard); or
* ``deadwood``: the odds that a network, reading the viewer's view, gives the opponent's deadwood in each world's
  band (:data:`EDGES`), over the share of the drawn worlds in that band: the worlds' deadwood then follows the
  network's.

    python experiments/world_reweighting.py fit --out runs/deadwood_net.npz [--games 6000] [--workers 2]
    python experiments/world_reweighting.py calibration --deadwood-net runs/deadwood_net.npz [--games 10]
    python experiments/world_reweighting.py play --reweight deadwood --deadwood-net runs/deadwood_net.npz \\
        [--search "search[guide=exit,opponent=ppo,belief=belief-v1]"] [--opponent ppo] [--matches 1000] [--seed 11]

``fit`` plays ``gin-env train-belief``'s games (its players, eaai, seed 5, a quarter of the decisions) and fits the
deadwood network (two rectified layers of 256; torch) to the opponent's deadwood band at each kept view; it prints
the held-out cross-entropy beside the bands' shares. ``calibration`` prints, for views of ``exit`` against each
opponent (seed 31337), how well 32 worlds of each kind give the opponent's real deadwood band (the cross-entropy of
the band's share among them, with half a world added to each band) and its real hidden cards (the share a world
holds), and the network's own cross-entropy. ``play`` plays the search with its worlds reweighted against
``--opponent`` in duplicate eaai matches and prints the match win rate (docs/search.md, worlds nearer the truth). The
``discard`` reweighting uses the search's model of the opponent (``opponent``, or its guide).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from belief_accuracy import Watcher
from duplicate_matches import play_matches, result_line
from study_search import StudySearch, load

from gin_env import agents, belief, files
from gin_env.belief.network import INPUTS, layers_of, logits
from gin_env.evaluation import duel
from gin_env.game import cards, engine, solver
from gin_env.game.actions import DISCARD_BASE
from gin_env.game.engine import DISCARD, DRAW, OFFER
from gin_env.game.match_record import seen_by
from gin_env.game.observation import OBS_LAYOUT, encode, view
from gin_env.game.rules import Rules

#: The lower edges of the deadwood bands: gin, 1-5, 6-10 (a knock under eaai), 11-15, 16-25, 26-40, 41 and more.
EDGES = np.array([0, 1, 6, 11, 16, 26, 41])
NO_CARD = engine.NO_CARD


def band(deadwood: np.ndarray) -> np.ndarray:
    return np.searchsorted(EDGES, deadwood, side="right") - 1


# -- the last discard --------------------------------------------------------------------------------------------


def last_discard(v) -> tuple[int, str] | None:
    """The opponent's last discard and where it lies now: on the pile for the viewer to draw ("top"), taken by the
    viewer ("taken") or left on the pile by the viewer's draw from the stock ("left"); None before any."""
    if v.phase in (OFFER, DRAW):
        d, where = v.top_discard, "top"
    elif v.phase == DISCARD:
        d, where = (v.taken, "taken") if v.taken != NO_CARD else (v.top_discard, "left")
    else:
        return None
    return (d, where) if d != NO_CARD and v.opponent_discards >> d & 1 else None


def before_discard(v, public: dict, deck: list[int], theirs: int, d: int, where: str) -> engine.HandState:
    """The world as it stood when the opponent chose to discard ``d``: ``d`` back in its hand, and the viewer's
    move since undone (a card of the viewer's own goes back on the stock; which one, the opponent's view cannot
    tell). What no view records (the card it took this turn, the order under the pile's top) is left out."""
    me, opp, bit = v.player, 1 - v.player, 1 << d
    hands, known = [0, 0], list(public["known"])
    discarded, declined = list(public["discarded"]), list(public["declined"])
    hands[me], hands[opp] = v.hand, int(theirs) | bit
    pile, stock_top = public["pile"], public["stock_top"]
    if where == "taken":
        hands[me] &= ~bit
        known[me] &= ~bit
    else:
        pile = pile[:-1]
    if where == "left":
        declined[me] &= ~bit
        back = (hands[me] & ~known[me]).bit_length() - 1
        hands[me] &= ~(1 << back)
        stock_top -= 1
        i = deck.index(back)
        deck[i], deck[stock_top] = deck[stock_top], deck[i]
    discarded[opp] &= ~bit
    fields = dict(public, pile=pile, known=tuple(known), discarded=tuple(discarded), declined=tuple(declined),
                  stock_top=stock_top, current=opp, phase=DISCARD, taken=NO_CARD, both_passed=False,
                  must_knock=False, turns=max(0, public["turns"] - 1))
    return engine.HandState(deck=tuple(deck), hands=tuple(hands), **fields)


def discard_log_likelihood(v, draws: belief.Draws, policy) -> np.ndarray:
    """(n,) the log-probability ``policy`` gives the opponent's last discard in each world (0 before any)."""
    found = last_discard(v)
    if found is None:
        return np.zeros(len(draws.opponent_hands))
    d, where = found
    opp, scores = 1 - v.player, v.scores[::-1]
    record = seen_by(v.record, v.player)
    obs, masks = [], []
    for deck, theirs in zip(draws.decks.tolist(), draws.opponent_hands.tolist()):
        then = view(before_discard(v, draws.public, deck, theirs, d, where), opp,
                    scores if opp == 0 else scores[::-1], record)
        obs.append(encode(then, policy.match_record))
        masks.append(then.legal_mask)
    z = np.where(np.stack(masks), policy.logits(np.stack(obs)).astype(np.float64), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    return z[:, DISCARD_BASE + d] - np.log(np.exp(z).sum(axis=1))


# -- the deadwood band -------------------------------------------------------------------------------------------


def band_log_probabilities(layers, inputs: np.ndarray) -> np.ndarray:
    """(rows, bands) the deadwood network's log-probability of each band for encoded views ``inputs``."""
    z = logits(layers, inputs.astype(np.float32)).astype(np.float64)
    z -= z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def band_probabilities(layers, v) -> np.ndarray:
    """(bands,) the deadwood network's chance of each band of the opponent's deadwood at the view ``v``."""
    return np.exp(band_log_probabilities(layers, encode(v)[None, :INPUTS])[0])


def deadwood_weights(layers, v, draws: belief.Draws) -> np.ndarray:
    """(n,) the network's chance of each world's band over the band's share of the worlds (bands no world reaches
    get none)."""
    bands = band(solver.deadwood_of_masks(draws.opponent_hands))
    counts = np.bincount(bands, minlength=len(EDGES))
    p = np.where(counts > 0, band_probabilities(layers, v), 0.0)
    return (p / p.sum())[bands] / (counts[bands] / counts.sum())


def load_layers(path: str) -> list:
    with np.load(path) as arrays:
        return layers_of({name: arrays[name] for name in arrays.files})


# -- the reweighted search ---------------------------------------------------------------------------------------


class Reweighted(StudySearch):
    """The search ``spec`` (``study_search.load``), its worlds resampled by ``reweight`` from ``proposals`` times as
    many."""

    def __init__(self, spec: str, reweight: str | None, proposals: int, layers: list | None) -> None:
        named = load(spec)
        super().__init__(named.params, named.study)
        self.reweight, self.proposals, self.layers = reweight, proposals, layers

    def _worlds(self, view, n, rng):
        draws = self.reweighted(view, n, rng)
        return belief.batch_of_draws(view, draws)

    def reweighted(self, view, n, rng) -> belief.Draws:
        """``n`` worlds of ``view``: resampled by ``reweight`` from ``proposals`` times as many, or, with
        ``reweight`` None, the search's own draw."""
        if self.reweight is None:
            return belief.draw_worlds(view, n, rng, model=self.model)
        draws = belief.draw_worlds(view, n * self.proposals, rng, model=self.model)
        if self.reweight == "deadwood":
            weights = deadwood_weights(self.layers, view, draws)
        else:
            opponent = self._rollout_policies(view)[1]
            if not hasattr(opponent, "logits"):
                raise ValueError("the discard reweighting needs a network to model the opponent")
            if last_discard(view) is None:  # nothing to weigh by: the first n worlds drawn
                return belief.Draws(draws.decks[:n], draws.opponent_hands[:n], draws.public)
            ll = discard_log_likelihood(view, draws, opponent)
            weights = np.exp(ll - ll.max())
        rows = rng.choice(len(weights), size=n, p=weights / weights.sum())
        return belief.Draws(draws.decks[rows], draws.opponent_hands[rows], draws.public)


def play(job, start: int, stop: int, on_game) -> np.ndarray:
    spec, reweight, proposals, net, opponent, seed = job
    agent = Reweighted(spec, reweight, proposals, load_layers(net) if net else None)
    return duel.play_games(Rules.preset("eaai"), agent, agents.load(opponent), seed, range(start, stop),
                           on_game=on_game)


def run_play(args) -> None:
    start = time.time()
    job = (args.search, args.reweight, args.proposals, args.deadwood_net, args.opponent, args.seed)
    out = play_matches(play, job, args.matches, args.workers)
    print(f"{args.search}, worlds reweighted by {args.reweight} from {args.proposals}x, against {args.opponent}, "
          f"{args.matches} duplicate eaai matches, seed {args.seed}: {result_line(out)}, {time.time() - start:.0f} s")


# -- fit and calibration -----------------------------------------------------------------------------------------


def run_fit(args) -> None:
    import torch

    from gin_env.training.belief import PLAYERS, Recipe, collect
    x, hidden, of_game = collect(Recipe(PLAYERS, Rules.preset("eaai"), 5, 0.25), range(args.games), args.workers,
                                 True)
    hands = hidden | cards.hands_to_masks(x[:, OBS_LAYOUT["opponent_known"]] > 0.5)
    y = band(solver.deadwood_of_masks(hands))
    fitted = of_game < 0.9 * args.games
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(INPUTS, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                              torch.nn.ReLU(), torch.nn.Linear(256, len(EDGES)))
    inputs, targets = torch.from_numpy(x[fitted].astype(np.float32)), torch.from_numpy(y[fitted])
    epochs, batch = 6, 1024
    steps = len(inputs) // batch
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, 2e-3, total_steps=epochs * steps)
    for _ in range(epochs):
        order = torch.randperm(len(inputs))
        for i in range(steps):
            rows = order[i * batch:(i + 1) * batch]
            loss = torch.nn.functional.cross_entropy(net(inputs[rows]), targets[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    arrays = {f"w{i}": m.weight.detach().numpy().T.copy() for i, m in enumerate(linear)}
    arrays.update({f"b{i}": m.bias.detach().numpy().copy() for i, m in enumerate(linear)})
    log_p = band_log_probabilities(layers_of(arrays), x[~fitted])
    held = y[~fitted]
    shares = np.bincount(y[fitted], minlength=len(EDGES)) / fitted.sum()
    print(f"held out: {len(held):,} views; cross-entropy of the band {-log_p[np.arange(len(held)), held].mean():.3f}, "
          f"the bands' shares {-np.log(shares[held]).mean():.3f}")
    with files.atomic_write(args.out, "wb", encoding=None) as out:
        np.savez(out, **arrays)
    print(f"wrote {args.out}")


def true_band(v, hidden: int) -> int:
    """The band of the opponent's real deadwood at the view ``v``, whose hidden cards are ``hidden``."""
    return int(band(solver.deadwood_of_masks(np.array([hidden | v.opponent_known], dtype=np.uint64)))[0])


def run_calibration(args) -> None:
    layers = load_layers(args.deadwood_net)
    rules, viewer = Rules.preset("eaai"), agents.load("exit")
    kinds = {"heuristic": ("heuristic", None), "belief-v1": ("belief-v1", None),
             "belief-v1, discard": ("belief-v1", "discard"), "belief-v1, deadwood": ("belief-v1", "deadwood")}
    print("| opponent | views | " + " | ".join(kinds) + " | deadwood network |")
    print("|---|---:|" + "---:|" * (len(kinds) + 1))
    for name in args.opponents.split(","):
        opponent = agents.load(name)
        cases = []
        for game in range(args.games):
            watchers = Watcher(0), Watcher(1)
            duel.play_duplicate(rules, viewer, opponent, 31337, game, observers=(watchers[0].watch, watchers[1].watch))
            cases += watchers[0].cases + watchers[1].cases
        cells = []
        for model, reweight in kinds.values():
            # The discard reweighting models ppo-v5 by its own network, the others by the search's guide.
            spec = f"search[guide=exit,belief={model},opponent={'ppo' if name == 'ppo' else 'guide'}]"
            agent = Reweighted(spec, reweight, 4, layers)
            entropy, share = [], []
            for k, (v, hidden) in enumerate(cases):
                rng = np.random.default_rng([31337, k])
                draws = agent.reweighted(v, 32, rng)
                truth = true_band(v, hidden)
                counts = np.bincount(band(solver.deadwood_of_masks(draws.opponent_hands)), minlength=len(EDGES))
                entropy.append(-np.log((counts[truth] + 0.5) / (32 + 0.5 * len(EDGES))))
                share.append(np.mean([int(h & np.uint64(hidden)).bit_count() for h in draws.opponent_hands])
                             / hidden.bit_count())
            cells.append(f"{np.mean(entropy):.2f}, {np.mean(share):.1%}")
        net_entropy = np.mean([-np.log(band_probabilities(layers, v)[true_band(v, hidden)]) for v, hidden in cases])
        print(f"| {name} | {len(cases):,} | " + " | ".join(cells) + f" | {net_entropy:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    sub = parser.add_subparsers(dest="job", required=True)
    fit = sub.add_parser("fit")
    fit.add_argument("--out", required=True)
    fit.add_argument("--games", type=int, default=6000)
    fit.add_argument("--workers", type=int, default=2)
    calibration = sub.add_parser("calibration")
    calibration.add_argument("--deadwood-net", required=True)
    calibration.add_argument("--opponents", default="ppo,expert,simple")
    calibration.add_argument("--games", type=int, default=10)
    run = sub.add_parser("play")
    run.add_argument("--reweight", choices=("discard", "deadwood"), required=True)
    run.add_argument("--deadwood-net")
    run.add_argument("--search", default="search[guide=exit,opponent=ppo,belief=belief-v1]")
    run.add_argument("--opponent", default="ppo")
    run.add_argument("--proposals", type=int, default=4)
    run.add_argument("--matches", type=int, default=1000)
    run.add_argument("--seed", type=int, default=11)
    run.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.job == "play" and args.reweight == "deadwood" and not args.deadwood_net:
        parser.error("--reweight deadwood needs --deadwood-net (written by the fit job)")
    {"fit": run_fit, "calibration": run_calibration, "play": run_play}[args.job](args)


if __name__ == "__main__":
    main()
