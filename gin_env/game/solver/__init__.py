"""The exact deadwood and showdown solver (docs/rules.md R5-R8, R22, R27-R29), scalar and batched.

How it is exact and fast:

* Runs live inside one suit, so the run-only deadwood of any 13-bit suit pattern is a table lookup
  (``RUN_DEADWOOD``, 8,192 entries, built at import). Runs of 6+ cards never need to be one meld (R5), so the
  table's recurrence only tries runs of 3, 4 and 5 starting at the lowest card.
* Sets are the only coupling between suits, and only ranks held 3 or 4 times can form one: at most 3 such ranks in
  10 or 11 cards. For each such rank the choices are: no set, the whole rank, or (when all 4 are held) the rank minus
  one card. The exact minimum is the minimum, over the product of these choices, of the sum of four table lookups.
* Dominated choices are pruned before enumeration (10-card hands): a card that sits in no 3-card window of its suit
  can never be in a run, so keeping it out of a set only adds its value. That leaves few choices even on
  meld-rich hands.
* For 11 cards, "discard one card, then meld" is "choose sets, then drop one card of a suit's runs"
  (``DROP_DEADWOOD``, the run deadwood of a pattern less each rank): one more lookup per card instead of 11 solves.

Modules: ``lookups`` (the shared lookup tables), ``scalar`` (one int-bitmask holding at a time, cached), ``laydown``
(melds, optimal arrangements, the showdown and its layoffs, the defender's lay-down against declared melds alone),
``kernels`` (the same algorithm, the showdown with layoffs included, compiled with numba for one hand at a time),
``batched`` (many hands at once: loops of ``kernels`` over arrays).
This package re-exports their public names, so ``solver.deadwood`` and ``solver.deadwood_batch`` read as before.
"""

from gin_env.game.cards import PACK_STRIDE, card_bits, hands_to_masks, pack_masks
from gin_env.game.solver.batched import (
    DiscardPhase,
    best_discard_deadwood_batch,
    best_discards_of_masks,
    deadwood_batch,
    deadwood_of_masks,
    discard_deadwoods_batch,
    discard_deadwoods_of_masks,
    discard_phase_of_masks,
    showdown_of_masks,
)
from gin_env.game.solver.laydown import (
    DefenderLaydown,
    Showdown,
    defender_laydown,
    is_meld,
    optimal_arrangements,
    showdown,
)
from gin_env.game.solver.lookups import (
    DROP_BEST_RANKS,
    DROP_DEADWOOD,
    DROP_GAIN,
    MAX_OPTIONS,
    NO_DROP,
    NOT_HELD,
    RUN_CAPABLE,
    RUN_DEADWOOD,
    RUN_MOVE,
    SUIT_BITS,
    SUIT_MASK,
    SUIT_PATTERNS,
)
from gin_env.game.solver.scalar import (
    arrangement,
    best_discard_deadwood,
    deadwood,
    discard_deadwoods,
)

__all__ = [
    "DROP_BEST_RANKS", "DROP_DEADWOOD", "DROP_GAIN", "MAX_OPTIONS", "NOT_HELD", "NO_DROP", "PACK_STRIDE",
    "RUN_CAPABLE", "RUN_DEADWOOD", "RUN_MOVE", "SUIT_BITS", "SUIT_MASK", "SUIT_PATTERNS", "DefenderLaydown",
    "DiscardPhase", "Showdown", "arrangement", "best_discard_deadwood", "best_discard_deadwood_batch",
    "best_discards_of_masks", "card_bits", "deadwood", "deadwood_batch", "deadwood_of_masks", "defender_laydown",
    "discard_deadwoods", "discard_deadwoods_batch", "discard_deadwoods_of_masks", "discard_phase_of_masks",
    "hands_to_masks", "is_meld", "optimal_arrangements", "pack_masks", "showdown", "showdown_of_masks",
]
