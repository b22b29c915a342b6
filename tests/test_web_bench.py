"""benchmarks/bench_web.py, the web table's speed figures of docs/web.md: it runs end to end on tiny budgets (a real
``gin-env serve``, Chromium, a room with spectators), times every click it makes and every spectator of every
move, and refuses bad options before starting anything. Nothing here asserts on milliseconds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from tests.web_pages import chromium_or_skip

CHROMIUM = chromium_or_skip()

from gin_env.web.rooms import MAX_SPECTATORS  # noqa: E402


def load_bench():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_web.py"
    spec = importlib.util.spec_from_file_location("bench_web", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@pytest.mark.browser
def test_every_click_and_every_spectator_of_every_move_is_timed(tmp_path, capsys):
    bench = load_bench()
    out = tmp_path / "web.json"
    assert bench.main(["--agents", "simple", "random", "--moves", "4", "--warmup", "1", "--spectators", "3",
                       "--load-moves", "5", "--chromium", CHROMIUM, "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert list(result["clicks"]) == ["simple", "random"]
    for timings in result["clicks"].values():
        assert len(timings) == 4
        assert all(c["type"] == "game" and 0 <= c["drawn"] <= c["shown"] for c in timings)
    assert len(result["delivery"]) == 3 * 5 and all(ms > 0 for ms in result["delivery"])
    printed = capsys.readouterr().out
    assert "| click to answer on screen, against random | 4 |" in printed
    assert "| a move to each of 3 spectators | 15 |" in printed and f"wrote {out}" in printed


def test_the_room_person_starts_deals_on_and_plays_only_offered_moves():
    bench = load_bench()
    rng = np.random.default_rng(0)
    room = {"state": "playing", "to_act": "simple"}
    assert bench._room_request({"room": {**room, "state": "open"}}, rng) == {"type": "start"}
    assert bench._room_request({"room": {**room, "state": "over"}}, rng) == {"type": "start"}
    assert bench._room_request({"room": {**room, "state": "between"}}, rng) == {"type": "next"}
    offered = {"room": room, "view": {"moves": [{"action": 5, "label": "discard 6S"}, {"action": 9, "label": "x"}]}}
    assert {bench._room_request(offered, rng)["action"] for _ in range(40)} == {5, 9}
    with pytest.raises(SystemExit, match="waits on someone the measurement does not play: simple"):
        bench._room_request({"room": room, "view": {"moves": []}}, rng)


@pytest.mark.parametrize("argv, words", [
    (["--moves", "0"], "--moves must be at least 1, got 0"),
    (["--spectators", "-1"], f"--spectators must be 0..{MAX_SPECTATORS} (a room's most), got -1"),
    (["--chromium", "/nonexistent/chromium"], "--chromium /nonexistent/chromium: no such program"),
    (["--json", "/nonexistent/folder/web.json"], "--json /nonexistent/folder/web.json: the folder"),
])
def test_bad_options_are_refused_in_one_line_before_anything_starts(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_bench().main(argv)
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err
