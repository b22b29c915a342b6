"""N hands of Gin Rummy in fixed-shape numpy arrays, stepped together (the batched twin of ``engine``).

This module owns the batched engine's state and its Python face: ``HandBatch`` holds the arrays, and its deal,
legal actions and step each run one compiled per-game loop of ``kernels`` over the games concerned (R10-R39,
R45-R47, by the same ``game.hand_rules`` functions as the scalar engine). Hands are card masks in uint64 (bit ``c``
for card ``c``, the jokers' after the 52 natural cards'). ``hand_state(i)`` rebuilds game ``i`` as an
``engine.HandState`` so the scalar engine's ``validate`` and a differential test can check this implementation
against the other.
"""

from __future__ import annotations

import numpy as np

from gin_env.batch import bits as bit_kernels
from gin_env.batch import kernels
from gin_env.batch.kernels import (  # noqa: F401 - the outcome codes are part of this module's interface
    ACTION_WORDS,
    BIG_GIN_KIND,
    DEAD,
    GIN,
    KIND_NAMES,
    KNOCK,
    LIVE,
    NO_PLAYER,
    TIE,
    UNDERCUT,
)
from gin_env.game import cards, engine, hand_rules, solver
from gin_env.game.actions import N_ACTIONS
from gin_env.game.engine import DISCARD, OVER
from gin_env.game.rules import Rules, format_name

NO_CARD = engine.NO_CARD
_ONE = np.uint64(1)


#: No legal-action rows: ``kernels.step`` works the legal actions out itself.
_NO_BITS = np.zeros((0, ACTION_WORDS), dtype=np.uint64)


def kernel_array(values, dtype=None) -> np.ndarray:
    """``values`` as an array the compiled kernels take: C-contiguous, writable, of ``dtype`` (by default its own).
    Numba compiles a kernel again, for seconds, for each new layout or read-only flag of an argument, so a strided
    view or a read-only array from a caller is copied first and every call hits the one compiled version."""
    return np.require(values, dtype=dtype, requirements=("C_CONTIGUOUS", "WRITEABLE"))


def bits_to_masks(bits: np.ndarray, n_actions: int = N_ACTIONS) -> np.ndarray:
    """``(k, ACTION_WORDS)`` legal-action bit strings as ``(k, n_actions)`` bool masks (``Rules.n_actions``: 108,
    or 110 with jokers)."""
    return np.unpackbits(bits.view(np.uint8), axis=1, count=n_actions, bitorder="little").view(bool)


def masks_to_bits(masks: np.ndarray) -> np.ndarray:
    """``(k, n_actions)`` bool legal-action masks as ``(k, ACTION_WORDS)`` bit strings (the inverse of
    ``bits_to_masks``)."""
    octets = np.zeros((masks.shape[0], 8 * ACTION_WORDS), dtype=np.uint8)
    octets[:, :(masks.shape[1] + 7) // 8] = np.packbits(masks, axis=1, bitorder="little")
    return octets.view("<u8")


def nth_set_bit(words: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Per uint64 word ((k,)), or per row of words ((k, w), least significant word first), the index of its set
    bit number ``n`` (0: the lowest); -1 where the row has ``n`` or fewer set bits."""
    n = kernel_array(n, np.int64)
    rows = kernel_array(words, np.uint64).reshape(n.size, -1)
    out = np.empty(n.size, dtype=np.int64)
    bit_kernels.nth_set_bits(rows, n, out)
    return out


def random_set_bit(words: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row of words ((k, w), least significant word first), one of its set bits uniformly at random: number
    floor(u * count) for u from ``rng.random(k)``; 0 for a row with none."""
    out = np.empty(words.shape[0], dtype=np.int64)
    bit_kernels.random_set_bits(kernel_array(words, np.uint64), rng.random(words.shape[0]), out)
    return out


class HandBatch:
    """The state of ``n`` hands under one ``Rules``, as arrays indexed by game (and player where it applies).

    Fields mirror ``engine.HandState``: ``deck`` (n, cards of the rules' deck), ``hands``/``known``/``discarded``/
    ``declined`` (n, 2) card masks, ``stock_top``, ``pile`` (n, cards of the deck) with ``pile_len``, ``pile_mask``
    (the same cards as a mask) and ``pile_top`` (its top card), ``dealer``, ``current``, ``phase``, ``taken``,
    ``both_passed``, ``must_knock``,
    ``initial_upcard``, ``knock_limit``, ``turns``, ``upcard_draws`` and ``returns`` (R60, R61); the outcome as
    ``kind`` (with ``capped``: a dead hand ended by the turn cap, R19), ``winner``, ``points``, ``knocker``,
    ``knock_card``, ``knocker_deadwood``, ``defender_deadwood``.
    For the player to act in the discard phase, solved when they come to hold 11 cards: ``best_deadwood`` and
    ``best_cards`` (least deadwood after a discard the player may make, and the cards reaching it), ``knock_cards``
    and ``big_gin``; at the wall, ``wall_take``.

    The fields are rows of a few grouped arrays (``numbers``, ``switches``, ``card_masks``, ``player_masks``; see
    ``kernels``),
    which the compiled kernels take whole: write into the fields, never rebind them."""

    def __init__(self, rules: Rules, n: int):
        if n < 1:
            raise ValueError(f"a batch needs at least one game, got n={n}")
        if rules.players != 2:
            raise ValueError(f"the batched engine plays two-player games only; rules.players={rules.players} is "
                             f"{format_name(rules.players)}: use GinRummy-v0 or gin_env.envs.pettingzoo")
        self.rules = rules
        self.n = n
        #: Bumped by every deal and step, so views of an older moment can tell they are stale.
        self.version = 0
        #: The ``Rules`` options as the kernels read them (``hand_rules.rule_values``).
        self.rule_values = hand_rules.rule_values(rules)
        self.numbers = np.zeros((kernels.N_NUMBERS, n), dtype=np.int64)
        self.switches = np.zeros((kernels.N_SWITCHES, n), dtype=bool)
        self.card_masks = np.zeros((kernels.N_CARD_MASKS, n), dtype=np.uint64)
        self.player_masks = np.zeros((kernels.N_PLAYER_MASKS, n, 2), dtype=np.uint64)
        self.deck = np.zeros((n, rules.deck.n_cards), dtype=np.int64)
        self.pile = np.zeros((n, rules.deck.n_cards), dtype=np.int64)
        self._bind_fields()
        self.pile_top[:] = NO_CARD
        self.phase[:] = OVER
        self.taken[:] = NO_CARD
        self.initial_upcard[:] = NO_CARD
        self.kind[:] = DEAD
        self.winner[:] = NO_PLAYER
        self.knocker[:] = NO_PLAYER
        self.knock_card[:] = NO_CARD

    #: The named fields, each a row of one grouped array: (grouped array, row constant of ``kernels``).
    _FIELDS = {
        **{name: ("numbers", name.upper()) for name in (
            "stock_top", "pile_len", "pile_top", "dealer", "current", "phase", "taken", "initial_upcard",
            "knock_limit", "turns", "kind", "winner", "points", "knocker", "knock_card", "knocker_deadwood",
            "defender_deadwood", "best_deadwood", "upcard_draws", "returns")},
        "both_passed": ("switches", "BOTH_PASSED"), "must_knock": ("switches", "MUST_KNOCK"),
        "big_gin": ("switches", "BIG_GIN_FLAG"), "wall_take": ("switches", "WALL_TAKE"),
        "capped": ("switches", "CAPPED"),
        **{name: ("card_masks", name.upper()) for name in ("pile_mask", "best_cards", "knock_cards")},
        **{name: ("player_masks", name.upper()) for name in ("hands", "known", "discarded", "declined")},
    }

    def _bind_fields(self) -> None:
        for name, (group, row) in self._FIELDS.items():
            setattr(self, name, getattr(self, group)[getattr(kernels, row)])

    def __getstate__(self) -> dict:
        """The grouped arrays without their field views: a copy (pickle, deepcopy) would copy each view apart from
        the array the kernels write."""
        return {key: value for key, value in self.__dict__.items() if key not in self._FIELDS}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_fields()

    @classmethod
    def from_states(cls, states) -> HandBatch:
        """A batch of ``len(states)`` games, game ``i`` in scalar ``engine.HandState`` ``states[i]``: any phase,
        mid-hand or over, for example determinizations of one player's view that a search plays on together. All
        states must share one ``Rules``; each is checked with ``engine.validate`` first (``ValueError`` naming the
        state otherwise). ``to_states`` gives them back."""
        states = list(states)
        if not states:
            raise ValueError("from_states needs at least one state")
        for i, state in enumerate(states):
            if not isinstance(state, engine.HandState):
                raise TypeError(f"state {i} is a {type(state).__name__}, not an engine.HandState")
        rules = states[0].rules
        for i, state in enumerate(states):
            if state.rules != rules:
                raise ValueError(f"state {i} plays under rules {state.rules.name!r}, state 0 under {rules.name!r}: "
                                 "a batch has one Rules")
            try:
                engine.validate(state)
            except AssertionError as error:
                raise ValueError(f"state {i} is not a valid hand: {error}") from None
        b = cls(rules, len(states))
        b.deck[:] = [state.deck for state in states]
        for name in ("hands", "known", "discarded", "declined"):
            getattr(b, name)[:] = [getattr(state, name) for state in states]
        for name in ("stock_top", "dealer", "current", "phase", "taken", "both_passed", "must_knock",
                     "initial_upcard", "knock_limit", "turns", "upcard_draws", "returns"):
            getattr(b, name)[:] = [getattr(state, name) for state in states]
        for i, state in enumerate(states):
            b.pile[i, :len(state.pile)] = state.pile
            b.pile_len[i] = len(state.pile)
            if state.pile:
                b.pile_top[i] = state.pile[-1]
                b.pile_mask[i] = cards.to_mask(state.pile)
            outcome = state.outcome
            b.kind[i] = LIVE if outcome is None else KIND_NAMES.index(outcome.kind)
            b.capped[i] = outcome is not None and outcome.capped
            if outcome is not None and outcome.kind != "dead":
                b.winner[i] = NO_PLAYER if outcome.winner is None else outcome.winner
                b.points[i] = outcome.points
                b.knocker[i] = outcome.knocker
                b.knock_card[i] = outcome.knock_card
                b.knocker_deadwood[i] = outcome.knocker_deadwood
                b.defender_deadwood[i] = outcome.defender_deadwood
        kernels.solve_entered(b.rule_values, b.numbers, b.switches, b.card_masks, b.player_masks)
        return b

    def take(self, games) -> HandBatch:
        """A new batch whose game ``i`` is a copy of game ``games[i]`` of this one (a game may be taken several
        times): for example each determinization of a search once per candidate action, without building and
        checking every copy as a scalar state again."""
        games = np.asarray(games, dtype=np.int64)
        if games.ndim != 1 or games.size == 0:
            raise ValueError(f"take needs a non-empty 1-d array of game indices, got shape {games.shape}")
        if games.min() < 0 or games.max() >= self.n:
            raise ValueError(f"take: game indices must lie in 0..{self.n - 1}, got {games.min()}..{games.max()}")
        b = object.__new__(type(self))
        b.rules, b.n, b.version, b.rule_values = self.rules, games.size, 0, self.rule_values
        b.numbers, b.switches = self.numbers[:, games], self.switches[:, games]
        b.card_masks, b.player_masks = self.card_masks[:, games], self.player_masks[:, games]
        b.deck, b.pile = self.deck[games], self.pile[games]
        b._bind_fields()
        return b

    def to_states(self) -> list[engine.HandState]:
        """Every game as a scalar ``engine.HandState`` (``hand_state`` of each), the inverse of ``from_states``."""
        return [self.hand_state(i) for i in range(self.n)]

    def deal(self, games: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        """Deal new hands in ``games`` from ``decks`` ((k, cards of the deck) permutations, index 0 on top) (R10)."""
        if np.shape(decks)[1:] != self.deck.shape[1:]:
            raise ValueError(f"deal: decks of shape {np.shape(decks)} for {self.rules.describe()}, whose deck has "
                             f"{self.deck.shape[1]} cards")
        self.version += 1
        kernels.deal(kernel_array(games, np.int64), kernel_array(decks), kernel_array(dealers, np.int64),
                     self.rule_values, self.numbers, self.switches, self.card_masks, self.player_masks, self.deck,
                     self.pile)

    def stock_size(self, games: np.ndarray | None = None) -> np.ndarray:
        top = self.stock_top if games is None else self.stock_top.take(games)
        return self.rules.deck.n_cards - top

    def top_discard(self, games: np.ndarray) -> np.ndarray:
        """Top card of each game's pile, NO_CARD where the pile is empty."""
        return self.pile_top.take(games)

    def legal_masks(self, games: np.ndarray | None = None) -> np.ndarray:
        """``(k, n_actions)`` bool legal-action masks of ``games`` (all games by default); empty rows for finished
        hands."""
        return bits_to_masks(self.legal_bits(games), self.rules.n_actions)

    def legal_bits(self, games: np.ndarray | None = None) -> np.ndarray:
        """``legal_masks`` as bit strings: ``(k, ACTION_WORDS)`` uint64, bit ``a`` (least significant word first)
        set where action ``a`` is legal. Agents that look at a few actions read these rather than the masks."""
        games = np.arange(self.n) if games is None else kernel_array(games, np.int64)
        bits = np.empty((games.size, ACTION_WORDS), dtype="<u8")
        kernels.legal_bits(games, self.rule_values, self.numbers, self.switches, self.card_masks, self.player_masks,
                           bits)
        return bits

    def step(self, games: np.ndarray, chosen: np.ndarray, masks: np.ndarray | None = None,
             legal_bits: np.ndarray | None = None) -> None:
        """Apply one action in each of ``games`` (the player to act in each). Illegal actions raise
        ``engine.IllegalActionError`` naming the game, and then no game is changed (R18). ``masks`` or
        ``legal_bits``: the games' current ``legal_masks`` or ``legal_bits`` when the caller has them already
        (otherwise the step works them out; that costs a few nanoseconds per game)."""
        games = kernel_array(games, np.int64)
        chosen = kernel_array(chosen, np.int64)
        if games.size == 0:
            return
        self.version += 1
        if legal_bits is None and masks is not None:
            legal_bits = masks_to_bits(masks)
        known = _NO_BITS if legal_bits is None else kernel_array(legal_bits, np.uint64)
        bad = kernels.step(games, chosen, known, self.rule_values, self.numbers, self.switches, self.card_masks,
                           self.player_masks, self.deck, self.pile)
        if bad >= 0:
            try:
                engine.step(self.hand_state(int(games[bad])), int(chosen[bad]))
            except engine.IllegalActionError as error:
                raise engine.IllegalActionError(f"game {int(games[bad])}: {error}") from None
            raise AssertionError("batched and scalar legality disagree")  # the differential tests forbid this

    # -----------------------------------------------------------------------------------------------------------
    # Reading the batch
    # -----------------------------------------------------------------------------------------------------------

    def player_points(self, games: np.ndarray, player: np.ndarray) -> np.ndarray:
        """Signed hand points of ``player`` in each finished game (zero-sum; 0 for dead hands and ties)."""
        winner = self.winner[games]
        return np.where(winner == NO_PLAYER, 0, np.where(winner == player, 1, -1) * self.points[games])

    def deadwood(self, games: np.ndarray, player: np.ndarray) -> np.ndarray:
        """Own deadwood as ``player`` (one per game) sees it: the best discard's with 11 cards, else the holding's
        (R7, R8)."""
        games = np.asarray(games, dtype=np.int64)
        player = np.asarray(player, dtype=np.int64)
        out = np.zeros(games.size, dtype=np.int64)
        eleven = (self.phase[games] == DISCARD) & (self.current[games] == player)
        out[eleven] = self.best_deadwood[games[eleven]]
        ten = (~eleven).nonzero()[0]
        if ten.size:
            out[ten] = solver.deadwood_of_masks(self.hands[games[ten], player[ten]], self.rules)
        return out

    def hand_state(self, i: int) -> engine.HandState:
        """Game ``i`` as a scalar ``engine.HandState`` (the outcome's layoffs and melds recomputed exactly)."""
        pair = lambda arr: (int(arr[i, 0]), int(arr[i, 1]))  # noqa: E731
        rules = self.rules
        outcome = None
        if self.phase[i] == OVER:
            if self.kind[i] == DEAD:
                outcome = engine.CAPPED_OUTCOME if self.capped[i] else engine.DEAD_OUTCOME
            else:
                outcome = self._scalar_outcome(i)
        return engine.HandState(
            rules=rules, deck=tuple(self.deck[i].tolist()), hands=pair(self.hands),
            stock_top=int(self.stock_top[i]), pile=tuple(self.pile[i, :self.pile_len[i]].tolist()),
            dealer=int(self.dealer[i]), current=int(self.current[i]), phase=int(self.phase[i]),
            taken=int(self.taken[i]), both_passed=bool(self.both_passed[i]), must_knock=bool(self.must_knock[i]),
            initial_upcard=int(self.initial_upcard[i]), knock_limit=int(self.knock_limit[i]),
            turns=int(self.turns[i]), known=pair(self.known), discarded=pair(self.discarded),
            declined=pair(self.declined), outcome=outcome, upcard_draws=int(self.upcard_draws[i]),
            returns=int(self.returns[i]))

    def _scalar_outcome(self, i: int) -> engine.HandOutcome:
        knocker = int(self.knocker[i])
        upcard = int(self.initial_upcard[i])
        result = engine.score_knock(int(self.hands[i, knocker]), int(self.hands[i, 1 - knocker]), self.rules,
                                    upcard=upcard if upcard != NO_CARD else None)
        winner = int(self.winner[i])
        return engine.HandOutcome(
            kind=KIND_NAMES[self.kind[i]], winner=None if winner == NO_PLAYER else winner, points=int(self.points[i]),
            knocker=knocker, knock_card=int(self.knock_card[i]), knocker_deadwood=int(self.knocker_deadwood[i]),
            defender_deadwood=int(self.defender_deadwood[i]), layoffs=result.layoffs,
            knocker_melds=result.knocker_melds, layoff_melds=result.layoff_melds)

