"""A read-only install with a read-only HOME imports and plays: numba's compiled functions find no folder to cache
in, and the package points numba at a temporary one, saying so in one line, instead of failing at import."""

from __future__ import annotations

import os
import pathlib
import shutil
import stat
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent

#: Makes an env (every compiled function of the game is decorated on the way) and plays a batch of hands on the
#: numba kernels, then reports where the package and numba's cache were.
PLAY = """
import os, numpy as np, gymnasium as gym, gin_env
from gin_env.envs.vector import GinRummyVectorEnv
env = gym.make("GinRummy-v0")
env.reset(seed=0)
vec = GinRummyVectorEnv(num_envs=4)
vec.reset(seed=0)
vec.step(np.argmax(vec.action_masks(), axis=1))
print(gin_env.__file__)
print(os.environ["NUMBA_CACHE_DIR"])
"""


def _read_only_copy(root: pathlib.Path) -> pathlib.Path:
    """The package as an install lays it out (``agents/`` as ``gin_env/agents``) under ``root/site``, with a file
    named ``__pycache__`` in every package folder (no process, root included, can write a cache there) and every
    folder made read-only."""
    site = root / "site"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "gin_env", site / "gin_env", ignore=ignore)
    shutil.copytree(REPO / "agents", site / "gin_env" / "agents", ignore=ignore)
    folders = [site, *(p for p in site.rglob("*") if p.is_dir())]
    for folder in folders:
        if (folder / "__init__.py").exists():
            (folder / "__pycache__").write_text("")
    for folder in folders:
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    return site


def test_read_only_install_and_home_cache_in_a_temporary_folder(tmp_path):
    site = _read_only_copy(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".cache").write_text("")  # the user-wide cache (~/.cache/numba) cannot be made under a file
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    environ = {key: value for key, value in os.environ.items()
               if key not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONDONTWRITEBYTECODE")}
    environ.update(HOME=str(home), PYTHONPATH=str(site))
    try:
        result = subprocess.run([sys.executable, "-c", PLAY], capture_output=True, text=True, env=environ,
                                cwd=tmp_path, timeout=600)
    finally:
        for folder in (home, site, *(p for p in site.rglob("*") if p.is_dir())):
            folder.chmod(stat.S_IRWXU)
    assert result.returncode == 0, result.stderr
    package, cache = result.stdout.split()
    assert pathlib.Path(package).is_relative_to(site)
    lines = [line for line in result.stderr.splitlines() if line.startswith("gin-env:")]
    assert len(lines) == 1 and cache in lines[0] and "NUMBA_CACHE_DIR" in lines[0], result.stderr
    assert not os.path.exists(cache), "the temporary cache folder outlived the process"
