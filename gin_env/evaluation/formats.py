"""Evaluation in three players and four players in two teams (docs/rules.md R49-R57): the games, their numbers and
the report (``evaluate.py --players 3`` / ``--players 4``).

Three players: every table of three of the listed agents (every combination) plays N games, each game in all three
rotations of the seats on the same deal sequence. Four players: every pair of agents A, B plays N games as team
A+A (seats 0 and 2) against B+B, each game twice on the same deals, the teams' seats swapped (duplicate). The deals
of game ``g`` come from one generator seeded by ``(seed, g)`` (the first dealer's cut, then one shuffle per hand, or
two per deal), which nothing an agent does changes; each seat's agent draws from its own ``(seed, g, rotation,
seat)`` generator. The games run through ``format_table`` as the envs do.

Numbers per agent (three players) or team (four players), over all rotations of all games: the game win rate (the
games it won; an abandoned game, R19a, or a single hand nobody won counts for nobody) and the points per deal (its
signed hand points, or its team's netted deal results, R56, over the hands or deals of the game, a hand sat out
counting 0). Their 95% intervals take the game (all rotations of it) as the unit: a Wilson interval at the
effective sample size for the win rate, a normal interval of the ratio estimator for the points
(``stats.ratio_estimate``).
"""

from __future__ import annotations

import itertools

import numpy as np

from gin_env import agents
from gin_env.evaluation.progress import Progress
from gin_env.evaluation.report import legend, save_figure, short_names
from gin_env.evaluation.stats import normal_interval, ratio_estimate, wilson_interval
from gin_env.game import four_players
from gin_env.game.rules import Rules
from gin_env.optional import require
from gin_env.table.formats import make_table
from gin_env.table.two_players import agent_action

#: Domain tags of the generators of one seed (distinct from ``duel``'s, which never meet these).
_DEAL_STREAM, _AGENT_STREAM = 10, 11
#: Per game, rotation and side (agent or team): won (0/1), points, deals.
WON, POINTS, DEALS = range(3)


def play_format_game(rules: Rules, seat_agents, seed: int, game: int, rotation: int) -> dict:
    """Game ``game`` of ``rules.players`` with ``seat_agents[s]`` in seat ``s``; its winner (seat or team, None),
    each seat's points (three players) or each team's (four players), and the hands or deals played."""
    table = make_table(rules, "match" if rules.target is not None else "hand")
    rng = np.random.default_rng([seed, _DEAL_STREAM, game])
    table.deal(rng)
    rngs = [np.random.default_rng([seed, _AGENT_STREAM, game, rotation, seat]) for seat in range(rules.players)]
    while not table.over:
        seat = table.actor
        agent = seat_agents[seat]
        table.play(agent_action(agent, agent.act(table.agent_view(seat), rngs[seat])), rng)
    g = table.game
    if rules.players == 3:
        points = [sum(h.points(seat) for h in g.history) for seat in range(3)]
    else:
        net = sum(d.net for d in g.history)
        points = [net, -net]
    return {"winner": g.winner, "points": points, "deals": len(g.history), "abandoned": g.abandoned}


def play_lineups(names: list[str], rules: Rules, n: int, seed: int, progress: bool = True) -> list[dict]:
    """Every lineup (three players: each combination of three agents, in all rotations; four players: each pair as
    two teams, both seatings) over ``n`` games; per lineup, its sides and ``(n, rotations, sides, 3)`` numbers
    (``WON``, ``POINTS``, ``DEALS``)."""
    loaded = {name: agents.load(name) for name in names}
    if rules.players == 3:
        lineups = list(itertools.combinations(names, 3))
        rotations = 3
    else:
        lineups = list(itertools.combinations(names, 2))
        rotations = 2
    out = []
    with Progress(n * len(lineups), "game", progress) as bar:
        for sides in lineups:
            numbers = np.zeros((n, rotations, len(sides), 3))
            for game in range(n):
                for rotation in range(rotations):
                    seat_side = _seat_sides(rules.players, rotation)
                    result = play_format_game(rules, [loaded[sides[s]] for s in seat_side], seed, game, rotation)
                    _store(numbers[game, rotation], result, seat_side, rules.players)
                bar.add()
            out.append({"sides": list(sides), "numbers": numbers})
    return out


def _seat_sides(players: int, rotation: int) -> list[int]:
    """The side (index into the lineup) seated at each seat: three players rotate the agents round the table;
    four players seat side 0's agent in seats 0 and 2 in the first seating, in seats 1 and 3 in the second."""
    if players == 3:
        return [(seat + rotation) % 3 for seat in range(3)]
    return [(four_players.team(seat) + rotation) % 2 for seat in range(4)]


def _store(row: np.ndarray, result: dict, seat_side: list[int], players: int) -> None:
    """One rotation's result per side: won, points, deals."""
    if players == 3:
        for seat, side in enumerate(seat_side):
            row[side] = (result["winner"] == seat, result["points"][seat], result["deals"])
        return
    for team in (0, 1):
        side = seat_side[team]  # seat 0 is team 0's, seat 1 team 1's
        row[side] = (result["winner"] == team, result["points"][team], result["deals"])


def side_stats(numbers: np.ndarray, side: int) -> dict:
    """Win rate and points per deal of one side with 95% intervals; the game (all its rotations) is the unit."""
    per_game = numbers[:, :, side, :].sum(axis=1)
    rotations = numbers.shape[1]
    wins = per_game[:, WON] / rotations
    rate, rate_var = float(wins.mean()), float(wins.var(ddof=1) / wins.size)
    ppd, ppd_var = ratio_estimate(per_game[:, POINTS], per_game[:, DEALS])
    return {"win_rate": rate, "win_rate_ci95": wilson_interval(rate, rate_var, numbers.shape[0] * rotations),
            "points_per_deal": ppd, "points_per_deal_ci95": normal_interval(ppd, ppd_var),
            "deals": int(per_game[:, DEALS].sum())}


def evaluate_format(names: list[str], rules: Rules, mode: str, n: int, seed: int = 0, progress: bool = False) -> dict:
    """The report of an evaluation in ``rules.players`` (3 or 4) on ``n`` games (``mode``: ``"matches"``, games to
    the target, the team target with four players; ``"deals"``, single hands or single deals)."""
    players = rules.players
    if players not in (3, 4):
        raise ValueError(f"evaluate_format plays three or four players, got players={players}")
    if n < 2:
        raise ValueError(f"the number of {mode} must be at least 2 (an interval needs two games), got {n}")
    need = 3 if players == 3 else 2
    if len(names) < need or len(set(names)) != len(names):
        raise ValueError(f"give at least {need} distinct agents for players={players}, got {names}")
    game_rules = rules.replace(target=None) if mode == "deals" else rules
    lineups = []
    for played in play_lineups(names, game_rules, n, seed, progress):
        sides = played["sides"]
        label = sides if players == 3 else [f"{name}+{name}" for name in sides]
        results = [{"side": label[i], **side_stats(played["numbers"], i)} for i in range(len(sides))]
        lineups.append({"sides": label, "games": n, "rotations": played["numbers"].shape[1], "results": results})
    return {"rules": rules.name, "players": players, "mode": mode, "seed": seed, "agents": names, "lineups": lineups}


def table(report: dict) -> str:
    """The report as a plain-text table."""
    what = "tables of three, all three rotations" if report["players"] == 3 else "teams, both seatings"
    first = report["lineups"][0]
    short = short_names(report["agents"])
    label = _side_labels(report)
    lines = [f"{report['rules']} rules, {report['players']} players, {first['games']} {report['mode']} per "
             f"lineup ({what}), seed {report['seed']}", ""]
    width = max(len(label[r["side"]]) for t in report["lineups"] for r in t["results"])
    header = f"{'lineup':<6}  {'agent' if report['players'] == 3 else 'team':<{width}}  {'deals':>6}  " \
             f"{'game win rate':>22}  {'points/deal':>16}"
    lines += [header, "-" * len(header)]
    for number, t in enumerate(report["lineups"], 1):
        for r in t["results"]:
            lo, hi = r["win_rate_ci95"]
            plo, phi = r["points_per_deal_ci95"]
            lines.append(f"{number:<6}  {label[r['side']]:<{width}}  {r['deals']:>6}  "
                         f"{100 * r['win_rate']:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]  "
                         f"{r['points_per_deal']:+6.2f} ± {(phi - plo) / 2:5.2f}")
    return "\n".join(lines + legend(short))


def _side_labels(report: dict) -> dict[str, str]:
    """A side's name in the report (an agent, or a team ``A+A``) -> its label by ``report.short_names``."""
    short = short_names(report["agents"])
    if report["players"] == 3:
        return short
    return {f"{name}+{name}": f"{label}+{label}" for name, label in short.items()}


def plot(report: dict, path: str) -> None:
    """A PNG of each agent's (team's) game win rate and points per deal, with their 95% intervals."""
    require("matplotlib", "--plot").use("Agg")
    plt = require("matplotlib.pyplot", "--plot")
    label = _side_labels(report)
    rows = [(f"lineup {i}: {label[r['side']]}", r) for i, t in enumerate(report["lineups"], 1) for r in t["results"]]
    y = np.arange(len(rows))
    fig, (rates, points) = plt.subplots(1, 2, figsize=(11, 1.4 + 0.5 * len(rows)), sharey=True)
    for axis, key, colour in ((rates, "win_rate", "tab:blue"), (points, "points_per_deal", "tab:purple")):
        values = np.array([r[key] for _, r in rows])
        ci = np.array([r[key + "_ci95"] for _, r in rows])
        axis.barh(y, values, height=0.5, xerr=[values - ci[:, 0], ci[:, 1] - values], capsize=3, color=colour)
    rates.axvline(1 / 3 if report["players"] == 3 else 1 / 2, color="grey", linewidth=1)  # an even share
    rates.set_xlabel("game win rate (95% interval)")
    points.axvline(0, color="grey", linewidth=1)
    points.set_xlabel("points per deal (95% interval)")
    rates.set_yticks(y, [label for label, _ in rows])
    rates.invert_yaxis()
    fig.suptitle(f"{report['rules']} rules, {report['players']} players, {report['lineups'][0]['games']} "
                 f"{report['mode']}, seed {report['seed']}")
    fig.tight_layout()
    save_figure(fig, path)
