"""The gauntlet (``gin-env evaluate AGENT --gauntlet``) and its style agents: the line-ups are the agent against each
member in order, the outputs are written, a bad request is one line before any game, and every style is legal
under every preset and knocks as agents/styles.py says."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gin_env import agents
from gin_env.agents import styles
from gin_env.evaluation import cli, duel, gauntlet, lineups, tournament
from gin_env.game import cards, engine, solver
from gin_env.game.actions import BIG_GIN, DISCARD_BASE, KNOCK_BASE
from gin_env.game.observation import view
from gin_env.game.rules import PRESETS, STOCK_AFTER_DEAL, Rules

STYLES = ("knocker", "early-knocker", "gin-hunter", "undercutter")
#: Cheap members for the end-to-end runs: the real gauntlet holds the search, seconds a hand.
CHEAP = ("knocker-v1", "simple-v1", "undercutter-v1")


def test_the_gauntlet_names_its_members_in_order_and_each_loads():
    assert gauntlet.GAUNTLET == ("knocker-v1", "early-knocker-v1", "gin-hunter-v1", "undercutter-v1", "simple-v1",
                                 "expert-v2", "ppo-v5", "search-v2")
    for member in gauntlet.GAUNTLET:
        assert agents.load(member).name == member


def test_the_lineups_are_the_agent_against_each_member_in_order_without_itself():
    assert gauntlet.lineup_names("expert") == ["expert", *(m for m in gauntlet.GAUNTLET if m != "expert-v2")]
    assert gauntlet.lineup_names("expert-v1") == ["expert-v1", *gauntlet.GAUNTLET]
    assert gauntlet.lineup_names("mine.players:Agent") == ["mine.players:Agent", *gauntlet.GAUNTLET]
    names = ["me", "a", "b", "c"]
    assert lineups.lineups(names, 2, gauntlet=True) == [("me", "a"), ("me", "b"), ("me", "c")]
    assert len(lineups.lineups(names, 2)) == 6  # without it, the round robin


def test_the_gauntlet_writes_its_scoreboard_json_and_plot(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib", reason="--plot needs the evaluate extra")
    monkeypatch.setattr(gauntlet, "GAUNTLET", CHEAP)
    out, png = tmp_path / "gauntlet.json", tmp_path / "gauntlet.png"
    code = cli.main(["undercutter", "--gauntlet", "--deals", "2", "--seed", "4", "--workers", "1", "--no-progress",
                     "--json", str(out), "--plot", str(png)])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["gauntlet"] == "undercutter" and report["agents"] == ["undercutter", "knocker-v1", "simple-v1"]
    assert [(p["a"], p["b"]) for p in report["pairs"]] == [("undercutter", "knocker-v1"), ("undercutter", "simple-v1")]
    assert all(p["deals"] == 2 and len(p["a_duplicate_win_rate_ci95"]) == 2 for p in report["pairs"])
    assert png.read_bytes().startswith(b"\x89PNG")
    printed = capsys.readouterr().out
    assert "gauntlet of undercutter: standard rules, 2 duplicate deals per pair" in printed
    assert f"wrote {out}" in printed and f"wrote {png}" in printed


def test_the_gauntlet_plays_matches_by_default(monkeypatch):
    asked = {}

    def evaluate(names, rules, mode, n, *args):
        asked.update(names=names, rules=rules.name, mode=mode, n=n, gauntlet=args[-1])
        raise ValueError("stop before any game")

    monkeypatch.setattr(tournament, "evaluate", evaluate)
    assert cli.main(["simple", "--gauntlet", "--no-progress"]) == 2
    assert asked == {"names": gauntlet.lineup_names("simple"), "rules": "standard", "mode": "matches", "n": 1000,
                     "gauntlet": True}


@pytest.mark.parametrize(("argv", "message"), [
    (["simple", "expert", "--gauntlet"], "give exactly one AGENT"),
    (["nobody", "--gauntlet"], "unknown agent 'nobody'"),
    (["simple", "--gauntlet", "--players", "3"], "it needs --players 2"),
])
def test_a_bad_gauntlet_is_one_line_before_any_game(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(gauntlet, "GAUNTLET", CHEAP)
    out = tmp_path / "r.json"
    try:
        code = cli.main([*argv, "--deals", "2", "--no-progress", "--workers", "1", "--json", str(out)])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_gauntlet_needs_two_players_in_the_tournament_too():
    with pytest.raises(ValueError, match="needs two players"):
        tournament.evaluate(["simple", "random", "expert"], Rules.preset("standard", players=3), "deals", 2,
                            gauntlet=True)


def _positions(preset: str, hands: int) -> list[engine.HandState]:
    """Every state of ``hands`` hands between the styles under ``preset`` (each style in both seats), played by
    ``duel.play_hand``, which raises on an illegal action."""
    rules = Rules.preset(preset, target=None)
    seen: list[engine.HandState] = []
    pairs = [("knocker", "undercutter"), ("early-knocker", "gin-hunter"), ("undercutter", "knocker"),
             ("gin-hunter", "early-knocker")]
    for number in range(hands):
        seats = [agents.load(name) for name in pairs[number % len(pairs)]]
        rngs = [duel.agent_rng(7, number, 0, seat) for seat in (0, 1)]
        state = engine.new_hand(rules, duel.deal_rng(7, number, 0), dealer=number % 2)
        duel.play_hand(state, seats, rngs, observer=lambda s, action: seen.append(s))
    return seen


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_styles_play_legally_in_every_phase_of_every_preset(preset):
    states = _positions(preset, 8)
    assert {s.phase for s in states} >= {engine.DRAW, engine.DISCARD}
    rng = np.random.default_rng(0)
    for state in states[::5]:
        v = view(state, state.current)
        for name in STYLES:
            assert v.legal_mask[agents.load(name).act(v, rng)], (preset, name, state.phase)


def _knock_deadwood(v, action: int) -> int:
    """The deadwood left by knocking with ``action`` (0 for big gin)."""
    return 0 if action == BIG_GIN else solver.discard_deadwoods(v.hand)[action - KNOCK_BASE]


@pytest.mark.parametrize("preset", ["standard", "eaai", "oklahoma"])
def test_the_styles_knock_as_documented(preset):
    rng = np.random.default_rng(0)
    knocker, early, hunter, undercutter = (agents.load(name) for name in STYLES)
    counted = {"knock legal": 0, "late": 0}
    for state in _positions(preset, 24):
        if state.phase != engine.DISCARD:
            continue
        v = view(state, state.current)
        knocks = v.legal_mask[KNOCK_BASE:KNOCK_BASE + cards.N_CARDS].any() or v.legal_mask[BIG_GIN]
        forced = not v.legal_mask[DISCARD_BASE:DISCARD_BASE + cards.N_CARDS].any()
        if knocks:
            counted["knock legal"] += 1
            action = knocker.act(v, rng)
            assert action == BIG_GIN or KNOCK_BASE <= action < KNOCK_BASE + cards.N_CARDS
        for agent in (hunter, undercutter):
            action = agent.act(v, rng)
            if action == BIG_GIN or KNOCK_BASE <= action < KNOCK_BASE + cards.N_CARDS:
                assert forced or _knock_deadwood(v, action) == 0
        if STOCK_AFTER_DEAL - v.stock_size >= styles.EARLY_FADE_DRAWS:
            counted["late"] += 1
            action = early.act(v, rng)
            if action == BIG_GIN or KNOCK_BASE <= action < KNOCK_BASE + cards.N_CARDS:
                assert forced or _knock_deadwood(v, action) == 0
    assert counted["knock legal"] >= 20 and counted["late"] >= 100
