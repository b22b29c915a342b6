"""The exact deadwood and showdown solver (docs/rules.md R5-R8, R22, R27-R29), one holding at a time and batched.

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
* Each optimal set choice is one arrangement (its runs are the unique run cover of the rest), so the knocker's
  arrangements of R22 are the optimal choices of the same odometer, and the defender's layoffs (R27, R28) the
  combinations of the cards each knocker meld may take.

There is one implementation, compiled with numba. Modules: ``lookups`` (the shared lookup tables), ``kernels`` (the
numbers of a holding: deadwood and the discard phase, for one hand at a time and in loops over arrays), ``melds``
(which melds: one arrangement of a holding, and the showdown: the knocker's auto-arrangement, the defender's layoffs
on each meld, and their deadwoods for the batched engine), ``wild`` and ``wild_melds`` (the same with jokers, R62-R82),
``declarations`` (a meld's declared identities),
``front`` (the public functions for one holding, checking their input and turning arrays into results), ``batched``
(many hands at once). This package re-exports their public names (``solver.deadwood``, ``solver.deadwood_batch``).
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
from gin_env.game.solver.declarations import Meld
from gin_env.game.solver.front import (
    DefenderLaydown,
    Showdown,
    arrangement,
    best_discard_deadwood,
    deadwood,
    defender_laydown,
    discard_deadwoods,
    holding,
    is_meld,
    showdown,
    showdown_holdings,
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

__all__ = [
    "DROP_BEST_RANKS", "DROP_DEADWOOD", "DROP_GAIN", "MAX_OPTIONS", "NOT_HELD", "NO_DROP", "PACK_STRIDE",
    "RUN_CAPABLE", "RUN_DEADWOOD", "RUN_MOVE", "SUIT_BITS", "SUIT_MASK", "SUIT_PATTERNS", "DefenderLaydown",
    "DiscardPhase", "Meld", "Showdown", "arrangement", "best_discard_deadwood", "best_discard_deadwood_batch",
    "best_discards_of_masks", "card_bits", "deadwood", "deadwood_batch", "deadwood_of_masks", "defender_laydown",
    "discard_deadwoods", "discard_deadwoods_batch", "discard_deadwoods_of_masks", "discard_phase_of_masks",
    "hands_to_masks", "holding", "is_meld", "pack_masks", "showdown", "showdown_holdings", "showdown_of_masks",
]
