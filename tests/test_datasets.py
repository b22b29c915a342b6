"""Minari datasets (gin_env.datasets, gin-env dataset, train --from-dataset): a dataset written by the command loads
with minari alone, holds legal actions, masks and outcomes that agree with the rewards, replays from its seeds, does
not depend on the workers, covers every format, and is refused or left unwritten whole on bad input;
minari.DataCollector records GinRummy-v0; training clones a dataset."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

minari = pytest.importorskip("minari")

from gin_env import agents  # noqa: E402
from gin_env.datasets import cli as dataset_cli  # noqa: E402
from gin_env.datasets import decisions, episodes, minari_files  # noqa: E402
from gin_env.datasets.episodes import OTHER, OWN, Collection  # noqa: E402
from gin_env.game.observation import RECORD_OBS_LAYOUT, RECORD_OBS_SIZE  # noqa: E402

ID = "gin-rummy/expert-vs-simple-standard-v0"


def write(root, *argv) -> int:
    return dataset_cli.main(["--root", str(root), "--no-progress", *argv], "gin-env dataset")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """30 hands of expert against simple, written by the command, and the dataset read back."""
    root = tmp_path_factory.mktemp("datasets")
    assert write(root, "expert", "simple", "--hands", "30", "--workers", "1") == 0
    return root, minari.MinariDataset(os.path.join(minari_files.dataset_folder(str(root), ID), "data"))


def test_the_command_writes_a_dataset_that_minari_loads_without_gin_env(written):
    root, _ = written
    script = (
        "import json, sys, minari, numpy as np\n"
        f"d = minari.load_dataset({ID!r})\n"
        "e = d[0]\n"
        "legal = e.infos['action_mask'][np.arange(len(e.actions)), e.actions]\n"
        "print(json.dumps({'episodes': d.total_episodes, 'legal': bool(legal.all()),\n"
        "                  'ended': bool(e.infos['hand_ended'][-1]), 'kind': str(e.infos['kind'][-1]),\n"
        "                  'player': d.storage.metadata['gin_env']['player'],\n"
        "                  'gin_env': 'gin_env' in sys.modules}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env={**os.environ, "MINARI_DATASETS_PATH": str(root)})
    found = json.loads(done.stdout)
    assert found == {"episodes": 30, "legal": True, "ended": True, "kind": found["kind"],
                     "player": {"agent": agents.versioned("expert")}, "gin_env": False}
    assert found["kind"] in ("knock", "gin", "undercut", "big_gin", "dead")


def test_metadata_names_agents_rules_seeds_and_version(written):
    _, dataset = written
    meta = dataset.storage.metadata["gin_env"]
    import gin_env

    assert meta["version"] == gin_env.__version__ and meta["seed"] == 0 and meta["episodes"] == 30
    assert meta["others"] == {"opponent": {"agent": agents.versioned("simple")}}
    assert meta["rules"]["name"] == "standard" and meta["rules"]["knock_limit"] == 10
    assert meta["steps"] == dataset.total_steps
    # Minari's own size field, measured once when the dataset is complete.
    assert dataset.storage.metadata["dataset_size"] == dataset.storage.get_size() > 0
    seeds = [m["seed"] for m in dataset.storage.get_episode_metadata(range(3))]
    assert seeds == [episodes.episode_seed(0, i) for i in range(3)]


def test_outcomes_agree_with_rewards_and_each_hand_ends_its_episode(written):
    _, dataset = written
    for episode in dataset.iterate_episodes():
        infos = episode.infos
        n = len(episode.actions)
        assert episode.observations.shape == (n + 1, 375) and infos["action_mask"].shape == (n + 1, 108)
        assert infos["action_mask"][np.arange(n), episode.actions].all()
        # R20-R35: the hand's points go to the step that ends it, signed from the learner's side.
        assert infos["hand_ended"][1:].tolist() == [False] * (n - 1) + [True] and episode.terminations[-1]
        assert np.isclose(infos["points"][-1], episode.rewards.sum() * episodes.REWARD_SCALE)
        won, points = int(infos["won"][-1]), int(infos["points"][-1])
        assert (won == OWN) == (points > 0) and (won == OTHER) == (points < 0)
        if infos["kind"][-1] == "dead":
            assert infos["knocker_deadwood"][-1] == episodes.NO_DEADWOOD and infos["knocked"][-1] == 0
        else:
            assert infos["knocked"][-1] in (OWN, OTHER) and infos["knocker_deadwood"][-1] >= 0


def test_an_episode_replays_from_its_seed_in_the_recovered_env(written):
    _, dataset = written
    env = dataset.recover_environment()
    episode = dataset[4]
    obs, _ = env.reset(seed=dataset.storage.get_episode_metadata([4]).__next__()["seed"])
    assert np.array_equal(obs, episode.observations[0])
    for t, action in enumerate(episode.actions):
        obs, reward, *_ = env.step(int(action))
        assert np.array_equal(obs, episode.observations[t + 1]) and reward == pytest.approx(episode.rewards[t])


def test_the_episodes_do_not_depend_on_the_workers():
    collection = Collection("simple", ("random",), seed=7)
    alone = episodes.play_episodes(collection, 0, 6)
    from gin_env.datasets import collect

    split = collect.collect(collection, 6, workers=2, progress=False)
    later = episodes.play_episodes(collection, 3, 6)
    for a, b in zip(alone, split):
        assert a.seed == b.seed and np.array_equal(a.actions, b.actions) and np.array_equal(a.observations,
                                                                                          b.observations)
    assert all(np.array_equal(a.actions, b.actions) for a, b in zip(alone[3:], later))


@pytest.mark.parametrize("argv, rewards_are_points", [
    (["random", "simple", "simple", "--players", "3", "--hands", "4"], True),
    (["random", "simple", "--players", "4", "--hands", "4"], False),
    (["random", "simple", "--room", "2", "2", "--hands", "4"], True),
    (["simple", "random", "--matches", "1", "--rules", "eaai"], False),
])
def test_every_format_and_episode_kind(tmp_path, argv, rewards_are_points):
    assert write(tmp_path, *argv, "--workers", "1", "--id", "f-v0") == 0
    dataset = minari.MinariDataset(os.path.join(tmp_path, "f-v0", "data"))
    for episode in dataset.iterate_episodes():
        infos = episode.infos
        assert infos["action_mask"][np.arange(len(episode.actions)), episode.actions].all()
        assert infos["hand_ended"][-1] and set(infos["won"].tolist()) <= {-1, 0, 1}
        if rewards_are_points:
            assert np.isclose(infos["points"].sum(), episode.rewards.sum() * episodes.REWARD_SCALE)
        # No format here pays bonuses (eaai has none; hands, not matches, elsewhere): the rewards are the points of
        # every hand that ended, the learner's team's with four players.
        assert np.isclose(infos["hand_points"].sum(), episode.rewards.sum() * episodes.REWARD_SCALE)
        assert (infos["hands_ended"] >= infos["hand_ended"]).all()
        if "--matches" in argv:
            # R41-R43: the game ends with the episode, and only there.
            assert infos["match_ended"].tolist() == [False] * len(episode.actions) + [True]


def test_one_other_name_fills_every_seat_and_a_wrong_count_is_refused():
    kwargs = Collection("expert", ("simple",), players=4).env_kwargs()
    assert kwargs["partner"] == "expert" and kwargs["opponents"] == ["simple", "simple"]
    with pytest.raises(ValueError, match="3 players seats 2 other agents"):
        Collection("expert", ("simple", "random", "random"), players=3).env_kwargs()


@pytest.mark.parametrize("argv, message", [
    (["nobody", "simple", "--hands", "2"], "unknown agent 'nobody'"),
    (["expert", "simple", "random", "--hands", "2"], "2 players seats 1 other agents"),
    (["expert", "simple", "--hands", "2", "--id", "no-version"], "end the id in its version"),
    (["expert", "simple", "--hands", "2", "--id", "bad id-v0"], "a Minari dataset id is"),
    (["expert", "simple", "--matches", "2", "--rules", "openspiel"], "no target score"),
    (["expert", "simple", "--hands", "2", "--rules", "eaai", "--match-record"], "--match-record needs --matches"),
    (["expert", "simple", "--matches", "2", "--rules", "eaai", "--players", "3", "--match-record"], "two seats"),
])
def test_bad_input_is_refused_before_any_game(tmp_path, capsys, argv, message):
    assert write(tmp_path, *argv) == 2
    assert message in capsys.readouterr().err and os.listdir(tmp_path) == []


def test_an_existing_dataset_is_never_overwritten(written, capsys):
    root, dataset = written
    before = dataset.total_steps
    assert write(root, "expert", "simple", "--hands", "2") == 2
    assert "already holds a dataset" in capsys.readouterr().err
    assert minari.MinariDataset(os.path.join(minari_files.dataset_folder(str(root), ID), "data")).total_steps == before


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(minari, "create_dataset_from_buffers", broken)
    with pytest.raises(OSError, match="disk full"):
        write(tmp_path, "simple", "random", "--hands", "2", "--workers", "1")
    assert os.listdir(tmp_path) == []


@pytest.mark.filterwarnings("ignore:.*is set to None:UserWarning")
def test_data_collector_records_gin_rummy_with_its_infos(tmp_path, monkeypatch):
    pytest.importorskip("jax", reason="minari.DataCollector needs minari[create]")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    env = minari.DataCollector(gym.make("GinRummy-v0", opponent="simple"), record_infos=True,
                               step_data_callback=minari_files.GinRummyStepData, data_format="arrow")
    rng = np.random.default_rng(0)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    dataset = env.create_dataset("gin-rummy/collected-v0", algorithm_name="random")
    assert minari.load_dataset("gin-rummy/collected-v0").total_episodes == 3
    found = decisions.read_decisions(dataset)
    assert found.actions.size == dataset.total_steps and found.ended.all()
    assert found.masks[np.arange(found.actions.size), found.actions].all()


def test_decisions_carry_each_hands_return(written):
    _, dataset = written
    found = decisions.read_decisions(dataset)
    assert found.actions.size == dataset.total_steps and found.hand_over.sum() == 30
    returns = decisions.returns(found, 100.0, 1.0)
    # Undiscounted, every decision of a hand returns what the hand paid.
    ends = np.flatnonzero(found.hand_over)
    starts = np.concatenate([[0], ends[:-1] + 1])
    for start, end in zip(starts, ends):
        assert np.allclose(returns[start:end + 1], found.points[end] / 100.0)
    assert decisions.read_decisions(dataset, limit=10).actions.size == 10


@pytest.mark.filterwarnings("ignore:.*is set to None:UserWarning")
def test_decisions_refuse_a_dataset_without_masks(tmp_path, monkeypatch):
    pytest.importorskip("jax", reason="minari.DataCollector needs minari[create]")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    env = minari.DataCollector(gym.make("GinRummy-v0", opponent="random"), data_format="arrow")
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    dataset = env.create_dataset("bare-v0", algorithm_name="first legal")
    with pytest.raises(ValueError, match="no action_mask in its infos"):
        decisions.read_decisions(dataset)
    with pytest.raises(FileNotFoundError, match="no Minari dataset there"):
        decisions.open_dataset(str(tmp_path / "nothing"))


def test_training_clones_a_dataset(written, tmp_path):
    pytest.importorskip("sb3_contrib")
    from gin_env.training import checks, config, loop

    root, _ = written
    folder = minari_files.dataset_folder(str(root), ID)
    tiny = ["--num-envs", "64", "--slots", "4", "--n-steps", "16", "--batch-size", "256", "--channels", "4",
            "--features", "32", "--hidden", "16", "--eval-deals", "0", "--no-progress", "--imitate-epochs", "2"]
    args = config.parse_args(["--from-dataset", folder, "--total-timesteps", "0", "--run-dir", str(tmp_path / "r"),
                              *tiny])
    loop.train(args)
    with open(tmp_path / "r" / "history.json") as file:
        imitation = json.load(file)["imitation"]
    assert imitation["teacher"] == folder and imitation["decisions"] > 300
    assert agents.load(str(tmp_path / "r" / "last.zip"))
    # Several datasets, cloned into a model that has trained already (a generation of expert iteration).
    again = config.parse_args(["--from-dataset", f"{folder},{folder}", "--resume", str(tmp_path / "r" / "last.zip"),
                               "--total-timesteps", "0", "--run-dir", str(tmp_path / "r2"), *tiny])
    loop.train(again)
    with open(tmp_path / "r2" / "history.json") as file:
        assert json.load(file)["imitation"]["decisions"] == 2 * imitation["decisions"]
    assert write(tmp_path, "simple", "simple", "--hands", "2", "--workers", "1", "--rules", "eaai",
                 "--id", "other-v0") == 0
    with pytest.raises(ValueError, match="other-v0: played with .*'eaai'.*clone datasets of one game at a time"):
        decisions.read_sources([folder, minari_files.dataset_folder(str(tmp_path), "other-v0")])
    for extra, message in ((["--rules", "eaai"], "played under the rules 'standard'"),
                           (["--imitate-steps", "0"], "would clone nothing")):
        with pytest.raises(ValueError, match=message):
            checks.check_args(config.parse_args(["--from-dataset", folder, "--run-dir", str(tmp_path / "s"),
                                                 *tiny, *extra]))


@pytest.mark.filterwarnings("ignore:.*is set to None:UserWarning")
def test_the_collector_example_of_the_docs_runs(tmp_path, monkeypatch):
    pytest.importorskip("jax", reason="minari.DataCollector needs minari[create]")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    page = open(os.path.join(os.path.dirname(__file__), "..", "docs", "datasets.md"), encoding="utf-8").read()
    section = page[page.index("## Recording with"):]
    namespace: dict = {}
    exec(re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1), namespace)
    assert namespace["dataset"].total_episodes == 10
    assert decisions.read_decisions(namespace["dataset"]).actions.size == namespace["dataset"].total_steps


def test_a_dataset_with_the_information_state(tmp_path):
    assert write(tmp_path, "expert", "simple", "--hands", "3", "--workers", "1", "--information-state",
                 "--id", "h-v0") == 0
    dataset = minari.MinariDataset(os.path.join(tmp_path, "h-v0", "data"))
    env = dataset.recover_environment()
    assert dataset.storage.metadata["gin_env"]["information_state"] is True
    for index, episode in enumerate(dataset.iterate_episodes()):
        seed = next(dataset.storage.get_episode_metadata([index]))["seed"]
        obs, _ = env.reset(seed=seed)
        for t, action in enumerate(episode.actions):
            assert np.array_equal(obs["history"], episode.observations["history"][t])
            assert np.array_equal(obs["observation"], episode.observations["observation"][t])
            obs, *_ = env.step(int(action))
    assert decisions.read_decisions(dataset).obs.shape == (dataset.total_steps, 375)


def test_a_dataset_with_the_match_record_replays_and_clones_whole_games(tmp_path):
    """``--match-record``: the observations end with the match record (381 entries), the recovered env replays
    them, and the decisions' returns run to the end of a game for a critic trained with ``--match-record``
    (a hand's return without it)."""
    pytest.importorskip("sb3_contrib")
    from gin_env.training import checks, config, loop

    assert write(tmp_path, "simple", "expert", "--matches", "2", "--rules", "eaai", "--workers", "1",
                 "--match-record", "--id", "r-v0") == 0
    folder = minari_files.dataset_folder(str(tmp_path), "r-v0")
    dataset = minari.MinariDataset(os.path.join(folder, "data"))
    assert dataset.storage.metadata["gin_env"]["match_record"] is True
    assert dataset.storage.metadata["gin_env"]["observation_size"] == RECORD_OBS_SIZE
    env = dataset.recover_environment()
    record_seen = False
    for index, episode in enumerate(dataset.iterate_episodes()):
        seed = next(dataset.storage.get_episode_metadata([index]))["seed"]
        obs, _ = env.reset(seed=seed)
        for t, action in enumerate(episode.actions):
            assert np.array_equal(obs, episode.observations[t])
            record_seen |= bool(obs[RECORD_OBS_LAYOUT["record"]].any())
            obs, *_ = env.step(int(action))
    assert record_seen, "no hand ended with a knock or gin before the last: the test tells nothing"
    found = decisions.read_decisions(dataset)
    assert found.obs.shape == (dataset.total_steps, RECORD_OBS_SIZE) and found.episode_over.sum() == 2
    games = decisions.returns(found, 100.0, 1.0, whole_episodes=True)
    ends = np.flatnonzero(found.episode_over)
    for start, end in zip(np.concatenate([[0], ends[:-1] + 1]), ends):
        # Undiscounted, a decision's game return is what the rest of its game paid, bonuses included.
        expected = np.cumsum(found.points[start:end + 1][::-1])[::-1] / 100.0
        assert np.allclose(games[start:end + 1], expected)
    assert found.hand_over.sum() > 2 and not np.allclose(games, decisions.returns(found, 100.0, 1.0))
    tiny = ["--rules", "eaai", "--num-envs", "64", "--slots", "4", "--n-steps", "16", "--batch-size", "256",
            "--channels", "4", "--features", "32", "--hidden", "16", "--eval-deals", "0", "--no-progress",
            "--imitate-epochs", "1", "--total-timesteps", "0"]
    with pytest.raises(ValueError, match="carry the match record; train with --match-record"):
        checks.check_args(config.parse_args(["--from-dataset", folder, "--run-dir", str(tmp_path / "s"), *tiny]))
    loop.train(config.parse_args(["--from-dataset", folder, "--match-record", "--run-dir", str(tmp_path / "m"),
                                  *tiny]))
    assert agents.load(str(tmp_path / "m" / "last.zip")).match_record
