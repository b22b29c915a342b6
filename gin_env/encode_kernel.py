"""The batched observation encoding compiled with numba: ``observation.encode`` of many games' views at once.

This module owns one kernel, :func:`encode_rows`, that writes a viewer's observation per game straight from
``HandBatch``'s arrays into a float32 row, entry for entry as ``observation.encode`` lays it out (``OBS_LAYOUT``).
It reads only what the viewer may know: their own hand and the public fields (never the opponent's hidden cards or
the stock order); ``batch_observation`` checks that boundary in its views, and a differential test the result.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.batch_kernels import (
    BEST_DEADWOOD,
    CURRENT,
    DEALER,
    DECLINED,
    DISCARDED,
    HANDS,
    KNOCK_LIMIT,
    KNOWN,
    PHASE,
    PILE_MASK,
    PILE_TOP,
    STOCK_TOP,
    _bit,
)
from gin_env.engine import DISCARD, OVER
from gin_env.observation import DEADWOOD_SCALE, KNOCK_LIMIT_SCALE, OBS_LAYOUT, PLANES
from gin_env.rules import STOCK_AFTER_DEAL
from gin_env.solver.kernels import N_CARDS, deadwood_of, scratch

_FULL_DECK = np.uint64((1 << N_CARDS) - 1)
_PHASE_AT = OBS_LAYOUT["phase"].start
_DEALER_AT = OBS_LAYOUT["is_dealer"].start
_STOCK_AT = OBS_LAYOUT["stock_size"].start
_KNOCK_LIMIT_AT = OBS_LAYOUT["knock_limit"].start
_DEADWOOD_AT = OBS_LAYOUT["deadwood"].start
_SCORES_AT = OBS_LAYOUT["scores"].start
#: The planes lie end to end from entry 0 in this order, and the flags follow them up to the stock size.
assert [OBS_LAYOUT[name].start for name in PLANES] == list(range(0, len(PLANES) * N_CARDS, N_CARDS))
assert PLANES == ("hand", "top_discard", "pile_rest", "opponent_known", "opponent_discards", "opponent_declined",
                  "unseen")
assert _PHASE_AT == len(PLANES) * N_CARDS and _STOCK_AT == _DEALER_AT + 1 and _DEALER_AT - _PHASE_AT >= 4


#: The 8 bits of each byte value as float32 entries, least significant first.
_BYTE_ENTRIES = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)


@njit(cache=True, inline="always")
def _plane(out, row, start, mask):
    """Write the 52 bits of ``mask`` from ``out[row, start]``, a byte (8 entries) at a time. The last byte writes 4
    entries past the plane, which the caller overwrites next: planes go in layout order, then the phase entries."""
    for byte in range(0, N_CARDS, 8):
        entries = _BYTE_ENTRIES[(mask >> np.uint64(byte)) & np.uint64(0xFF)]
        for j in range(8):
            out[row, start + byte + j] = entries[j]


@njit(cache=True)
def encode_rows(games, players, scores, target, ints, words, seats, out):
    """``out[i]``: the observation of ``players[i]`` in game ``games[i]``. ``scores``: (k, 2) match scores, own
    first (empty: all 0); ``target``: the match target (0: none, the score entries stay 0)."""
    slots, _ = scratch()
    for i in range(games.size):
        g = games[i]
        p = players[i]
        hand = seats[HANDS, g, p]
        top = _bit(ints[PILE_TOP, g])
        pile_rest = words[PILE_MASK, g] & ~top
        known = seats[KNOWN, g, 1 - p]
        _plane(out, i, 0, hand)
        _plane(out, i, N_CARDS, top)
        _plane(out, i, 2 * N_CARDS, pile_rest)
        _plane(out, i, 3 * N_CARDS, known)
        _plane(out, i, 4 * N_CARDS, seats[DISCARDED, g, 1 - p])
        _plane(out, i, 5 * N_CARDS, seats[DECLINED, g, 1 - p])
        _plane(out, i, 6 * N_CARDS, _FULL_DECK & ~(hand | pile_rest | known | top))
        phase = ints[PHASE, g]
        for j in range(_PHASE_AT, _DEALER_AT):
            out[i, j] = 0.0
        out[i, _PHASE_AT + phase] = 1.0
        out[i, _DEALER_AT] = 1.0 if ints[DEALER, g] == p else 0.0
        out[i, _STOCK_AT] = (N_CARDS - ints[STOCK_TOP, g]) / STOCK_AFTER_DEAL
        out[i, _KNOCK_LIMIT_AT] = ints[KNOCK_LIMIT, g] / KNOCK_LIMIT_SCALE
        # With 11 cards (the viewer to act in the discard phase): the least deadwood after an allowed discard.
        discarding = phase == DISCARD and ints[CURRENT, g] == p and phase != OVER
        deadwood = ints[BEST_DEADWOOD, g] if discarding else deadwood_of(hand, slots)
        out[i, _DEADWOOD_AT] = deadwood / DEADWOOD_SCALE
        for j in range(2):
            out[i, _SCORES_AT + j] = min(scores[i, j] / target, 1.0) if target and scores.shape[0] else 0.0
