"""Rooms (docs/rules.md R58-R59): several members share each seat of a two-player game and take its turns in order.

The game is a two-player game (``match``); a room only says which member of the seat to act makes the decision.
This module owns that: the members per seat, the turns each seat has finished, and when a turn ends (R58: a turn is
everything a seat does between two moves of the other seat, and the end of a hand ends it too).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

SEATS = (0, 1)
#: The most members a room holds, both seats together (R58). Every member is an agent the env seats and steps, so
#: a larger room is refused before any of them is made.
MAX_MEMBERS = 100


def check_room(room) -> tuple[int, int]:
    """``room`` as (members of seat 0, members of seat 1): two positive integers of at most :data:`MAX_MEMBERS` in
    all (R58)."""
    if not isinstance(room, (tuple, list)) or len(room) != len(SEATS):
        raise ValueError(f"room must be a pair (k0, k1) of members per seat, got {room!r}")
    for k in room:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"room must be a pair of positive integers (members per seat, R58), got {room!r}")
    if room[0] + room[1] > MAX_MEMBERS:
        raise ValueError(f"room {tuple(room)!r} holds {room[0] + room[1]:,} members; a room holds at most "
                         f"{MAX_MEMBERS} in all (R58)")
    return int(room[0]), int(room[1])


@dataclass(frozen=True)
class RoomTurns:
    """The members per seat and each seat's finished turns; member ``turns[s] % members[s]`` of seat ``s`` takes
    the seat's next turn, across hands (R58)."""

    members: tuple[int, int]
    turns: tuple[int, int] = (0, 0)

    def member(self, seat: int) -> int:
        """The member of ``seat`` who takes its turn now (0-based, in the seat's order)."""
        return self.turns[seat] % self.members[seat]

    def after(self, seat: int, turn_over: bool) -> RoomTurns:
        """The turns after ``seat`` acted: its turn is over when the other seat moves next or the hand ended."""
        if not turn_over:
            return self
        return RoomTurns(self.members, tuple(t + 1 if s == seat else t for s, t in enumerate(self.turns)))
