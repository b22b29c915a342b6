"""gin-env: a Gymnasium environment for Gin Rummy (two players; three, four and rooms around two-player hands).

Importing the package registers ``GinRummy-v0`` with Gymnasium (``gin_env.envs.gin_rummy.GinRummyEnv``, one class
for every format). The environment module itself is imported only when an env is made, so ``import gin_env`` stays
light (numpy and gymnasium's registry; no numba kernels, PettingZoo, SB3 or torch).

The compiled functions are cached on disk (numba's ``cache=True``), beside the package or in the user's cache
folder. Where neither can be written (a read-only install and a read-only HOME) and ``NUMBA_CACHE_DIR`` is not set,
importing the package points numba at a private temporary folder for this process and its workers, and says so in
one line on stderr, rather than failing at the first compiled function.
"""

import atexit
import os
import shutil
import sys
import tempfile

from gymnasium.envs.registration import register, registry

#: The package's version (pyproject.toml reads it from here); docs/changelog.md says what each version changed.
__version__ = "0.13.0"

ENV_ID = "GinRummy-v0"


def _can_write(folder: str) -> bool:
    """Whether a file can be created in ``folder`` (made if missing), as numba checks a cache folder."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _numba_cache() -> None:
    """Point numba's cache at a private temporary folder, removed at exit, when it has nowhere to write."""
    in_tree = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    if os.environ.get("NUMBA_CACHE_DIR") or _can_write(in_tree):
        return
    # Only a read-only install pays for importing numba here, to ask it where its user-wide cache lies.
    from numba.core import config
    from numba.misc.appdirs import AppDirs

    user_cache = AppDirs(appname="numba", appauthor=False).user_cache_dir
    if _can_write(user_cache):
        return
    # mkdtemp's folder is this user's alone: a cache folder that another user could write would load their code.
    folder = tempfile.mkdtemp(prefix="gin-env-numba-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = config.CACHE_DIR = folder
    print(f"gin-env: numba cannot write its cache beside the package nor in {user_cache}; compiled code is cached "
          f"in {folder} until this process ends (set NUMBA_CACHE_DIR to keep it)", file=sys.stderr)


_numba_cache()

# Re-importing the package (e.g. after importlib.reload) must not register the id twice.
if ENV_ID not in registry:
    register(id=ENV_ID, entry_point="gin_env.envs.gin_rummy:GinRummyEnv",
             vector_entry_point="gin_env.envs.vector:GinRummyVectorEnv")
