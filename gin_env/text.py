"""Text from outside the program, made safe to show: names, paths and fields read from files or given on the command
line reach a terminal or a plot as the characters they are, never as commands to it, and a bad value an error
message quotes is cut to a length (:func:`quoted`).

:func:`printable` owns the one rule: every character that a terminal acts on instead of showing (the C0 controls,
ESC among them, DEL, the C1 controls, and the Unicode controls that reorder or break lines) becomes
:data:`PLACEHOLDER`. The layers above add what their own renderer reads as markup: rich's in ``gin_env.ui.render``,
matplotlib's mathtext in the plots.
"""

from __future__ import annotations

import re

#: What a control character is shown as: the Unicode replacement character, visible and never a command.
PLACEHOLDER = "\ufffd"

#: The characters a terminal acts on: C0 (ESC, BEL, newline, backspace, carriage return, ...), DEL and C1 (CSI
#: among them), the Arabic letter mark, the left-to-right and right-to-left marks, the line and paragraph
#: separators, the bidirectional embeddings and overrides (U+202A-U+202E) and isolates (U+2066-U+2069).
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with each control character (:data:`CONTROLS`) replaced by :data:`PLACEHOLDER`, one for one, so
    widths and alignment stay as they were."""
    return CONTROLS.sub(PLACEHOLDER, text)


#: The most characters of a bad value (or of a message quoting one) that an error message holds.
QUOTED_LENGTH = 120


def quoted(value) -> str:
    """``value`` as an error message quotes it: its ``repr`` (so that no control character in it reaches a
    terminal), :func:`clipped`."""
    return clipped(repr(value))


def clipped(text: str) -> str:
    """``text`` cut to :data:`QUOTED_LENGTH` characters and a count: a number of thousands of digits is named, not
    printed."""
    return text if len(text) <= QUOTED_LENGTH else text[:QUOTED_LENGTH] + f"... ({len(text):,} characters)"
