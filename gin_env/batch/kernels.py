"""The batched engine's per-game loops, compiled with numba: deal, legal actions and step (R10-R39, R45-R47).

This module owns the hand rules as ``HandBatch`` runs them: each kernel walks the games it is given one at a time,
so a batch step costs one call whatever the mix of actions, instead of a few array passes per rule. State lives in
``HandBatch``'s grouped arrays (``ints``, ``flags``, ``words`` rows by the field constants below, ``seats`` by
player-mask field, then ``deck`` and ``pile``), which the kernels read and write in place. The discard-phase
answers (least deadwood, best cards, knock cards, big gin) are solved when a player comes to hold 11 cards, and
R38's wall check when a hand reaches the wall, and a knock's showdown with layoffs in the step that knocks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.batch.bits import card_bit
from gin_env.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, N_ACTIONS, PASS, TAKE_DISCARD
from gin_env.game.cards import NO_CARD
from gin_env.game.engine import DEALT, DISCARD, DRAW, OFFER, OVER, PHASE_NAMES, WALL
from gin_env.game.solver.kernels import N_CARDS, SUIT_BITS, deadwood_of, discard_phase_of, scratch, showdown_of
from gin_env.game.taken_card import kept_card_compiled as kept_card

#: Outcome codes of ``HandBatch.kind``; -1 while a hand is live.
KIND_NAMES = ("knock", "undercut", "gin", "big_gin", "tie", "dead")
KNOCK, UNDERCUT, GIN, BIG_GIN_KIND, TIE, DEAD = range(len(KIND_NAMES))
LIVE = -1
NO_PLAYER = -1

#: Rows of ``HandBatch.ints`` (int64 per game).
(STOCK_TOP, PILE_LEN, PILE_TOP, DEALER, CURRENT, PHASE, TAKEN, INITIAL_UPCARD, KNOCK_LIMIT, TURNS, KIND, WINNER,
 POINTS, KNOCKER, KNOCK_CARD, KNOCKER_DEADWOOD, DEFENDER_DEADWOOD, BEST_DEADWOOD, UPCARD_DRAWS, RETURNS) = range(20)
N_INTS = 20
#: Rows of ``HandBatch.flags`` (bool per game).
BOTH_PASSED, MUST_KNOCK, BIG_GIN_FLAG, WALL_TAKE, CAPPED = range(5)
N_FLAGS = 5
#: Rows of ``HandBatch.words`` (uint64 card mask per game).
PILE_MASK, BEST_CARDS, KNOCK_CARDS = range(3)
N_WORDS = 3
#: Rows of ``HandBatch.seats`` ((n, 2) uint64 card masks, by game and player).
HANDS, KNOWN, DISCARDED, DECLINED = range(4)
N_SEATS = 4

#: Entries of the rules vector ``HandBatch.rule_params`` (int64), from ``rule_params``.
(R_WALL, R_MAX_TURNS, R_WALL_UPCARD_KNOCK, R_DISCARD_TAKEN, R_BIG_GIN_ON, R_BIG_GIN_BONUS, R_SPADES_DOUBLE,
 R_OKLAHOMA, R_ACE_LIMIT, R_KNOCK_LIMIT, R_ELEVEN, R_LAYOFFS, R_GIN_BONUS, R_UNDERCUT_BONUS,
 R_UNDERCUT_ON_TIE, R_MAX_UPCARD_DRAWS, R_REPEAT_DISCARD_ENDS) = range(17)
#: ``R_MAX_TURNS`` or ``R_MAX_UPCARD_DRAWS`` when there is no such cap.
NO_CAP = -1


def rule_params(rules) -> np.ndarray:
    """The ``Rules`` fields the kernels read, as one int64 vector indexed by the ``R_`` constants."""
    values = {R_WALL: rules.wall, R_MAX_TURNS: NO_CAP if rules.max_turns is None else rules.max_turns,
              R_WALL_UPCARD_KNOCK: rules.wall_upcard_knock, R_DISCARD_TAKEN: rules.discard_taken_card,
              R_BIG_GIN_ON: rules.big_gin_bonus is not None, R_BIG_GIN_BONUS: rules.big_gin_bonus or 0,
              R_SPADES_DOUBLE: rules.oklahoma and rules.oklahoma_spade_double, R_OKLAHOMA: rules.oklahoma,
              R_ACE_LIMIT: 0 if rules.oklahoma_ace == "gin_only" else 1, R_KNOCK_LIMIT: rules.knock_limit,
              R_ELEVEN: rules.deal_mode == "eleven", R_LAYOFFS: rules.layoffs, R_GIN_BONUS: rules.gin_bonus,
              R_UNDERCUT_BONUS: rules.undercut_bonus, R_UNDERCUT_ON_TIE: rules.undercut_on_tie,
              R_MAX_UPCARD_DRAWS: NO_CAP if rules.max_upcard_draws is None else rules.max_upcard_draws,
              R_REPEAT_DISCARD_ENDS: rules.repeat_discard_ends}
    return np.array([int(values[key]) for key in range(len(values))], dtype=np.int64)


def _no_card_bits() -> np.ndarray:
    """Word 0 of the legal-action bit string holding the four actions that name no card, by key ``16 * phase + 8 *
    (the stock may be drawn) + 4 * (the pile may be taken in the draw) + 2 * (the top discard may be taken at the
    wall) + (big gin)`` (R13, R15, R24, R37, R38); flags that do not apply to the phase are ignored."""
    table = np.zeros(len(PHASE_NAMES) * 16, dtype=np.uint64)
    for phase in range(len(PHASE_NAMES)):
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
ACTION_WORDS = (N_ACTIONS + 63) // 64
assert ACTION_WORDS == 2 and KNOCK_BASE < 64 < KNOCK_BASE + N_CARDS


# ---------------------------------------------------------------------------------------------------------------
# Discard phase and wall (solved on entry)
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _discard_answers(hand, kept, limit, big_gin_on, slots, per_card):
    """For a player holding the 11 cards of ``hand``: the least deadwood over the cards that may leave the hand
    and those cards (R16: ``kept`` stays), the knock cards (R20) and big gin (R24, where ``big_gin_on``).
    Helpers here take and return scalars: numba compiles a per-game helper that takes the state arrays several
    times slower."""
    best, best_cards, knock_cards, melded = discard_phase_of(hand, kept, limit, slots, per_card)
    return best, best_cards, knock_cards, melded and big_gin_on


@njit(cache=True, inline="always")
def _wall_take(hand, top, discard_taken, limit, big_gin_on, slots, per_card):
    """R38: taking the top discard at the wall is legal only if it allows a knock or big gin at once."""
    _, _, knock_cards, big_gin = _discard_answers(hand | card_bit(top), kept_card(discard_taken, top), limit,
                                                  big_gin_on, slots, per_card)
    return knock_cards != 0 or big_gin


@njit(cache=True)
def solve_entered(rp, ints, flags, words, seats):
    """Fill the discard-phase answers of every game in the discard phase and the wall check of every game at the
    wall (a batch built from states that arrive there)."""
    slots, per_card = scratch()
    discard_taken, big_gin_on = rp[R_DISCARD_TAKEN] != 0, rp[R_BIG_GIN_ON] != 0
    for g in range(ints.shape[1]):
        hand = seats[HANDS, g, ints[CURRENT, g]]
        if ints[PHASE, g] == DISCARD:
            (ints[BEST_DEADWOOD, g], words[BEST_CARDS, g], words[KNOCK_CARDS, g],
             flags[BIG_GIN_FLAG, g]) = _discard_answers(hand, kept_card(discard_taken, ints[TAKEN, g]),
                                                        ints[KNOCK_LIMIT, g], big_gin_on, slots, per_card)
        elif ints[PHASE, g] == WALL:
            flags[WALL_TAKE, g] = _wall_take(hand, ints[PILE_TOP, g], discard_taken, ints[KNOCK_LIMIT, g],
                                             big_gin_on, slots, per_card)


# ---------------------------------------------------------------------------------------------------------------
# Deal
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _hand_knock_limit(oklahoma, knock_limit, ace_limit, upcard):
    """R46: the knock limit of a hand, under Oklahoma from its upcard."""
    rank = upcard % SUIT_BITS
    return min(knock_limit, ace_limit if rank == 0 else min(rank + 1, 10)) if oklahoma else knock_limit


@njit(cache=True)
def deal(games, decks, dealers, rp, ints, flags, words, seats, deck, pile):
    """Deal new hands in ``games`` from ``decks`` ((k, 52) permutations, index 0 on top) (R10)."""
    eleven = rp[R_ELEVEN] != 0
    slots, per_card = scratch()
    for i in range(games.size):
        g = games[i]
        dealer = dealers[i]
        for c in range(N_CARDS):
            deck[g, c] = decks[i, c]
        for p in range(2):
            for field in range(N_SEATS):
                seats[field, g, p] = 0
        for j in range(DEALT):
            # The non-dealer gets the first card and every other one after it.
            seats[HANDS, g, dealer ^ 1 ^ (j & 1)] |= card_bit(deck[g, j])
        upcard = deck[g, DEALT]
        ints[STOCK_TOP, g] = DEALT + 1
        pile[g, 0] = upcard
        ints[DEALER, g] = dealer
        ints[CURRENT, g] = 1 - dealer
        ints[TAKEN, g] = NO_CARD
        ints[TURNS, g] = 0
        ints[UPCARD_DRAWS, g] = 0
        ints[RETURNS, g] = 0
        ints[KIND, g] = LIVE
        ints[WINNER, g] = NO_PLAYER
        ints[POINTS, g] = 0
        ints[KNOCKER, g] = NO_PLAYER
        ints[KNOCK_CARD, g] = NO_CARD
        ints[KNOCKER_DEADWOOD, g] = 0
        ints[DEFENDER_DEADWOOD, g] = 0
        flags[BOTH_PASSED, g] = False
        flags[MUST_KNOCK, g] = False
        flags[CAPPED, g] = False
        if eleven:
            seats[HANDS, g, 1 - dealer] |= card_bit(upcard)
            ints[PILE_LEN, g] = 0
            ints[PILE_TOP, g] = NO_CARD
            words[PILE_MASK, g] = 0
            ints[PHASE, g] = DISCARD
            ints[INITIAL_UPCARD, g] = NO_CARD
            ints[KNOCK_LIMIT, g] = rp[R_KNOCK_LIMIT]
            (ints[BEST_DEADWOOD, g], words[BEST_CARDS, g], words[KNOCK_CARDS, g],
             flags[BIG_GIN_FLAG, g]) = _discard_answers(seats[HANDS, g, 1 - dealer], NO_CARD, ints[KNOCK_LIMIT, g],
                                                        rp[R_BIG_GIN_ON] != 0, slots, per_card)
        else:
            ints[PILE_LEN, g] = 1
            ints[PILE_TOP, g] = upcard
            words[PILE_MASK, g] = card_bit(upcard)
            ints[PHASE, g] = OFFER
            ints[INITIAL_UPCARD, g] = upcard
            ints[KNOCK_LIMIT, g] = _hand_knock_limit(rp[R_OKLAHOMA] != 0, rp[R_KNOCK_LIMIT], rp[R_ACE_LIMIT], upcard)


# ---------------------------------------------------------------------------------------------------------------
# Legal actions
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _legal_words(phase, stock_ok, pile_ok, wall_take, big_gin, must_knock, hand, kept, knock_cards):
    """A game's legal actions as two words (bit ``a`` of the pair for action ``a``)."""
    low = _NO_CARD_BITS[phase * 16 + stock_ok * 8 + pile_ok * 4 + wall_take * 2 + big_gin]
    high = np.uint64(0)
    if phase == DISCARD:
        if not must_knock:
            low |= (hand & ~card_bit(kept)) << np.uint64(DISCARD_BASE)
        low |= knock_cards << np.uint64(KNOCK_BASE)
        high = knock_cards >> np.uint64(64 - KNOCK_BASE)
    return low, high


@njit(cache=True)
def legal_bits(games, rp, ints, flags, words, seats, out):
    """``out`` ((k, 2) uint64): the legal-action bit strings of ``games``, least significant word first."""
    stock_end, discard_taken = N_CARDS - rp[R_WALL], rp[R_DISCARD_TAKEN] != 0
    for i in range(games.size):
        g = games[i]
        out[i, 0], out[i, 1] = _legal_words(
            ints[PHASE, g], ints[STOCK_TOP, g] < stock_end, ints[PILE_LEN, g] > 0 and not flags[BOTH_PASSED, g],
            flags[WALL_TAKE, g], flags[BIG_GIN_FLAG, g], flags[MUST_KNOCK, g], seats[HANDS, g, ints[CURRENT, g]],
            kept_card(discard_taken, ints[TAKEN, g]), words[KNOCK_CARDS, g])


# ---------------------------------------------------------------------------------------------------------------
# Step
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _multiplier(spades_double, initial_upcard):
    """R47: 2 where Oklahoma spade doubling applies to the hand."""
    return 2 if spades_double and initial_upcard >= 0 and initial_upcard // SUIT_BITS == 0 else 1


@njit(cache=True, inline="always")
def _knock_outcome(k, f, knocker, gin_bonus, undercut_bonus, undercut_on_tie):
    """R29-R32: (kind, winner, points before R47) of a knock with knocker deadwood ``k`` and defender deadwood
    ``f`` after layoffs."""
    if k == 0:
        return GIN, knocker, f + gin_bonus
    if f > k:
        return KNOCK, knocker, f - k
    if f == k and not undercut_on_tie:
        return TIE, NO_PLAYER, 0
    return UNDERCUT, 1 - knocker, k - f + undercut_bonus


@njit(cache=True)
def _finish(g, kind, winner, points, knock_card, knocker_deadwood, defender_deadwood, ints, flags):
    """Record game ``g``'s outcome (rare: once per hand, so this one may take the arrays)."""
    ints[KNOCKER, g] = ints[CURRENT, g]
    ints[PHASE, g] = OVER
    ints[TAKEN, g] = NO_CARD
    flags[MUST_KNOCK, g] = False
    ints[KIND, g] = kind
    ints[WINNER, g] = winner
    ints[POINTS, g] = points
    ints[KNOCK_CARD, g] = knock_card
    ints[KNOCKER_DEADWOOD, g] = knocker_deadwood
    ints[DEFENDER_DEADWOOD, g] = defender_deadwood


@njit(cache=True)
def step(games, chosen, known_legal, rp, ints, flags, words, seats, deck, pile):
    """Apply ``chosen[i]`` in game ``games[i]`` for every i. If any action is illegal nothing changes and the
    index of the first such is returned (R18); otherwise -1. ``known_legal``: the games' legal-action words when
    the caller has them, else no rows (they are worked out here)."""
    legal = known_legal
    if legal.shape[0] != games.size:
        legal = np.empty((games.size, ACTION_WORDS), dtype=np.uint64)
        legal_bits(games, rp, ints, flags, words, seats, legal)
    for i in range(games.size):
        a = chosen[i]
        if a < 0 or a >= N_ACTIONS or not (legal[i, a // 64] >> np.uint64(a % 64)) & np.uint64(1):
            return i
    slots, per_card = scratch()
    inner, _ = scratch()
    discard_taken, big_gin_on = rp[R_DISCARD_TAKEN] != 0, rp[R_BIG_GIN_ON] != 0
    max_turns, wall, wall_knock = rp[R_MAX_TURNS], rp[R_WALL], rp[R_WALL_UPCARD_KNOCK] != 0
    max_upcard_draws, repeat_ends = rp[R_MAX_UPCARD_DRAWS], rp[R_REPEAT_DISCARD_ENDS] != 0
    for i in range(games.size):
        g = games[i]
        a = chosen[i]
        player = ints[CURRENT, g]
        top = ints[PILE_TOP, g]
        phase = ints[PHASE, g]
        if a == PASS and phase == OFFER:  # R13, R14
            seats[DECLINED, g, player] |= card_bit(top)
            ints[CURRENT, g] = 1 - player
            if player == ints[DEALER, g]:
                ints[PHASE, g] = DRAW
                flags[BOTH_PASSED, g] = True
        elif a == PASS:  # R38: no knock at the wall; the hand is dead
            ints[PHASE, g] = OVER
            ints[KIND, g] = DEAD
            flags[MUST_KNOCK, g] = False
        elif a == TAKE_DISCARD and phase == DRAW and max_upcard_draws != NO_CAP and \
                ints[UPCARD_DRAWS, g] + 1 >= max_upcard_draws:  # R60: the take that would reach the cap ends the hand
            ints[UPCARD_DRAWS, g] += 1
            ints[PHASE, g] = OVER
            ints[KIND, g] = DEAD
            flags[MUST_KNOCK, g] = False
        elif a == TAKE_DISCARD or a == DRAW_STOCK:  # R13, R15, R38
            if a == TAKE_DISCARD:
                if phase == DRAW:
                    ints[UPCARD_DRAWS, g] += 1  # R60 counts the draw-phase takes
                bit = card_bit(top)
                seats[KNOWN, g, player] |= bit
                length = ints[PILE_LEN, g] - 1
                ints[PILE_LEN, g] = length
                ints[PILE_TOP, g] = pile[g, length - 1] if length > 0 else NO_CARD
                words[PILE_MASK, g] ^= bit
                ints[TAKEN, g] = top
                flags[MUST_KNOCK, g] = phase == WALL
            else:
                seats[DECLINED, g, player] |= card_bit(top)
                bit = card_bit(deck[g, ints[STOCK_TOP, g]])
                ints[STOCK_TOP, g] += 1
                ints[TAKEN, g] = NO_CARD
                flags[BOTH_PASSED, g] = False
            hand = seats[HANDS, g, player] | bit
            seats[HANDS, g, player] = hand
            ints[PHASE, g] = DISCARD
            (ints[BEST_DEADWOOD, g], words[BEST_CARDS, g], words[KNOCK_CARDS, g],
             flags[BIG_GIN_FLAG, g]) = _discard_answers(hand, kept_card(discard_taken, ints[TAKEN, g]),
                                                        ints[KNOCK_LIMIT, g], big_gin_on, slots, per_card)
        elif a == BIG_GIN:  # R24, R29, R33: the defender's plain deadwood plus the bonus
            f = deadwood_of(seats[HANDS, g, 1 - player], slots)
            points = (f + rp[R_BIG_GIN_BONUS]) * _multiplier(rp[R_SPADES_DOUBLE] != 0, ints[INITIAL_UPCARD, g])
            _finish(g, BIG_GIN_KIND, player, points, NO_CARD, 0, f, ints, flags)
        else:  # a discard (R16), or a knock (R20-R23, R26-R35: lay down and score)
            knock = a >= KNOCK_BASE
            card = a - KNOCK_BASE if knock else a - DISCARD_BASE
            bit = card_bit(card)
            seats[HANDS, g, player] ^= bit
            seats[KNOWN, g, player] &= ~bit
            length = ints[PILE_LEN, g]
            pile[g, length] = card
            ints[PILE_LEN, g] = length + 1
            ints[PILE_TOP, g] = card
            words[PILE_MASK, g] |= bit
            if knock:
                k, f = showdown_of(seats[HANDS, g, player], seats[HANDS, g, 1 - player], rp[R_LAYOFFS] != 0, slots,
                                   inner)
                kind, winner, points = _knock_outcome(k, f, player, rp[R_GIN_BONUS], rp[R_UNDERCUT_BONUS],
                                                      rp[R_UNDERCUT_ON_TIE] != 0)
                points *= _multiplier(rp[R_SPADES_DOUBLE] != 0, ints[INITIAL_UPCARD, g])
                _finish(g, kind, winner, points, card, k, f, ints, flags)
                continue
            # The hand may die here (R19, R37, R61) or reach the wall (R38). R61: a return puts back the card just
            # taken from the pile; any other discard breaks the run of returns.
            returns = ints[RETURNS, g] + 1 if card == ints[TAKEN, g] else 0
            ints[RETURNS, g] = returns
            seats[DISCARDED, g, player] |= bit
            ints[CURRENT, g] = 1 - player
            ints[TAKEN, g] = NO_CARD
            turns = ints[TURNS, g] + 1
            ints[TURNS, g] = turns
            capped = max_turns != NO_CAP and turns >= max_turns
            # The turn cap (R19) and the second return in a row (R61) end the hand before the wall (R38).
            ended = capped or (repeat_ends and returns >= 2)
            ints[PHASE, g] = DRAW
            if not ended and N_CARDS - ints[STOCK_TOP, g] <= wall and wall_knock:
                ints[PHASE, g] = WALL
                flags[WALL_TAKE, g] = _wall_take(seats[HANDS, g, 1 - player], card, discard_taken,
                                                 ints[KNOCK_LIMIT, g], big_gin_on, slots, per_card)
            elif ended or N_CARDS - ints[STOCK_TOP, g] <= wall:
                ints[PHASE, g] = OVER
                ints[KIND, g] = DEAD
                flags[MUST_KNOCK, g] = False
                flags[CAPPED, g] = capped
    return -1
