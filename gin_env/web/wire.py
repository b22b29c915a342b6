"""What the web table sends over the wire about a hand, as JSON-ready dicts of plain str, int, bool, list and None.

This module owns how a hand is told to a browser, and so where hidden information could leak: :func:`seat_frame`
is built from one player's ``PlayerView`` alone (plus the names it is given), :func:`public_frame` reads only the
public fields of a hand (the pile, the stock's size, the cards each player took from the pile, the discards), and
only :func:`open_frame` and :func:`showdown` read the hands, for a hand that is over or a game with no person in it.
A card is always text (``"7S"``, ``"TD"``), and every joker is ``"JK"`` whatever its id (R72); a run joker in an
arrangement is written with the card it stands for, ``"JK=7S"`` (R65), and only the arrangements of the
receiver's own hand or of a hand that is over are sent. Melds and deadwood are the solver's, scores and layoffs the
engine's ``HandOutcome``. Words about a player are told per receiver: the receiver's own name reads "you", with the
verb to match ("you discard", "your deadwood"), and everyone else reads the name (:class:`Said`, :func:`showdown`).
"""

from __future__ import annotations

from typing import NamedTuple

from gin_env.game import actions, cards, engine, solver
from gin_env.game.actions import BIG_GIN, DRAW_STOCK, PASS, TAKE_DISCARD
from gin_env.game.hand_rules import turn
from gin_env.game.observation import PlayerView
from gin_env.game.rules import Rules
from gin_env.game.solver.declarations import DECLARES

#: Each phase (``engine.PHASE_NAMES``) in words, for the player whose turn it is.
PHASE_WORDS = {
    "offer": "the first upcard is offered: take it or pass (R13)",
    "draw": "draw from the stock or take the top discard",
    "discard": "discard a card, or knock with one",
    "wall": "the stock is down to the wall: take the last discard to knock, or pass and the hand is dead (R38)",
    "over": "the hand is over",
}


def card_text(card_id: int, identities: dict[int, int] | None = None) -> str:
    """One card as text: ``"7S"``, any joker ``"JK"``, a run joker of ``identities`` ({joker id: natural card})
    ``"JK=7S"``."""
    text = cards.card_str(card_id)
    if identities and card_id in identities:
        text += DECLARES + cards.card_str(identities[card_id])
    return text


def _place(card_id: int, identities: dict[int, int]) -> tuple[int, int]:
    """Where a card sorts, (rank, suit): a run joker at the card it stands for, any other joker last."""
    c = identities.get(card_id, card_id)
    return (cards.N_RANKS, 0) if c >= cards.N_CARDS else (cards.rank(c), cards.suit(c))


def card_texts(hand, identities: dict[int, int] | None = None) -> list[str]:
    """Cards (ids or a mask) as text in rank order, then suit; jokers last unless ``identities`` place them."""
    identities = identities or {}
    ids = cards.to_ids(hand) if isinstance(hand, int) else list(hand)
    return [card_text(c, identities) for c in sorted(ids, key=lambda c: _place(c, identities))]


def _declared(melds) -> dict[int, int]:
    """Each run joker of a solver arrangement and the natural card it stands for (R65)."""
    return {j: c for m in melds if isinstance(m, solver.Meld) for j, c in m.identities.items()}


def arrangement(mask: int, rules: Rules) -> dict:
    """A holding sorted into one least-deadwood arrangement (R7, R68): ``melds`` (list of lists of card text, run
    jokers ``"JK=7S"``, melds by their lowest rank), ``deadwood_cards`` (list of card text) and ``deadwood`` (int);
    with more than ``rules.deck.hand_size`` cards also ``deadwood_after_discard`` (int: the least deadwood of the
    cards kept after a discard, R8), else that key is None."""
    melds, loose = solver.arrangement(mask, rules)
    identities = _declared(melds)
    melds = sorted(melds, key=lambda m: min(_place(c, identities) for c in m))
    after = solver.best_discard_deadwood(mask, rules) if mask.bit_count() > rules.deck.hand_size else None
    return {"melds": [card_texts(m, identities) for m in melds], "deadwood_cards": card_texts(loose),
            "deadwood": cards.hand_value(cards.to_mask(loose), rules.deck), "deadwood_after_discard": after}


def move_label(view: PlayerView, action: int) -> str:
    """A legal action of ``view`` in words, for its own player: "draw from the stock", "take 7S from the discard
    pile", "discard 7S", "knock with 7S (deadwood 4)", "go gin with 7S", ..."""
    phase = engine.PHASE_NAMES[view.phase]
    top = card_text(view.top_discard) if view.top_discard != engine.NO_CARD else "--"
    if action == DRAW_STOCK:
        return "draw from the stock"
    if action == TAKE_DISCARD:
        return {"offer": f"take the upcard {top}", "wall": f"take {top} to knock"}.get(
            phase, f"take {top} from the discard pile")
    if action == PASS:
        return f"leave {top}: the hand is dead" if phase == "wall" else f"pass on the upcard {top}"
    if action == BIG_GIN:
        return "declare big gin"
    c = actions.action_card(action, view.hand)
    if actions.is_discard(action):
        return f"discard {card_text(c)}"
    left = solver.deadwood(view.hand & ~(1 << c), view.rules)
    return f"go gin with {card_text(c)}" if left == 0 else f"knock with {card_text(c)} (deadwood {left})"


def moves(view: PlayerView) -> list[dict]:
    """The legal actions of ``view`` ascending, each ``{"action": int id, "label": str}``; [] off turn."""
    return [{"action": a, "label": move_label(view, a)} for a in view.legal_actions]


def _pile_size(top: int, rest: int) -> int:
    return rest.bit_count() + (top != engine.NO_CARD)


def _optional_card(card_id: int) -> str | None:
    return None if card_id == engine.NO_CARD else card_text(card_id)


def seat_frame(view: PlayerView, names: tuple[str, str], *, may_act: bool = True) -> dict:
    """What one player may know of its hand, from its ``view`` alone; ``names`` are (own, opponent), public.

    Keys: ``kind`` "seat"; ``names`` [own, opponent]; ``hand`` (list of card text, rank order); ``arrangement``
    (:func:`arrangement` of the hand); ``top_discard`` (card text or None); ``pile`` (card text of the face-up
    cards below the top, rank order); ``pile_size``, ``stock_size``, ``knock_limit`` (int); ``upcard`` (the hand's
    first upcard, card text or None); ``taken`` (the card taken from the pile this turn, or None);
    ``opponent_known`` (cards the opponent took from the pile and holds) and ``opponent_discards`` (list of card
    text); ``dealer`` (a name); ``phase`` (``engine.PHASE_NAMES``), ``phase_text`` (words); ``turn`` ("you",
    "opponent" or None once the hand is over); ``moves`` (:func:`moves`; [] unless ``may_act``, which a room's
    member off turn is not); ``scores`` [own, opponent] (int) and ``target`` (int or None)."""
    phase = engine.PHASE_NAMES[view.phase]
    to_act = None if phase == "over" else ("you" if view.to_act else "opponent")
    return {
        "kind": "seat", "names": list(names), "hand": card_texts(view.hand),
        "arrangement": arrangement(view.hand, view.rules), "top_discard": _optional_card(view.top_discard),
        "pile": card_texts(view.pile_rest), "pile_size": _pile_size(view.top_discard, view.pile_rest),
        "stock_size": view.stock_size, "knock_limit": view.knock_limit, "upcard": _optional_card(view.initial_upcard),
        "taken": _optional_card(view.taken), "opponent_known": card_texts(view.opponent_known),
        "opponent_discards": card_texts(view.opponent_discards), "dealer": names[0 if view.is_dealer else 1],
        "phase": phase, "phase_text": PHASE_WORDS[phase], "turn": to_act,
        "moves": moves(view) if may_act else [], "scores": list(view.scores), "target": view.target,
    }


def public_frame(state: engine.HandState, names: tuple[str, str]) -> dict:
    """What anyone watching may know of a hand in play: its public fields only (never a hand, never the stock's
    order). ``names`` are the hand's players, engine player 0 first.

    Keys: ``kind`` "public"; ``names``; ``top_discard`` (card text or None); ``pile`` (card text of the face-up cards
    below the top, rank order); ``pile_size``, ``stock_size``, ``knock_limit`` (int); ``upcard`` (card text or
    None); ``hand_sizes`` [int, int]; ``known`` [[card text], [card text]] (each player's cards taken from the pile
    and still held); ``discards`` [[card text], [card text]] (each player's discards this hand); ``dealer`` (a
    name); ``phase``, ``phase_text``; ``turn`` (the name of the player to act, or None once the hand is over)."""
    phase = engine.PHASE_NAMES[state.phase]
    pile = state.pile
    return {
        "kind": "public", "names": list(names), "top_discard": card_text(pile[-1]) if pile else None,
        "pile": card_texts(pile[:-1]), "pile_size": len(pile), "stock_size": engine.stock_size(state),
        "knock_limit": state.knock_limit, "upcard": _optional_card(state.initial_upcard),
        "hand_sizes": [h.bit_count() for h in state.hands], "known": [card_texts(k) for k in state.known],
        "discards": [card_texts(d) for d in state.discarded], "dealer": names[state.dealer], "phase": phase,
        "phase_text": PHASE_WORDS[phase], "turn": None if phase == "over" else names[state.current],
    }


def open_frame(state: engine.HandState, names: tuple[str, str]) -> dict:
    """Every card of a hand: :func:`public_frame` with ``kind`` "open" and ``hands`` (per engine player, the
    :func:`arrangement` of its cards). Only for a hand that is over or a game that no person plays."""
    frame = public_frame(state, names)
    frame["kind"] = "open"
    frame["hands"] = [arrangement(h, state.rules) for h in state.hands]
    return frame


def _dead_reason(final: engine.HandState) -> str:
    """Why a dead hand ended, asked of the rule that ends it (``hand_rules.turn``), so it cannot drift."""
    rules, values = final.rules, final.rules.turn_values
    if turn.turn_cap_reached(values, final.turns):
        return f"The turn limit of {rules.max_turns} is reached: dead hand, nobody scores (R19)."
    if turn.upcard_take_ends(values, final.upcard_draws):
        return f"The cap of {rules.max_upcard_draws} takes from the discard pile is reached: dead hand, nobody " \
               "scores (R60)."
    if turn.returns_end(values, final.returns):
        return "Both players put back the card they had just taken: dead hand, nobody scores (R61)."
    return f"The stock is down to {rules.wall} cards: dead hand, nobody scores (R37)."


def _reason(outcome: engine.HandOutcome, rules: Rules, upcard: int, names: tuple[str, str], you: str | None) -> str:
    """Why a knocked hand scores what it does (R30-R33, R47), with the numbers, as ``you`` reads it."""
    k, f = outcome.knocker_deadwood, outcome.defender_deadwood
    knocker, defender = names[outcome.knocker], names[1 - outcome.knocker]
    scores = {n: subject(n, you, "score") for n in names}
    theirs = f"{possessive(defender, you)} deadwood {f}"
    mine = f"{possessive(knocker, you)} {k}"
    text = {
        "knock": f"{scores[knocker]} {theirs} - {mine} = {f - k}",
        "undercut": f"Undercut: {theirs} is not more than {mine}, so {scores[defender]} {k} - {f} + "
                    f"{rules.undercut_bonus} undercut bonus = {k - f + rules.undercut_bonus}",
        "gin": f"Gin: {scores[knocker]} {theirs} + {rules.gin_bonus} gin bonus = {f + (rules.gin_bonus or 0)}",
        "big_gin": f"Big gin: {scores[knocker]} {theirs} + {rules.big_gin_bonus} big gin bonus = "
                   f"{f + (rules.big_gin_bonus or 0)}",
    }.get(outcome.kind)
    if text is None:
        return f"Tie at {k}: nobody scores (undercut_on_tie is off, R31)."
    if rules.hand_multiplier(None if upcard == engine.NO_CARD else upcard) > 1:
        text += f", doubled to {outcome.points} because the upcard {card_text(upcard)} is a spade (R47)"
    return text + "."


def showdown(final: engine.HandState, names: tuple[str, str], you: str | None = None) -> dict:
    """How a finished hand ended (``final``: its state once over; ``names``: engine player 0 first), told to
    ``you`` (the receiver's name: that player reads as "you" in ``reason``; None: a spectator).

    Keys: ``kind`` ("knock", "undercut", "gin", "big_gin", "tie", "dead"); ``winner`` and ``knocker`` (names or
    None); ``points`` (int, the winner's); ``knock_card`` (card text or None); ``hands`` [knocker's, defender's]
    (engine player 0 first for a dead hand), each ``{"name", "melds": [{"cards": [card text], "laid_off": [card
    text]}], "deadwood_cards": [card text], "deadwood": int}``: the knocker's melds with what the defender laid
    off on each, the defender's own melds; ``layoffs`` [{"card": card text, "meld": [card text]}]; ``reason``
    (the points and why, in words). Run jokers are written ``"JK=7S"``."""
    outcome = final.outcome
    base = {"kind": outcome.kind, "winner": None if outcome.winner is None else names[outcome.winner],
            "points": outcome.points, "knocker": None, "knock_card": None, "layoffs": []}
    if outcome.knocker is None:
        hands = [dict(arrangement(h, final.rules), name=n) for h, n in zip(final.hands, names)]
        return {**base, "hands": [{"name": h["name"], "melds": [{"cards": m, "laid_off": []} for m in h["melds"]],
                                   "deadwood_cards": h["deadwood_cards"], "deadwood": h["deadwood"]} for h in hands],
                "reason": _dead_reason(final)}
    p = outcome.knocker
    table = _run_jokers(final)
    knocker_melds = [{"cards": card_texts(m, table), "laid_off": card_texts(a, table)}
                     for m, a in zip(outcome.knocker_melds, outcome.layoff_melds or [()] * len(outcome.knocker_melds))]
    melded = cards.to_mask([c for m in outcome.knocker_melds for c in m])
    own, loose = solver.arrangement(final.hands[1 - p] & ~cards.to_mask(outcome.layoffs), final.rules)
    mine = _declared(own)
    hands = [{"name": names[p], "melds": knocker_melds, "deadwood_cards": card_texts(final.hands[p] & ~melded),
              "deadwood": outcome.knocker_deadwood},
             {"name": names[1 - p], "melds": [{"cards": card_texts(m, mine), "laid_off": []} for m in own],
              "deadwood_cards": card_texts(loose), "deadwood": outcome.defender_deadwood}]
    layoffs = [{"card": card_text(c, table), "meld": meld["cards"]}
               for meld, added in zip(knocker_melds, outcome.layoff_melds) for c in added]
    return {**base, "knocker": names[p], "knock_card": _optional_card(outcome.knock_card), "hands": hands,
            "layoffs": layoffs, "reason": _reason(outcome, final.rules, final.initial_upcard, names, you)}


def _run_jokers(final: engine.HandState) -> dict[int, int]:
    """Each run joker on the table after a knock and the natural card it stands for, from the engine's own score
    of the two hands (R73, R76); {} when neither holds a joker."""
    p = final.outcome.knocker
    if not (final.hands[p] | final.hands[1 - p]) & final.rules.deck.joker_mask:
        return {}
    upcard = None if final.initial_upcard == engine.NO_CARD else final.initial_upcard
    return dict(engine.score_knock(final.hands[p], final.hands[1 - p], final.rules, upcard=upcard).identities)


class Said(NamedTuple):
    """A public move in words, told differently to its maker: ``name`` made it, ``verb`` (its plain form, "discard")
    and ``rest`` (" 7S"); :meth:`text` writes it for a receiver."""

    name: str
    verb: str
    rest: str = ""

    def text(self, you: str | None = None) -> str:
        """The move as ``you`` (the receiver's name; None: a spectator) reads it: "you discard 7S", "ann discards
        7S"."""
        return subject(self.name, you, self.verb) + self.rest


def subject(name: str, you: str | None, verb: str) -> str:
    """``name`` doing ``verb`` (its plain form), to the receiver ``you``: "you draw" for the receiver's own name,
    else "ann draws"."""
    if name == you:
        return f"you {verb}"
    return f"{name} {verb}{'es' if verb.endswith(('s', 'sh', 'ch', 'x')) else 's'}"


def possessive(name: str, you: str | None) -> str:
    """Whose, to the receiver ``you``: "your" for the receiver's own name, else "ann's"."""
    return "your" if name == you else f"{name}'s"


def public_move(state: engine.HandState, action: int, name: str) -> Said:
    """What ``name`` does by playing ``action`` in ``state``, as everyone at the table sees it: a stock draw and a
    knock's card are face down, so neither card is named."""
    top = card_text(state.pile[-1]) if state.pile else "--"
    if action == DRAW_STOCK:
        return Said(name, "draw", " from the stock")
    if action == TAKE_DISCARD:
        rest = {engine.OFFER: f" the upcard {top}", engine.WALL: f" {top} to knock"}.get(
            state.phase, f" {top} from the discard pile")
        return Said(name, "take", rest)
    if action == PASS:
        return Said(name, "leave", f" {top}: the hand is dead") if state.phase == engine.WALL else \
            Said(name, "pass", f" on the upcard {top}")
    if action == BIG_GIN:
        return Said(name, "declare", " big gin")
    if actions.is_discard(action):
        return Said(name, "discard", f" {card_text(actions.action_card(action, state.hands[state.current]))}")
    return Said(name, "knock")
