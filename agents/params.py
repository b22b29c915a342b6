"""Checks of agents' parameters, made when an agent is built so that a bad value is refused, by its name, before a
game starts rather than in the middle of one.

A value of the wrong type (text, a bool for a number, a float where a count is wanted) is a ``TypeError``; a number
that is not finite or lies outside its range is a ``ValueError``. Nothing is converted: ``2.0`` is no count.
"""

from __future__ import annotations

import math
import numbers


def check_number(owner: str, key: str, value, *, integer: bool = False, low: float | None = None,
                 low_open: bool = False, high: float | None = None, none: bool = False) -> None:
    """Refuse ``value`` of ``owner``'s parameter ``key`` unless it is a finite real number (an integer when
    ``integer``) within ``low`` (excluded when ``low_open``) and ``high``, or None when ``none``."""
    if value is None and none:
        return
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        wanted = "an integer" if integer else "a number"
        raise TypeError(f"{owner} parameter {key!r} must be {wanted}{' or None' if none else ''}, got {value!r} "
                        f"({type(value).__name__})")
    if not math.isfinite(value):
        raise ValueError(f"{owner} parameter {key!r} must be a finite number, got {value!r}")
    too_low = low is not None and (value <= low if low_open else value < low)
    if too_low or (high is not None and value > high):
        raise ValueError(f"{owner} parameter {key!r} must lie in {_interval(low, low_open, high)}, got {value!r}")


def check_flag(owner: str, key: str, value) -> None:
    """Refuse ``value`` of ``owner``'s parameter ``key`` unless it is True or False."""
    if not isinstance(value, bool):
        raise TypeError(f"{owner} parameter {key!r} must be True or False, got {value!r} ({type(value).__name__})")


def _interval(low: float | None, low_open: bool, high: float | None) -> str:
    left = "-inf" if low is None else f"{low:g}"
    right = "inf" if high is None else f"{high:g}"
    return f"{'(' if low_open or low is None else '['}{left}, {right}{')' if high is None else ']'}"
