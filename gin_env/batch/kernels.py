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
from gin_env.game.actions import (
    BIG_GIN,
    DISCARD_BASE,
    DISCARD_JOKER,
    DRAW_STOCK,
    KNOCK_BASE,
    KNOCK_JOKER,
    MAX_ACTIONS,
    N_ACTIONS,
    PASS,
    TAKE_DISCARD,
)
from gin_env.game.cards import FULL_DECK, N_CARDS, NO_CARD
from gin_env.game.engine import DEALT, DISCARD, OFFER, OVER, WALL
from gin_env.game.hand_rules import JOKERS_ROW, KNOCK_ROW, TURN_ROW, knock, phases, turn
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
from gin_env.game.hand_rules.taken_card import kept_card, known_after_discard, recorded
from gin_env.game.solver.kernels import deadwood_of, discard_phase_of, scratch_of
from gin_env.game.solver.melds import showdown_of

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


#: The legal-action bit string's words (``phases.legal_words``).
ACTION_WORDS = phases.ACTION_WORDS
_NATURALS = np.uint64(FULL_DECK)
_JOKER_SHIFT = np.uint64(N_CARDS)


@njit(cache=True, inline="always")
def deck_jokers(turn_values):
    """The uint64 mask of the deck's jokers (``Deck.joker_mask``), from its size in ``turn_values``."""
    return ~_NATURALS & ((np.uint64(1) << np.uint64(turn_values[turn.DECK_CARDS])) - np.uint64(1))


@njit(cache=True, inline="always")
def _action_card(a, hand):
    """The card a DISCARD or KNOCK action moves: its own, or for a joker action the lowest joker of ``hand`` (R72)."""
    if a >= DISCARD_JOKER:
        return N_CARDS + (0 if (hand >> _JOKER_SHIFT) & np.uint64(1) else 1)
    return a - KNOCK_BASE if a >= KNOCK_BASE else a - DISCARD_BASE


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
    slots, per_card = scratch_of(rule_values[JOKERS_ROW])
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
    """Deal new hands in ``games`` from ``decks`` ((k, cards of the deck) permutations, index 0 on top) (R10)."""
    eleven = rule_values[TURN_ROW, turn.ELEVEN_DEAL] != 0
    slots, per_card = scratch_of(rule_values[JOKERS_ROW])
    for i in range(games.size):
        g = games[i]
        dealer = dealers[i]
        for c in range(deck.shape[1]):
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

@njit(cache=True)
def legal_bits(games, rule_values, numbers, switches, card_masks, player_masks, out):
    """``out`` ((k, 2) uint64): the legal-action bit strings of ``games``, least significant word first."""
    turn_values = rule_values[TURN_ROW]
    for i in range(games.size):
        g = games[i]
        out[i, 0], out[i, 1] = phases.legal_words(
            numbers[PHASE, g], turn.can_draw_stock(turn_values, turn_values[turn.DECK_CARDS] - numbers[STOCK_TOP, g]),
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
        if a < 0 or a >= MAX_ACTIONS or not (legal[i, a // 64] >> np.uint64(a % 64)) & np.uint64(1):
            return i
    return -1


@njit(cache=True, inline="always")
def _pass(g, player, rule_values, numbers, switches, player_masks):
    """PASS: decline the upcard in the offer (R13, R14), or let the hand die at the wall (R38)."""
    phase, numbers[CURRENT, g], switches[BOTH_PASSED, g] = phases.after_pass(numbers[PHASE, g], player,
                                                                              numbers[DEALER, g])
    if phase == OVER:
        _end_dead(g, False, numbers, switches)
        return
    player_masks[DECLINED, g, player] = recorded(player_masks[DECLINED, g, player], card_bit(numbers[PILE_TOP, g]),
                                                 deck_jokers(rule_values[TURN_ROW]))
    numbers[PHASE, g] = phase


@njit(cache=True, inline="always")
def _take(g, a, player, rule_values, numbers, switches, card_masks, player_masks, deck, pile, slots, per_card):
    """TAKE_DISCARD or DRAW_STOCK (R13, R15, R38, R60): the player comes to hold 11 cards, unless the take would
    reach the cap of upcard draws and ends the hand instead."""
    top = numbers[PILE_TOP, g]
    phase, must_knock, numbers[UPCARD_DRAWS, g] = phases.after_take(rule_values[TURN_ROW], numbers[PHASE, g],
                                                                    a == TAKE_DISCARD, numbers[UPCARD_DRAWS, g])
    if phase == OVER:
        _end_dead(g, False, numbers, switches)
        return
    if a == TAKE_DISCARD:
        bit = card_bit(top)
        player_masks[KNOWN, g, player] |= bit
        length = numbers[PILE_LEN, g] - 1
        numbers[PILE_LEN, g] = length
        numbers[PILE_TOP, g] = pile[g, length - 1] if length > 0 else NO_CARD
        card_masks[PILE_MASK, g] ^= bit
        numbers[TAKEN, g] = top
    else:
        player_masks[DECLINED, g, player] = recorded(player_masks[DECLINED, g, player], card_bit(top),
                                                     deck_jokers(rule_values[TURN_ROW]))
        bit = card_bit(deck[g, numbers[STOCK_TOP, g]])
        numbers[STOCK_TOP, g] += 1
        numbers[TAKEN, g] = NO_CARD
        switches[BOTH_PASSED, g] = False
    player_masks[HANDS, g, player] |= bit
    numbers[PHASE, g] = phase
    switches[MUST_KNOCK, g] = must_knock
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
    player_masks[DISCARDED, g, player] = recorded(player_masks[DISCARDED, g, player], card_bit(card),
                                                  deck_jokers(rule_values[TURN_ROW]))
    numbers[TAKEN, g] = NO_CARD
    numbers[TURNS, g] += 1
    phase, numbers[CURRENT, g], capped = phases.after_discard(
        rule_values[TURN_ROW], player, numbers[TURNS, g], returns,
        rule_values[TURN_ROW, turn.DECK_CARDS] - numbers[STOCK_TOP, g])
    if phase == OVER:
        _end_dead(g, capped, numbers, switches)
        return
    numbers[PHASE, g] = phase
    if phase == WALL:
        switches[WALL_TAKE, g] = _wall_take(player_masks[HANDS, g, 1 - player], card, numbers[KNOCK_LIMIT, g],
                                            rule_values, slots, per_card)


@njit(cache=True)
def step(games, chosen, known_legal, rule_values, numbers, switches, card_masks, player_masks, deck, pile):
    """Apply ``chosen[i]`` in game ``games[i]`` for every i. If any action is illegal nothing changes and the
    index of the first such is returned (R18); otherwise -1. ``known_legal``: the games' legal-action words when
    the caller has them, else no rows (they are worked out here)."""
    bad = _first_illegal(games, chosen, known_legal, rule_values, numbers, switches, card_masks, player_masks)
    if bad >= 0:
        return bad
    slots, per_card = scratch_of(rule_values[JOKERS_ROW])
    inner, _ = scratch_of(rule_values[JOKERS_ROW])
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
            card = _action_card(a, player_masks[HANDS, g, player])
            bit = card_bit(card)
            player_masks[HANDS, g, player] ^= bit
            player_masks[KNOWN, g, player] = known_after_discard(player_masks[KNOWN, g, player], bit,
                                                                 deck_jokers(rule_values[TURN_ROW]))
            length = numbers[PILE_LEN, g]
            pile[g, length] = card
            numbers[PILE_LEN, g] = length + 1
            numbers[PILE_TOP, g] = card
            card_masks[PILE_MASK, g] |= bit
            if a == KNOCK_JOKER or KNOCK_BASE <= a < N_ACTIONS:
                _knock(g, card, player, rule_values, numbers, switches, player_masks, slots, inner)
            else:
                _after_discard(g, card, player, rule_values, numbers, switches, player_masks, slots, per_card)
    return -1
