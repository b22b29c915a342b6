"""gin-env dataset --from-replays DIR --player NAME: one episode per hand the person played, their own actions, the
env's observations for the same deal and actions; bad input refused in one line before anything is written."""

from __future__ import annotations

import os

import gymnasium as gym
import numpy as np
import pytest

minari = pytest.importorskip("minari")

from gin_env import agents  # noqa: E402
from gin_env.datasets import cli as dataset_cli  # noqa: E402
from gin_env.datasets import minari_files  # noqa: E402
from gin_env.game import engine, observation  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402
from gin_env.replay import replay_file  # noqa: E402

ID = "people/ann-v0"
#: Who played each recorded hand, P1 first, and under which preset: ann in both seats, a hand without her, and one
#: of hers under other rules.
HANDS = [(("ann", "simple"), "standard"), (("expert", "ann"), "standard"), (("bob", "simple"), "standard"),
         (("ann", "expert"), "standard"), (("ann", "simple"), "jokers")]


def record_hands(folder) -> list[replay_file.Replay]:
    """A scripted game's hands, saved as replays: each seat played by an agent, ann by the expert."""
    out = []
    for k, (players, preset) in enumerate(HANDS):
        rules = Rules.preset(preset)
        rng = np.random.default_rng(k)
        seated = [agents.load("expert" if name == "ann" else name if name != "bob" else "random") for name in players]
        start = engine.new_hand(rules, dealer=k % 2, deck=tuple(int(c) for c in rng.permutation(rules.deck.n_cards)))
        state, moves = start, []
        while state.phase != engine.OVER:
            moves.append(int(seated[state.current].act(observation.view(state, state.current), rng)))
            state = engine.step(state, moves[-1])
        replay = replay_file.record(start, moves, players=players, hand_number=k + 1)
        replay.save(folder / f"game-hand{k + 1:03d}.json")
        out.append(replay)
    return out


def write(root, *argv) -> int:
    return dataset_cli.main(["--root", str(root), "--no-progress", *argv], "gin-env dataset")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replays")
    recorded = record_hands(folder)
    (folder / "broken.json").write_text("{")
    root = tmp_path_factory.mktemp("datasets")
    assert write(root, "--from-replays", str(folder), "--player", "ann", "--id", ID) == 0
    dataset = minari.MinariDataset(os.path.join(minari_files.dataset_folder(str(root), ID), "data"))
    return recorded, dataset


def test_the_written_dataset_is_announced_with_how_to_load_it(tmp_path, capsys):
    folder = tmp_path / "replays"
    folder.mkdir()
    record_hands(folder)
    assert write(tmp_path / "datasets", "--from-replays", str(folder), "--player", "ann", "--id", ID) == 0
    out = capsys.readouterr().out
    assert f"wrote dataset {ID} to " in out
    assert f"load it with minari.load_dataset({ID!r}) (with MINARI_DATASETS_PATH=" in out


def own_hands(recorded):
    """ann's standard hands, oldest first, with her seat."""
    return [(replay, replay.players.index("ann")) for replay, (_, preset) in zip(recorded, HANDS)
            if "ann" in replay.players and preset == "standard"]


def test_one_episode_per_hand_of_the_player_with_her_actions(written):
    recorded, dataset = written
    hands = own_hands(recorded)
    assert dataset.total_episodes == len(hands) == 3
    for episode, (replay, seat) in zip(dataset.iterate_episodes(), hands):
        states = replay.states()
        mine = [a for s, a in zip(states, replay.actions) if s.current == seat]
        assert episode.actions.tolist() == mine
        outcome_points = replay.outcome.player_points(seat)
        assert episode.rewards.sum() * 100 == pytest.approx(outcome_points)
        assert episode.terminations[-1] and not episode.truncations.any()
        legal = episode.infos["action_mask"][np.arange(len(mine)), episode.actions]
        assert legal.all()
    meta = dataset.storage.metadata["gin_env"]
    assert meta["player"] == {"person": "ann"} and meta["episodes"] == 3
    assert meta["replays"] == ["game-hand001.json", "game-hand002.json", "game-hand004.json"]


def test_observations_are_the_envs_for_the_same_deal_and_actions(written):
    recorded, dataset = written
    for episode, (replay, seat) in zip(dataset.iterate_episodes(), own_hands(recorded)):
        states = replay.states()
        theirs = [a for s, a in zip(states, replay.actions) if s.current != seat]
        env = gym.make("GinRummy-v0", rules="standard", opponent=lambda view, rng, moves=theirs: moves.pop(0))
        obs, _ = env.reset(seed=0, options={"deck": list(replay.deck), "dealer": replay.dealer,
                                            "learner_seat": seat})
        seen = [obs]
        for action in episode.actions:
            obs, *_ = env.step(int(action))
            seen.append(obs)
        assert np.array_equal(np.stack(seen), episode.observations)
        # And each decision's observation is the engine's view of the recorded state, encoded.
        decisions = [s for s in states[:-1] if s.current == seat]
        expected = [observation.encode(observation.view(s, seat)) for s in decisions]
        assert np.array_equal(np.stack(expected), episode.observations[:-1])


@pytest.mark.parametrize("argv, message", [
    (["--from-replays", "{missing}", "--player", "ann"], "does not exist"),
    (["--from-replays", "{empty}", "--player", "ann"], "no replay file in the folder"),
    (["--from-replays", "{folder}", "--player", "zed"], "the players found: 'ann', 'bob', 'expert', 'simple'"),
    (["--from-replays", "{folder}", "--player", "ann", "--rules", "oklahoma"],
     "hands are under: standard (3), jokers (1)"),
    (["--from-replays", "{folder}"], "needs --player NAME"),
    (["expert", "--from-replays", "{folder}", "--player", "ann"], "takes no PLAYER"),
    (["--from-replays", "{folder}", "--player", "ann", "--hands", "3"], "takes no --hands"),
    (["expert", "simple", "--hands", "2", "--player", "ann"], "--player NAME goes with --from-replays"),
    (["expert", "--hands", "2"], "required: OTHER"),
])
def test_bad_input_is_one_line_before_anything_is_written(tmp_path, capsys, argv, message):
    folder = tmp_path / "replays"
    folder.mkdir()
    record_hands(folder)
    (tmp_path / "empty").mkdir()
    root = tmp_path / "root"
    paths = {"missing": str(tmp_path / "missing"), "empty": str(tmp_path / "empty"), "folder": str(folder)}
    argv = [a.format(**paths) for a in argv]
    try:
        code = write(root, *argv)
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not root.exists()


def test_hands_under_changed_rules_are_found_by_the_same_rule_options(tmp_path):
    """A hand saved under ``standard`` with one key changed is named ``standard`` in its file; ``--rules standard
    --rule knock_limit=5`` names the same game ``standard+custom`` and must still find it (the keys decide)."""
    folder = tmp_path / "replays"
    folder.mkdir()
    rules = Rules.preset("standard").replace(knock_limit=5)
    rng = np.random.default_rng(0)
    start = engine.new_hand(rules, dealer=0, deck=tuple(int(c) for c in rng.permutation(rules.deck.n_cards)))
    state, moves, seated = start, [], [agents.load("expert"), agents.load("simple")]
    while state.phase != engine.OVER:
        moves.append(int(seated[state.current].act(observation.view(state, state.current), rng)))
        state = engine.step(state, moves[-1])
    replay_file.record(start, moves, players=("ann", "simple")).save(folder / "hand.json")
    root = tmp_path / "datasets"
    assert write(root, "--from-replays", str(folder), "--player", "ann", "--id", ID, "--rules", "standard",
                 "--rule", "knock_limit=5") == 0
    dataset = minari.MinariDataset(os.path.join(minari_files.dataset_folder(str(root), ID), "data"))
    assert dataset.total_episodes == 1
    assert write(tmp_path / "other", "--from-replays", str(folder), "--player", "ann", "--id", ID) == 2
