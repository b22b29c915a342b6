"""The installed distribution claims one import name, ``gin_env``: the repository's agents/ folder is gin_env.agents."""

import os
import pathlib
import re
import subprocess
import sys

import pytest


def _run_outside_repo(code: str, tmp_path) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter whose path does not hold the repository root, as a user's would not."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)


def test_agents_import_only_under_gin_env(tmp_path):
    result = _run_outside_repo(
        "import importlib.util, gin_env.agents as a\n"
        "print(importlib.util.find_spec('agents') is None, type(a.load('expert')).__module__)", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "gin_env.agents.expert"]


def test_shipped_model_saved_under_the_old_module_name_loads(tmp_path):
    """The shipped archive pickles its policy class as ``agents.networks.CardPolicy``; it must load without a
    top-level ``agents`` package."""
    pytest.importorskip("sb3_contrib")
    result = _run_outside_repo(
        "from gin_env import agents\n"
        "from gin_env.agents.ppo import SHIPPED_MODEL\n"
        "print(type(agents.load(SHIPPED_MODEL).policy).__module__)", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "gin_env.agents.networks"


def test_the_wheel_lists_every_package_folder():
    """pyproject.toml names the packages one by one (agents/ installs as gin_env.agents): a new folder that is not
    listed would be missing from the wheel, which only tests/test_wheel.py (slow) would notice."""
    root = pathlib.Path(__file__).resolve().parent.parent
    # Read with a pattern, not tomllib, which Python 3.10 lacks.
    block = re.search(r"^packages = \[(.*?)\]", (root / "pyproject.toml").read_text(), re.M | re.S).group(1)
    listed = set(re.findall(r'"([\w.]+)"', block))
    folders = {".".join(init.parent.relative_to(root).parts) for init in (root / "gin_env").rglob("__init__.py")}
    assert folders | {"gin_env.agents"} == listed
