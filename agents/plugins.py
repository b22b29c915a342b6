"""The module of a ``module:attr`` plug-in, imported as ``python -m`` would find it: from the installed packages and
from the current folder, so that ``gin-env evaluate my_bot:act simple`` plays ``my_bot.py`` where the command runs.

The current folder goes first on ``sys.path`` for the plug-in's import alone and comes off again afterwards: the
program's other imports never search it, so a file there named like a package the program uses shadows nothing
once the plug-in is loaded. A plug-in that imports more of its own folder later, inside a function, should import
it while it loads (at the top of its module)."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator
from types import ModuleType


@contextlib.contextmanager
def current_folder_first() -> Iterator[None]:
    """Inside the block, imports look in the current folder first (unless ``sys.path`` names it already); after
    it, ``sys.path`` is without it again."""
    folder = os.getcwd()
    if any(os.path.abspath(entry or os.curdir) == folder for entry in sys.path):
        yield
        return
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):  # the plug-in's own import code may have taken it off already
            sys.path.remove(folder)


def import_module(name: str) -> ModuleType:
    """The module ``name``, imported with the current folder first (:func:`current_folder_first`)."""
    with current_folder_first():
        return importlib.import_module(name)
