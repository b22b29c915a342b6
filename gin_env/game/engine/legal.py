"""Which actions are legal in a hand state (docs/rules.md R13-R16, R18, R20, R24, R36-R38): the legal mask, the legal
action ids, R38's wall check, and the error an illegal action raises.

What each phase allows is ``hand_rules.phases``' (``legal_actions``, ``legal_words``), the functions the batched
kernels inline; this module works out the facts they need from a ``HandState``. The discard phase's facts come from
one compiled solve of the 11 cards, which the same compiled call turns into the mask through ``legal_words``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.game import actions
from gin_env.game.actions import DISCARD_BASE, MAX_ACTIONS, N_ACTIONS
from gin_env.game.engine.state import DISCARD, PHASE_NAMES, WALL, HandState, IllegalActionError, stock_size
from gin_env.game.hand_rules import phases, turn
from gin_env.game.hand_rules.knock import big_gin_legal
from gin_env.game.hand_rules.taken_card import kept_card
from gin_env.game.solver.kernels import discard_phase_of_mask


def wall_take_can_end(state: HandState) -> bool:
    """R38: taking the top discard at the wall is legal only if it allows a knock or big gin at once."""
    top = state.pile[-1]
    _, _, knock_cards, all_melded = discard_phase_of_mask(
        state.hands[state.current] | (1 << top), kept_card(state.rules.discard_taken_card, top), state.knock_limit,
        *state.rules.joker_settings)
    return turn.wall_take_allowed(knock_cards, big_gin_legal(state.rules.knock_values, all_melded))


def legal_mask(state: HandState) -> np.ndarray:
    """``(rules.n_actions,)`` bool mask of the legal actions; all False only when the hand is over."""
    phase = state.phase
    if phase == DISCARD:
        mask = np.empty(state.rules.n_actions, dtype=bool)
        # The option half of R24 is read here; whether all 11 cards meld is the compiled solve's answer.
        _fill_discard_phase_mask(mask, state.hands[state.current], kept_card(state.rules.discard_taken_card,
                                 state.taken), state.knock_limit, state.must_knock,
                                 big_gin_legal(state.rules.knock_values, True), *state.rules.joker_settings)
        return mask
    # Outside the discard phase only actions that name no card are legal (``legal_actions`` says so).
    no_card, _, _ = phases.legal_actions(
        phase, turn.can_draw_stock(state.rules.turn_values, stock_size(state)),
        bool(state.pile) and not state.both_passed, phase == WALL and wall_take_can_end(state), False,
        state.must_knock)
    return _NO_CARD_MASKS[state.rules.n_actions][no_card].copy()


#: By the number of actions (108, 110 with jokers), the mask of each set of the actions that name no card, by its
#: bits (built with numpy: nothing compiles at import).
_NO_CARD_MASKS = {n: tuple(np.isin(np.arange(n), [a for a in range(DISCARD_BASE) if bits >> a & 1])
                           for bits in range(1 << DISCARD_BASE)) for n in (N_ACTIONS, MAX_ACTIONS)}


@njit(cache=True)
def _fill_discard_phase_mask(mask, hand, kept, limit, must_knock, big_gin_on, joker_value, min_naturals):
    """Fill ``mask`` with the legal actions of the player to act in the discard phase, who holds the 11 cards of
    ``hand`` (an int card mask): one solve for the knock cards (R20) and big gin (R24, where ``big_gin_on``), and
    ``legal_words`` for the rest."""
    _, _, knock_cards, all_melded = discard_phase_of_mask(hand, kept, limit, joker_value, min_naturals)
    low, high = phases.legal_words(DISCARD, False, False, False, big_gin_on & all_melded, must_knock,
                                   np.uint64(hand), kept, np.uint64(knock_cards))
    for a in range(mask.size):
        word = low if a < phases.WORD_BITS else high
        mask[a] = (word >> np.uint64(a % phases.WORD_BITS)) & np.uint64(1)


def legal_actions(state: HandState) -> list[int]:
    """The legal action ids, ascending."""
    return np.flatnonzero(legal_mask(state)).tolist()


def _action_label(action) -> str:
    try:
        return actions.name(action)
    except (ValueError, TypeError):
        return f"{action!r} (not an action id)"


def illegal(state: HandState, action) -> IllegalActionError:
    """The error of ``action`` in ``state`` (R18): it names the action, the phase, the player and the legal
    actions."""
    legal = ", ".join(actions.name(a) for a in legal_actions(state)) or "none, the hand is over"
    return IllegalActionError(
        f"illegal action {_action_label(action)} in phase {PHASE_NAMES[state.phase]!r} "
        f"(player {state.current} to act); legal actions: {legal}")
