"""The table drawn as an RGB picture (``render_mode="rgb_array"``), with numpy alone: a 3x5 bitmap font for ranks,
digits and words, 5x5 suit signs, cards as rectangles.

This module owns what a frame shows and where: the opponent's hand at the top (face down until the showdown, then
face up), the stock with its count and the top of the discard pile in the middle, the viewer's hand face up at the
bottom, the scores, whose turn it is, and after a hand its result. It decides nothing about the game: it draws the
``HandState`` and the words it is given.
"""

from __future__ import annotations

import numpy as np

from gin_env.game import cards, engine
from gin_env.game.engine import HandState

#: The frame size in pixels (both multiples of 16, which video encoders want).
HEIGHT, WIDTH = 288, 560
CARD_H, CARD_W, CARD_STEP = 56, 40, 44
#: Top rows of the opponent's hand, the piles and the viewer's hand.
OPPONENT_ROW, PILE_ROW, VIEWER_ROW = 22, 104, 200
FELT = (20, 100, 50)
WHITE, INK, BACK, GOLD = (250, 250, 245), (25, 25, 25), (40, 60, 160), (250, 210, 60)
#: Four colours, one per suit (S, H, D, C), as the terminal game draws them.
SUIT_COLOURS = ((25, 25, 25), (205, 20, 20), (20, 80, 210), (20, 140, 40))
#: A joker's colour, no suit's (R62: a joker has no suit), and what its face spells where a rank would stand.
JOKER_COLOUR = (150, 40, 170)
JOKER_MARK = "JK"

#: 3x5 glyphs: five rows, top to bottom, ``#`` lit.
FONT = {
    "A": ".#. #.# ### #.# #.#", "B": "##. #.# ##. #.# ##.", "C": ".## #.. #.. #.. .##", "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###", "F": "### #.. ##. #.. #..", "G": ".## #.. #.# #.# .##", "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###", "J": "..# ..# ..# #.# .#.", "K": "#.# #.# ##. #.# #.#", "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#", "N": "##. #.# #.# #.# #.#", "O": ".#. #.# #.# #.# .#.", "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##", "R": "##. #.# ##. #.# #.#", "S": ".## #.. .#. ..# ##.", "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###", "V": "#.# #.# #.# #.# .#.", "W": "#.# #.# ### ### #.#", "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.", "Z": "### ..# .#. #.. ###", "0": "### #.# #.# #.# ###", "1": ".#. ##. .#. .#. ###",
    "2": "##. ..# .#. #.. ###", "3": "##. ..# .#. ..# ##.", "4": "#.# #.# ### ..# ..#", "5": "### #.. ##. ..# ##.",
    "6": ".## #.. ### #.# ###", "7": "### ..# .#. .#. .#.", "8": "### #.# ### #.# ###", "9": "### #.# ### ..# ##.",
    "+": "... .#. ### .#. ...", "-": "... ... ### ... ...", ":": "... .#. ... .#. ...", "/": "..# ..# .#. #.. #..",
    ".": "... ... ... ... .#.", "(": "..# .#. .#. .#. ..#", ")": "#.. .#. .#. .#. #..", ",": "... ... ... .#. #..",
    " ": "... ... ... ... ...",
}
#: 5x5 suit signs in the order of ``cards.SUITS``.
SUIT_SIGNS = (
    "..#.. .###. ##### ..#.. .###.",  # spade
    ".#.#. ##### ##### .###. ..#..",  # heart
    "..#.. .###. ##### .###. ..#..",  # diamond
    ".###. .###. ##### ..#.. .###.",  # club
)
#: A joker's sign, a star, drawn where a natural card has its suit's.
JOKER_SIGN = "#.#.# .###. ##### .###. #.#.#"


def _bitmap(pattern: str) -> np.ndarray:
    """A glyph written as space-separated rows of ``.`` and ``#`` as a bool array."""
    return np.array([[c == "#" for c in row] for row in pattern.split()], dtype=bool)


_GLYPHS = {char: _bitmap(pattern) for char, pattern in FONT.items()}
_SIGNS = tuple(_bitmap(pattern) for pattern in SUIT_SIGNS)
_JOKER_SIGN = _bitmap(JOKER_SIGN)


def _stamp(img: np.ndarray, y: int, x: int, bitmap: np.ndarray, colour, scale: int) -> None:
    """Paint the lit pixels of ``bitmap``, each as a ``scale`` x ``scale`` square, with its top left at (y, x)."""
    big = np.kron(bitmap, np.ones((scale, scale), dtype=bool))
    region = img[y:y + big.shape[0], x:x + big.shape[1]]
    region[big[:region.shape[0], :region.shape[1]]] = colour


def text(img: np.ndarray, y: int, x: int, words: str, colour=WHITE, scale: int = 2) -> int:
    """Write ``words`` (upper-cased; characters outside :data:`FONT` refused) at (y, x); returns the x after it."""
    for char in words.upper():
        if char not in _GLYPHS:
            raise ValueError(f"the frame font has no {char!r}; it writes {''.join(sorted(FONT))}")
        _stamp(img, y, x, _GLYPHS[char], colour, scale)
        x += 4 * scale
    return x


def _box(img: np.ndarray, y: int, x: int, height: int, width: int, fill, border=INK) -> None:
    img[y:y + height, x:x + width] = border
    img[y + 1:y + height - 1, x + 1:x + width - 1] = fill


def card_face(img: np.ndarray, y: int, x: int, card_id: int) -> None:
    """One card face up: its rank and a small suit sign in the corner, a large suit sign below, in its suit's
    colour. A joker spells ``JK`` with stars in a colour of its own, the same for every joker (R72)."""
    _box(img, y, x, CARD_H, CARD_W, WHITE)
    if cards.LARGEST_DECK.is_joker(card_id):
        colour, sign = JOKER_COLOUR, _JOKER_SIGN
        text(img, y + 4, x + 4, JOKER_MARK, colour, scale=3)
    else:
        colour, sign = SUIT_COLOURS[cards.suit(card_id)], _SIGNS[cards.suit(card_id)]
        _stamp(img, y + 4, x + 4, _GLYPHS[cards.RANKS[cards.rank(card_id)]], colour, 3)
    _stamp(img, y + 22, x + 4, sign, colour, 2)
    _stamp(img, y + 36, x + 20, sign, colour, 3)


def card_back(img: np.ndarray, y: int, x: int) -> None:
    """One card face down: a framed, striped back that shows nothing of the card."""
    _box(img, y, x, CARD_H, CARD_W, BACK, WHITE)
    stripes = (np.add.outer(np.arange(CARD_H - 8), np.arange(CARD_W - 8)) // 3) % 2 == 0
    img[y + 4:y + CARD_H - 4, x + 4:x + CARD_W - 4][stripes] = (70, 95, 200)


def _hand(img: np.ndarray, y: int, hand_mask: int, face_up: bool) -> None:
    ids = cards.to_ids(hand_mask)
    left = (WIDTH - CARD_STEP * len(ids) + (CARD_STEP - CARD_W)) // 2
    for i, card_id in enumerate(ids):
        (card_face(img, y, left + i * CARD_STEP, card_id) if face_up else card_back(img, y, left + i * CARD_STEP))


def draw(state: HandState, viewer: int, names: tuple[str, str], scores: tuple[int, int] | None = None,
         result: str | None = None) -> np.ndarray:
    """The table as ``viewer`` may see it, ``(HEIGHT, WIDTH, 3)`` uint8.

    ``names`` and ``scores`` are the viewer's then the opponent's (scores None outside a match). The opponent's
    hand shows face down while the hand is in play and face up once it is over (the showdown); ``result``, if
    given, is a line about the last hand's outcome, drawn in gold."""
    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    img[:] = FELT
    opponent = 1 - viewer
    over = state.phase == engine.OVER

    def label(player: int, name: str, score: int | None) -> str:
        parts = [name, "DEALER" if state.dealer == player else "", "" if score is None else f"SCORE {score}",
                 "TO ACT" if not over and state.current == player else ""]
        return "  ".join(part for part in parts if part)

    text(img, 6, 8, label(opponent, names[1], None if scores is None else scores[1]))
    _hand(img, OPPONENT_ROW, state.hands[opponent], face_up=over)
    stock_x, pile_x = 120, 200
    stock = engine.stock_size(state)
    if stock:
        card_back(img, PILE_ROW, stock_x)
    text(img, PILE_ROW + CARD_H + 6, stock_x - 4, f"STOCK {stock}")
    if state.pile:
        card_face(img, PILE_ROW, pile_x, state.pile[-1])
    text(img, PILE_ROW + CARD_H + 6, pile_x, f"PILE {len(state.pile)}")
    phase = "HAND OVER" if over else engine.PHASE_NAMES[state.phase].replace("_", " ")
    text(img, PILE_ROW + 8, 280, phase)
    if result is not None:
        text(img, PILE_ROW + 32, 280, result, GOLD)
    _hand(img, VIEWER_ROW, state.hands[viewer], face_up=True)
    text(img, VIEWER_ROW + CARD_H + 10, 8, label(viewer, names[0], None if scores is None else scores[0]))
    return img


def result_line(outcome: dict) -> str:
    """A hand's outcome, from the viewer's side as the env's ``info["outcome"]`` gives it, in frame words:
    ``"GIN: LEARNER +25"``, ``"DEAD HAND"``."""
    if outcome["winner"] is None:
        return "DEAD HAND" if outcome["kind"] == "dead" else f"{outcome['kind'].replace('_', ' ')}: NO POINTS"
    return f"{outcome['kind'].replace('_', ' ')}: {outcome['winner']} {abs(outcome['points']):+d}"


def learner_picture(table, learner: int, last_outcome: dict | None) -> np.ndarray:
    """What ``GinRummy-v0`` renders as ``rgb_array`` at a two-player ``table``: the felt alone before the first deal,
    else the hand in play from ``learner``'s seat with the scores and ``last_outcome``'s line."""
    if table.game is None:
        return np.full((HEIGHT, WIDTH, 3), FELT, dtype=np.uint8)
    scene = table.scene(learner)
    result = None if last_outcome is None else result_line(last_outcome)
    return draw(scene.state, scene.player, ("LEARNER", "OPPONENT"), scene.scores, result)
