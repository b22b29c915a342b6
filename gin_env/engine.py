"""One hand of Gin Rummy as a pure state machine (docs/rules.md R10-R39, R45-R47).

This module owns the deal, the phases of a hand, which actions are legal in each, how an action changes the state,
and the hand score of a knock, gin or big gin. States are frozen: :func:`step` returns a new state and never touches
the one it was given, so an illegal action leaves the caller's state exactly as it was (R18).

Players are 0 ("P1") and 1 ("P2"). Hands are int bitmasks (``cards.to_mask``). Exact deadwood comes from
``solver``; this module only decides what those numbers allow.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass

import numpy as np

from gin_env import actions, cards, solver
from gin_env.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, N_ACTIONS, PASS, TAKE_DISCARD
from gin_env.rules import Rules
from gin_env.taken_card import NO_CARD, kept_card

OFFER, DRAW, DISCARD, WALL, OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("offer", "draw", "discard", "wall", "over")

HAND_SIZE = 10
#: Cards dealt before the upcard (R10): ten each, alternately.
DEALT = 2 * HAND_SIZE


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand ended and who scores what (R30-R35, R37, R47). ``capped`` marks a dead hand ended by the turn cap
    (R19) rather than by the wall (R37, R38)."""

    kind: str
    winner: int | None
    points: int
    knocker: int | None
    knock_card: int
    knocker_deadwood: int | None
    defender_deadwood: int | None
    layoffs: tuple[int, ...]
    knocker_melds: tuple[tuple[int, ...], ...]
    capped: bool = False

    def player_points(self, player: int) -> int:
        """Signed, zero-sum hand points of ``player``: +points for the winner, -points for the other."""
        if self.winner is None:
            return 0
        return self.points if player == self.winner else -self.points


DEAD_OUTCOME = HandOutcome(kind="dead", winner=None, points=0, knocker=None, knock_card=NO_CARD,
                           knocker_deadwood=None, defender_deadwood=None, layoffs=(), knocker_melds=())
#: A dead hand ended by the turn cap (R19).
CAPPED_OUTCOME = dataclasses.replace(DEAD_OUTCOME, capped=True)


@dataclass(frozen=True, slots=True)
class KnockResult:
    """The score of one knock, gin or big gin between two given holdings (R21-R35, R47)."""

    kind: str
    knocker_deadwood: int
    defender_deadwood: int
    layoffs: tuple[int, ...]
    points: int
    winner: str | None
    knocker_melds: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class HandState:
    """Everything about one hand. ``known``, ``discarded`` and ``declined`` are public per-player bitmasks:
    cards taken from the pile and still held, cards discarded face up, and face-up cards left on the pile
    (upcards passed in the offer, top discards left when drawing from the stock). ``upcard_draws`` counts the
    draw-phase takes from the pile (R60); ``returns`` the discards in a row that put back the card just taken from
    the pile (R61)."""

    rules: Rules
    deck: tuple[int, ...]
    hands: tuple[int, int]
    stock_top: int
    pile: tuple[int, ...]
    dealer: int
    current: int
    phase: int
    taken: int
    both_passed: bool
    must_knock: bool
    initial_upcard: int
    knock_limit: int
    turns: int
    known: tuple[int, int]
    discarded: tuple[int, int]
    declined: tuple[int, int]
    outcome: HandOutcome | None
    upcard_draws: int = 0
    returns: int = 0


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state (R18). The message names the action, the phase and
    the legal actions."""


def _pair(pair: tuple[int, int], player: int, value: int) -> tuple[int, int]:
    """``pair`` with the entry of ``player`` replaced."""
    return (value, pair[1]) if player == 0 else (pair[0], value)


def _upcard_or_none(state: HandState) -> int | None:
    return state.initial_upcard if state.initial_upcard != NO_CARD else None


# ---------------------------------------------------------------------------------------------------------------
# Deal
# ---------------------------------------------------------------------------------------------------------------

def new_hand(rules: Rules, rng: np.random.Generator | None = None, *, dealer: int = 0,
             deck=None) -> HandState:
    """Deal one hand (R10, or RLCard's 11-card deal when ``deal_mode == "eleven"``).

    ``deck`` is the deal order, index 0 on top: 52 card ids or card names, or one string of names (``"AS 2S ..."``);
    without it the deck is shuffled with ``rng``."""
    dealer = player_index(dealer, "dealer")
    if deck is None:
        if rng is None:
            raise ValueError("new_hand needs a numpy Generator (rng) or an explicit deck")
        deck = tuple(rng.permutation(cards.N_CARDS).tolist())
    else:
        deck = deck_ids(deck)
    non_dealer = 1 - dealer
    non_dealer_hand = cards.to_mask(deck[0:DEALT:2])
    dealer_hand = cards.to_mask(deck[1:DEALT:2])
    upcard = deck[DEALT]
    if rules.deal_mode == "eleven":
        # RLCard: the 21st card goes to the non-dealer, who opens by discarding; no upcard, no offer.
        non_dealer_hand |= 1 << upcard
        pile: tuple[int, ...] = ()
        initial_upcard, phase, knock_limit = NO_CARD, DISCARD, rules.hand_knock_limit(None)
    else:
        pile = (upcard,)
        initial_upcard, phase, knock_limit = upcard, OFFER, rules.hand_knock_limit(upcard)
    hands = (non_dealer_hand, dealer_hand) if non_dealer == 0 else (dealer_hand, non_dealer_hand)
    return HandState(
        rules=rules, deck=deck, hands=hands, stock_top=DEALT + 1, pile=pile, dealer=dealer, current=non_dealer,
        phase=phase, taken=NO_CARD, both_passed=False, must_knock=False, initial_upcard=initial_upcard,
        knock_limit=knock_limit, turns=0, known=(0, 0), discarded=(0, 0), declined=(0, 0), outcome=None)


def player_index(value, name: str) -> int:
    """``value`` as a player index 0 or 1: any integer type is accepted (numpy ones too), anything else (floats,
    bools, strings) raises an error that names the argument ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be the integer 0 or 1, got {value!r}")
    try:
        index = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be the integer 0 or 1, got {value!r} ({type(value).__name__})") from None
    if index not in (0, 1):
        raise ValueError(f"{name} must be 0 or 1, got {index}")
    return index


def deck_ids(deck) -> tuple[int, ...]:
    """A deal order as 52 card ids: from ids (any integer type), card names, or one string of names. Anything else,
    or a deck that is not a permutation of the 52 cards, raises an error naming the problem."""
    if isinstance(deck, str):
        return deck_ids(cards.parse(deck))
    if isinstance(deck, np.ndarray) and deck.ndim != 1:
        raise ValueError(f"deck must be one sequence of 52 cards, got an array of shape {deck.shape}")
    try:
        items = list(deck)
    except TypeError:
        raise TypeError(f"deck must be 52 card ids or card names (or one string of names), got {deck!r}") from None
    ids = []
    for c in items:
        if isinstance(c, str):
            ids.append(cards.card(c))
        elif isinstance(c, (bool, np.bool_)):
            raise TypeError(f"deck holds {c!r}: cards are ids 0..51 or names such as 'TD'")
        else:
            try:
                ids.append(operator.index(c))
            except TypeError:
                raise TypeError(f"deck holds {c!r}: cards are ids 0..51 or names such as 'TD'") from None
    if sorted(ids) != list(range(cards.N_CARDS)):
        raise ValueError("deck must be a permutation of the 52 cards (ids 0..51), each exactly once")
    return tuple(ids)


def stock_size(state: HandState) -> int:
    """Cards left in the stock."""
    return cards.N_CARDS - state.stock_top


# ---------------------------------------------------------------------------------------------------------------
# Legal actions
# ---------------------------------------------------------------------------------------------------------------

def _blocked_card(state: HandState) -> int:
    """The card R16 forbids discarding or knocking with this turn, or NO_CARD."""
    return kept_card(state.rules.discard_taken_card, state.taken)


def _is_big_gin(rules: Rules, hand11: int, discard_dws: dict[int, int]) -> bool:
    """R24. Every all-melded 11-card holding has a meld of 4+ that can shed a card and stay gin (E6), so a
    minimum of 0 over the discards is necessary; only then is the 11-card solve worth doing."""
    return (rules.big_gin_bonus is not None and min(discard_dws.values()) == 0
            and solver.deadwood(hand11) == 0)


def _wall_take_can_end(state: HandState) -> bool:
    """R38: taking the top discard at the wall is legal only if it allows a knock or big gin at once."""
    top = state.pile[-1]
    hand11 = state.hands[state.current] | (1 << top)
    dws = solver.discard_deadwoods(hand11)
    blocked = kept_card(state.rules.discard_taken_card, top)
    return (any(dw <= state.knock_limit for c, dw in dws.items() if c != blocked)
            or _is_big_gin(state.rules, hand11, dws))


def legal_mask(state: HandState) -> np.ndarray:
    """``(N_ACTIONS,)`` bool mask of the legal actions; all False only when the hand is over."""
    phase = state.phase
    if phase == OFFER:
        return _OFFER_MASK.copy()
    if phase == DRAW:
        # A turn never starts at the wall (R37), so DRAW_STOCK is always legal here.
        return (_DRAW_ONLY_MASK if state.both_passed or not state.pile else _DRAW_OR_TAKE_MASK).copy()
    mask = np.zeros(N_ACTIONS, dtype=bool)
    if phase == DISCARD:
        return _discard_phase_mask(state)
    elif phase == WALL:
        mask[PASS] = True
        mask[TAKE_DISCARD] = _wall_take_can_end(state)
    return mask


def _discard_phase_mask(state: HandState) -> np.ndarray:
    """R16, R20, R24 as the bits of one int (discards at DISCARD_BASE + c, knocks at KNOCK_BASE + c), unpacked in
    one numpy call; the per-card knock test runs only when the best discard is within the limit."""
    hand = state.hands[state.current]
    dws = solver._discard_deadwoods_mask(hand)
    blocked = _blocked_card(state)
    movable = hand & ~(1 << blocked) if blocked != NO_CARD else hand
    bits = 0 if state.must_knock else movable << DISCARD_BASE
    limit = state.knock_limit
    if min(dws.values()) <= limit:
        knockable = 0
        for c, dw in dws.items():
            if dw <= limit:
                knockable |= 1 << c
        bits |= (knockable & movable) << KNOCK_BASE
    if _is_big_gin(state.rules, hand, dws):
        bits |= 1 << BIG_GIN
    return np.unpackbits(np.frombuffer(bits.to_bytes(_ACTION_BYTES, "little"), dtype=np.uint8), count=N_ACTIONS,
                         bitorder="little").view(bool)


_ACTION_BYTES = (N_ACTIONS + 7) // 8


def _constant_mask(*legal: int) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=bool)
    mask[list(legal)] = True
    return mask


_OFFER_MASK = _constant_mask(TAKE_DISCARD, PASS)
_DRAW_ONLY_MASK = _constant_mask(DRAW_STOCK)
_DRAW_OR_TAKE_MASK = _constant_mask(DRAW_STOCK, TAKE_DISCARD)


def legal_actions(state: HandState) -> list[int]:
    """The legal action ids, ascending."""
    return np.flatnonzero(legal_mask(state)).tolist()


def _action_label(action) -> str:
    try:
        return actions.name(action)
    except (ValueError, TypeError):
        return f"{action!r} (not an action id)"


def _illegal(state: HandState, action) -> IllegalActionError:
    legal = ", ".join(actions.name(a) for a in legal_actions(state)) or "none, the hand is over"
    return IllegalActionError(
        f"illegal action {_action_label(action)} in phase {PHASE_NAMES[state.phase]!r} "
        f"(player {state.current} to act); legal actions: {legal}")


# ---------------------------------------------------------------------------------------------------------------
# Step
# ---------------------------------------------------------------------------------------------------------------

def step(state: HandState, action) -> HandState:
    """Apply one action and return the new state (pure). Illegal actions raise :class:`IllegalActionError`.

    A non-integer action (a float, a string, an array) raises ``TypeError``: it is a caller's mistake, not a move.
    Legality is checked per action, not by building the whole mask, because this is the RL hot path."""
    try:
        action = operator.index(action)
    except TypeError:
        raise TypeError(f"an action must be an integer action id, got {action!r} ({type(action).__name__})") from None
    phase = state.phase
    if phase == OFFER:
        return _step_offer(state, action)
    if phase == DRAW:
        return _step_draw(state, action)
    if phase == DISCARD:
        return _step_discard_phase(state, action)
    if phase == WALL:
        return _step_wall(state, action)
    raise _illegal(state, action)


def _take_pile(state: HandState, *, must_knock: bool, upcard_draws: int) -> HandState:
    """Take the top of the discard pile (R13, R15, R38); R16 then forbids discarding it this turn."""
    s = state
    p = s.current
    top = s.pile[-1]
    # Positional construction: about twice as fast as dataclasses.replace on this hot path.
    return HandState(s.rules, s.deck, _pair(s.hands, p, s.hands[p] | (1 << top)), s.stock_top, s.pile[:-1], s.dealer,
                     p, DISCARD, top, s.both_passed, must_knock, s.initial_upcard, s.knock_limit, s.turns,
                     _pair(s.known, p, s.known[p] | (1 << top)), s.discarded, s.declined, s.outcome, upcard_draws,
                     s.returns)


def _step_offer(state: HandState, action: int) -> HandState:
    """R13/R14: the non-dealer, then the dealer, may take the upcard; after two passes the non-dealer draws."""
    if action == TAKE_DISCARD:
        return _take_pile(state, must_knock=False, upcard_draws=state.upcard_draws)
    if action != PASS:
        raise _illegal(state, action)
    s = state
    p = s.current
    declined = _pair(s.declined, p, s.declined[p] | (1 << s.pile[-1]))
    both_passed = p == s.dealer
    return HandState(s.rules, s.deck, s.hands, s.stock_top, s.pile, s.dealer, 1 - p, DRAW if both_passed else OFFER,
                     s.taken, both_passed, s.must_knock, s.initial_upcard, s.knock_limit, s.turns, s.known,
                     s.discarded, declined, s.outcome, s.upcard_draws, s.returns)


def _step_draw(state: HandState, action: int) -> HandState:
    """R15: draw the top stock card (not from the wall, R36) or take the top discard (not after R13c)."""
    if action == DRAW_STOCK and stock_size(state) > state.rules.wall:
        p = state.current
        drawn = state.deck[state.stock_top]
        declined = state.declined
        if state.pile:
            declined = _pair(declined, p, declined[p] | (1 << state.pile[-1]))
        s = state
        return HandState(s.rules, s.deck, _pair(s.hands, p, s.hands[p] | (1 << drawn)), s.stock_top + 1, s.pile,
                         s.dealer, p, DISCARD, NO_CARD, False, s.must_knock, s.initial_upcard, s.knock_limit,
                         s.turns, s.known, s.discarded, declined, s.outcome, s.upcard_draws, s.returns)
    if action == TAKE_DISCARD and state.pile and not state.both_passed:
        draws = state.upcard_draws + 1
        limit = state.rules.max_upcard_draws
        if limit is not None and draws >= limit:
            # R60: the take that would reach the cap ends the hand instead; the card stays on the pile.
            return dataclasses.replace(state, phase=OVER, upcard_draws=draws, outcome=DEAD_OUTCOME)
        return _take_pile(state, must_knock=False, upcard_draws=draws)
    raise _illegal(state, action)


def _step_discard_phase(state: HandState, action: int) -> HandState:
    """R16: with 11 cards, discard, knock (R20) or declare big gin (R24)."""
    hand = state.hands[state.current]
    if action == BIG_GIN:
        if state.rules.big_gin_bonus is not None and solver.deadwood(hand) == 0:
            return _end_by_knock(state, hand, NO_CARD)
        raise _illegal(state, action)
    if actions.is_discard(action) or actions.is_knock(action):
        c = actions.action_card(action)
        bit = 1 << c
        if hand & bit and c != _blocked_card(state):
            if actions.is_discard(action):
                if not state.must_knock:
                    return _discard(state, c)
            elif solver.deadwood(hand ^ bit) <= state.knock_limit:
                return _end_by_knock(state, hand ^ bit, c)
    raise _illegal(state, action)


def _discard(state: HandState, c: int) -> HandState:
    """Put ``c`` face up on the pile and pass the turn; the hand may die here (R19, R37, R61) or reach the wall
    (R38)."""
    p = state.current
    bit = 1 << c
    turns = state.turns + 1
    rules = state.rules
    # R61: a return puts back the card just taken from the pile; any other discard breaks the run of returns.
    returns = state.returns + 1 if c == state.taken else 0
    # The turn cap (R19) and the second return in a row (R61) end the hand outright, before the wall could offer
    # anything (R38).
    capped = rules.max_turns is not None and turns >= rules.max_turns
    if capped:
        phase = OVER
    elif rules.repeat_discard_ends and returns >= 2:
        phase = OVER
    elif stock_size(state) <= rules.wall:
        phase = WALL if rules.wall_upcard_knock else OVER
    else:
        phase = DRAW
    s = state
    return HandState(s.rules, s.deck, _pair(s.hands, p, s.hands[p] ^ bit), s.stock_top, s.pile + (c,), s.dealer,
                     1 - p, phase, NO_CARD, s.both_passed, s.must_knock, s.initial_upcard, s.knock_limit, turns,
                     _pair(s.known, p, s.known[p] & ~bit), _pair(s.discarded, p, s.discarded[p] | bit), s.declined,
                     None if phase != OVER else CAPPED_OUTCOME if capped else DEAD_OUTCOME, s.upcard_draws, returns)


def _step_wall(state: HandState, action: int) -> HandState:
    """R38: take the top discard only to knock at once, or pass and let the hand die."""
    if action == PASS:
        return dataclasses.replace(state, phase=OVER, outcome=DEAD_OUTCOME)
    if action == TAKE_DISCARD and _wall_take_can_end(state):
        return _take_pile(state, must_knock=True, upcard_draws=state.upcard_draws)
    raise _illegal(state, action)


def _end_by_knock(state: HandState, knocker_hand: int, knock_card: int) -> HandState:
    """Score a knock with ``knock_card`` (face down on the pile, R21) or, with NO_CARD, a big gin (R24)."""
    p = state.current
    result = score_knock(knocker_hand, state.hands[1 - p], state.rules, upcard=_upcard_or_none(state))
    winner = {"knocker": p, "defender": 1 - p, None: None}[result.winner]
    outcome = HandOutcome(
        kind=result.kind, winner=winner, points=result.points, knocker=p, knock_card=knock_card,
        knocker_deadwood=result.knocker_deadwood, defender_deadwood=result.defender_deadwood,
        layoffs=result.layoffs, knocker_melds=result.knocker_melds)
    pile, known = state.pile, state.known
    if knock_card != NO_CARD:
        pile = pile + (knock_card,)
        known = _pair(known, p, known[p] & ~(1 << knock_card))
    return dataclasses.replace(
        state, hands=_pair(state.hands, p, knocker_hand), pile=pile, phase=OVER, taken=NO_CARD, must_knock=False,
        known=known, outcome=outcome)


# ---------------------------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------------------------

def score_knock(knocker_hand10, defender_hand10, rules: Rules, *, upcard: int | None = None,
                arrangement=None) -> KnockResult:
    """Score a knock (R21-R23, R26-R35), or a big gin when the knocker holds 11 cards (R24, R33).

    ``upcard`` is the hand's initial upcard, for the Oklahoma limit and spade doubling (R46, R47). ``arrangement``
    is the knocker's explicit melds (R22); without it the solver's auto-arrangement is used. Raises ``ValueError``
    for holdings of the wrong size, shared cards, a big gin that is not allowed, or a knock over the limit."""
    knocker = cards.to_mask(knocker_hand10)
    defender = cards.to_mask(defender_hand10)
    if defender.bit_count() != HAND_SIZE:
        raise ValueError(f"the defender must hold {HAND_SIZE} cards, got {defender.bit_count()}")
    if knocker & defender:
        raise ValueError(f"knocker and defender share cards: {cards.to_str(knocker & defender)}")
    multiplier = rules.hand_multiplier(upcard)
    if knocker.bit_count() == HAND_SIZE + 1:
        return _score_big_gin(knocker, defender, rules, multiplier, arrangement)
    if knocker.bit_count() != HAND_SIZE:
        raise ValueError(f"the knocker must hold {HAND_SIZE} cards (or 11 for big gin), got {knocker.bit_count()}")
    show = solver.showdown(knocker, defender, layoffs=rules.layoffs, arrangement=arrangement)
    limit = rules.hand_knock_limit(upcard)
    k, f = show.knocker_deadwood, show.defender_deadwood
    if k > limit:
        raise ValueError(f"knocker deadwood {k} exceeds the knock limit {limit} of this hand (R20, R46)")
    if show.gin:
        kind, winner, points = "gin", "knocker", f + rules.gin_bonus
    elif f > k:
        kind, winner, points = "knock", "knocker", f - k
    elif f == k and not rules.undercut_on_tie:
        kind, winner, points = "tie", None, 0
    else:
        kind, winner, points = "undercut", "defender", k - f + rules.undercut_bonus
    return KnockResult(kind=kind, knocker_deadwood=k, defender_deadwood=f, layoffs=show.layoffs,
                       points=points * multiplier, winner=winner, knocker_melds=show.knocker_melds)


def _score_big_gin(knocker: int, defender: int, rules: Rules, multiplier: int, arrangement) -> KnockResult:
    """R24, R29, R33: all 11 cards melded; no layoffs, F is the defender's plain deadwood."""
    if rules.big_gin_bonus is None:
        raise ValueError("big gin is not allowed: big_gin_bonus is null (R24)")
    if arrangement is not None:
        raise ValueError("big gin takes no arrangement: all 11 cards are melded")
    melds, deadwood_cards = solver.arrangement(knocker)
    if deadwood_cards:
        raise ValueError(f"not big gin: {cards.to_str(deadwood_cards)} left unmelded (R24)")
    f = solver.deadwood(defender)
    return KnockResult(kind="big_gin", knocker_deadwood=0, defender_deadwood=f, layoffs=(),
                       points=(f + rules.big_gin_bonus) * multiplier, winner="knocker",
                       knocker_melds=tuple(tuple(m) for m in melds))


# ---------------------------------------------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------------------------------------------

def _mask_of(ids) -> int:
    """Bitmask of card ids, without ``cards.to_mask``'s per-card checks: duplicates are found by the caller."""
    mask = 0
    for c in ids:
        mask |= 1 << c
    return mask


def validate(state: HandState) -> None:
    """Check every invariant of a state; raise ``AssertionError`` naming the first one broken.

    Owns: each of the 52 cards in exactly one place (R11), hand sizes per phase, the mask against the phase, and the
    public per-player records against where the cards are. Checks are plain ``if``s, not ``assert``, so they also
    run under ``python -O``, and messages are only formatted on failure because this runs after every test step."""
    if sorted(state.deck) != list(range(cards.N_CARDS)):
        raise AssertionError("deck is not a permutation of 0..51")
    if state.phase not in range(len(PHASE_NAMES)):
        raise AssertionError(f"unknown phase {state.phase!r}")
    if state.dealer not in (0, 1) or state.current not in (0, 1):
        raise AssertionError(f"dealer {state.dealer!r} and current {state.current!r} must be 0 or 1")
    if not DEALT + 1 <= state.stock_top <= cards.N_CARDS - state.rules.wall:
        raise AssertionError(f"stock_top {state.stock_top} out of range: the stock holds {stock_size(state)} cards, "
                             f"wall {state.rules.wall}")
    stock = _mask_of(state.deck[state.stock_top:])
    _check_cards(state, stock)
    _check_hand_sizes(state)
    _check_flags(state)
    _check_public(state, stock)
    _check_mask(state)


def _check_cards(state: HandState, stock: int) -> None:
    """R11: hands, stock and pile partition the 52 cards."""
    pile = _mask_of(state.pile)
    if pile.bit_count() != len(state.pile):
        raise AssertionError(f"discard pile holds a card twice: {[cards.card_str(c) for c in state.pile]}")
    seen = 0
    for place, mask in (("P1's hand", state.hands[0]), ("P2's hand", state.hands[1]), ("stock", stock),
                        ("pile", pile)):
        if seen & mask:
            raise AssertionError(f"{cards.to_str(seen & mask)} also in {place} (R11)")
        seen |= mask
    if seen != cards.FULL_DECK:
        raise AssertionError(f"cards in no place (R11): {cards.to_str(cards.FULL_DECK & ~seen)}")


def _check_hand_sizes(state: HandState) -> None:
    """10 cards each, 11 for the player to act in the discard phase and for a big gin's winner (R16, R24)."""
    sizes = (state.hands[0].bit_count(), state.hands[1].bit_count())
    expected = [HAND_SIZE, HAND_SIZE]
    if state.phase == DISCARD or (state.outcome is not None and state.outcome.kind == "big_gin"):
        expected[state.current] += 1
    if sizes != tuple(expected):
        raise AssertionError(f"hand sizes {sizes} in phase {PHASE_NAMES[state.phase]!r}, expected {tuple(expected)}")


def _check_flags(state: HandState) -> None:
    """Phase-dependent fields: taken card, R13c, R38, knock limit, upcard, outcome, turn cap."""
    rules = state.rules
    phase = state.phase
    if state.taken != NO_CARD and (phase != DISCARD or not state.hands[state.current] >> state.taken & 1):
        raise AssertionError("taken card set outside the discard phase or not in the current hand (R16)")
    if state.both_passed and (phase != DRAW or state.current == state.dealer or state.stock_top != DEALT + 1):
        raise AssertionError("both_passed (R13c) set after the non-dealer's first draw")
    if state.must_knock and (phase != DISCARD or state.taken == NO_CARD or stock_size(state) != rules.wall):
        raise AssertionError("must_knock (R38) set other than right after taking the discard at the wall")
    if phase == WALL and stock_size(state) != rules.wall:
        raise AssertionError(f"wall phase with {stock_size(state)} stock cards, wall {rules.wall} (R38)")
    if phase == DRAW and stock_size(state) <= rules.wall:
        raise AssertionError(f"a turn starts with {stock_size(state)} stock cards, wall {rules.wall} (R37)")
    expected_upcard = NO_CARD if rules.deal_mode == "eleven" else state.deck[DEALT]
    if state.initial_upcard != expected_upcard:
        raise AssertionError(f"initial upcard {state.initial_upcard}, expected {expected_upcard} (R10, R12)")
    if state.knock_limit != rules.hand_knock_limit(_upcard_or_none(state)):
        raise AssertionError(f"knock limit {state.knock_limit} does not follow the rules and the upcard (R46)")
    if (state.outcome is None) != (phase != OVER):
        raise AssertionError("outcome must be set exactly when the hand is over")
    if rules.max_turns is not None and state.turns > rules.max_turns:
        raise AssertionError(f"turns {state.turns} past max_turns {rules.max_turns} (R19)")
    at_cap = rules.max_turns is not None and state.turns == rules.max_turns
    if state.outcome is not None and state.outcome.capped != (at_cap and state.outcome.kind == "dead"):
        raise AssertionError(f"outcome capped={state.outcome.capped} but {state.turns} discards of max_turns "
                             f"{rules.max_turns} (R19)")
    if rules.max_upcard_draws is not None and state.upcard_draws >= rules.max_upcard_draws and phase != OVER:
        raise AssertionError(f"{state.upcard_draws} upcard draws reach max_upcard_draws {rules.max_upcard_draws} "
                             "in a live hand (R60)")
    if rules.repeat_discard_ends and state.returns >= 2 and phase != OVER:
        raise AssertionError("two returns in a row in a live hand (R61)")
    if state.returns > state.turns:
        raise AssertionError(f"{state.returns} returns in a row but only {state.turns} discards (R61)")
    knock_card = NO_CARD if state.outcome is None else state.outcome.knock_card
    if knock_card != NO_CARD and state.pile[-1:] != (knock_card,):
        raise AssertionError("the knock card is not on top of the pile (R21)")


def _check_public(state: HandState, stock: int) -> None:
    """known is in the own hand and was face up; discarded and declined cards were face up, so never in the stock;
    every face-up card of the pile was discarded by someone."""
    all_discarded = state.discarded[0] | state.discarded[1]
    upcard_bit = 1 << state.initial_upcard if state.initial_upcard != NO_CARD else 0
    for p in (0, 1):
        if state.known[p] & ~state.hands[p]:
            raise AssertionError(f"player {p} 'known' holds cards not in their hand: "
                                 f"{cards.to_str(state.known[p] & ~state.hands[p])}")
        if state.known[p] & ~(all_discarded | upcard_bit):
            raise AssertionError(f"player {p} 'known' holds cards that never lay face up on the pile")
        if (state.discarded[p] | state.declined[p]) & stock:
            raise AssertionError(f"player {p} discarded or declined cards that are in the stock")
    # The upcard lies at the bottom of the pile without anyone discarding it (it may be taken and discarded later).
    face_up = _mask_of(state.pile[1:] if state.pile[:1] == (state.initial_upcard,) else state.pile)
    if state.outcome is not None and state.outcome.knock_card != NO_CARD:
        face_up &= ~(1 << state.outcome.knock_card)
    if face_up & ~all_discarded:
        raise AssertionError(f"pile cards nobody discarded: {cards.to_str(face_up & ~all_discarded)}")


def _check_mask(state: HandState) -> None:
    """The mask is empty exactly when the hand is over and holds only the actions its phase allows."""
    legal = set(legal_actions(state))
    phase = state.phase
    if phase == OVER:
        allowed = set()
    elif phase == OFFER:
        allowed = {TAKE_DISCARD, PASS}
    elif phase == DRAW:
        allowed = {DRAW_STOCK} if state.both_passed else {DRAW_STOCK, TAKE_DISCARD}
    elif phase == WALL:
        allowed = {TAKE_DISCARD, PASS}
    else:
        # R16: every held card but the one just taken from the pile may be discarded or knocked with.
        discardable = [c for c in cards.to_ids(state.hands[state.current]) if c != _blocked_card(state)]
        allowed = {KNOCK_BASE + c for c in discardable} | {BIG_GIN}
        if not state.must_knock:
            discards = {DISCARD_BASE + c for c in discardable}
            if not discards <= legal:
                raise AssertionError("a discard allowed by R16 is missing from the mask")
            allowed |= discards
    if not legal <= allowed:
        raise AssertionError(f"actions {[actions.name(a) for a in sorted(legal - allowed)]} are not allowed in "
                             f"phase {PHASE_NAMES[phase]!r}")
    if (phase == OVER) == bool(legal):
        raise AssertionError(f"phase {PHASE_NAMES[phase]!r} with legal actions {sorted(legal)}")
    if phase == OFFER and legal != allowed:
        raise AssertionError("the offer allows exactly TAKE_DISCARD and PASS (R13)")
    if phase == WALL and PASS not in legal:
        raise AssertionError("PASS must be legal at the wall (R38)")
    if BIG_GIN in legal and state.rules.big_gin_bonus is None:
        raise AssertionError("BIG_GIN legal with big gin off (R24)")
