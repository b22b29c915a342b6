"""The option parsing every command shares: :class:`ArgumentParser` (one-line errors, exit code 2),
:func:`at_least`, the argparse type of counts and seeds, and :func:`did_you_mean`, the hint every lookup of a name
(an agent, a rules preset, a choice, a job) gives for one it does not know."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Iterable

#: How alike (difflib's ratio, 0 to 1) an unknown name and a known one must be for the known one to be suggested:
#: one letter wrong, missing or swapped in a name of four letters or more ('eaia': 'eaai' is 0.75), not a name
#: that merely shares a part ('grandmaster-v1': 'random-v1' is 0.70).
CLOSE_ENOUGH = 0.75


class ArgumentParser(argparse.ArgumentParser):
    """The jobs' option parser: argparse's, but an error is the one line ``PROG: error: MESSAGE`` (exit code 2),
    without the usage block argparse prints before it (``PROG --help`` shows that), and the help is plain text."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")

    def format_help(self) -> str:
        # The descriptions are the modules' docstrings, whose literals are reStructuredText in double backquotes: plain
        # text in a terminal.
        return super().format_help().replace("``", "")

    def _check_value(self, action: argparse.Action, value) -> None:
        # argparse's own check of ``choices``, with a hint for a near miss (argparse's hook for that check).
        if action.choices is not None and value not in action.choices:
            hint = did_you_mean(value, action.choices) if isinstance(value, str) else ""
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint}; choose from "
                                                 f"{', '.join(map(str, action.choices))}")


def at_least(minimum: int, why: str = "", most: int | None = None, why_most: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer of at least ``minimum`` and, when ``most`` is given, at most ``most``
    (``why`` and ``why_most`` say why, for the message)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text[:40]!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{why}, got {value}")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:,}{why_most}, got {value:,}")
        return value
    return parse


def did_you_mean(name: str, known: Iterable) -> str:
    """The hint for an unknown ``name`` among ``known`` ones: ``" (did you mean 'expert'?)"``, naming the closest
    known name (and saying that names are lower case when ``name`` is not but the suggestion is); "" when none is
    close. Names are never matched in another case: the user's spelling is refused, not silently changed."""
    known = [str(k) for k in known]
    close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=CLOSE_ENOUGH)
    if not close:
        return ""
    case = "names are lower case: " if name != name.lower() and close[0] == close[0].lower() else ""
    return f" ({case}did you mean {close[0]!r}?)"
