"""Missing optional dependencies (issue 12): each absence, simulated in a fresh interpreter, gives one line that
names the extra to install, from every entry point that needs it; the core imports none of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gin_env import optional
from gin_env.agents.ppo import SHIPPED_MODEL

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Run ``argv`` as ``python -m module`` would, with the ``blocked`` packages made unimportable (None in sys.modules
#: is how Python marks a module that must not be imported).
PRELUDE = """
import runpy, sys
blocked, module, argv = sys.argv[1].split(","), sys.argv[2], sys.argv[3:]
for name in blocked:
    sys.modules[name] = None
sys.argv = [module, *argv]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def _run(blocked: list[str], module: str, *argv: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, "-c", PRELUDE, ",".join(blocked), module, *argv], capture_output=True,
                          text=True, timeout=180, cwd=cwd, env=env)


def _one_line(result: subprocess.CompletedProcess, extra: str) -> str:
    err = result.stderr.strip()
    assert result.returncode != 0, result.stdout
    assert len(err.splitlines()) == 1, err
    assert f"pip install 'gin-env[{extra}]'" in err and "Traceback" not in err
    return err


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory):
    from gin_env import agents
    from gin_env.evaluation import duel
    from gin_env.game.rules import Rules

    folder = tmp_path_factory.mktemp("replays")
    duel.play_duplicate(Rules.preset("standard", target=None), agents.load("simple"), agents.load("random"), 1, 0,
                        replays=folder)
    return str(sorted(folder.iterdir())[0])


@pytest.mark.parametrize("module, argv", [("gin_env.ui.play", ["--seed", "1"]), ("gin_env.cli", ["play"])])
def test_the_terminal_game_without_rich(module, argv):
    assert "the terminal game needs rich" in _one_line(_run(["rich"], module, *argv), "play")


@pytest.mark.parametrize("module, argv", [("gin_env.ui.viewer", []), ("gin_env.cli", ["replay"])])
def test_the_replay_viewer_without_rich(module, argv, replay_file):
    _one_line(_run(["rich"], module, *argv, replay_file), "play")


def test_the_pettingzoo_env_without_pettingzoo():
    code = ("try:\n    from gin_env.envs.pettingzoo import env\nexcept ImportError as e:\n"
            "    print(type(e).__name__, e)\n")
    result = subprocess.run([sys.executable, "-c", "import sys; sys.modules['pettingzoo'] = None\n" + code],
                            capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == ("MissingExtra gin_env.envs.pettingzoo needs pettingzoo, which is not installed: "
                                     "pip install 'gin-env[pettingzoo]'")


@pytest.mark.parametrize("argv", [["dataset", "simple", "random", "--hands", "2", "--root", "."],
                                  ["train", "--from-dataset", "gin-rummy/any-v0", "--run-dir", "run"]])
def test_datasets_without_minari(argv, tmp_path):
    _one_line(_run(["minari"], "gin_env.cli", *argv, cwd=tmp_path), "datasets")
    assert os.listdir(tmp_path) == []


#: What a training run imports beyond the core.
TRAINING = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "tqdm", "matplotlib")


def _installed_but(blocked: str, packages: tuple[str, ...]) -> None:
    """Skip unless every package but ``blocked`` is installed: these tests take one dependency away from a complete
    install and read which one the message names."""
    for package in packages:
        if package != blocked:
            pytest.importorskip(package)


@pytest.mark.parametrize("blocked", TRAINING)
def test_training_without_each_of_its_dependencies(blocked, tmp_path):
    _installed_but(blocked, TRAINING)
    extra = optional.EXTRAS[blocked]
    err = _one_line(_run([blocked], "gin_env.cli", "train", "--total-timesteps", "64", "--run-dir", str(tmp_path),
                         "--imitate-steps", "0", "--eval-deals", "2", "--no-progress"), extra)
    assert blocked in err


@pytest.mark.parametrize("blocked, argv", [("matplotlib", ["--plot", "out.png"]), ("sb3_contrib", []), ("torch", [])])
def test_evaluation_without_its_dependencies(blocked, argv, tmp_path):
    _installed_but(blocked, ("tqdm", "matplotlib", "torch", "stable_baselines3", "sb3_contrib"))
    # "ppo" plays in numpy on a core install; a MaskablePPO .zip is what needs torch and sb3-contrib.
    agents = [SHIPPED_MODEL, "random"] if blocked in ("sb3_contrib", "torch") else ["simple", "random"]
    result = _run([blocked], "gin_env.cli", "evaluate", *agents, "--deals", "2", "--workers", "1", *argv,
                  cwd=tmp_path)
    _one_line(result, optional.EXTRAS[blocked])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("module, argv", [("gin_env.cli", ["evaluate", "simple", "random", "--deals", "2", "--ray",
                                                           "--no-progress"]),
                                          ("train_rllib", ["--iterations", "1", "--run-dir", "run"])])
def test_the_ray_jobs_without_ray(module, argv, tmp_path):
    assert "needs ray" in _one_line(_run(["ray"], module, *argv, cwd=tmp_path), "ray")
    assert list(tmp_path.iterdir()) == []


def test_the_core_needs_no_extra():
    """import gin_env, an env, a game of evaluation without plot, the search agent guided by the shipped network: none
    of the optional packages is imported."""
    blocked = ["pettingzoo", "rich", "torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib",
               "moviepy", "ray"]
    code = (f"import sys\nfor m in {blocked!r}: sys.modules[m] = None\n"
            "import gymnasium as gym, gin_env, json\n"
            "from gin_env.evaluation import evaluate\n"
            "env = gym.make('GinRummy-v0', render_mode='rgb_array'); env.reset(seed=0); env.render()\n"
            "print(json.dumps(evaluate(['search', 'random'], gin_env.game.rules.Rules(), 'deals', 2)['agents']))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["search", "random"]


def test_require_rewords_only_a_missing_dependency(monkeypatch):
    monkeypatch.setitem(sys.modules, "rich.console", None)  # as if missing, even when another test imported it
    with pytest.raises(optional.MissingExtra, match=r"^the viewer needs rich, which is not installed: pip install "
                                                    r"'gin-env\[play\]'$"):
        optional.require("rich.console", "the viewer")
    with pytest.raises(KeyError, match="not an optional dependency"):
        optional.require("numpy", "anything")
