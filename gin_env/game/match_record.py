"""How each player ended the earlier hands of a match: the public record from which a player can tell its
opponent's style (one that knocks at its first chance, one that waits for gin) before the next hand.

Every hand's ending is shown to both players (R30-R35), so the record is what either may know. Per player it counts
the hands that player ended by knocking (``knocks``, whatever the showdown gave), those of its knocks that were
undercut (``undercut``, R32) and its gins (``gins``, big gin included, R34). A dead hand (R37) counts for nobody.
A record is a tuple of ``RECORD_SIZE`` ints, player 0's counts then player 1's; a view shows it own counts first.
"""

from __future__ import annotations

import numpy as np

from gin_env.game.hand_rules.knock import KIND_NAMES

#: What the record counts for each player, in order.
RECORD_KINDS = ("knocks", "undercut", "gins")
#: Entries of a record: each player's counts.
RECORD_SIZE = 2 * len(RECORD_KINDS)
#: The record of a match before its first hand ends, and of every single-hand episode.
EMPTY_RECORD = (0,) * RECORD_SIZE
#: A count encodes as count / RECORD_SCALE, capped at 1: a match to 100 rarely lasts ten hands.
RECORD_SCALE = 10

#: Per outcome kind (``KIND_NAMES`` order), what it adds to the ending player's counts (``RECORD_KINDS`` order).
_ADDS = {"knock": (1, 0, 0), "undercut": (1, 1, 0), "gin": (0, 0, 1), "big_gin": (0, 0, 1), "tie": (1, 0, 0),
         "dead": (0, 0, 0)}
#: ``_ADDS`` as an array indexed by the kind's code, for the batched table.
ADDS_BY_KIND = np.array([_ADDS[kind] for kind in KIND_NAMES], dtype=np.int64)


def record_after(record: tuple[int, ...], kind: str, knocker: int | None) -> tuple[int, ...]:
    """``record`` with one more hand, which ``knocker`` (None for a dead hand) ended as ``kind``."""
    if knocker is None:
        return record
    adds = _ADDS[kind]
    start = knocker * len(RECORD_KINDS)
    return record[:start] + tuple(n + a for n, a in zip(record[start:], adds)) + record[start + len(adds):]


def seen_by(record: tuple[int, ...], player: int) -> tuple[int, ...]:
    """``record`` (player 0's counts first) as ``player`` sees it: its own counts first, then its opponent's."""
    if player == 0:
        return record
    half = len(RECORD_KINDS)
    return record[half:] + record[:half]


def knocker_opponents(records: np.ndarray) -> np.ndarray:
    """For match records seen by their viewers, ``(k, RECORD_SIZE)`` own counts first: True where the opponent has
    won more hands by a plain knock (its knocks not undercut) than by gin or by undercutting the viewer's knock."""
    half = len(RECORD_KINDS)
    own, other = records[:, :half], records[:, half:]
    knocks, undercut, gins = (RECORD_KINDS.index(kind) for kind in ("knocks", "undercut", "gins"))
    by_knock = other[:, knocks] - other[:, undercut]
    return (by_knock >= 1) & (by_knock > other[:, gins] + own[:, undercut])


def knocker_opponent(record) -> bool:
    """:func:`knocker_opponents` for one view's match record (own counts first)."""
    return bool(knocker_opponents(np.asarray(record)[None])[0])


def encode_record(counts) -> np.ndarray:
    """The float32 encoding of records as seen by their viewers, ``(..., RECORD_SIZE)`` counts: each count over
    ``RECORD_SCALE``, capped at 1."""
    return np.minimum(np.asarray(counts, dtype=np.float32) / RECORD_SCALE, np.float32(1.0))
