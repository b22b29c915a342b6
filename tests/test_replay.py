"""Replays: recording from the duel loop, evaluate's duplicate games and the env; round trips that reproduce the
outcome; clear errors for corrupt or mismatched files; the viewer."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from gin_env import agents
from gin_env.evaluation import duel
from gin_env.game import actions, engine
from gin_env.game.rules import JOKER_KEYS, Rules
from gin_env.replay import recorder as recording
from gin_env.replay import replay_file as replay
from gin_env.replay.recorder import Recorder
from gin_env.replay.replay_file import ReplayError
from gin_env.ui import viewer as replay_viewer
from tests.scripted import make_deck


def game_replays(preset: str = "standard", seed: int = 1, directory=None):
    """Every hand of one simple-vs-random game, recorded; and the game's result as the duel loop reports it."""
    recorder = Recorder(directory, "test", ("simple", "random"))
    result = duel.play_game(Rules.preset(preset), (agents.load("simple"), agents.load("random")), seed, 0,
                            observer=recorder)
    return recorder.replays, result


def knock_replay() -> replay.Replay:
    """A short hand that ends in a knock with layoffs: P1 (non-dealer) passes, P2 passes, P1 draws 2C and
    knocks with KC, deadwood 2; P2 lays off 4S and 7H (R27)."""
    rules = Rules.preset("standard")
    deck = make_deck("AS 2S 3S 4H 5H 6H 7C 7D 7S KC", "4S 7H 8C 9C JD QD KH 2H 5C 9S", "3D", "2C")
    start = engine.new_hand(rules, dealer=1, deck=deck)
    names = ["PASS", "PASS", "DRAW_STOCK", "KNOCK(KC)"]
    return replay.record(start, [actions.parse(n) for n in names], players=("ann", "bob"))


def saved(tmp_path, data: dict, name: str = "hand.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


# ---------------------------------------------------------------------------------------------------------------
# Recording and round trips
# ---------------------------------------------------------------------------------------------------------------

def test_recorder_sees_every_hand_of_a_game_and_files_reproduce_the_outcomes(tmp_path):
    replays, result = game_replays(directory=tmp_path)
    assert [r.outcome for r in replays] == list(result.outcomes)
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == [f"test-hand{n:03d}.json" for n in range(1, len(replays) + 1)]
    scores = [0, 0]
    for f, recorded in zip(files, replays):
        loaded = replay.load(f)
        assert loaded == recorded
        assert loaded.states()[-1].outcome == recorded.outcome
        assert loaded.scores == tuple(scores)
        if recorded.outcome.winner is not None:
            scores[recorded.outcome.winner] += recorded.outcome.points


@pytest.mark.parametrize("preset", ["eaai", "oklahoma", "foony", "openspiel"])
def test_round_trip_under_other_rules(preset):
    replays, result = game_replays(preset, seed=2)
    for recorded in replays:
        assert replay.loads(recorded.to_json()) == recorded
        assert replay.loads(recorded.to_json()).rules == Rules.preset(preset)
    assert [r.outcome for r in replays] == list(result.outcomes)


def test_file_holds_rules_deal_actions_and_outcome_as_documented():
    data = json.loads(knock_replay().to_json())
    assert list(data) == list(replay.KEYS)
    assert data["format"] == "gin-env-replay" and data["version"] == 1
    # Section 17.1: the joker keys change nothing without jokers, so a standard game's file leaves them out.
    assert set(data["rules"]) == set(replay.RULES_KEYS) - set(JOKER_KEYS) and data["rules"]["name"] == "standard"
    assert data["players"] == ["ann", "bob"] and data["dealer"] == 1
    assert len(data["deck"]) == 52 and data["deck"][:2] == ["AS", "4S"]
    assert data["actions"] == ["PASS", "PASS", "DRAW_STOCK", "KNOCK(KC)"]
    assert data["outcome"] == {"kind": "knock", "winner": 0, "points": 61, "knocker": 0, "knock_card": "KC",
                               "knocker_deadwood": 2, "defender_deadwood": 63, "layoffs": ["4S", "7H"],
                               "knocker_melds": [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7S", "7D", "7C"]],
                               "capped": False}


def test_evaluate_duplicate_games_record_both_seatings_without_changing_play(tmp_path):
    rules = Rules.preset("standard", target=None)
    simple, rand = agents.load("simple"), agents.load("random")
    recorded = duel.play_duplicate(rules, simple, rand, 7, 3, replays=tmp_path, names=("simple", "models/best.zip"))
    assert recorded == duel.play_duplicate(rules, simple, rand, 7, 3)
    files = sorted(f.name for f in tmp_path.iterdir())
    stem = "standard_custom-seed7-simple-vs-best-game00003"
    assert files == [f"{stem}-seating0-hand001.json", f"{stem}-seating1-hand001.json"]
    first, second = (replay.load(tmp_path / f) for f in files)
    assert first.deck == second.deck and first.players == ("simple", "models/best.zip")
    assert second.players == ("models/best.zip", "simple")
    assert (first.outcome, second.outcome) == (recorded[0].outcomes[0], recorded[1].outcomes[0])


def test_recorder_refuses_a_hand_joined_in_play_and_a_foreign_state():
    start = engine.new_hand(Rules(), np.random.default_rng(0), dealer=0)
    later = engine.step(start, actions.PASS)
    with pytest.raises(ValueError, match="from its deal"):
        Recorder()(later, actions.PASS)
    recorder = Recorder()
    recorder(start, actions.PASS)
    with pytest.raises(ValueError, match="does not follow the last action"):
        recorder(start, actions.PASS)
    with pytest.raises(ReplayError, match="starts from the deal"):
        replay.record(later, [actions.PASS])


def test_recording_and_checking_replays_need_no_rich():
    code = "import sys, gin_env.replay.replay_file; assert 'rich' not in sys.modules, 'rich imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------------------------------------------
# The env
# ---------------------------------------------------------------------------------------------------------------

def play_env_episode(env, rng):
    """Random legal actions to the end of the episode; the info of every step that ended a hand."""
    env.reset(seed=11)
    ended, done = [], False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, info = env.step(int(legal[rng.integers(legal.size)]))
        done = terminated or truncated
        if "outcome" in info:
            ended.append((info, env.replay()))
    return ended


def test_env_replay_of_a_hand_episode_reproduces_its_outcome(tmp_path):
    env = gym.make("GinRummy-v0", opponent="simple").unwrapped
    env.reset(seed=3)
    with pytest.raises(RuntimeError, match="no hand has finished"):
        env.replay()
    (info, recorded), = play_env_episode(env, np.random.default_rng(0))
    assert recorded.states()[-1] == env.state
    assert recorded.outcome.player_points(env.learner) == info["outcome"]["points"]
    assert recorded.players[env.learner] == "learner" and recorded.hand_number is None
    recorded.save(tmp_path / "env.json")
    assert replay.load(tmp_path / "env.json") == recorded


def test_env_replay_follows_each_hand_of_a_match():
    env = gym.make("GinRummy-v0", opponent="simple", episode="match").unwrapped
    ended = play_env_episode(env, np.random.default_rng(1))
    assert len(ended) == len(env.match.history) >= 2
    scores = [0, 0]
    for number, ((_, recorded), outcome) in enumerate(zip(ended, env.match.history), start=1):
        assert (recorded.hand_number, recorded.scores, recorded.outcome) == (number, tuple(scores), outcome)
        if outcome.winner is not None:
            scores[outcome.winner] += outcome.points


# ---------------------------------------------------------------------------------------------------------------
# Corrupt and mismatched files
# ---------------------------------------------------------------------------------------------------------------

def test_unreadable_or_non_json_files_are_named(tmp_path):
    with pytest.raises(ReplayError, match="cannot read replay"):
        replay.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "gin-env-replay", ')
    with pytest.raises(ReplayError, match=r"bad\.json: not a replay: the file is not valid JSON"):
        replay.load(bad)
    with pytest.raises(ReplayError, match="not a replay"):
        replay.loads("[1, 2, 3]")


def corrupt(change) -> dict:
    data = json.loads(knock_replay().to_json())
    change(data)
    return data


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(version=3), "version 3 is not supported: this gin-env reads versions 1, 2"),
    (lambda d: d.update(extra=1), "unknown replay keys: extra"),
    (lambda d: d.pop("deck"), "missing replay keys: deck"),
    (lambda d: d["rules"].update(wild_cards=2), "unknown rules keys: wild_cards"),
    (lambda d: d["rules"].update(jokers=True), "bad rules: rules key 'jokers' must be an integer 0..2"),
    (lambda d: d["rules"].pop("gin_bonus"), "missing rules keys: gin_bonus"),
    (lambda d: d["rules"].update(shutout="triple"), "bad rules: rules key 'shutout' must be one of"),
    (lambda d: d.update(deck=d["deck"][:51]), "'deck' must be a list of the 52 cards"),
    (lambda d: d["deck"].__setitem__(5, "AS"), "the deck holds AS more than once"),
    (lambda d: d["deck"].__setitem__(5, "1S"), "deck card 5: malformed card '1S'"),
    (lambda d: d.update(dealer=2), "'dealer' must be 0 .P1. or 1 .P2., got 2"),
    (lambda d: d["actions"].__setitem__(2, "FLY"), "action 3: 'FLY' is not an action name"),
    (lambda d: d["actions"].__setitem__(2, "DISCARD(KC)"),
     r"cannot play action 3 of 4: illegal action DISCARD\(KC\) in phase 'draw'"),
    (lambda d: d["actions"].pop(), r"not over after all 3 actions \(phase 'discard'\): the replay is cut short"),
    (lambda d: d["actions"].append("PASS"), r"the hand ended \(knock\) after action 4, but the replay has 5"),
    (lambda d: d.update(players=["ann"]), "'players' must be the two players' names"),
    (lambda d: d.update(scores=[1, -1]), "'scores' must be the two running scores"),
    (lambda d: d["outcome"].pop("layoffs"), "missing outcome keys: layoffs"),
    (lambda d: d["outcome"].update(points=70),
     "outcome mismatch: points is 70 in the file but 61 when the actions are played"),
    (lambda d: d["outcome"].update(layoffs=["4S"]), "outcome mismatch: layoffs is"),
    # The same actions under other rules: the knock over the new limit is illegal.
    (lambda d: d["rules"].update(knock_limit=1), r"cannot play action 4 of 4: illegal action KNOCK\(KC\)"),
    # Rules that allow the same play but score it differently: without layoffs (RLCard) bob keeps 4S and 7H.
    (lambda d: d["rules"].update(layoffs=False),
     "outcome mismatch: points is 61 in the file but 72 when the actions are played; defender_deadwood is 63"),
])
def test_corrupt_or_mismatched_file_raises_a_clear_error(tmp_path, change, message):
    with pytest.raises(ReplayError, match=message):
        replay.load(saved(tmp_path, corrupt(change)))


# ---------------------------------------------------------------------------------------------------------------
# Viewer
# ---------------------------------------------------------------------------------------------------------------

def test_viewer_prints_every_move_both_hands_and_the_showdown(tmp_path, capsys):
    pytest.importorskip("rich")
    path = tmp_path / "knock.json"
    knock_replay().save(path)
    assert replay_viewer.main([str(path)]) == 0
    out = capsys.readouterr().out
    for text in ("P1 ann, P2 bob; bob deals.", "Upcard 3D, knock limit 10.",
                 "1. ann passes on the upcard 3D", "2. bob passes on the upcard 3D",
                 "3. ann draws from the stock: 2C", "4. ann knocks, putting KC face down",
                 "ann knocks with KC face down:", "ann  [AS 2S 3S +4S]  [4H 5H 6H +7H]  [7S 7D 7C]  2C   deadwood 2",
                 "bob  2H 5C 8C 9S 9C JD QD KH   deadwood 63   laid off: 4S 7H",
                 "ann scores bob's deadwood 63 - ann's 2 = 61."):
        assert text in out, text
    # Both hands after each move that leaves the hand in play: three moves, two hands each, plus the deal.
    assert out.count("› ann") == 2 and out.count("› bob") == 1


def test_viewer_steps_on_enter_and_stops_on_q():
    """Stepping says how before the first step, and each prompt says it again (Enter: next, q: quit)."""
    from rich.console import Console

    console = Console(file=io.StringIO(), width=120, color_system=None)
    answers, prompts = iter(["", "q"]), []

    def wait(prompt):
        prompts.append(prompt)
        return next(answers)

    replay_viewer.show(knock_replay(), console, wait)
    out = console.file.getvalue()
    assert "2. bob passes" in out and "3. ann draws" not in out
    assert out.index("Enter shows the next action; q then Enter stops") < out.index("1. ann passes")
    assert prompts == ["(Enter: next, q: quit) "] * 2


def test_viewer_reports_a_bad_file_in_one_line(tmp_path, capsys):
    pytest.importorskip("rich")
    path = saved(tmp_path, corrupt(lambda d: d.update(version=9)))
    assert replay_viewer.main([str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("gin-env replay: error: ") and "version 9 is not supported" in err
    assert "\n" not in err


def test_replay_names_differ_by_run_and_never_overwrite(tmp_path):
    """Issue 17: names hold the preset, the seed and distinct agent labels; a second save of one name is refused and
    the first file stays intact."""
    rules = Rules.preset("standard", target=None)
    simple, rand = agents.load("simple"), agents.load("random")
    for seed in (1, 2):
        duel.play_duplicate(rules, simple, rand, seed, 0, replays=tmp_path, names=("x/best.zip", "y/best.zip"))
    files = sorted(f.name for f in tmp_path.iterdir())
    assert len(files) == 4 and len({f.split("-game")[0] for f in files}) == 2
    assert recording.labels(["x/best.zip", "y/best.zip", "simple"])[2] == "simple"
    assert len(set(recording.labels(["x/best.zip", "y/best.zip"]))) == 2
    before = {f: (tmp_path / f).read_text() for f in files}
    with pytest.raises(FileExistsError, match="exists already"):
        duel.play_duplicate(rules, simple, rand, 1, 0, replays=tmp_path, names=("x/best.zip", "y/best.zip"))
    assert {f.name: f.read_text() for f in tmp_path.iterdir()} == before  # nothing replaced, no temporary left


def test_viewer_output_into_a_pipe_is_not_wrapped(tmp_path):
    pytest.importorskip("rich")
    """Issue 12: piped to a file, a line stays whole instead of breaking at rich's default 80 columns."""
    long_name = "a-player-with-a-name-long-enough-to-pass-eighty-columns-on-its-own-line-" * 2
    path = tmp_path / "long.json"
    knock_replay().save(path)
    data = json.loads(path.read_text())
    data["players"] = [long_name, "bob"]
    path.write_text(json.dumps(data))
    result = subprocess.run([sys.executable, "-m", "gin_env.ui.viewer", str(path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert any(long_name in line and "deals" in line for line in result.stdout.splitlines())


@pytest.mark.parametrize("text, message", [("[" * 100_000 + "]" * 100_000, "nested too deeply"),
                                           ('{"format": "gin-env-replay", "version": 1, "dealer": ' + "9" * 4301 + "}",
                                            "too many digits")])
def test_viewer_reports_pathological_json_in_one_line(text, message, tmp_path, capsys):
    pytest.importorskip("rich")
    """Issue 17: JSON that Python's reader refuses (deep nesting, a 4,301-digit integer) is a bad file, not a crash."""
    path = tmp_path / "odd.json"
    path.write_text(text)
    with pytest.raises(ReplayError, match=message):
        replay.load(path)
    assert replay_viewer.main([str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_rules_in_files_hold_the_joker_keys_only_when_jokers_play():
    """``Rules.as_dict`` (what replays and datasets record): a game with jokers records the three keys and reads back
    the same rules; a game without them records none, and a file without them reads as no jokers."""
    with_jokers = Rules.preset("oklahoma", jokers=1, joker_value=15)
    assert {key: with_jokers.as_dict()[key] for key in JOKER_KEYS} == {"jokers": 1, "joker_value": 15,
                                                                       "joker_min_naturals": 2}
    assert Rules(**with_jokers.as_dict()) == with_jokers
    assert not set(JOKER_KEYS) & set(Rules.preset("oklahoma").as_dict())
    assert Rules(**Rules.preset("oklahoma").as_dict()) == Rules.preset("oklahoma")


def jokers_replay(seed: int = 4) -> replay.Replay:
    """A hand under the rules of section 17 with two jokers, played at random, recorded."""
    rules = Rules.preset("oklahoma", jokers=2, joker_value=15)
    rng = np.random.default_rng(seed)
    state = start = engine.new_hand(rules, rng)
    played = []
    while state.phase != engine.OVER:
        played.append(int(rng.choice(engine.legal_actions(state))))
        state = engine.step(state, played[-1])
    return replay.record(start, played)


def test_a_hand_with_jokers_is_a_version_2_file_that_plays_again_R62():
    """Version 2 records the rules' deck, each joker as JK in its place (R62), and the joker actions by name (R72);
    it reads back to the same hand. A standard hand stays a version 1 file (above), readable by older gin-envs."""
    for seed in range(6):
        recorded = jokers_replay(seed)
        data = json.loads(recorded.to_json())
        assert data["version"] == 2 and data["rules"]["jokers"] == 2
        assert len(data["deck"]) == 54 and data["deck"].count("JK") == 2
        assert replay.loads(recorded.to_json()) == recorded
    assert any(action.endswith("(JK)") for seed in range(6) for action in jokers_replay(seed).to_dict()["actions"])


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(version=1), "version 1 holds no jokers, and its rules deal 2"),
    (lambda d: d["deck"].__setitem__(d["deck"].index("AS"), "JK"), "deck card .*: one JK more than the 2"),
    (lambda d: d.update(deck=[c for c in d["deck"] if c != "JK"]), "'deck' must be a list of the 52 cards and 2 JK"),
])
def test_a_file_with_jokers_is_checked_against_its_rules_R62(tmp_path, change, message):
    data = json.loads(jokers_replay().to_json())
    change(data)
    with pytest.raises(ReplayError, match=message):
        replay.load(saved(tmp_path, data))
