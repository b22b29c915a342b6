"""One hand of Gin Rummy (docs/rules.md R10-R39, R45-R47, R60-R61): its types (``state``), the state machine
(``hand``), which actions are legal (``legal``), the score of a knock, gin or big gin (``scoring``) and the invariant
check of a state (``validate``), each its own module. This package re-exports their public names (``engine.step``,
``engine.legal_mask``, ``engine.score_knock``, ``engine.validate``); the action ids are ``actions``' and are
re-exported here too, since the legal masks are indexed by them.
"""

from gin_env.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, N_ACTIONS, PASS, TAKE_DISCARD
from gin_env.game.cards import DEALT, HAND_SIZE, NO_CARD
from gin_env.game.engine.hand import deck_ids, new_hand, player_index, step
from gin_env.game.engine.legal import legal_actions, legal_mask
from gin_env.game.engine.scoring import KnockResult, score_knock
from gin_env.game.engine.state import (
    CAPPED_OUTCOME,
    DEAD_OUTCOME,
    DISCARD,
    DRAW,
    OFFER,
    OVER,
    PHASE_NAMES,
    WALL,
    HandOutcome,
    HandState,
    IllegalActionError,
    stock_size,
)
from gin_env.game.engine.validate import validate

__all__ = [
    "BIG_GIN", "CAPPED_OUTCOME", "DEAD_OUTCOME", "DEALT", "DISCARD", "DISCARD_BASE", "DRAW", "DRAW_STOCK", "HAND_SIZE",
    "KNOCK_BASE", "N_ACTIONS", "NO_CARD", "OFFER", "OVER", "PASS", "PHASE_NAMES", "TAKE_DISCARD", "WALL", "HandOutcome",
    "HandState", "IllegalActionError", "KnockResult", "deck_ids", "legal_actions", "legal_mask", "new_hand",
    "player_index", "score_knock", "step", "stock_size", "validate",
]
