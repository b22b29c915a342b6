"""Public history in, state out: the :class:`~gin_env.game.observation.PlayerView` of a player who knows only its
own cards and the public events of a hand (docs/rules.md R10-R39, R60, R61), for harnesses outside gin-env (the EAAI
framework, OpenSpiel, a game log) that see a hand that way.

The events are what a player at the table sees, one per move: :class:`Upcard` (the card turned after the deal,
R12; none under ``deal_mode="eleven"``), :class:`Pass` (of the upcard in the offer, R13, or of the discard at the
wall, R38), :class:`Take` (the top of the pile: the upcard in the offer, the top discard in the draw, the discard at
the wall), :class:`Draw` (from the stock: the card for one's own draw, None for the opponent's), :class:`Discard`,
:class:`Knock` (with the knock card placed face down, R21; a gin is a knock whose other ten cards all meld, R23) and
:class:`BigGin` (R24). Cards are ids (``cards.py``) or names such as ``"TD"``; players 0 and 1.

With jokers (R62) an event speaks of a joker by the event alone, never by its id (R72): any joker's id or ``"JK"``
names "a joker" in the events given, and :func:`public_event` and :func:`deal_events` name every joker
``cards.N_CARDS``, the first joker's id, whichever joker it was. ``own_cards`` may hold either joker: the view
names the jokers by count (``observation.jokers_by_count``), so it does not tell them apart.

:func:`player_view` replays them and returns exactly the view ``observation.view`` gives of the real state at that
point. A history that cannot have happened is a ``ValueError`` naming the event's index and the reason: a move out
of turn or out of phase, a card the mover cannot hold, a take of a card that is not on top, a move after the hand
ended. The opponent's own legality (whether its hidden cards allow a knock) is beyond what the player sees and is
taken on trust. :func:`public_event` is the other direction: the event that an engine action is, as a player sees
it, for recording a hand played with the engine.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass

from gin_env.game import actions, cards, engine, observation
from gin_env.game.engine import DISCARD, DRAW, OFFER, OVER, WALL, HandState
from gin_env.game.hand_rules import turn
from gin_env.game.hand_rules.knock import big_gin_legal
from gin_env.game.hand_rules.taken_card import blocks, kept_card
from gin_env.game.match_record import EMPTY_RECORD
from gin_env.game.rules import Rules


@dataclass(frozen=True)
class Upcard:
    """The upcard turned after the deal (R12): the hand's first event under ``deal_mode="upcard"``."""

    card: int | str


@dataclass(frozen=True)
class Pass:
    """``player`` passes the upcard in the offer (R13) or the discard at the wall (R38)."""

    player: int


@dataclass(frozen=True)
class Take:
    """``player`` takes ``card``, the top of the pile (R13, R15, R38)."""

    player: int
    card: int | str


@dataclass(frozen=True)
class Draw:
    """``player`` draws from the stock (R15): ``card`` is the card drawn when the viewer drew it, None otherwise."""

    player: int
    card: int | str | None = None


@dataclass(frozen=True)
class Discard:
    """``player`` discards ``card`` face up (R16)."""

    player: int
    card: int | str


@dataclass(frozen=True)
class Knock:
    """``player`` knocks, placing ``card`` face down on the pile (R20, R21); a gin when the rest all meld (R23)."""

    player: int
    card: int | str


@dataclass(frozen=True)
class BigGin:
    """``player`` declares big gin with all eleven cards melded (R24)."""

    player: int


Event = Upcard | Pass | Take | Draw | Discard | Knock | BigGin
EVENT_TYPES = (Upcard, Pass, Take, Draw, Discard, Knock, BigGin)


def player_view(rules: Rules, player: int, own_cards, dealer: int, events, *,
                scores: tuple[int, int] = (0, 0),
                record: tuple[int, ...] = EMPTY_RECORD) -> observation.PlayerView:
    """The view of ``player`` after ``events`` of a hand under ``rules`` that ``dealer`` dealt, ``player`` having
    been dealt ``own_cards`` (ten cards; eleven for the non-dealer under ``deal_mode="eleven"``). ``scores`` are the
    match scores indexed by player and ``record`` the match record, as ``observation.view`` takes them.

    Equal to ``observation.view(state, player, scores, record)`` of the real state after the same moves. An impossible
    history raises ``ValueError`` naming the event's index and why; a bad ``own_cards`` one naming ``own_cards``."""
    player = engine.player_index(player, "player")
    dealer = engine.player_index(dealer, "dealer")
    events = list(events)
    state, first = _deal(rules, player, own_cards, dealer, events)
    for index in range(first, len(events)):
        try:
            state = _apply(state, player, events[index])
        except (ValueError, TypeError) as error:
            raise ValueError(f"event {index} ({events[index]!r}): {error}") from None
    return observation.view(state, player, scores, record)


def public_event(state: HandState, action: int, viewer: int) -> Event:
    """The event that ``action`` of the player to act in ``state`` is, as ``viewer`` sees it; a joker is
    ``cards.N_CARDS`` whichever joker moves (R72)."""
    p = state.current
    if action == actions.PASS:
        return Pass(p)
    if action == actions.TAKE_DISCARD:
        return Take(p, cards.public_id(state.pile[-1]))
    if action == actions.DRAW_STOCK:
        return Draw(p, cards.public_id(state.deck[state.stock_top]) if p == viewer else None)
    if action == actions.BIG_GIN:
        return BigGin(p)
    card = cards.public_id(actions.action_card(action, state.hands[p]))
    return Knock(p, card) if actions.is_knock(action) else Discard(p, card)


def deal_events(state: HandState) -> tuple[Event, ...]:
    """The public events of the deal of ``state``: its upcard, if it has one (R12); a joker as ``cards.N_CARDS``
    (R72)."""
    return () if state.initial_upcard == cards.NO_CARD else (Upcard(cards.public_id(state.initial_upcard)),)


# ---------------------------------------------------------------------------------------------------------------
# The deal: a state whose unknown cards (the opponent's, the stock) are placeholders, swapped as events reveal them
# ---------------------------------------------------------------------------------------------------------------

def _deal(rules: Rules, player: int, own_cards, dealer: int, events: list) -> tuple[HandState, int]:
    """The dealt state with ``player``'s cards where the deal puts them and the upcard turned, and the index of the
    first event after the deal."""
    eleven = rules.deal_mode == "eleven"
    non_dealer = 1 - dealer
    try:
        own = cards.to_mask(own_cards)
    except (ValueError, TypeError) as error:
        raise ValueError(f"own_cards: {error}") from None
    expected = rules.deck.hand_size + (1 if eleven and player == non_dealer else 0)
    deck_mask = rules.deck.full_mask
    if own.bit_count() != expected or not 0 <= own <= deck_mask:
        raise ValueError(f"own_cards must be {expected} distinct cards for player {player} under {rules.describe()}, "
                         f"got {own.bit_count()}")
    upcard = cards.NO_CARD
    if not eleven:
        if not events or not isinstance(events[0], Upcard):
            raise ValueError("event 0: the hand's first event is its Upcard (R12) under deal_mode 'upcard'")
        try:
            upcard = _unheld(rules, own, _card_id(rules, events[0].card))
        except (ValueError, TypeError) as error:
            raise ValueError(f"event 0 ({events[0]!r}): {error}") from None
        if own >> upcard & 1:
            raise ValueError(f"event 0 ({events[0]!r}): the upcard {cards.card_str(upcard)} is one of own_cards")
    deck = [cards.NO_CARD] * rules.deck.n_cards
    own_slots = list(range(0 if player == non_dealer else 1, engine.DEALT, 2))
    if len(own_slots) < expected:
        own_slots.append(engine.DEALT)
    for slot, c in zip(own_slots, cards.to_ids(own)):
        deck[slot] = c
    if not eleven:
        deck[engine.DEALT] = upcard
    rest = iter(cards.to_ids(deck_mask & ~own & ~(1 << upcard if upcard != cards.NO_CARD else 0)))
    deck = [c if c != cards.NO_CARD else next(rest) for c in deck]
    return engine.new_hand(rules, dealer=dealer, deck=deck), 0 if eleven else 1


def _card_id(rules: Rules, value) -> int:
    """A card of an event as its id: an id of the deck of ``rules`` (any integer type) or a name such as ``"TD"``;
    any joker (an id from ``cards.N_CARDS`` on, or ``"JK"``) as ``cards.N_CARDS``, "a joker" (R72), which the event
    then places (:func:`_unheld`, :func:`_held_joker`)."""
    if isinstance(value, str) and value.upper() == cards.JOKER and rules.deck.n_jokers:
        return cards.N_CARDS
    if isinstance(value, str):
        return cards.card(value)
    if isinstance(value, bool) or value is None:
        raise TypeError(f"a card is an id 0..{rules.deck.n_cards - 1} or a name such as 'TD', got {value!r}")
    c = operator.index(value)
    if not 0 <= c < rules.deck.n_cards:
        raise ValueError(f"card id {c} out of range 0..{rules.deck.n_cards - 1}")
    return cards.public_id(c)


def _unheld(rules: Rules, held: int, card: int) -> int:
    """``card``, or for a joker (``cards.N_CARDS``) the lowest joker of the deck that ``held`` (a card mask) lacks,
    or the lowest when ``held`` has them all, which the caller then refuses."""
    if card < cards.N_CARDS:
        return card
    free = rules.deck.joker_mask & ~held
    return (free & -free).bit_length() - 1 if free else card


def _hidden(state: HandState, player: int) -> int:
    """The cards whose place ``player`` cannot see: the opponent's hidden cards and the stock."""
    pile = 0
    for c in state.pile:
        pile |= 1 << c
    return state.rules.deck.full_mask & ~state.hands[player] & ~pile & ~state.known[1 - player]


def _swap(state: HandState, a: int, b: int) -> HandState:
    """``state`` with the hidden cards ``a`` and ``b`` exchanged, in the deck and in the opponent's hand: the viewer
    cannot tell the two states apart."""
    deck = list(state.deck)
    i, j = deck.index(a), deck.index(b)
    deck[i], deck[j] = b, a
    hands = tuple(h ^ ((1 << a) | (1 << b)) if (h >> a & 1) != (h >> b & 1) else h for h in state.hands)
    return dataclasses.replace(state, deck=tuple(deck), hands=hands)


def _place(state: HandState, viewer: int, card: int, slot_card: int, place: str) -> HandState:
    """``state`` with ``card`` where the placeholder ``slot_card`` is, when ``card``'s place is hidden from
    ``viewer``; a ``ValueError`` when the viewer can see that ``card`` is elsewhere (``place`` names where it was
    to be, for the error)."""
    if card == slot_card:
        return state
    if not _hidden(state, viewer) >> card & 1:
        raise ValueError(f"{place} cannot hold {cards.card_str(card)}: {_where(state, viewer, card)}")
    return _swap(state, card, slot_card)


def _where(state: HandState, viewer: int, card: int) -> str:
    """Where ``viewer`` sees ``card``, for an error."""
    if state.hands[viewer] >> card & 1:
        return f"player {viewer} (the viewer) holds it"
    if card in state.pile:
        return "it is in the discard pile"
    return f"player {1 - viewer} holds it, taken from the pile"


# ---------------------------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------------------------

def _apply(state: HandState, viewer: int, event) -> HandState:
    """The state after ``event``; ``ValueError`` with the reason when it cannot happen here."""
    if not isinstance(event, EVENT_TYPES):
        raise TypeError(f"not an event: one of {', '.join(t.__name__ for t in EVENT_TYPES)} expected")
    if state.phase == OVER:
        raise ValueError("the hand is already over")
    if isinstance(event, Upcard):
        raise ValueError("an upcard is turned only once, as the hand's first event (R12)")
    mover = engine.player_index(event.player, "player")
    if mover != state.current:
        raise ValueError(f"player {mover} moved where player {state.current} is to act "
                         f"(phase {engine.PHASE_NAMES[state.phase]!r})")
    action, card = _action_of(state, viewer, event)
    reason = _own_reason(state, action) if mover == viewer else _opponent_reason(state, action, card)
    if reason:
        raise ValueError(reason)
    if isinstance(event, Draw) and mover == viewer:
        slot = state.deck[state.stock_top]
        if card == cards.N_CARDS:
            card = _joker_to_move(state, viewer, 1 << slot)
        state = _place(state, viewer, card, slot, "the stock")
    elif isinstance(event, (Discard, Knock)) and mover != viewer and not state.hands[mover] >> card & 1:
        state = _reveal(state, viewer, card)
    if isinstance(event, (Knock, BigGin)):
        return _end(state, card)
    if isinstance(event, Take) and state.phase == WALL and mover != viewer:
        return _wall_take(state)
    return engine.step(state, action)


def _action_of(state: HandState, viewer: int, event) -> tuple[int, int]:
    """The engine action of ``event`` and its card (NO_CARD for none), with the checks of the card itself; a joker
    taken is the one on top, a joker discarded or knocked with the one ``_joker_to_move`` gives, a joker the viewer
    draws ``cards.N_CARDS`` until it is placed."""
    if isinstance(event, Pass):
        return actions.PASS, cards.NO_CARD
    if isinstance(event, BigGin):
        return actions.BIG_GIN, cards.NO_CARD
    if isinstance(event, Draw):
        if event.player != viewer:
            if event.card is not None:
                raise ValueError(f"player {viewer} cannot see the card player {event.player} draws: card must be "
                                 "None")
            return actions.DRAW_STOCK, cards.NO_CARD
        if event.card is None:
            raise ValueError("the viewer's own draw names the card drawn")
        return actions.DRAW_STOCK, _card_id(state.rules, event.card)
    card = _card_id(state.rules, event.card)
    if isinstance(event, Take):
        if not state.pile or cards.public_id(state.pile[-1]) != card:
            top = cards.card_str(state.pile[-1]) if state.pile else "none, the pile is empty"
            raise ValueError(f"{cards.card_str(card)} is not the top of the pile (top: {top})")
        return actions.TAKE_DISCARD, state.pile[-1]
    if card == cards.N_CARDS:
        card = _joker_to_move(state, viewer, state.hands[event.player])
    return (actions.knock(card) if isinstance(event, Knock) else actions.discard(card)), card


def _joker_to_move(state: HandState, viewer: int, held: int) -> int:
    """The joker an event moves (R72: any joker is "a joker"): the lowest of ``held`` (the mover's cards, as the
    engine's joker actions move the lowest held; for the viewer's draw the stock's top), else the lowest joker
    hidden from ``viewer``; ``ValueError`` when ``viewer`` sees every joker elsewhere."""
    jokers = state.rules.deck.joker_mask
    for mask in (held & jokers, _hidden(state, viewer) & jokers):
        if mask:
            return (mask & -mask).bit_length() - 1
    places = "; ".join(_where(state, viewer, joker) for joker in state.rules.deck.joker_ids)
    raise ValueError(f"no joker can be there: player {viewer} (the viewer) sees each elsewhere ({places})")


def _own_reason(state: HandState, action: int) -> str | None:
    """Why the viewer may not play ``action`` now (its legal actions are known exactly), or None. A draw's card is
    checked when it is placed."""
    if engine.legal_mask(state)[action]:
        return None
    legal = ", ".join(actions.name(a) for a in engine.legal_actions(state))
    return f"{actions.name(action)} is not legal in phase {engine.PHASE_NAMES[state.phase]!r}; legal: {legal}"


def _opponent_reason(state: HandState, action: int, card: int) -> str | None:
    """Why the opponent may not play ``action`` (with ``card``, for a discard or a knock) now as far as the viewer
    can tell, or None; whether its hidden cards allow a knock or a take at the wall is taken on trust."""
    phase = state.phase
    allowed = {
        actions.PASS: phase in (OFFER, WALL),
        actions.TAKE_DISCARD: phase in (OFFER, WALL) or (phase == DRAW and not state.both_passed),
        actions.DRAW_STOCK: phase == DRAW and turn.can_draw_stock(state.rules.turn_values, engine.stock_size(state)),
        actions.BIG_GIN: phase == DISCARD and bool(big_gin_legal(state.rules.knock_values, True)),
    }
    if action in allowed:
        ok = allowed[action]
    else:
        ok = (phase == DISCARD and not blocks(kept_card(state.rules.discard_taken_card, state.taken), card)
              and (actions.is_knock(action) or not state.must_knock))
    return None if ok else f"{actions.name(action)} is not legal in phase {engine.PHASE_NAMES[phase]!r}"


def _reveal(state: HandState, viewer: int, card: int) -> HandState:
    """``state`` with ``card``, which the opponent plays, swapped into its hand for one of its hidden cards."""
    opponent = 1 - viewer
    hidden = state.hands[opponent] & ~state.known[opponent]
    if not hidden:
        raise ValueError(f"player {opponent} cannot hold {cards.card_str(card)}: every card it holds is known")
    return _place(state, viewer, card, (hidden & -hidden).bit_length() - 1, f"player {opponent}")


def _wall_take(state: HandState) -> HandState:
    """The opponent's take of the discard at the wall (R38): it must knock next."""
    p, top = state.current, state.pile[-1]
    bit = 1 << top
    return dataclasses.replace(
        state, hands=_set(state.hands, p, state.hands[p] | bit), pile=state.pile[:-1], phase=DISCARD, taken=top,
        must_knock=True, known=_set(state.known, p, state.known[p] | bit))


def _end(state: HandState, knock_card: int) -> HandState:
    """The hand over by a knock with ``knock_card`` face down on the pile (R21), or a big gin (NO_CARD): what the
    engine's knock leaves public, without a score, which needs the hidden cards."""
    p = state.current
    hand, pile, known = state.hands[p], state.pile, state.known
    if knock_card != cards.NO_CARD:
        bit = 1 << knock_card
        hand, pile, known = hand & ~bit, pile + (knock_card,), _set(known, p, known[p] & ~bit)
    return dataclasses.replace(state, hands=_set(state.hands, p, hand), pile=pile, phase=OVER, taken=cards.NO_CARD,
                               must_knock=False, known=known)


def _set(pair: tuple[int, int], player: int, value: int) -> tuple[int, int]:
    """``pair`` with the entry of ``player`` replaced."""
    return (value, pair[1]) if player == 0 else (pair[0], value)
