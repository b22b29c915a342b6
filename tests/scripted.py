"""Test helpers for the engine and match tests: decks that deal given cards (R10), and seeded legal play."""

from __future__ import annotations

import numpy as np

from gin_env.game import actions, cards, engine, solver

#: Chance that the seeded player takes an ending action (knock, gin, big gin) when one is legal.
END_PROB = 0.5
#: Chance that it draws from the stock when it also may take the discard.
STOCK_PROB = 0.7
#: Chance that it discards a card leaving the least deadwood, so that hands get close to knocking.
GREEDY_DISCARD_PROB = 0.85

PRESETS = ("standard", "eaai", "oklahoma", "foony", "seed-000", "openspiel")


def make_deck(non_dealer: str, dealer: str, upcard: str | None = None, stock: str = "",
              rules=None) -> list[int]:
    """A deal order of ``rules.deck`` (the standard deck's 52 cards without ``rules``) that gives these cards where
    R10 deals them, each ``JK`` the next joker in the order written (R62).

    ``non_dealer`` may hold 11 cards for ``deal_mode="eleven"``: the 11th becomes deck[20]. ``stock`` lists the top
    of the stock, top card first; the remaining cards follow in id order (and fill deck[20] if no upcard is given)."""
    deck = cards.STANDARD_DECK if rules is None else rules.deck
    # One parse, so that each JK is the next joker across all four parts; then each part takes its own cards back.
    parts = [text.split() for text in (non_dealer, dealer, upcard or "", stock)]
    named = iter(deck.parse([card for part in parts for card in part]))
    first, second, eleventh, stock_ids = ([next(named) for _ in part] for part in parts)
    if len(first) == engine.HAND_SIZE + 1 and upcard is None:
        first, eleventh = first[:engine.HAND_SIZE], [first[engine.HAND_SIZE]]
    if len(first) != engine.HAND_SIZE or len(second) != engine.HAND_SIZE:
        raise ValueError("each player is dealt 10 cards (11 for the non-dealer in the eleven deal)")
    placed = first + second + eleventh + stock_ids
    if len(set(placed)) != len(placed):
        raise ValueError("a card is placed twice")
    rest = [c for c in range(deck.n_cards) if c not in placed]
    if not eleventh:
        eleventh, rest = rest[:1], rest[1:]
    interleaved = [c for pair in zip(first, second) for c in pair]
    return interleaved + eleventh + stock_ids + rest


def hand(text: str) -> int:
    """Card string as a bitmask, the form ``HandState.hands`` uses."""
    return cards.to_mask(text)


def act(state: engine.HandState, *names: str) -> engine.HandState:
    """Step through actions written as names, e.g. ``act(s, "PASS", "PASS", "DRAW_STOCK", "KNOCK(KD)")``."""
    for label in names:
        state = engine.step(state, actions.parse(label))
        engine.validate(state)
    return state


def legal_names(state: engine.HandState) -> set[str]:
    return {actions.name(a) for a in engine.legal_actions(state)}


def choose(state: engine.HandState, rng: np.random.Generator) -> int:
    """A legal action for seeded play: random, biased toward the stock, low-deadwood discards and ending the hand,
    so that knocks, undercuts, gins, big gins, dead hands and the wall all occur in a few thousand hands."""
    legal = engine.legal_actions(state)
    enders = [a for a in legal if a == actions.BIG_GIN or actions.is_knock(a)]
    if enders and rng.random() < END_PROB:
        return enders[rng.integers(len(enders))]
    if state.phase == engine.DRAW and actions.DRAW_STOCK in legal and rng.random() < STOCK_PROB:
        return actions.DRAW_STOCK
    discards = [a for a in legal if actions.is_discard(a)]
    if discards and rng.random() < GREEDY_DISCARD_PROB:
        hand = state.hands[state.current]
        dws = solver.discard_deadwoods(hand, state.rules)
        return min(discards, key=lambda a: dws[actions.action_card(a, hand)])
    return legal[rng.integers(len(legal))]


def looping_action(legal, phase: int, taken: int) -> int:
    """The play that never ends a hand by itself (R19): always take the discard (the upcard too), then discard a
    card other than the one taken; never knock; at the wall (R38), pass."""
    if phase == engine.WALL:
        return actions.PASS
    if actions.TAKE_DISCARD in legal:
        return actions.TAKE_DISCARD
    discards = [a for a in legal if actions.is_discard(a) and actions.action_card(a) != taken]
    return discards[0] if discards else int(legal[0])


class LoopingAgent:
    """An agent that plays :func:`looping_action` (with the batched form the vector env needs)."""

    def act(self, view, rng: np.random.Generator) -> int:
        return looping_action(view.legal_actions, view.phase, view.taken)

    def act_batch(self, view, rng: np.random.Generator) -> np.ndarray:
        return np.array([self.act(view.player_view(row), rng) for row in range(view.player.size)], dtype=np.int64)


class FloatAgent:
    """A broken agent: its first legal action as a float (``1.0`` is not an action id)."""

    def act(self, view, rng: np.random.Generator) -> float:
        return float(view.legal_actions[0])

    def __repr__(self) -> str:
        return "FloatAgent()"


class StockOnlyAgent:
    """A broken agent: DRAW_STOCK whatever the phase, so illegal at its first discard."""

    def act(self, view, rng: np.random.Generator) -> int:
        return actions.DRAW_STOCK

    def __repr__(self) -> str:
        return "StockOnlyAgent()"


float_agent = FloatAgent()
stock_only = StockOnlyAgent()
