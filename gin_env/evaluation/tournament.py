"""The tournament: every line-up of the agents (:mod:`.lineups`) plays the same N games in every format, and
:func:`evaluate` turns their numbers into the report that ``--json`` writes and :mod:`.report` prints."""

from __future__ import annotations

from gin_env import agents
from gin_env.evaluation.lineups import check_names, replay_prefixes
from gin_env.evaluation.runner import CHUNK, play_lineups
from gin_env.evaluation.stats import fit_elo, pair_stats, side_stats
from gin_env.game import rule_options
from gin_env.game.rules import Rules
from gin_env.replay import recorder as recording


def evaluate(names: list[str], rules: Rules, mode: str, n: int, seed: int = 0, workers: int = 1,
             progress: bool = False, replays: str | None = None, ray_address: str | None = None,
             gauntlet: bool = False) -> dict:
    """Every line-up of ``names`` in the format of ``rules.players`` on ``n`` games (``mode``: ``"deals"``, single
    hands, or single deals with four players; ``"matches"``, games to the target); the report that ``--json``
    writes. With ``gauntlet`` (two players only) the line-ups are the first name against each other one, not a
    round robin (:mod:`.gauntlet`), and the report says so. With ``replays`` (a directory), every hand of every
    seating is also saved there as a replay file. With ``ray_address`` (``"local"``, ``"auto"`` or a cluster's
    address) the games run as Ray tasks, for the same report."""
    if mode not in CHUNK:
        raise ValueError(f"mode must be 'deals' or 'matches', got {mode!r}")
    if n < 2:
        raise ValueError(f"the number of {mode} must be at least 2 (an interval needs two games), got {n}")
    check_names(names, rules.players)
    if gauntlet and rules.players != 2:
        raise ValueError(f"a gauntlet plays pairs: it needs two players, got players={rules.players}")
    if replays is not None and ray_address is not None:
        raise ValueError("replays cannot be saved from Ray tasks (each would write to its own machine's disk): "
                         "run without --ray to save them")
    for name in names:
        agents.load(name)  # fail here, with the loader's message, before any process starts
    game_rules = rules.replace(target=None) if mode == "deals" else rules
    if replays is not None:
        recording.make_folder(replays, replay_prefixes(names, game_rules, seed, gauntlet))
    played = play_lineups(names, game_rules, mode, n, seed, workers, progress, replays, ray_address, gauntlet)
    if rules.players == 2:
        report = _pairs_report(names, rules, mode, n, seed, played)
        return {**report, "gauntlet": names[0]} if gauntlet else report
    return _sides_report(names, rules, mode, n, seed, played)


def _pairs_report(names: list[str], rules: Rules, mode: str, n: int, seed: int, played: dict) -> dict:
    """Two players: each pair's statistics (``stats.pair_stats``) and the agents' Elo ratings."""
    pairs = [{"a": a, "b": b, mode: n, **pair_stats(games)} for (a, b), games in played.items()]
    if mode == "matches":
        results = [(p["a"], p["b"], p["a_match_win_rate"] * p["games"], p["games"]) for p in pairs]
    else:
        results = [(p["a"], p["b"], p["a_duplicate_win_rate"] * n, n) for p in pairs]
    return {"rules": rule_options.label(rules), "mode": mode, "seed": seed, "agents": names, "pairs": pairs,
            "elo": fit_elo(names, results)}


def _sides_report(names: list[str], rules: Rules, mode: str, n: int, seed: int, played: dict) -> dict:
    """Three or four players: each line-up's sides (an agent, or a team ``A+A``) and their statistics
    (``stats.side_stats``)."""
    out = []
    for lineup, numbers in played.items():
        sides = list(lineup) if rules.players == 3 else [f"{name}+{name}" for name in lineup]
        results = [{"side": side, **side_stats(numbers, i)} for i, side in enumerate(sides)]
        out.append({"sides": sides, "games": n, "rotations": numbers.shape[1], "results": results})
    return {"rules": rule_options.label(rules), "players": rules.players, "mode": mode, "seed": seed, "agents": names,
            "lineups": out}
