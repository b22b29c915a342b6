"""The information state of many two-player hands at once: the batched twin of the histories of
``game.information_state``, for the vector env.

:class:`BatchHistory` holds, per game, the tokens of the public events of its hand as one player (the viewer) sees
them, an ``(n, history_length(rules))`` int16 array with a count per game. Its owner records every deal
(:meth:`dealt`) and every ``HandBatch.step`` (:meth:`moves` before the step, which reads the cards a take or a draw
moves, :meth:`add` after it). A joker's token is its event's, whichever joker it is (R72:
``information_state.card_token``). ``tests/test_information_state.py`` holds it to the scalar env's history.
"""

from __future__ import annotations

import numpy as np

from gin_env.batch.hand_batch import NO_CARD, HandBatch
from gin_env.game.actions import DRAW_STOCK, TAKE_DISCARD
from gin_env.game.information_state import ACTION_TOKENS, HISTORY_DTYPE, UPCARD, card_token, history_length
from gin_env.game.rules import Rules

#: ``ACTION_TOKENS``' rows: the viewer's own move, the other player's.
_OWN, _OTHER = 0, 1


class BatchHistory:
    """The histories of ``n`` hands under ``rules`` (``ValueError`` for rules whose hands have no bound)."""

    def __init__(self, rules: Rules, n: int) -> None:
        self.length = history_length(rules)
        self.tokens = np.zeros((n, self.length), dtype=HISTORY_DTYPE)
        #: Per game, the events so far in its hand.
        self.count = np.zeros(n, dtype=np.int64)

    def dealt(self, b: HandBatch, games: np.ndarray) -> None:
        """New hands in ``games`` of ``b``: each history is its deal's, the upcard (R12) where there is one."""
        self.tokens[games] = 0
        self.count[games] = 0
        upcard = b.initial_upcard[games]
        turned = upcard != NO_CARD
        self.add(games[turned], card_token(UPCARD, upcard[turned]))

    def moves(self, b: HandBatch, games: np.ndarray, chosen: np.ndarray, viewers: np.ndarray) -> np.ndarray:
        """The tokens of ``chosen`` (one action per game of ``games``, by the player to act) as ``viewers`` (one
        engine player per game) see them; read before ``b`` steps: a take shows the top of the pile, the viewer's
        own draw the top of the stock (``HandBatch.deck`` from ``stock_top``)."""
        # An illegal action's token is never added (the step raises first); clipped, it indexes no further.
        chosen = np.clip(chosen, 0, ACTION_TOKENS.shape[1] - 1)
        own = b.current[games] == viewers
        out = ACTION_TOKENS[np.where(own, _OWN, _OTHER), chosen].astype(np.int64)
        take = chosen == TAKE_DISCARD
        out[take] = card_token(out[take], b.pile_top[games[take]])
        drawn = (chosen == DRAW_STOCK) & own
        drawing = games[drawn]
        out[drawn] = card_token(out[drawn], b.deck[drawing, np.minimum(b.stock_top[drawing], b.deck.shape[1] - 1)])
        return out

    def add(self, games: np.ndarray, tokens: np.ndarray) -> None:
        """Append one token to the history of each of ``games`` (each game once)."""
        self.tokens[games, self.count[games]] = tokens
        self.count[games] += 1

    def rows(self, games: np.ndarray) -> np.ndarray:
        """``(n, length)``: the histories of ``games``, zeros elsewhere."""
        out = np.zeros_like(self.tokens)
        out[games] = self.tokens[games]
        return out
