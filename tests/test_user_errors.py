"""The small things a new user meets first (issue 49): a plug-in in the current folder, evaluation without tqdm, a
render mode the env lacks, a run folder given as an agent, a mistyped or capitalised name. Each is met where the user
meets it: the ``gin-env`` command, or ``gym.make``."""

from __future__ import annotations

import io
import sys

import gymnasium as gym
import numpy as np
import pytest

import gin_env  # noqa: F401  (registers GinRummy-v0)
from gin_env import cli
from gin_env.game.rules import Rules
from tests.refusals import refused_command

#: A strategy in the user's own file: the first legal action.
MY_BOT = "def act(view, rng):\n    return int(view.legal_mask.nonzero()[0][0])\n"


def test_a_plugin_in_the_current_folder_plays_and_leaves_the_import_path_as_it_was(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_bot.py").write_text(MY_BOT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "my_bot", raising=False)
    path = list(sys.path)
    assert cli.main(["evaluate", "my_bot:act", "simple", "--deals", "2", "--workers", "1", "--no-progress"]) == 0
    assert "my_bot:act" in capsys.readouterr().out
    assert sys.path == path  # the folder was searched for the plug-in's import alone
    monkeypatch.delitem(sys.modules, "my_bot")


def test_evaluation_without_tqdm_plays_without_a_bar_but_refuses_a_plot_without_matplotlib(tmp_path, monkeypatch,
                                                                                           capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if not installed
    assert cli.main(["evaluate", "simple", "random", "--deals", "2", "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert "simple" in out and err == "evaluating: no progress bar without tqdm (pip install 'gin-env[evaluate]' " \
                                      "shows one)\n"
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    refused_command(["evaluate", "simple", "random", "--deals", "2", "--workers", "1", "--plot", "out.png"],
                    "--plot needs matplotlib", tmp_path, capsys)


@pytest.mark.parametrize("make, modes", [
    (lambda: gym.make("GinRummy-v0", render_mode="window"), "['ansi', 'human', 'rgb_array']"),
    (lambda: gym.make("GinRummy-v0", render_mode="window", players=3), "['ansi', 'human', 'rgb_array']"),
    (lambda: gym.make_vec("GinRummy-v0", num_envs=2, render_mode="human"), "[]"),
    (lambda: pytest.importorskip("gin_env.envs.pettingzoo").env(render_mode="human"), "['ansi']"),
], ids=["GinRummy-v0", "GinRummy-v0 players=3", "make_vec", "pettingzoo"])
@pytest.mark.filterwarnings("ignore:.*not in the possible render_modes")  # Gymnasium's, before the env's error
def test_a_render_mode_outside_the_envs_list_is_refused_at_construction_naming_the_list(make, modes):
    with pytest.raises(ValueError) as refused:
        make()
    message = str(refused.value)
    assert message.startswith(f"render_mode must be one of {modes} or None, got ") and "\n" not in message


@pytest.mark.parametrize("players", [2, 3])
def test_human_render_mode_prints_the_table_as_text_at_every_reset_and_step(players, capsys):
    env = gym.make("GinRummy-v0", render_mode="human", players=players)
    text = gym.make("GinRummy-v0", render_mode="ansi", players=players)  # the same game, shown as ansi text
    _, info = env.reset(seed=0)
    text.reset(seed=0)
    assert capsys.readouterr().out == text.render() + "\n"
    action = int(np.flatnonzero(info["action_mask"])[0])
    env.step(action)
    text.step(action)
    assert capsys.readouterr().out == text.render() + "\n"
    assert env.render() is None and capsys.readouterr().out == text.render() + "\n"


def test_a_run_folder_given_as_an_agent_names_the_model_files_in_it(tmp_path, monkeypatch, capsys):
    run = tmp_path / "runs" / "smoke"
    (run / "tb").mkdir(parents=True)
    for name in ("last.zip", "history.json", "best.zip", "policy.zip"):
        (run / name).write_bytes(b"a run's file")
    monkeypatch.chdir(tmp_path)
    line = refused_command(["evaluate", "runs/smoke", "simple", "--deals", "2", "--no-progress"], "runs/smoke",
                           tmp_path, capsys)
    assert line.endswith("'runs/smoke' is a folder, not a model file: give one of the model files in it, "
                         "'runs/smoke/policy.zip', 'runs/smoke/best.zip', 'runs/smoke/last.zip'")
    line = refused_command(["evaluate", "runs/smoke/tb", "simple", "--no-progress"], "runs/smoke/tb", tmp_path, capsys)
    assert line.endswith("is a folder, and it holds no model file (.zip, .pt, .npz)")


@pytest.mark.parametrize("argv, hint", [
    (["evaluate", "exprt", "simple", "--no-progress"], "unknown agent 'exprt' (did you mean 'expert'?)"),
    (["evaluate", "simple", "random", "--rules", "eaia"], "invalid choice: 'eaia' (did you mean 'eaai'?)"),
    (["train", "--rules", "seed000"], "unknown rules preset 'seed000' (did you mean 'seed-000'?)"),
    (["evaluat", "simple", "random"], "unknown job 'evaluat' (did you mean 'evaluate'?)"),
], ids=["agent", "preset", "train preset", "job"])
def test_a_mistyped_name_is_refused_with_the_closest_known_one(argv, hint, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    refused_command(argv, hint, tmp_path, capsys)


@pytest.mark.parametrize("argv, hint", [
    (["evaluate", "Expert", "simple", "--no-progress"], "'Expert' (names are lower case: did you mean 'expert'?)"),
    (["evaluate", "simple", "random", "--rules", "EAAI"], "'EAAI' (names are lower case: did you mean 'eaai'?)"),
    (["play", "--opponent", "Simple"], "'Simple' (names are lower case: did you mean 'simple'?)"),
], ids=["agent", "preset", "play"])
def test_names_are_lower_case_and_another_case_is_refused_saying_so(argv, hint, tmp_path, monkeypatch, capsys):
    if argv[0] == "play":
        pytest.importorskip("rich")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    refused_command(argv, hint, tmp_path, capsys)
    with pytest.raises(ValueError, match=r"'EAAI' \(names are lower case: did you mean 'eaai'\?\)"):
        Rules.preset("EAAI")  # the same rule in Python: rules="EAAI" makes no env either
