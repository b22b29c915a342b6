"""The batched engine's per-game loops, compiled with numba: deal, legal actions and step (R10-R39, R45-R47).

This module owns how ``HandBatch``'s arrays move through a hand: each kernel walks the games it is given one at a
time, so a batch step costs one call whatever the mix of actions, instead of a few array passes per rule. The rules
themselves are ``game.hand_rules``' functions, inlined here compiled; the ``Rules`` options they read arrive as
``rule_values`` (a row per rule module). State lives in ``HandBatch``'s grouped arrays (``numbers``, ``switches``,
``card_masks`` rows by the field constants below, ``player_masks`` by player-mask field, then ``deck`` and
``pile``), which the kernels read and write in place. The discard-phase answers (least deadwood, best cards, knock
cards, big gin) are solved when a player comes to hold 11 cards, and R38's wall check when a hand reaches the wall,
and a knock's showdown with layoffs in the step that knocks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.batch.bits import card_bit
from gin_env.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, N_ACTIONS, PASS, TAKE_DISCARD
from gin_env.game.cards import NO_CARD
from gin_env.game.engine import DEALT, DISCARD, DRAW, OFFER, OVER, PHASE_NAMES, WALL
from gin_env.game.hand_rules import KNOCK_ROW, TURN_ROW, knock, turn
from gin_env.game.hand_rules.knock import (  # noqa: F401 - the outcome codes are part of this module's interface
    BIG_GIN_KIND,
    DEAD,
    GIN,
    KIND_NAMES,
    KNOCK,
    NO_PLAYER,
    TIE,
    UNDERCUT,
)
from gin_env.game.hand_rules.taken_card import kept_card
from gin_env.game.solver.kernels import N_CARDS, deadwood_of, discard_phase_of, scratch, showdown_of

#: ``HandBatch.kind`` while a hand is live.
LIVE = -1

#: Rows of ``HandBatch.numbers`` (int64 per game: card ids, counts, players, the phase and the outcome).
(STOCK_TOP, PILE_LEN, PILE_TOP, DEALER, CURRENT, PHASE, TAKEN, INITIAL_UPCARD, KNOCK_LIMIT, TURNS, KIND, WINNER,
 POINTS, KNOCKER, KNOCK_CARD, KNOCKER_DEADWOOD, DEFENDER_DEADWOOD, BEST_DEADWOOD, UPCARD_DRAWS, RETURNS) = range(20)
N_NUMBERS = 20
#: Rows of ``HandBatch.switches`` (bool per game).
BOTH_PASSED, MUST_KNOCK, BIG_GIN_FLAG, WALL_TAKE, CAPPED = range(5)
N_SWITCHES = 5
#: Rows of ``HandBatch.card_masks`` (uint64 card mask per game).
PILE_MASK, BEST_CARDS, KNOCK_CARDS = range(3)
N_CARD_MASKS = 3
#: Rows of ``HandBatch.player_masks`` ((n, 2) uint64 card masks, by game and player).
HANDS, KNOWN, DISCARDED, DECLINED = range(4)
N_PLAYER_MASKS = 4


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
def _discard_answers(hand, kept, limit, knock_values, slots, per_card):
    """For a player holding the 11 cards of ``hand``: the least deadwood over the cards that may leave the hand
    and those cards (R16: ``kept`` stays), the knock cards (R20) and big gin (R24).
    Helpers here take and return scalars: numba compiles a per-game helper that takes the state arrays several
    times slower."""
    best, best_cards, knock_cards, melded = discard_phase_of(hand, kept, limit, slots, per_card)
    return best, best_cards, knock_cards, knock.big_gin_legal(knock_values, melded)


@njit(cache=True, inline="always")
def _wall_take(hand, top, limit, rule_values, slots, per_card):
    """R38: whether the player at the wall may take the top discard ``top``."""
    kept = kept_card(rule_values[TURN_ROW, turn.DISCARD_TAKEN], top)
    _, _, knock_cards, big_gin = _discard_answers(hand | card_bit(top), kept, limit, rule_values[KNOCK_ROW], slots,
                                                  per_card)
    return turn.wall_take_allowed(knock_cards, big_gin)


@njit(cache=True, inline="always")
def _solve_discard_phase(g, rule_values, numbers, switches, card_masks, player_masks, slots, per_card):
    """Fill game ``g``'s discard-phase answers for the player to act, who holds 11 cards."""
    kept = kept_card(rule_values[TURN_ROW, turn.DISCARD_TAKEN], numbers[TAKEN, g])
    (numbers[BEST_DEADWOOD, g], card_masks[BEST_CARDS, g], card_masks[KNOCK_CARDS, g],
     switches[BIG_GIN_FLAG, g]) = _discard_answers(player_masks[HANDS, g, numbers[CURRENT, g]], kept,
                                                   numbers[KNOCK_LIMIT, g], rule_values[KNOCK_ROW], slots, per_card)


@njit(cache=True)
def solve_entered(rule_values, numbers, switches, card_masks, player_masks):
    """Fill the discard-phase answers of every game in the discard phase and the wall check of every game at the
    wall (a batch built from states that arrive there)."""
    slots, per_card = scratch()
    for g in range(numbers.shape[1]):
        if numbers[PHASE, g] == DISCARD:
            _solve_discard_phase(g, rule_values, numbers, switches, card_masks, player_masks, slots, per_card)
        elif numbers[PHASE, g] == WALL:
            switches[WALL_TAKE, g] = _wall_take(player_masks[HANDS, g, numbers[CURRENT, g]], numbers[PILE_TOP, g],
                                                numbers[KNOCK_LIMIT, g], rule_values, slots, per_card)


# ---------------------------------------------------------------------------------------------------------------
# Deal
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True)
def deal(games, decks, dealers, rule_values, numbers, switches, card_masks, player_masks, deck, pile):
    """Deal new hands in ``games`` from ``decks`` ((k, 52) permutations, index 0 on top) (R10)."""
    eleven = rule_values[TURN_ROW, turn.ELEVEN_DEAL] != 0
    slots, per_card = scratch()
    for i in range(games.size):
        g = games[i]
        dealer = dealers[i]
        for c in range(N_CARDS):
            deck[g, c] = decks[i, c]
        for p in range(2):
            for field in range(N_PLAYER_MASKS):
                player_masks[field, g, p] = 0
        for j in range(DEALT):
            # The non-dealer gets the first card and every other one after it.
            player_masks[HANDS, g, dealer ^ 1 ^ (j & 1)] |= card_bit(deck[g, j])
        upcard = deck[g, DEALT]
        numbers[STOCK_TOP, g] = DEALT + 1
        pile[g, 0] = upcard
        numbers[DEALER, g] = dealer
        numbers[CURRENT, g] = 1 - dealer
        numbers[TAKEN, g] = NO_CARD
        for row in (TURNS, UPCARD_DRAWS, RETURNS, POINTS, KNOCKER_DEADWOOD, DEFENDER_DEADWOOD):
            numbers[row, g] = 0
        numbers[KIND, g] = LIVE
        numbers[WINNER, g] = NO_PLAYER
        numbers[KNOCKER, g] = NO_PLAYER
        numbers[KNOCK_CARD, g] = NO_CARD
        switches[BOTH_PASSED, g] = False
        switches[MUST_KNOCK, g] = False
        switches[CAPPED, g] = False
        if eleven:
            player_masks[HANDS, g, 1 - dealer] |= card_bit(upcard)
            numbers[PILE_LEN, g] = 0
            numbers[PILE_TOP, g] = NO_CARD
            card_masks[PILE_MASK, g] = 0
            numbers[PHASE, g] = DISCARD
            numbers[INITIAL_UPCARD, g] = NO_CARD
        else:
            numbers[PILE_LEN, g] = 1
            numbers[PILE_TOP, g] = upcard
            card_masks[PILE_MASK, g] = card_bit(upcard)
            numbers[PHASE, g] = OFFER
            numbers[INITIAL_UPCARD, g] = upcard
        numbers[KNOCK_LIMIT, g] = knock.hand_knock_limit(rule_values[KNOCK_ROW], numbers[INITIAL_UPCARD, g])
        if eleven:
            _solve_discard_phase(g, rule_values, numbers, switches, card_masks, player_masks, slots, per_card)


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
def legal_bits(games, rule_values, numbers, switches, card_masks, player_masks, out):
    """``out`` ((k, 2) uint64): the legal-action bit strings of ``games``, least significant word first."""
    turn_values = rule_values[TURN_ROW]
    for i in range(games.size):
        g = games[i]
        out[i, 0], out[i, 1] = _legal_words(
            numbers[PHASE, g], turn.can_draw_stock(turn_values, N_CARDS - numbers[STOCK_TOP, g]),
            numbers[PILE_LEN, g] > 0 and not switches[BOTH_PASSED, g], switches[WALL_TAKE, g],
            switches[BIG_GIN_FLAG, g], switches[MUST_KNOCK, g], player_masks[HANDS, g, numbers[CURRENT, g]],
            kept_card(turn_values[turn.DISCARD_TAKEN], numbers[TAKEN, g]), card_masks[KNOCK_CARDS, g])


# ---------------------------------------------------------------------------------------------------------------
# Step
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True)
def _finish(g, kind, winner, points, knock_card, knocker_deadwood, defender_deadwood, numbers, switches):
    """Record game ``g``'s outcome (rare: once per hand, so this one may take the arrays)."""
    numbers[KNOCKER, g] = numbers[CURRENT, g]
    numbers[PHASE, g] = OVER
    numbers[TAKEN, g] = NO_CARD
    switches[MUST_KNOCK, g] = False
    numbers[KIND, g] = kind
    numbers[WINNER, g] = winner
    numbers[POINTS, g] = points
    numbers[KNOCK_CARD, g] = knock_card
    numbers[KNOCKER_DEADWOOD, g] = knocker_deadwood
    numbers[DEFENDER_DEADWOOD, g] = defender_deadwood


@njit(cache=True, inline="always")
def _end_dead(g, capped, numbers, switches):
    """Game ``g``'s hand ends dead (R37, R38, R60, R61), ``capped`` when by the turn cap (R19)."""
    numbers[PHASE, g] = OVER
    numbers[KIND, g] = DEAD
    switches[MUST_KNOCK, g] = False
    switches[CAPPED, g] = capped


@njit(cache=True, inline="always")
def _first_illegal(games, chosen, known_legal, rule_values, numbers, switches, card_masks, player_masks):
    """The index of the first of ``chosen`` that is illegal in its game, or -1 (``known_legal``: the games'
    legal-action words, or no rows to work them out here)."""
    legal = known_legal
    if legal.shape[0] != games.size:
        legal = np.empty((games.size, ACTION_WORDS), dtype=np.uint64)
        legal_bits(games, rule_values, numbers, switches, card_masks, player_masks, legal)
    for i in range(games.size):
        a = chosen[i]
        if a < 0 or a >= N_ACTIONS or not (legal[i, a // 64] >> np.uint64(a % 64)) & np.uint64(1):
            return i
    return -1


@njit(cache=True, inline="always")
def _pass(g, player, rule_values, numbers, switches, player_masks):
    """PASS: decline the upcard in the offer (R13, R14), or let the hand die at the wall (R38)."""
    if numbers[PHASE, g] != OFFER:
        _end_dead(g, False, numbers, switches)
        return
    player_masks[DECLINED, g, player] |= card_bit(numbers[PILE_TOP, g])
    numbers[CURRENT, g] = 1 - player
    if player == numbers[DEALER, g]:
        numbers[PHASE, g] = DRAW
        switches[BOTH_PASSED, g] = True


@njit(cache=True, inline="always")
def _take(g, a, player, rule_values, numbers, switches, card_masks, player_masks, deck, pile, slots, per_card):
    """TAKE_DISCARD or DRAW_STOCK (R13, R15, R38, R60): the player comes to hold 11 cards, unless the take would
    reach the cap of upcard draws and ends the hand instead."""
    phase = numbers[PHASE, g]
    top = numbers[PILE_TOP, g]
    if a == TAKE_DISCARD:
        if phase == DRAW:
            numbers[UPCARD_DRAWS, g] += 1  # R60 counts the draw-phase takes
            if turn.upcard_take_ends(rule_values[TURN_ROW], numbers[UPCARD_DRAWS, g]):
                _end_dead(g, False, numbers, switches)
                return
        bit = card_bit(top)
        player_masks[KNOWN, g, player] |= bit
        length = numbers[PILE_LEN, g] - 1
        numbers[PILE_LEN, g] = length
        numbers[PILE_TOP, g] = pile[g, length - 1] if length > 0 else NO_CARD
        card_masks[PILE_MASK, g] ^= bit
        numbers[TAKEN, g] = top
        switches[MUST_KNOCK, g] = phase == WALL
    else:
        player_masks[DECLINED, g, player] |= card_bit(top)
        bit = card_bit(deck[g, numbers[STOCK_TOP, g]])
        numbers[STOCK_TOP, g] += 1
        numbers[TAKEN, g] = NO_CARD
        switches[BOTH_PASSED, g] = False
    player_masks[HANDS, g, player] |= bit
    numbers[PHASE, g] = DISCARD
    _solve_discard_phase(g, rule_values, numbers, switches, card_masks, player_masks, slots, per_card)


@njit(cache=True, inline="always")
def _knock(g, card, player, rule_values, numbers, switches, player_masks, slots, inner):
    """A knock with ``card`` (R20-R23, R26-R35: lay down and score), or with NO_CARD a big gin (R24, R29, R33: the
    defender's plain deadwood plus the bonus)."""
    knock_values = rule_values[KNOCK_ROW]
    upcard = numbers[INITIAL_UPCARD, g]
    defender = player_masks[HANDS, g, 1 - player]
    if card == NO_CARD:
        f = deadwood_of(defender, slots)
        _finish(g, BIG_GIN_KIND, player, knock.big_gin_points(knock_values, f, upcard), NO_CARD, 0, f, numbers,
                switches)
        return
    k, f = showdown_of(player_masks[HANDS, g, player], defender, knock_values[knock.LAYOFFS] != 0, slots, inner)
    kind, winner, points = knock.knock_outcome(knock_values, k, f, player, upcard)
    _finish(g, kind, winner, points, card, k, f, numbers, switches)


@njit(cache=True, inline="always")
def _after_discard(g, card, player, rule_values, numbers, switches, player_masks, slots, per_card):
    """The turn passes after discarding ``card``; the hand may die here (R19, R37, R61) or reach the wall (R38)."""
    returns = turn.returns_after(numbers[RETURNS, g], card, numbers[TAKEN, g])
    numbers[RETURNS, g] = returns
    player_masks[DISCARDED, g, player] |= card_bit(card)
    numbers[CURRENT, g] = 1 - player
    numbers[TAKEN, g] = NO_CARD
    numbers[TURNS, g] += 1
    after = turn.after_discard(rule_values[TURN_ROW], numbers[TURNS, g], returns, N_CARDS - numbers[STOCK_TOP, g])
    if after == turn.NEXT_TURN:
        numbers[PHASE, g] = DRAW
    elif after == turn.WALL_OFFER:
        numbers[PHASE, g] = WALL
        switches[WALL_TAKE, g] = _wall_take(player_masks[HANDS, g, 1 - player], card, numbers[KNOCK_LIMIT, g],
                                            rule_values, slots, per_card)
    else:
        _end_dead(g, after == turn.CAPPED, numbers, switches)


@njit(cache=True)
def step(games, chosen, known_legal, rule_values, numbers, switches, card_masks, player_masks, deck, pile):
    """Apply ``chosen[i]`` in game ``games[i]`` for every i. If any action is illegal nothing changes and the
    index of the first such is returned (R18); otherwise -1. ``known_legal``: the games' legal-action words when
    the caller has them, else no rows (they are worked out here)."""
    bad = _first_illegal(games, chosen, known_legal, rule_values, numbers, switches, card_masks, player_masks)
    if bad >= 0:
        return bad
    slots, per_card = scratch()
    inner, _ = scratch()
    for i in range(games.size):
        g = games[i]
        a = chosen[i]
        player = numbers[CURRENT, g]
        if a == PASS:
            _pass(g, player, rule_values, numbers, switches, player_masks)
        elif a == TAKE_DISCARD or a == DRAW_STOCK:
            _take(g, a, player, rule_values, numbers, switches, card_masks, player_masks, deck, pile, slots,
                  per_card)
        elif a == BIG_GIN:
            _knock(g, NO_CARD, player, rule_values, numbers, switches, player_masks, slots, inner)
        else:  # a discard (R16), or a knock: the card goes face up (face down for a knock, R21) on the pile
            card = a - KNOCK_BASE if a >= KNOCK_BASE else a - DISCARD_BASE
            bit = card_bit(card)
            player_masks[HANDS, g, player] ^= bit
            player_masks[KNOWN, g, player] &= ~bit
            length = numbers[PILE_LEN, g]
            pile[g, length] = card
            numbers[PILE_LEN, g] = length + 1
            numbers[PILE_TOP, g] = card
            card_masks[PILE_MASK, g] |= bit
            if a >= KNOCK_BASE:
                _knock(g, card, player, rule_values, numbers, switches, player_masks, slots, inner)
            else:
                _after_discard(g, card, player, rule_values, numbers, switches, player_masks, slots, per_card)
    return -1
