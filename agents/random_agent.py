"""The random agent: a uniformly random legal action, the floor every other agent must beat."""

from __future__ import annotations

import numpy as np

from gin_env.batch.hand_batch import random_set_bit
from gin_env.batch.observation import BatchView
from gin_env.game.observation import PlayerView


class RandomAgent:
    """Picks uniformly among the legal actions of the view with the caller's generator."""

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        return self.act_on_mask(view.legal_mask, rng)

    def act_on_mask(self, legal_mask: np.ndarray, rng: np.random.Generator) -> int:
        """The same pick from the legal mask alone: an env that finds this method skips building the view."""
        legal = legal_mask.nonzero()[0]
        if legal.size == 0:
            raise ValueError("no legal action: it is not this player's turn or the hand is over")
        # floor(u * n) is uniform up to float rounding (n < 2**8 << 2**53) and a third of the cost of integers(n),
        # which matters with the random agent inside every env step.
        return int(legal[int(rng.random() * legal.size)])

    def act_batch(self, view: BatchView, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per game of a batched view (action 0 where none is legal).

        As in ``act``, the pick is floor(u * n) among the n legal actions, found in the view's legal-action bit
        strings."""
        return random_set_bit(view.legal_bits, rng)

    def __repr__(self) -> str:
        return "RandomAgent()"
