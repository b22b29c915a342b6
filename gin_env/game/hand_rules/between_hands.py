"""What a finished hand means for the game around it (docs/rules.md R19a, R39, R41-R44): dead hands in a row that
abandon a game, who deals next, and the final totals of a finished game. Plain arithmetic on ints, or on numpy
arrays of them, so that the scalar games (``match``, ``three_players``, ``four_players``) and the batched table call
the same functions."""

from __future__ import annotations

from gin_env.game.hand_rules.knock import NO_PLAYER


def dead_in_row_after(dead_in_row, dead):
    """R19a: the dead hands in a row after a hand that was ``dead`` or not."""
    return (dead_in_row + 1) * dead


def abandons(rules, dead_in_row):
    """R19a: ``dead_in_row`` dead hands in a row abandon the game (never when ``max_dead_hands`` is None)."""
    return (rules.max_dead_hands is not None) & (dead_in_row >= (rules.max_dead_hands or 0))


def next_dealer(rules, dealer, winner):
    """R39, R44: who deals after a hand dealt by ``dealer`` and won by ``winner`` (NO_PLAYER when nobody won):
    ``dealer_rotation`` after a scored hand, ``dead_hand_dealer`` after a dead hand or one with no winner."""
    if rules.dealer_rotation == "winner":
        scored = winner
    elif rules.dealer_rotation == "loser":
        scored = 1 - winner
    else:
        scored = 1 - dealer
    unscored = dealer ^ (rules.dead_hand_dealer == "rotate")
    return unscored + (winner != NO_PLAYER) * (scored - unscored)


def final_total(rules, points, boxes, other_boxes, won, decided):
    """R41-R43 (R53 for three players, R57 for teams): a side's final total in a finished game. ``points`` and
    ``boxes``: its hand points and boxes (hands won, or deals a team scored in); ``other_boxes``: the other sides'
    boxes together; ``won``: it won the game; ``decided``: some side won (not an abandoned game, R19a, whose totals
    are the points alone). The winner's total is its points, ``box_bonus`` per box and ``game_bonus``, under the
    ``shutout`` rule when no other side has a box (R42); every other side's is its points and ``box_bonus`` per box."""
    doubled = won & (other_boxes == 0)
    total = (points * (1 + doubled * (rules.shutout == "double_hand_points")) + rules.box_bonus * boxes
             + won * rules.game_bonus * (1 + doubled * (rules.shutout == "double_game_bonus")))
    total = total * (1 + doubled * (rules.shutout == "double_total"))
    return points + decided * (total - points)
