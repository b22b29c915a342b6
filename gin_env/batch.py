"""N hands of Gin Rummy in fixed-shape numpy arrays, stepped together (the batched twin of ``engine``).

This module owns a second implementation of the hand rules (R10-R39, R45-R47) for many games at once: every step
is a handful of array operations over the games concerned, with no Python loop over games. Hands are 52-bit card
masks in uint64 (bit ``c`` for card ``c``); legality of knocks and big gin comes from the batched solver, computed
once when a player reaches the discard phase. ``hand_state(i)`` rebuilds game ``i`` as an ``engine.HandState`` so
the scalar engine's ``validate`` and a differential test can check this implementation against the other.
"""

from __future__ import annotations

import numpy as np

from gin_env import cards, engine, solver
from gin_env.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, N_ACTIONS, PASS, TAKE_DISCARD
from gin_env.cards import card_bits
from gin_env.engine import DISCARD, DRAW, OFFER, OVER, WALL
from gin_env.rules import Rules

#: Outcome codes of ``HandBatch.kind``; -1 while a hand is live.
KIND_NAMES = ("knock", "undercut", "gin", "big_gin", "tie", "dead")
KNOCK, UNDERCUT, GIN, BIG_GIN_KIND, TIE, DEAD = range(len(KIND_NAMES))
LIVE = -1
NO_CARD = engine.NO_CARD
NO_PLAYER = -1

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
#: The legal actions of a game fit in this many 64-bit words (see ``HandBatch.legal_bits``).
ACTION_WORDS = (N_ACTIONS + 63) // 64


def bits_to_masks(bits: np.ndarray) -> np.ndarray:
    """``(k, ACTION_WORDS)`` legal-action bit strings as ``(k, 108)`` bool masks."""
    return np.unpackbits(bits.view(np.uint8), axis=1, count=N_ACTIONS, bitorder="little").view(bool)


def has_action(bits: np.ndarray, actions) -> np.ndarray:
    """Per row of legal-action bit strings, whether ``actions`` (one id, or one per row, in range) is legal."""
    if np.ndim(actions) == 0:
        word, shift = divmod(int(actions), 64)
        return (bits[:, word] >> np.uint64(shift)) & _ONE == _ONE
    actions = np.asarray(actions, dtype=np.int64)
    word = bits.reshape(-1).take(np.arange(bits.shape[0]) * bits.shape[1] + actions // 64)
    return (word >> (actions % 64).astype(np.uint64)) & _ONE == _ONE


#: Set bits of each byte value, and the index of the j-th set bit of byte b at ``8 * b + j`` (0 past its count).
_BYTE_COUNTS = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)
_NTH_IN_BYTE = np.array([([i for i in range(8) if b >> i & 1] + [0] * 8)[:8] for b in range(256)],
                        dtype=np.int64).reshape(-1)


def nth_set_bit(words: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Per uint64 word ((k,)), or per row of words ((k, w), least significant word first), the index of its set
    bit number ``n`` (0: the lowest). The words are read as bytes: a running count of set bits finds the byte, a
    table the bit within it, in a dozen array operations whatever the width. Meaningless where the row has ``n``
    or fewer set bits."""
    n = np.asarray(n, dtype=np.int64)
    k = n.size
    octets = np.ascontiguousarray(words, dtype="<u8").reshape(k, -1).view(np.uint8)
    width = octets.shape[1]
    counts = _BYTE_COUNTS.take(octets)
    ends = counts.cumsum(axis=1)
    byte = np.minimum((ends <= n[:, None]).sum(axis=1), width - 1)
    flat = np.arange(k) * width + byte
    within = np.clip(n - (ends - counts).reshape(-1).take(flat), 0, 7)
    return 8 * byte + _NTH_IN_BYTE.take(octets.reshape(-1).take(flat).astype(np.int64) * 8 + within)


#: What an action does, for ``HandBatch.step`` to handle each kind in one pass over the games that chose it.
_DRAWS, _TAKES, _PASSES, _BIG_GINS, _DISCARDS, _KNOCKS = range(6)


def _action_kinds() -> np.ndarray:
    """The kind of each action id."""
    kinds = np.empty(N_ACTIONS, dtype=np.intp)
    kinds[[DRAW_STOCK, TAKE_DISCARD, PASS, BIG_GIN]] = [_DRAWS, _TAKES, _PASSES, _BIG_GINS]
    kinds[DISCARD_BASE:KNOCK_BASE] = _DISCARDS
    kinds[KNOCK_BASE:] = _KNOCKS
    return kinds


_ACTION_KINDS = _action_kinds()


def _no_card_bits() -> np.ndarray:
    """Word 0 of the legal-action bit string holding the four actions that name no card, by key ``16 * phase + 8 *
    (the stock may be drawn) + 4 * (the pile may be taken in the draw) + 2 * (the top discard may be taken at the
    wall) + (big gin)`` (R13, R15, R24, R37, R38); flags that do not apply to the phase are ignored."""
    table = np.zeros(len(engine.PHASE_NAMES) * 16, dtype=np.uint64)
    for phase in range(len(engine.PHASE_NAMES)):
        for flags in range(16):
            stock, pile, wall_take, big_gin = (flags >> 3) & 1, (flags >> 2) & 1, (flags >> 1) & 1, flags & 1
            legal = {OFFER: [TAKE_DISCARD, PASS],
                     DRAW: [DRAW_STOCK] * stock + [TAKE_DISCARD] * pile,
                     WALL: [PASS] + [TAKE_DISCARD] * wall_take,
                     DISCARD: [BIG_GIN] * big_gin}.get(phase, [])
            table[16 * phase + flags] = sum(1 << a for a in legal)
    return table


_NO_CARD_BITS = _no_card_bits()
# The legal-action bit string is two words: discards start in word 0, knocks straddle both (N_ACTIONS < 128).
assert ACTION_WORDS == 2 and KNOCK_BASE < 64 < KNOCK_BASE + cards.N_CARDS
_DISCARD_SHIFT = np.uint64(DISCARD_BASE)
_KNOCK_SHIFT = np.uint64(KNOCK_BASE)
_KNOCK_CARRY = np.uint64(64 - KNOCK_BASE)


def _rows(games: np.ndarray, where: np.ndarray) -> np.ndarray:
    """The games where ``where`` holds (``games[where]``, without the cost of boolean indexing)."""
    return games.take(where.nonzero()[0])


class HandBatch:
    """The state of ``n`` hands under one ``Rules``, as arrays indexed by game (and player where it applies).

    Fields mirror ``engine.HandState``: ``deck`` (n, 52), ``hands``/``known``/``discarded``/``declined`` (n, 2) card
    masks, ``stock_top``, ``pile`` (n, 52) with ``pile_len``, ``pile_mask`` (the same cards as a mask) and
    ``pile_top`` (its top card), ``dealer``, ``current``, ``phase``, ``taken``, ``both_passed``, ``must_knock``,
    ``initial_upcard``, ``knock_limit``, ``turns``, ``upcard_draws`` and ``returns`` (R60, R61); the outcome as
    ``kind`` (with ``capped``: a dead hand ended by the turn cap, R19), ``winner``, ``points``, ``knocker``,
    ``knock_card``, ``knocker_deadwood``, ``defender_deadwood``. Cached for the player to act in the discard phase:
    ``best_deadwood`` and ``best_cards`` (least deadwood after a discard the player may make, and the cards reaching
    it), ``knock_cards`` and ``big_gin``; at the wall, ``wall_take``.

    The discard-phase cache is filled when first read, by one solver pass for every game then waiting on it, so
    the draws of the two players in one env step (the learner's, then the opponent's) share a pass."""

    def __init__(self, rules: Rules, n: int):
        if n < 1:
            raise ValueError(f"a batch needs at least one game, got n={n}")
        self.rules = rules
        self.n = n
        #: Bumped by every deal and step, so views of an older moment can tell they are stale.
        self.version = 0
        self.deck = np.zeros((n, cards.N_CARDS), dtype=np.int64)
        self.hands = np.zeros((n, 2), dtype=np.uint64)
        self.known = np.zeros((n, 2), dtype=np.uint64)
        self.discarded = np.zeros((n, 2), dtype=np.uint64)
        self.declined = np.zeros((n, 2), dtype=np.uint64)
        self.stock_top = np.zeros(n, dtype=np.int64)
        self.pile = np.zeros((n, cards.N_CARDS), dtype=np.int64)
        self.pile_len = np.zeros(n, dtype=np.int64)
        self.pile_top = np.full(n, NO_CARD, dtype=np.int64)
        self.pile_mask = np.zeros(n, dtype=np.uint64)
        self.dealer = np.zeros(n, dtype=np.int64)
        self.current = np.zeros(n, dtype=np.int64)
        self.phase = np.full(n, OVER, dtype=np.int64)
        self.taken = np.full(n, NO_CARD, dtype=np.int64)
        self.both_passed = np.zeros(n, dtype=bool)
        self.must_knock = np.zeros(n, dtype=bool)
        self.initial_upcard = np.full(n, NO_CARD, dtype=np.int64)
        self.knock_limit = np.zeros(n, dtype=np.int64)
        self.turns = np.zeros(n, dtype=np.int64)
        self.upcard_draws = np.zeros(n, dtype=np.int64)
        self.returns = np.zeros(n, dtype=np.int64)
        self.kind = np.full(n, DEAD, dtype=np.int64)
        self.capped = np.zeros(n, dtype=bool)
        self.winner = np.full(n, NO_PLAYER, dtype=np.int64)
        self.points = np.zeros(n, dtype=np.int64)
        self.knocker = np.full(n, NO_PLAYER, dtype=np.int64)
        self.knock_card = np.full(n, NO_CARD, dtype=np.int64)
        self.knocker_deadwood = np.zeros(n, dtype=np.int64)
        self.defender_deadwood = np.zeros(n, dtype=np.int64)
        self._best_deadwood = np.zeros(n, dtype=np.int64)
        self._best_cards = np.zeros(n, dtype=np.uint64)
        self._knock_cards = np.zeros(n, dtype=np.uint64)
        self._big_gin = np.zeros(n, dtype=bool)
        #: Games in the discard phase whose cache is not filled yet, and whether there may be any.
        self._unsolved = np.zeros(n, dtype=bool)
        self._any_unsolved = False
        self.wall_take = np.zeros(n, dtype=bool)

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
        b._enter_discard((b.phase == DISCARD).nonzero()[0])
        b._enter_wall((b.phase == WALL).nonzero()[0])
        return b

    def to_states(self) -> list[engine.HandState]:
        """Every game as a scalar ``engine.HandState`` (``hand_state`` of each), the inverse of ``from_states``."""
        return [self.hand_state(i) for i in range(self.n)]

    # -----------------------------------------------------------------------------------------------------------
    # Deal
    # -----------------------------------------------------------------------------------------------------------

    def deal(self, games: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        """Deal new hands in ``games`` from ``decks`` ((k, 52) permutations, index 0 on top) (R10)."""
        self.version += 1
        games = np.asarray(games, dtype=np.int64)
        decks = np.asarray(decks, dtype=np.int64)
        dealers = np.asarray(dealers, dtype=np.int64)
        rows = np.arange(games.size)
        non_dealer = 1 - dealers
        dealt = engine.DEALT
        non_dealer_hand = np.bitwise_or.reduce(card_bits(decks[:, 0:dealt:2]), axis=1)
        dealer_hand = np.bitwise_or.reduce(card_bits(decks[:, 1:dealt:2]), axis=1)
        upcard = decks[:, dealt]
        eleven = self.rules.deal_mode == "eleven"
        if eleven:
            non_dealer_hand |= card_bits(upcard)
        hands = np.zeros((games.size, 2), dtype=np.uint64)
        hands[rows, non_dealer] = non_dealer_hand
        hands[rows, dealers] = dealer_hand
        self.deck[games] = decks
        self.hands[games] = hands
        for public in (self.known, self.discarded, self.declined):
            public[games] = 0
        self.stock_top[games] = dealt + 1
        self.pile[games, 0] = upcard
        self.pile_len[games] = 0 if eleven else 1
        self.pile_top[games] = NO_CARD if eleven else upcard
        self.pile_mask[games] = 0 if eleven else card_bits(upcard)
        self.dealer[games] = dealers
        self.current[games] = non_dealer
        self.phase[games] = DISCARD if eleven else OFFER
        self.taken[games] = NO_CARD
        self.both_passed[games] = False
        self.must_knock[games] = False
        self.initial_upcard[games] = NO_CARD if eleven else upcard
        self.knock_limit[games] = self._hand_knock_limits(upcard) if not eleven else self.rules.knock_limit
        self.turns[games] = 0
        self.upcard_draws[games] = 0
        self.returns[games] = 0
        self.kind[games] = LIVE
        self.capped[games] = False
        self.winner[games] = NO_PLAYER
        self.points[games] = 0
        self.knocker[games] = NO_PLAYER
        self.knock_card[games] = NO_CARD
        self.knocker_deadwood[games] = 0
        self.defender_deadwood[games] = 0
        self._unsolved[games] = False
        if eleven:
            self._enter_discard(games)

    def _hand_knock_limits(self, upcards: np.ndarray) -> np.ndarray:
        """R46 for many upcards at once (``Rules.hand_knock_limit`` vectorized)."""
        rules = self.rules
        if not rules.oklahoma:
            return np.full(upcards.shape, rules.knock_limit, dtype=np.int64)
        rank = upcards % cards.N_RANKS
        ace_limit = 0 if rules.oklahoma_ace == "gin_only" else 1
        return np.minimum(rules.knock_limit, np.where(rank == 0, ace_limit, np.minimum(rank + 1, 10)))

    def _multipliers(self, games: np.ndarray) -> np.ndarray:
        """R47: 2 where Oklahoma spade doubling applies to the hand."""
        rules = self.rules
        if not (rules.oklahoma and rules.oklahoma_spade_double):
            return np.ones(games.size, dtype=np.int64)
        upcard = self.initial_upcard[games]
        return np.where((upcard >= 0) & (upcard // cards.N_RANKS == 0), 2, 1)

    # -----------------------------------------------------------------------------------------------------------
    # Legal actions
    # -----------------------------------------------------------------------------------------------------------

    def stock_size(self, games: np.ndarray | None = None) -> np.ndarray:
        top = self.stock_top if games is None else self.stock_top.take(games)
        return cards.N_CARDS - top

    def top_discard(self, games: np.ndarray) -> np.ndarray:
        """Top card of each game's pile, NO_CARD where the pile is empty."""
        return self.pile_top.take(games)

    def _seats(self, games: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        """Indices of (game, player) in the flattened (n, 2) per-player arrays; the player to act by default."""
        return games * 2 + (self.current.take(games) if players is None else players)

    def legal_masks(self, games: np.ndarray | None = None) -> np.ndarray:
        """``(k, 108)`` bool legal-action masks of ``games`` (all games by default); empty rows for finished hands."""
        return bits_to_masks(self.legal_bits(games))

    def legal_bits(self, games: np.ndarray | None = None) -> np.ndarray:
        """``legal_masks`` as bit strings: ``(k, ACTION_WORDS)`` uint64, bit ``a`` (least significant word first)
        set where action ``a`` is legal. Agents that look at a few actions read these rather than the masks."""
        games = np.arange(self.n) if games is None else np.asarray(games, dtype=np.int64)
        self._solve_discard_phase(games)
        phase = self.phase.take(games)
        stock_ok = self.stock_top.take(games) < cards.N_CARDS - self.rules.wall
        pile_ok = (self.pile_len.take(games) > 0) > self.both_passed.take(games)
        key = phase * 16 + stock_ok * 8 + pile_ok * 4 + self.wall_take.take(games) * 2 + self._big_gin.take(games)
        discard = phase == DISCARD
        hand = self.hands.reshape(-1).take(self._seats(games))
        discardable = np.where(discard & ~self.must_knock.take(games), hand & ~card_bits(self._kept_cards(games)),
                               _ZERO)
        knock = np.where(discard, self._knock_cards.take(games), _ZERO)
        bits = np.empty((games.size, ACTION_WORDS), dtype="<u8")
        bits[:, 0] = _NO_CARD_BITS.take(key) | (discardable << _DISCARD_SHIFT) | (knock << _KNOCK_SHIFT)
        bits[:, 1] = knock >> _KNOCK_CARRY
        return bits

    def _enter_discard(self, games: np.ndarray) -> None:
        """The player to act in ``games`` now holds 11 cards: their discard-phase cache is to be filled before it is
        next read (``_solve_discard_phase``)."""
        if games.size:
            self._unsolved[games] = True
            self._any_unsolved = True

    def _solve_discard_phase(self, games: np.ndarray | None = None) -> None:
        """If any of ``games`` (any game by default) waits on its discard-phase cache, fill it for every game that
        waits, in one solver pass: the least deadwood over the cards that may leave the hand and those cards (R16),
        the cards that may knock (R20) and whether all 11 are melded (R24)."""
        if not self._any_unsolved or (games is not None and not self._unsolved.take(games).any()):
            return
        games = self._unsolved.nonzero()[0]
        self._unsolved[games] = False
        self._any_unsolved = False
        if not games.size:
            return
        phase = self._discard_phase(games, self.hands.reshape(-1).take(self._seats(games)), self._kept_cards(games))
        self._best_deadwood[games] = phase.best_deadwood
        self._best_cards[games] = phase.best_cards
        self._knock_cards[games] = phase.knock_cards
        self._big_gin[games] = phase.all_melded

    @property
    def best_deadwood(self) -> np.ndarray:
        self._solve_discard_phase()
        return self._best_deadwood

    @property
    def best_cards(self) -> np.ndarray:
        self._solve_discard_phase()
        return self._best_cards

    @property
    def knock_cards(self) -> np.ndarray:
        self._solve_discard_phase()
        return self._knock_cards

    @property
    def big_gin(self) -> np.ndarray:
        self._solve_discard_phase()
        return self._big_gin

    def _kept_cards(self, games: np.ndarray) -> np.ndarray:
        """The card R16 forbids discarding or knocking with in each game, NO_CARD when none."""
        if self.rules.discard_taken_card:
            return np.full(games.size, NO_CARD, dtype=np.int64)
        return self.taken.take(games)

    def _discard_phase(self, games: np.ndarray, hand: np.ndarray, kept: np.ndarray) -> solver.DiscardPhase:
        """The solver's discard-phase answers for 11-card ``hand`` in ``games``; big gin only where it is played."""
        return solver.discard_phase_of_masks(hand, kept, self.knock_limit.take(games),
                                             all_melded=self.rules.big_gin_bonus is not None)

    def _enter_wall(self, games: np.ndarray) -> None:
        """R38: taking the top discard at the wall is legal only if it allows a knock or big gin at once."""
        top = self.top_discard(games)
        kept = top if not self.rules.discard_taken_card else np.full(games.size, NO_CARD, dtype=np.int64)
        phase = self._discard_phase(games, self.hands.reshape(-1).take(self._seats(games)) | card_bits(top), kept)
        self.wall_take[games] = (phase.knock_cards != 0) | phase.all_melded

    # -----------------------------------------------------------------------------------------------------------
    # Step
    # -----------------------------------------------------------------------------------------------------------

    def step(self, games: np.ndarray, chosen: np.ndarray, masks: np.ndarray | None = None,
             legal_bits: np.ndarray | None = None) -> None:
        """Apply one action in each of ``games`` (the player to act in each). Illegal actions raise
        ``engine.IllegalActionError`` naming the game, and then no game is changed (R18). ``masks`` or
        ``legal_bits``: the games' current ``legal_masks`` or ``legal_bits`` when the caller has them already."""
        games = np.asarray(games, dtype=np.int64)
        chosen = np.asarray(chosen, dtype=np.int64)
        if games.size == 0:
            return
        self.version += 1
        in_range = (chosen >= 0) & (chosen < N_ACTIONS)
        checked = np.where(in_range, chosen, 0)
        if masks is not None:
            legal = masks.reshape(-1).take(np.arange(games.size) * N_ACTIONS + checked) & in_range
        else:
            legal = has_action(self.legal_bits(games) if legal_bits is None else legal_bits, checked) & in_range
        if not legal.all():
            bad = int((~legal).nonzero()[0][0])
            try:
                engine.step(self.hand_state(int(games[bad])), int(chosen[bad]))
            except engine.IllegalActionError as error:
                raise engine.IllegalActionError(f"game {int(games[bad])}: {error}") from None
            raise AssertionError("batched and scalar legality disagree")  # the differential tests forbid this
        if self._any_unsolved:
            # Games acting in the discard phase leave it now: a cache they wait on would never be read.
            self._unsolved[games] = False
        action_kind = _ACTION_KINDS.take(chosen)
        present = np.bincount(action_kind, minlength=_KNOCKS + 1).tolist()
        if present[_PASSES]:
            phase = self.phase.take(games)
            self._pass_offer(_rows(games, (action_kind == _PASSES) & (phase == OFFER)))
            self._pass_wall(_rows(games, (action_kind == _PASSES) & (phase == WALL)))
        took = drew = games[:0]
        if present[_TAKES]:
            took = self._count_upcard_draws(games.take((action_kind == _TAKES).nonzero()[0]))
            self._take(took, must_knock=self.phase.take(took) == WALL)
        if present[_DRAWS]:
            drew = _rows(games, action_kind == _DRAWS)
            self._draw(drew)
        # One solver pass for every player who now holds 11 cards, however the card came.
        self._enter_discard(np.concatenate([took, drew]) if took.size and drew.size else took if took.size else drew)
        if present[_DISCARDS]:
            discard = (action_kind == _DISCARDS).nonzero()[0]
            self._discard(games.take(discard), chosen.take(discard) - DISCARD_BASE)
        if present[_KNOCKS]:
            knock = (action_kind == _KNOCKS).nonzero()[0]
            self._knock(games.take(knock), chosen.take(knock) - KNOCK_BASE)
        if present[_BIG_GINS]:
            self._big_gin_end(_rows(games, action_kind == _BIG_GINS))

    def _count_upcard_draws(self, games: np.ndarray) -> np.ndarray:
        """Count the draw-phase takes from the pile in ``games`` (R60) and end the hands where the take would reach
        ``max_upcard_draws``, the card left on the pile; returns the games whose take goes ahead."""
        in_draw = (self.phase.take(games) == DRAW).nonzero()[0]
        drawing = games.take(in_draw)
        draws = self.upcard_draws.take(drawing) + 1
        self.upcard_draws[drawing] = draws
        cap = self.rules.max_upcard_draws
        if cap is None or draws.max(initial=0) < cap:
            return games
        ended = in_draw[draws >= cap]
        self._end_dead(games.take(ended))
        return np.delete(games, ended)

    def _pass_offer(self, games: np.ndarray) -> None:
        """R13/R14."""
        if not games.size:
            return
        player = self.current.take(games)
        self.declined.reshape(-1)[self._seats(games, player)] |= card_bits(self.top_discard(games))
        dealer_passed = _rows(games, player == self.dealer.take(games))
        self.current[games] = 1 - player
        self.phase[dealer_passed] = DRAW
        self.both_passed[dealer_passed] = True

    def _pass_wall(self, games: np.ndarray) -> None:
        """R38: no knock at the wall; the hand is dead."""
        self._end_dead(games)

    def _take(self, games: np.ndarray, must_knock: np.ndarray) -> None:
        """Take the top discard (R13, R15, R38); the caller enters the discard phase."""
        if not games.size:
            return
        seats = self._seats(games)
        top = self.top_discard(games)
        bit = card_bits(top)
        self.hands.reshape(-1)[seats] |= bit
        self.known.reshape(-1)[seats] |= bit
        length = self.pile_len.take(games) - 1
        self.pile_len[games] = length
        self.pile_top[games] = np.where(length > 0, self.pile.reshape(-1).take(games * cards.N_CARDS + length - 1),
                                        NO_CARD)
        self.pile_mask[games] ^= bit
        self.phase[games] = DISCARD
        self.taken[games] = top
        self.must_knock[games] = must_knock

    def _draw(self, games: np.ndarray) -> None:
        """R15: the top stock card; the caller enters the discard phase."""
        if not games.size:
            return
        seats = self._seats(games)
        stock_top = self.stock_top.take(games)
        self.declined.reshape(-1)[seats] |= card_bits(self.top_discard(games))
        self.hands.reshape(-1)[seats] |= card_bits(self.deck.reshape(-1).take(games * cards.N_CARDS + stock_top))
        self.stock_top[games] = stock_top + 1
        self.phase[games] = DISCARD
        self.taken[games] = NO_CARD
        self.both_passed[games] = False

    def _push_pile(self, games: np.ndarray, card_ids: np.ndarray) -> None:
        length = self.pile_len.take(games)
        self.pile.reshape(-1)[games * cards.N_CARDS + length] = card_ids
        self.pile_len[games] = length + 1
        self.pile_top[games] = card_ids
        self.pile_mask[games] |= card_bits(card_ids)

    def _discard(self, games: np.ndarray, card_ids: np.ndarray) -> None:
        """R16 discard; the hand may die here (R19, R37, R61) or reach the wall (R38)."""
        if not games.size:
            return
        # R61: a return puts back the card just taken from the pile; any other discard breaks the run of returns.
        returns = np.where(card_ids == self.taken.take(games), self.returns.take(games) + 1, 0)
        self.returns[games] = returns
        player = self.current.take(games)
        seats = self._seats(games, player)
        bit = card_bits(card_ids)
        self.hands.reshape(-1)[seats] ^= bit
        self.known.reshape(-1)[seats] &= ~bit
        self.discarded.reshape(-1)[seats] |= bit
        self._push_pile(games, card_ids)
        self.current[games] = 1 - player
        self.taken[games] = NO_CARD
        turns = self.turns.take(games) + 1
        self.turns[games] = turns
        rules = self.rules
        capped = (turns >= rules.max_turns) if rules.max_turns is not None else np.zeros(games.size, bool)
        # The turn cap (R19) and the second return in a row (R61) end the hand before the wall (R38).
        ended = capped | (returns >= 2) if rules.repeat_discard_ends else capped
        at_wall = ~ended & (self.stock_size(games) <= rules.wall)
        self.phase[games] = DRAW
        if rules.wall_upcard_knock:
            wall = _rows(games, at_wall)
            self.phase[wall] = WALL
            self._enter_wall(wall)
            self._end_dead(_rows(games, ended))
        else:
            self._end_dead(_rows(games, ended | at_wall))
        self.capped[_rows(games, capped)] = True

    def _end_dead(self, games: np.ndarray) -> None:
        self.phase[games] = OVER
        self.kind[games] = DEAD
        self.must_knock[games] = False

    def _knock(self, games: np.ndarray, card_ids: np.ndarray) -> None:
        """R20-R23, R26-R35, R47: lay down, score, and put the knock card face down on the pile."""
        if not games.size:
            return
        player = self.current.take(games)
        seats = self._seats(games, player)
        bit = card_bits(card_ids)
        knocker_hand = self.hands.reshape(-1).take(seats) ^ bit
        defender_hand = self.hands.reshape(-1).take(seats ^ 1)  # the other seat of the game
        k, f = solver.showdown_of_masks(knocker_hand, defender_hand, layoffs=self.rules.layoffs)
        k, f = k.astype(np.int64), f.astype(np.int64)
        rules = self.rules
        gin = k == 0
        knock_wins = ~gin & (f > k)
        tie = ~gin & (f == k) & (not rules.undercut_on_tie)
        undercut = ~gin & ~knock_wins & ~tie
        kind = np.where(gin, GIN, np.where(knock_wins, KNOCK, np.where(tie, TIE, UNDERCUT)))
        points = np.where(gin, f + rules.gin_bonus,
                          np.where(knock_wins, f - k, np.where(tie, 0, k - f + rules.undercut_bonus)))
        self.hands.reshape(-1)[seats] = knocker_hand
        self.known.reshape(-1)[seats] &= ~bit
        self._push_pile(games, card_ids)
        self._finish(games, kind, np.where(tie, NO_PLAYER, np.where(undercut, 1 - player, player)),
                     points * self._multipliers(games), card_ids, k, f)

    def _big_gin_end(self, games: np.ndarray) -> None:
        """R24, R29, R33: all 11 cards melded; the defender's plain deadwood plus the bonus."""
        if not games.size:
            return
        player = self.current[games]
        f = solver.deadwood_of_masks(self.hands[games, 1 - player]).astype(np.int64)
        points = (f + self.rules.big_gin_bonus) * self._multipliers(games)
        self._finish(games, np.full(games.size, BIG_GIN_KIND), player, points,
                     np.full(games.size, NO_CARD), np.zeros(games.size, dtype=np.int64), f)

    def _finish(self, games, kind, winner, points, knock_card, knocker_deadwood, defender_deadwood) -> None:
        self.knocker[games] = self.current[games]
        self.phase[games] = OVER
        self.taken[games] = NO_CARD
        self.must_knock[games] = False
        self.kind[games] = kind
        self.winner[games] = winner
        self.points[games] = points
        self.knock_card[games] = knock_card
        self.knocker_deadwood[games] = knocker_deadwood
        self.defender_deadwood[games] = defender_deadwood

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
            out[ten] = solver.deadwood_of_masks(self.hands[games[ten], player[ten]])
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

