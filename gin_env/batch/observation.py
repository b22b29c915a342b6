"""What one player may know in each game of a ``HandBatch``, and its encoding: the batched twin of ``observation``.

This module owns the information boundary for batched play. :func:`batch_view` reads each game's public arrays and
the viewer's own hand only (never the opponent's hidden cards or the stock order), and :func:`encode_batch` lays
the result out exactly as ``observation.encode`` does, entry for entry (``OBS_LAYOUT``), which a differential test
checks. Batched agents read the :class:`BatchView`; learners read the encoding.
"""

from __future__ import annotations

import numpy as np

from gin_env.batch.encode import encode_rows
from gin_env.batch.hand_batch import NO_CARD, HandBatch, bits_to_masks
from gin_env.game import cards, solver
from gin_env.game.cards import card_bits
from gin_env.game.engine import DISCARD, OVER
from gin_env.game.match_record import EMPTY_RECORD, RECORD_SIZE, encode_record
from gin_env.game.observation import OBS_SIZE, RECORD_OBS_SIZE, PlayerView, encoding_spans, jokers_by_count, view

_NATURALS = np.uint64(cards.FULL_DECK)
_JOKER_SHIFT = np.uint64(cards.N_CARDS)
#: The scores ``encode_rows`` reads when a view has none (single-hand play: every score entry is 0).
_NO_SCORES = np.zeros((0, 2), dtype=np.int64)


class _computed_once:  # noqa: N801 - used as a decorator, like functools.cached_property
    """``functools.cached_property`` without its lock (before Python 3.12 it takes one on every first read, which
    costs more than most fields here): the value is computed on the first read and stored on the instance, which then
    shadows this non-data descriptor."""

    def __init__(self, compute):
        self._compute = compute
        self.__doc__ = compute.__doc__
        self._name = compute.__name__

    def __set_name__(self, owner, name: str) -> None:
        self._name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self._name] = self._compute(instance)
        return value


class BatchView:
    """``PlayerView`` for k games at once: one array entry per game (card sets as uint64 masks).

    Fields are read from the batch on first use and then kept, so an agent pays only for what it reads (the random
    agent reads the legal actions alone). A view belongs to one moment: reading a field after the batch has stepped
    raises ``RuntimeError``. ``best_cards`` are the viewer's own least-deadwood discards in the discard phase (0
    elsewhere), derived from the viewer's hand alone and cached by the engine."""

    def __init__(self, b: HandBatch, games: np.ndarray, players: np.ndarray, scores: np.ndarray | None = None,
                 record: np.ndarray | None = None):
        self._b = b
        self._version = b.version
        self._games = np.asarray(games, dtype=np.int64)
        self._scores = scores
        self._record = record
        self.rules = b.rules
        self.player = np.asarray(players, dtype=np.int64)

    def _batch(self) -> HandBatch:
        if self._b.version != self._version:
            raise RuntimeError("stale BatchView: the batch has changed since the view was made; make a new view")
        return self._b

    @_computed_once
    def _seat(self) -> np.ndarray:
        """Index of (game, viewer) in the batch's flattened per-player arrays; ``^ 1`` gives the opponent's."""
        return self._games * 2 + self.player

    def _own(self, table: np.ndarray) -> np.ndarray:
        return table.reshape(-1).take(self._seat)

    def _opponents(self, table: np.ndarray) -> np.ndarray:
        return table.reshape(-1).take(self._seat ^ 1)

    @_computed_once
    def phase(self) -> np.ndarray:
        return self._batch().phase.take(self._games)

    @_computed_once
    def _jokers(self) -> list[np.ndarray] | None:
        """The joker bits of each of ``observation.JOKER_PLACES`` (``jokers_by_count``: which joker is which is never
        information, R72); None without jokers."""
        if not self.rules.jokers:
            return None
        b = self._batch()
        jokers = np.uint64(self.rules.deck.joker_mask)
        on_top = (b.top_discard(self._games) >= cards.N_CARDS).astype(np.uint64)
        held, below, known = (np.bitwise_count(masks & jokers).astype(np.uint64) for masks in (
            self._own(b.hands), b.pile_mask.take(self._games), self._opponents(b.known)))
        below -= on_top
        return jokers_by_count((held, on_top, below, known, self.rules.jokers - held - on_top - below - known))

    def _named(self, masks: np.ndarray, place: int) -> np.ndarray:
        """``masks`` with their jokers named as ``_jokers`` names those of ``JOKER_PLACES[place]``."""
        return masks if self._jokers is None else masks & _NATURALS | self._jokers[place]

    @_computed_once
    def hand(self) -> np.ndarray:
        return self._named(self._own(self._batch().hands), 0)

    @_computed_once
    def top_discard(self) -> np.ndarray:
        top = self._batch().top_discard(self._games)
        if self._jokers is None:
            return top
        return np.where(top >= cards.N_CARDS, cards.N_CARDS + np.bitwise_count(self.hand >> _JOKER_SHIFT), top)

    @_computed_once
    def pile_rest(self) -> np.ndarray:
        b = self._batch()
        return self._named(b.pile_mask.take(self._games) & ~card_bits(b.top_discard(self._games)), 2)

    @_computed_once
    def opponent_known(self) -> np.ndarray:
        return self._named(self._opponents(self._batch().known), 3)

    @_computed_once
    def opponent_discards(self) -> np.ndarray:
        return self._opponents(self._batch().discarded)

    @_computed_once
    def opponent_declined(self) -> np.ndarray:
        return self._opponents(self._batch().declined)

    @_computed_once
    def unseen(self) -> np.ndarray:
        seen = self.hand | self.pile_rest | self.opponent_known | card_bits(self.top_discard)
        return np.uint64(self.rules.deck.full_mask) & ~seen

    @_computed_once
    def stock_size(self) -> np.ndarray:
        return self._batch().stock_size(self._games)

    @_computed_once
    def knock_limit(self) -> np.ndarray:
        return self._batch().knock_limit.take(self._games)

    @_computed_once
    def to_act(self) -> np.ndarray:
        """True where this player has a decision to make now."""
        return (self._batch().current.take(self._games) == self.player) & (self.phase != OVER)

    @_computed_once
    def _discarding(self) -> np.ndarray:
        """True where this player is to act in the discard phase (holds 11 cards)."""
        return self.to_act & (self.phase == DISCARD)

    @_computed_once
    def taken(self) -> np.ndarray:
        # A joker taken is named as cards.public_id names it: the first joker, the lowest of the hand (R72).
        return np.minimum(np.where(self.to_act, self._batch().taken.take(self._games), NO_CARD), cards.N_CARDS)

    @_computed_once
    def is_dealer(self) -> np.ndarray:
        return self._batch().dealer.take(self._games) == self.player

    @_computed_once
    def scores(self) -> np.ndarray:
        """(k, 2): own and opponent's match scores."""
        if self._scores is None:
            return np.zeros((self._games.size, 2), dtype=np.int64)
        flat = np.asarray(self._scores).reshape(-1)
        own = np.arange(self._games.size) * 2 + self.player
        return np.stack([flat.take(own), flat.take(own ^ 1)], axis=1)

    @_computed_once
    def record(self) -> np.ndarray:
        """(k, ``RECORD_SIZE``): the match record (``match_record``), own counts first."""
        if self._record is None:
            return np.zeros((self._games.size, RECORD_SIZE), dtype=np.int64)
        rows = np.arange(self._games.size)
        return np.concatenate([self._record[rows, self.player], self._record[rows, 1 - self.player]], axis=1)

    @_computed_once
    def legal_mask(self) -> np.ndarray:
        return bits_to_masks(self.legal_bits, self.rules.n_actions)

    @_computed_once
    def legal_bits(self) -> np.ndarray:
        """``legal_mask`` as bit strings (see ``HandBatch.legal_bits``), for agents that read a few actions."""
        bits = self._batch().legal_bits(self._games)
        return bits if self.to_act.all() else np.where(self.to_act[:, None], bits, np.uint64(0))

    @_computed_once
    def best_cards(self) -> np.ndarray:
        # The engine's cache belongs to whoever last entered the discard phase: read it only for this player's own.
        return np.where(self._discarding, self._batch().best_cards.take(self._games), np.uint64(0))

    @_computed_once
    def deadwood(self) -> np.ndarray:
        """Own deadwood: the least over allowed discards with 11 cards in hand, else of the holding (R7, R8)."""
        out = self._batch().best_deadwood.take(self._games)
        ten = (~self._discarding).nonzero()[0]
        if ten.size:
            out[ten] = solver.deadwood_of_masks(self.hand.take(ten), self.rules)
        return out

    def player_view(self, row: int) -> PlayerView:
        """Row ``row`` of this view as the scalar ``PlayerView`` that ``observation.view`` gives of the same game,
        for agents that decide one game at a time (their ``act_batch`` loops over the rows)."""
        b = self._batch()
        game = int(self._games[row])
        scores = (0, 0) if self._scores is None else tuple(int(x) for x in self._scores[row])
        record = EMPTY_RECORD if self._record is None else tuple(int(x) for x in self._record[row].reshape(-1))
        return view(b.hand_state(game), int(self.player[row]), scores, record)


def batch_view(b: HandBatch, games: np.ndarray, players: np.ndarray, scores: np.ndarray | None = None,
               record: np.ndarray | None = None) -> BatchView:
    """The view of ``players[i]`` of game ``games[i]``. ``scores``: (k, 2) match scores indexed by player;
    ``record``: (k, 2, ``len(RECORD_KINDS)``) match records indexed by player (``match_record``)."""
    return BatchView(b, games, players, scores, record)


def encode_batch(v: BatchView, out: np.ndarray | None = None, match_record: bool = False) -> np.ndarray:
    """``(k, size)`` float32: row i equals ``observation.encode`` of game i's ``PlayerView`` (``obs_layout`` of the
    rules gives the size: ``OBS_SIZE`` for the standard deck); with ``match_record`` the match record appended as
    ``encode(view, match_record=True)`` does. ``out``: an array of that shape to write into (and return) instead of
    a new one. One compiled pass over the games (``encode_kernel``)."""
    b = v._batch()
    k = v.player.size
    size, jokers_at = encoding_spans(v.rules.deck, bool(match_record))
    if out is None:
        out = np.empty((k, size), dtype=np.float32)
    scores = v.scores if v._scores is not None else _NO_SCORES
    encode_rows(v._games, v.player, scores, v.rules.target or 0, b.rule_values, jokers_at, b.numbers, b.card_masks,
                b.player_masks, out)
    if match_record:
        out[:, OBS_SIZE:RECORD_OBS_SIZE] = encode_record(v.record)
    return out
