"""Optional dependencies: import one, or stop with a single line that names the extra which installs it.

Every module that needs a dependency beyond the core (numpy, gymnasium, numba) imports it through :func:`require`, so
a missing package always reads the same way (``pip install 'gin-env[play]'``) instead of a bare
``ModuleNotFoundError``.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from types import ModuleType

#: The top-level package of each optional dependency -> the extra of pyproject.toml that installs it.
EXTRAS = {
    "pettingzoo": "pettingzoo",
    "rich": "play",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "tqdm": "evaluate",
    "matplotlib": "evaluate",
    "moviepy": "video",
    "pyspiel": "openspiel",
    "ray": "ray",
    "minari": "datasets",
    "starlette": "web",
    "uvicorn": "web",
}


class MissingExtra(ModuleNotFoundError):
    """An optional dependency is not installed; the message is the one line to show the user."""


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` (dotted names allowed) or raise :class:`MissingExtra` naming the extra that provides it.

    ``purpose`` says what needed it, e.g. ``"the terminal game"``."""
    top = module.partition(".")[0]
    if top not in EXTRAS:
        raise KeyError(f"{top!r} is not an optional dependency of gin-env; known: {', '.join(sorted(EXTRAS))}")
    try:
        return importlib.import_module(module)
    except ImportError as error:
        # The dependency itself, or one optional dependency that it needs in turn (sb3-contrib needs torch), is
        # missing; any other import failure is a broken install and keeps its own message.
        missing = (error.name or "").partition(".")[0]
        if missing not in EXTRAS:
            raise
        raise MissingExtra(f"{purpose} needs {missing}, which is not installed: pip install "
                           f"'gin-env[{EXTRAS[missing]}]'", name=missing) from None


@contextlib.contextmanager
def script(module_name: str, prog: str) -> Iterator[None]:
    """Around the imports of a module that also runs as ``python -m``: when it runs so (``module_name`` is
    ``"__main__"``), a :class:`MissingExtra` inside ends the program with its one line and exit code 2 instead of a
    traceback; imported, the error goes to the importer unchanged."""
    try:
        yield
    except MissingExtra as missing:
        if module_name != "__main__":
            raise
        print(f"{prog}: error: {missing}", file=sys.stderr)
        raise SystemExit(2) from None
