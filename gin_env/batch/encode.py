"""The batched observation encoding compiled with numba: ``observation.encode`` of many games' views at once.

This module owns one kernel, :func:`encode_rows`, that reads a viewer's observation per game straight from
``HandBatch``'s arrays and writes it into a float32 row with ``observation.write_encoding``, the encoder that
``observation.encode`` runs too. It reads only what the viewer may know: their own hand and the public fields
(never the opponent's hidden cards or the stock order); ``batch_observation`` checks that boundary in its views,
and a differential test the result.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.batch.bits import card_bit
from gin_env.batch.kernels import (
    BEST_DEADWOOD,
    CURRENT,
    DEALER,
    DECLINED,
    DISCARDED,
    HANDS,
    KNOCK_LIMIT,
    KNOWN,
    PHASE,
    PILE_MASK,
    PILE_TOP,
    STOCK_TOP,
    deck_jokers,
)
from gin_env.game.cards import FULL_DECK, N_CARDS
from gin_env.game.engine import DISCARD, OVER
from gin_env.game.hand_rules import JOKERS_ROW, TURN_ROW, turn
from gin_env.game.observation import write_encoding
from gin_env.game.solver.kernels import deadwood_of, scratch_of


@njit(cache=True)
def encode_rows(games, players, scores, target, rule_values, jokers_at, numbers, card_masks, player_masks, out):
    """``out[i]``: the observation of ``players[i]`` in game ``games[i]``. ``scores``: (k, 2) match scores, own
    first (empty: all 0); ``target``: the match target (0: none, the score entries stay 0); ``jokers_at``: where
    the joker counts start (``obs_layout``'s ``jokers``; unread without jokers). The masks name jokers by id, which
    the counts do not read."""
    slots, _ = scratch_of(rule_values[JOKERS_ROW])
    n_cards = rule_values[TURN_ROW, turn.DECK_CARDS]
    n_jokers = n_cards - N_CARDS
    full_deck = np.uint64(FULL_DECK) | deck_jokers(rule_values[TURN_ROW])
    for i in range(games.size):
        g = games[i]
        p = players[i]
        hand = player_masks[HANDS, g, p]
        top = card_bit(numbers[PILE_TOP, g])
        pile_rest = card_masks[PILE_MASK, g] & ~top
        known = player_masks[KNOWN, g, 1 - p]
        phase = numbers[PHASE, g]
        # With 11 cards (the viewer to act in the discard phase): the least deadwood after an allowed discard.
        discarding = phase == DISCARD and numbers[CURRENT, g] == p and phase != OVER
        deadwood = numbers[BEST_DEADWOOD, g] if discarding else deadwood_of(hand, slots)
        own = opp = 0.0
        if target and scores.shape[0]:
            own, opp = min(scores[i, 0] / target, 1.0), min(scores[i, 1] / target, 1.0)
        write_encoding(out[i], hand, top, pile_rest, known, player_masks[DISCARDED, g, 1 - p],
                       player_masks[DECLINED, g, 1 - p],
                       full_deck & ~(hand | pile_rest | known | top), phase, numbers[DEALER, g] == p,
                       n_cards - numbers[STOCK_TOP, g], numbers[KNOCK_LIMIT, g], deadwood, own, opp, jokers_at,
                       n_jokers)
