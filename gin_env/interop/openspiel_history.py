"""OpenSpiel 2.0.2's ``gin_rummy`` in gin-env's terms (the optional extra ``openspiel``): its card and action ids,
the parameters it is played with, and :class:`History`, the replay of an OpenSpiel game's history through our engine
under the ``openspiel`` preset, which :class:`gin_env.interop.openspiel.GinEnvBot` reads at each decision.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from gin_env import optional
from gin_env.game import actions, cards, engine
from gin_env.game.rules import Rules

pyspiel = optional.require("pyspiel", "gin_env.interop.openspiel (GinEnvBot)")

#: OpenSpiel's gin_rummy action ids that name no card, found by experiment: its card ids are ours (a card's id is
#: also the action that discards it), then come these four, then the melds.
OS_DRAW_UPCARD, OS_DRAW_STOCK, OS_PASS, OS_KNOCK, OS_MELD_BASE = range(cards.N_CARDS, cards.N_CARDS + 5)
#: The game name and the parameters GinEnvBot plays: OpenSpiel's defaults, which the ``openspiel`` preset mirrors.
GAME_NAME = "gin_rummy"
DEFAULT_PARAMETERS = {"gin_bonus": 25, "hand_size": cards.HAND_SIZE, "knock_card": 10, "num_ranks": cards.N_RANKS,
                      "num_suits": cards.N_SUITS, "oklahoma": False, "undercut_bonus": 25}
#: OpenSpiel's longest meld action is a 5-card run; longer runs are laid in pieces (R5: splits change nothing).
OS_MAX_RUN = 5
MIN_MELD = 3
RULES = Rules.preset("openspiel")
#: OpenSpiel's player 0 opens the first-upcard offer, so player 1 deals (R13; the preset's ``first_dealer="P2"``).
DEALER = 1
#: Chance outcomes of the deal: ten cards to player 0, ten to player 1, then the upcard.
DEAL_OUTCOMES = cards.DEALT + 1
CHANCE = int(pyspiel.PlayerId.CHANCE)


def check_game(game) -> None:
    """Raise ``ValueError`` (one line naming the problem) unless ``game`` is ``gin_rummy`` with default parameters."""
    name = game.get_type().short_name
    if name != GAME_NAME:
        raise ValueError(f"GinEnvBot plays OpenSpiel's {GAME_NAME!r}, not {name!r}")
    params = game.get_parameters()
    changed = [f"{key}={params[key]!r} (default {value!r})" for key, value in DEFAULT_PARAMETERS.items()
               if key in params and params[key] != value]
    unknown = sorted(set(params) - set(DEFAULT_PARAMETERS))
    if changed or unknown:
        raise ValueError(f"GinEnvBot plays {GAME_NAME} with its default parameters only (the openspiel preset); "
                         f"got {', '.join(changed + [f'unknown parameter {k!r}' for k in unknown])}")


def _card_of_string(text: str) -> int:
    """Our card id of an OpenSpiel card string such as ``Tc`` (rank, then a lowercase suit)."""
    return cards.card(text[0] + text[1].upper())


def _action_text(state, action: int) -> str:
    """What OpenSpiel calls an action, without its ``Player: p Action:`` prefix."""
    return state.action_to_string(0, action).split("Action: ", 1)[1]


class ActionIds(NamedTuple):
    """OpenSpiel's card and meld ids against ours, read from OpenSpiel's own action names."""

    to_ours: tuple[int, ...]            # OpenSpiel card id -> our card id
    to_openspiel: tuple[int, ...]       # our card id -> OpenSpiel card id
    meld_masks: dict[int, int]          # OpenSpiel meld action -> card mask
    meld_actions: dict[int, int]        # card mask -> OpenSpiel meld action


def action_ids(game) -> ActionIds:
    """The id translation for ``game`` (checked with :func:`check_game`)."""
    check_game(game)
    state = game.new_initial_state()
    to_ours = tuple(_card_of_string(_action_text(state, a)) for a in range(cards.N_CARDS))
    to_openspiel = [0] * cards.N_CARDS
    for os_card, ours in enumerate(to_ours):
        to_openspiel[ours] = os_card
    meld_masks = {}
    for a in range(OS_MELD_BASE, game.num_distinct_actions()):
        text = _action_text(state, a)
        meld_masks[a] = cards.to_mask([_card_of_string(text[i:i + 2]) for i in range(0, len(text), 2)])
    return ActionIds(to_ours, tuple(to_openspiel), meld_masks, {m: a for a, m in meld_masks.items()})


def openspiel_pieces(meld) -> list[int]:
    """A meld (card ids) as the card masks of OpenSpiel meld actions: sets and runs up to 5 as they are, longer runs
    cut into pieces of 3 from the low end until the rest fits (R5)."""
    ids = sorted(meld)
    pieces = []
    while len(ids) > OS_MAX_RUN:
        pieces.append(cards.to_mask(ids[:MIN_MELD]))
        ids = ids[MIN_MELD:]
    pieces.append(cards.to_mask(ids))
    return pieces


def os_knock_cards(state) -> list[int]:
    """The OpenSpiel card ids OpenSpiel lets the player to act knock with now (empty when it offers no knock)."""
    if OS_KNOCK not in state.legal_actions():
        return []
    after = state.clone()
    after.apply_action(OS_KNOCK)
    return [a for a in after.legal_actions() if a < cards.N_CARDS]


class History:
    """Our engine's state of one OpenSpiel ``gin_rummy`` game, fed its history move by move.

    ``hand`` is the :class:`engine.HandState` under the ``openspiel`` preset; it is over once the knock card is
    played. OpenSpiel's ``Knock`` at the wall takes the upcard too, so it is our ``TAKE_DISCARD`` there (R38). The
    lay-down after a knock is OpenSpiel's alone: ``knocker``, ``knock_card``, ``declared`` (the knocker's melds as
    card masks, in order), ``laid_off`` and ``defender_melds`` (the defender's, so far), and the ``Pass`` moves that
    close its stages: ``knocker_passed``, then ``defender_passes``. Against gin the defender has one stage, its own
    melds; otherwise the layoffs come first. Stock cards are chance outcomes that come after the draw, so each goes to
    the top of our stock when it is drawn; the order of the rest of the stock is unknown and never read."""

    def __init__(self, ids: ActionIds):
        self.ids = ids
        self.moves: list[tuple[int, int]] = []
        self.hand: engine.HandState | None = None
        self._deal: list[int] = []
        self._stock_draw_pending = False
        self.knocker: int | None = None
        self.knock_card = engine.NO_CARD
        self.declared: list[int] = []
        self.knocker_passed = False
        self.defender_passes = 0
        self.laid_off = 0
        self.defender_melds: list[int] = []

    def update(self, state) -> History:
        """Catch up with ``state``'s history; a history that does not extend the one seen starts a new replay."""
        history = [(int(m.player), int(m.action)) for m in state.full_history()]
        if history[:len(self.moves)] != self.moves:
            fresh = History(self.ids)
            fresh._feed(history)
            return fresh
        self._feed(history[len(self.moves):])
        return self

    def _feed(self, moves) -> None:
        for player, action in moves:
            self._apply(player, action)
            self.moves.append((player, action))

    @property
    def in_play(self) -> bool:
        """True while the hand is played: not over, and no knock card played yet."""
        return self.hand is not None and self.hand.phase != engine.OVER

    @property
    def decision(self) -> bool:
        """True when the next move is a decision that our engine has too: any play move, except the knock card
        after OpenSpiel's ``Knock`` in the discard phase (our ``KNOCK(c)`` chose it already); after the ``Knock`` at
        the wall it is our ``KNOCK(c)`` of a hand that must knock (R38)."""
        return self.in_play and (self.knocker is None or self.hand.must_knock)

    @property
    def layoff_stage(self) -> bool:
        """True while the defender lays off: after a knock that is not gin, before the defender's first Pass."""
        if self.knocker is None or not self.knocker_passed or self.defender_passes:
            return False
        declared = 0
        for m in self.declared:
            declared |= m
        return bool(self.hand.hands[self.knocker] & ~declared)

    def legal_mask(self, state) -> np.ndarray:
        """OpenSpiel's legal moves in ``state`` (the state this replay has caught up with) at a :attr:`decision`,
        as our ``(N_ACTIONS,)`` mask: ``Knock`` in the discard phase becomes ``KNOCK(c)`` for each card OpenSpiel
        then lets the player knock with; at the wall it is ``TAKE_DISCARD``."""
        if not self.decision:
            raise ValueError("not a play decision: OpenSpiel's knock card or lay-down, or the hand is over")
        to_ours = self.ids.to_ours
        mask = np.zeros(actions.N_ACTIONS, dtype=bool)
        for a in state.legal_actions():
            if a < cards.N_CARDS:
                mask[actions.knock(to_ours[a]) if self.knocker is not None else actions.discard(to_ours[a])] = True
            elif a == OS_DRAW_UPCARD or (a == OS_KNOCK and self.hand.phase == engine.WALL):
                mask[actions.TAKE_DISCARD] = True
            elif a == OS_DRAW_STOCK:
                mask[actions.DRAW_STOCK] = True
            elif a == OS_PASS:
                mask[actions.PASS] = True
            elif a == OS_KNOCK:
                for c in os_knock_cards(state):
                    mask[actions.knock(to_ours[c])] = True
            else:
                raise ValueError(f"OpenSpiel's legal move {a} ({_action_text(state, a)}) is not a play move")
        return mask

    def _apply(self, player: int, action: int) -> None:
        if player == CHANCE:
            self._chance(action)
        elif self.knocker is not None and self.knock_card != engine.NO_CARD:
            self._lay_down(player, action)
        else:
            self._play(player, action)

    def _chance(self, os_card: int) -> None:
        card = self.ids.to_ours[os_card]
        if self.hand is None:
            self._deal.append(card)
            if len(self._deal) == DEAL_OUTCOMES:
                self.hand = engine.new_hand(RULES, dealer=DEALER, deck=self._deck())
            return
        if not self._stock_draw_pending:
            raise ValueError(f"chance outcome {cards.card_str(card)} with no stock draw pending")
        self._stock_draw_pending = False
        deck = list(self.hand.deck)
        top = self.hand.stock_top
        at = deck.index(card)
        if at < top:
            raise ValueError(f"OpenSpiel drew {cards.card_str(card)} from the stock, which no longer holds it")
        deck[top], deck[at] = deck[at], deck[top]
        self._step(self.hand.current, actions.DRAW_STOCK, deck=tuple(deck))

    def _deck(self) -> list[int]:
        """Our deal order (R10: alternate cards, non-dealer first) of OpenSpiel's deal (ten to player 0, then ten to
        player 1, then the upcard); the stock follows in card order until its cards are drawn."""
        first, second, upcard = self._deal[:engine.HAND_SIZE], self._deal[engine.HAND_SIZE:-1], self._deal[-1]
        dealt = [c for pair in zip(first, second) for c in pair] + [upcard]
        return dealt + sorted(set(range(cards.N_CARDS)) - set(dealt))

    def _play(self, player: int, action: int) -> None:
        if self.hand is None or self.hand.phase == engine.OVER:
            raise ValueError(f"OpenSpiel move {action} by player {player} after our hand ended")
        if player != self.hand.current:
            raise ValueError(f"OpenSpiel's player {player} moved where our engine has player {self.hand.current} "
                             "to act")
        if action == OS_KNOCK:
            if self.hand.phase == engine.WALL:
                self._step(player, actions.TAKE_DISCARD)
            self.knocker = player
        elif action == OS_DRAW_STOCK:
            self._stock_draw_pending = True
        elif action in (OS_DRAW_UPCARD, OS_PASS):
            self._step(player, actions.TAKE_DISCARD if action == OS_DRAW_UPCARD else actions.PASS)
        elif action < cards.N_CARDS:
            card = self.ids.to_ours[action]
            if self.knocker is not None:
                self.knock_card = card
                self._step(player, actions.knock(card))
            else:
                self._step(player, actions.discard(card))
        else:
            raise ValueError(f"OpenSpiel move {action} by player {player} is not a play move")

    def _step(self, player: int, action: int, deck: tuple[int, ...] | None = None) -> None:
        state = self.hand if deck is None else dataclasses.replace(self.hand, deck=deck)
        try:
            self.hand = engine.step(state, action)
        except engine.IllegalActionError as error:
            raise ValueError(f"OpenSpiel's move {actions.name(action)} by player {player} is illegal under the "
                             f"openspiel preset: {error}") from None

    def _lay_down(self, player: int, action: int) -> None:
        knocker = player == self.knocker
        if action == OS_PASS:
            if knocker:
                self.knocker_passed = True
            else:
                self.defender_passes += 1
        elif action in self.ids.meld_masks:
            (self.declared if knocker else self.defender_melds).append(self.ids.meld_masks[action])
        elif action < cards.N_CARDS and not knocker:
            self.laid_off |= 1 << self.ids.to_ours[action]
        else:
            raise ValueError(f"OpenSpiel move {action} by player {player} in the lay-down after a knock")
