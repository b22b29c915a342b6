"""The option parsing every command shares: :class:`ArgumentParser` (one-line errors, exit code 2) and
:func:`at_least`, the argparse type of counts and seeds."""

from __future__ import annotations

import argparse
from collections.abc import Callable


class ArgumentParser(argparse.ArgumentParser):
    """The jobs' option parser: argparse's, but an error is the one line ``PROG: error: MESSAGE`` (exit code 2),
    without the usage block argparse prints before it (``PROG --help`` shows that)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def at_least(minimum: int, why: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer of at least ``minimum`` (``why`` says why, for the message)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{why}, got {value}")
        return value
    return parse
