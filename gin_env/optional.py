"""Optional dependencies: import one, or stop with a single line that names the extra which installs it.

Every module that needs a dependency beyond numpy and gymnasium imports it through :func:`require`, so a missing
package always reads the same way (``pip install 'gin-env[play]'``) instead of a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The top-level package of each optional dependency -> the extra of pyproject.toml that installs it.
EXTRAS = {
    "pettingzoo": "pettingzoo",
    "rich": "play",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "tqdm": "train",
    "matplotlib": "train",
    "moviepy": "video",
}


class MissingExtra(ImportError):
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
        # Only the absence of the dependency itself is reworded; a broken install keeps its own message.
        if error.name is not None and error.name.partition(".")[0] != top:
            raise
        raise MissingExtra(f"{purpose} needs {top}, which is not installed: pip install 'gin-env[{EXTRAS[top]}]'") \
            from None
