"""The report of an evaluation in words: the scoreboard printed for the terminal, the JSON file (written atomically,
by :mod:`gin_env.files`), and the short names that label agents in the scoreboard and the plot (:mod:`.plot`). A
report holds ``pairs`` (two players) or ``lineups`` (three and four players)."""

from __future__ import annotations

import os

from gin_env import agents, files
from gin_env.text import printable


def write_json(report: dict, path: str) -> None:
    """Write ``report`` to ``path`` as JSON, atomically: a temporary file beside it, then renamed."""
    files.write_json(path, report, indent=2)


def short_names(names: list[str]) -> dict[str, str]:
    """Agent name -> its label in scoreboards and plots: a model file by its name, with as many of its folders in front
    as set it apart from the other labels (``a/best.zip``, ``b/best.zip``); any other name as it is. A label is text
    to show (:func:`gin_env.text.printable`: no control character of a name given on the command line reaches the
    terminal); the JSON report keeps the names in full, as given."""
    parts = {name: _path_parts(name) for name in names}
    depth = dict.fromkeys(names, 1)
    while True:
        labels = {name: "/".join(parts[name][-depth[name]:]) if parts[name] else name for name in names}
        clashing = [name for name in names if parts[name] and depth[name] < len(parts[name])
                    and list(labels.values()).count(labels[name]) > 1]
        if not clashing:
            break
        for name in clashing:
            depth[name] += 1
    # Two spellings of one file (best.zip, ./best.zip) still clash at full depth: they keep their full names.
    return {name: printable(label if list(labels.values()).count(label) == 1 else name)
            for name, label in labels.items()}


def _path_parts(name: str) -> list[str]:
    """The folders and file name of a model path, or nothing for an agent name or ``module:attr``."""
    if not agents.is_path(name):
        return []
    normal = os.path.normpath(name)
    if os.altsep is not None:
        normal = normal.replace(os.altsep, os.sep)
    return [part for part in normal.split(os.sep) if part]


def legend(short: dict[str, str]) -> list[str]:
    """A line for each agent whose label is not its full name, saying which one it is."""
    return [f"{label} = {printable(name)}" for name, label in short.items() if label != printable(name)]


def rate_columns(mode: str) -> list[tuple[str, str]]:
    """(key, title) of the win rates worth showing: with ``--deals`` a game is one hand, so its match win rate is the
    hand win rate again and is left out."""
    columns = [("a_hand_win_rate", "hand"), ("a_duplicate_win_rate", "duplicate")]
    return ([("a_match_win_rate", "match")] if mode == "matches" else []) + columns


def gauntlet_title(report: dict, short: dict[str, str]) -> str:
    """The start of a title naming the agent a gauntlet's report is about (empty for any other report)."""
    return f"gauntlet of {short[report['gauntlet']]}: " if "gauntlet" in report else ""


def _rate(p: float, ci: list[float]) -> str:
    return f"{100 * p:5.1f}% [{100 * ci[0]:4.1f}, {100 * ci[1]:4.1f}]"


def scoreboard(report: dict) -> str:
    """The report as plain text for the terminal (and the README): a row per pair or per side of a line-up."""
    return _pairs_scoreboard(report) if "pairs" in report else _sides_scoreboard(report)


def _pairs_scoreboard(report: dict) -> str:
    """Two players: a row per pair, A's numbers against B, then the Elo ratings and the capped and abandoned
    games."""
    mode = report["mode"]
    first = report["pairs"][0]
    short = short_names(report["agents"])
    lines = [f"{gauntlet_title(report, short)}{report['rules']} rules, {first[mode]} duplicate {mode} per pair "
             f"({first['games']} games), seed {report['seed']}", ""]
    width = max(len(label) for label in short.values())
    columns = rate_columns(mode)
    header = f"{'A':<{width}}  {'B':<{width}}  {'hands':>6}  {'A points/hand':>16}" + "".join(
        f"  {'A ' + title + ' win rate':>22}" for _, title in columns)
    lines += [header, "-" * len(header)]
    for p in report["pairs"]:
        lo, hi = p["a_points_per_hand_ci95"]
        points = f"{p['a_points_per_hand']:+6.2f} ± {(hi - lo) / 2:5.2f}"
        lines.append(f"{short[p['a']]:<{width}}  {short[p['b']]:<{width}}  {p['hands']:>6}  {points:>16}" + "".join(
            f"  {_rate(p[key], p[key + '_ci95']):>22}" for key, _ in columns))
    lines += ["", "Elo: " + ", ".join(f"{short[name]} {rating:.0f}" for name, rating in
                                      sorted(report["elo"].items(), key=lambda item: -item[1]))]
    capped = sum(p["capped_hands"] for p in report["pairs"])
    abandoned = sum(p["abandoned_games"] for p in report["pairs"])
    lines.append(f"Capped hands (R19 turn cap): {capped}; abandoned games (R19a dead hands in a row): {abandoned}")
    return "\n".join(lines + legend(short))


def side_labels(report: dict) -> dict[str, str]:
    """A side's name in a report of three or four players (an agent, or a team ``A+A``) -> its label by
    :func:`short_names`."""
    short = short_names(report["agents"])
    if report["players"] == 3:
        return short
    return {f"{name}+{name}": f"{label}+{label}" for name, label in short.items()}


def _sides_scoreboard(report: dict) -> str:
    """Three or four players: a row per side of each line-up, its game win rate and points per deal."""
    what = "tables of three, all three rotations" if report["players"] == 3 else "teams, both seatings"
    first = report["lineups"][0]
    label = side_labels(report)
    lines = [f"{report['rules']} rules, {report['players']} players, {first['games']} {report['mode']} per "
             f"lineup ({what}), seed {report['seed']}", ""]
    width = max(len(label[r["side"]]) for t in report["lineups"] for r in t["results"])
    header = f"{'lineup':<6}  {'agent' if report['players'] == 3 else 'team':<{width}}  {'deals':>6}  " \
             f"{'game win rate':>22}  {'points/deal':>16}"
    lines += [header, "-" * len(header)]
    for number, t in enumerate(report["lineups"], 1):
        for r in t["results"]:
            lo, hi = r["points_per_deal_ci95"]
            lines.append(f"{number:<6}  {label[r['side']]:<{width}}  {r['deals']:>6}  "
                         f"{_rate(r['win_rate'], r['win_rate_ci95'])}  "
                         f"{r['points_per_deal']:+6.2f} ± {(hi - lo) / 2:5.2f}")
    return "\n".join(lines + legend(short_names(report["agents"])))
