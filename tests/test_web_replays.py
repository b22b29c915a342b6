"""The served replay folder (gin_env.web.replays): a name from the browser reaches only a listed file, the listing
keeps its bound and skips broken files, and a replay's points play the hand as the engine does, jokers as JK."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from gin_env import agents
from gin_env.game import engine, observation
from gin_env.game.rules import Rules
from gin_env.replay import replay_file
from gin_env.web import replays
from gin_env.web.replays import ReplayFolder, UnknownReplay

STANDARD = Rules.preset("standard")


def played_hand(seed: int, rules: Rules = STANDARD, players=("ann", "bob")) -> replay_file.Replay:
    """A hand of simple against simple on a deck shuffled by ``seed``, recorded."""
    rng = np.random.default_rng(seed)
    agent = agents.load("simple")
    start = engine.new_hand(rules, dealer=seed % 2, deck=tuple(int(c) for c in rng.permutation(rules.deck.n_cards)))
    state, moves = start, []
    while state.phase != engine.OVER:
        action = int(agent.act(observation.view(state, state.current), rng))
        moves.append(action)
        state = engine.step(state, action)
    return replay_file.record(start, moves, players=players)


@pytest.fixture
def folder(tmp_path):
    for k in range(3):
        played_hand(k).save(tmp_path / f"hand{k}.json")
    return tmp_path


TRAVERSALS = ["../x.json", "..", "../../etc/passwd", "/etc/passwd", "..\\x.json", "sub/hand0.json",
              "hand0.json\x00.txt", "%2e%2e%2fhand0.json", "%2E%2E/x.json", ".hand0.json", "C:hand0.json",
              "hand0.json/", "", None, 7, ["hand0.json"]]


@pytest.mark.parametrize("name", TRAVERSALS)
def test_traversal_attempts_are_refused_naming_the_problem(folder, name):
    (folder.parent / "x.json").write_text(played_hand(9).to_json())
    served = ReplayFolder(folder)
    served.listing()
    with pytest.raises(UnknownReplay, match="refused|no replay"):
        served.open(name)


def test_only_listed_names_open_and_an_unlisted_file_is_refused(folder):
    served = ReplayFolder(folder)
    names = [entry["name"] for entry in served.listing()]
    assert sorted(names) == ["hand0.json", "hand1.json", "hand2.json"]
    assert served.open("hand1.json") == replay_file.load(folder / "hand1.json")
    with pytest.raises(UnknownReplay, match="no replay 'hand7.json'"):
        served.open("hand7.json")


def test_a_link_out_of_the_folder_is_not_followed(folder, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.json"
    played_hand(5).save(outside)
    os.symlink(outside, folder / "link.json")
    served = ReplayFolder(folder)
    assert "link.json" not in [entry["name"] for entry in served.listing()]
    assert "links are not followed" in served.skipped["link.json"]
    with pytest.raises(UnknownReplay, match="not served"):
        served.open("link.json")


def test_a_folder_over_the_bound_is_listed_up_to_it_newest_first(tmp_path):
    for k in range(6):
        played_hand(k).save(tmp_path / f"h{k}.json")
        os.utime(tmp_path / f"h{k}.json", ns=(10**18 + k, 10**18 + k))
    served = ReplayFolder(tmp_path, max_files=4)
    listed = [entry["name"] for entry in served.listing()]
    assert listed == ["h5.json", "h4.json", "h3.json", "h2.json"]
    assert served.left_out == 2
    with pytest.raises(UnknownReplay):
        served.open("h0.json")


def test_a_file_over_the_size_bound_is_skipped(folder):
    size = os.path.getsize(folder / "hand0.json")
    served = ReplayFolder(folder, max_bytes=size - 1)
    listed = [entry["name"] for entry in served.listing()]
    assert "hand0.json" not in listed
    assert "over the bound" in served.skipped["hand0.json"]


@pytest.mark.parametrize("bad", [{"max_files": 0}, {"max_bytes": 0}, {"max_bytes": replays.MAX_FILE_BYTES + 1},
                                 {"max_files": 1.5}])
def test_bad_bounds_and_a_missing_folder_are_refused(folder, bad):
    with pytest.raises(ValueError, match="max_"):
        ReplayFolder(folder, **bad)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ReplayFolder(folder / "missing")


def test_a_corrupted_file_is_skipped_with_its_reason(folder):
    (folder / "broken.json").write_text("{not json")
    text = (folder / "hand2.json").read_text()
    data = json.loads(text)
    data["outcome"]["points"] += 1
    (folder / "lies.json").write_text(json.dumps(data))
    (folder / "notes.txt").write_text("not a replay")
    served = ReplayFolder(folder)
    assert sorted(entry["name"] for entry in served.listing()) == ["hand0.json", "hand1.json", "hand2.json"]
    assert "not valid JSON" in served.skipped["broken.json"]
    assert "outcome mismatch" in served.skipped["lies.json"]
    assert "notes.txt" not in served.skipped


def test_listing_describes_each_replay(folder):
    entry = next(e for e in ReplayFolder(folder).listing() if e["name"] == "hand0.json")
    replay = replay_file.load(folder / "hand0.json")
    winner = None if replay.outcome.winner is None else replay.players[replay.outcome.winner]
    assert entry == {"name": "hand0.json", "players": ["ann", "bob"], "seats": [0, 1], "rules": "standard",
                     "format": 2, "hand_number": None,
                     "outcome": {"kind": replay.outcome.kind, "points": replay.outcome.points, "winner": winner}}


@pytest.mark.parametrize("seed", range(4))
def test_steps_reproduce_the_outcome_and_offer_the_engines_legal_moves(seed):
    replay = played_hand(seed)
    points = replays.steps(replay)
    assert len(points) == len(replay.actions) + 1
    state = engine.new_hand(replay.rules, dealer=replay.dealer, deck=replay.deck)
    for point, action in zip(points, [*replay.actions, None]):
        assert point["table"]["stock_size"] == engine.stock_size(state)
        assert point["deadwood"] == [observation.own_deadwood(state, p) for p in (0, 1)]
        if action is None:
            assert point["actor"] is None and point["moves"] == [] and point["played"] is None
            break
        assert point["actor"] == state.current
        assert [m["action"] for m in point["moves"]] == np.flatnonzero(engine.legal_mask(state)).tolist()
        assert point["played"]["action"] == action
        state = engine.step(state, action)
    assert state.outcome == replay.outcome
    showdown = points[-1]["showdown"]
    assert showdown["kind"] == replay.outcome.kind and showdown["points"] == replay.outcome.points


def strings(value):
    """Every string in a JSON-ready value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def test_a_jokers_replay_shows_only_jk():
    rules = Rules.preset("jokers")
    seen = set()
    for seed in range(8):
        replay = played_hand(seed, rules)
        points = replays.steps(replay)
        start = replay.states()[0]
        held = sum((h >> rules.deck.n_naturals).bit_count() for h in start.hands)
        shown = sum(card.startswith("JK") for hand in points[0]["table"]["hands"]
                    for card in [*(c for m in hand["melds"] for c in m), *hand["deadwood_cards"]])
        assert shown == held
        seen.update(word for text in strings(points) for word in text.split() if "JK" in word)
    card = re.compile(r"^JK(=[2-9TJQKA][SHDC])?[.,:;)]?$")
    assert seen and all(card.match(word) for word in seen), seen


def test_advice_is_each_agents_choice_from_the_actors_view():
    replay = played_hand(1)
    state = replay.states()[2]
    given = {name: agents.load(name) for name in ("simple", "expert")}
    said = replays.advice(replay, 2, given)
    view = observation.view(state, state.current)
    assert [s["agent"] for s in said] == ["simple", "expert"]
    for entry in said:
        assert entry["action"] == given[entry["agent"]].act(view, np.random.default_rng(replays.ADVICE_SEED))
        assert engine.legal_mask(state)[entry["action"]]
    for bad in (-1, len(replay.actions), len(replay.actions) + 1, "2"):
        with pytest.raises(ValueError, match="point"):
            replays.advice(replay, bad, given)
