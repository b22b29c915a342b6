"""Gin Rummy for human eyes: cards, hands sorted into their melds, moves in words, and the showdown, as rich ``Text``.

This module owns how the terminal game (``gin_env.ui.play``) and the replay viewer (``gin_env.ui.viewer``) write
the game, so the two always tell a hand the same way, and how they show text from outside the program (names, paths,
fields of a file): as text, by :func:`plain`. It decides nothing about the rules: melds and deadwood come from
``solver``, scores and layoffs from the engine's ``HandOutcome``, the identities of the run jokers on the table at a
showdown from the engine's score of the two hands. A joker is written ``JK`` whatever its id (R72).
"""

from __future__ import annotations

from gin_env.game import actions, cards, engine, solver
from gin_env.game.actions import BIG_GIN, DRAW_STOCK, PASS, TAKE_DISCARD
from gin_env.game.hand_rules import turn
from gin_env.game.rules import Rules
from gin_env.game.solver.declarations import DECLARES
from gin_env.optional import require
from gin_env.table.two_players import counted
from gin_env.text import printable

Text = require("rich.text", "drawing cards in the terminal").Text
Console = require("rich.console", "drawing cards in the terminal").Console

#: A four-colour deck, so that suits tell apart at a glance even where red and black alone would not.
SUIT_STYLES = ("bold", "bold red", "bold blue", "bold green")
#: A joker's colour, no suit's (R62: a joker has no suit).
JOKER_STYLE = "bold magenta"
MELD_OPEN, MELD_CLOSE = "[", "]"


def console() -> Console:
    """The console the terminal game and the replay viewer write to: on a terminal, rich's own; into a pipe or a
    file, lines are left whole instead of wrapped at rich's default 80 columns. It reads no markup nor emoji codes
    in a plain string either, behind :func:`plain`."""
    out = Console(highlight=False, markup=False, emoji=False)
    if not out.is_terminal:
        out = Console(highlight=False, markup=False, emoji=False, soft_wrap=True)
    return out


def plain(text: str, style: str = "") -> Text:
    """``text`` to print as it is: a rich ``Text``, which rich never reads as markup (``[/bad]`` is shown, not
    parsed), with its control characters replaced (:func:`gin_env.text.printable`). Every line that holds a name, a
    path or a field of a file is printed through it."""
    return Text(printable(text), style=style)


def is_joker(c: int) -> bool:
    """True for a joker's id, in any deck."""
    return cards.LARGEST_DECK.is_joker(c)


def card(c: int, style: str = "", identity: int = engine.NO_CARD) -> Text:
    """One card such as ``TD``, coloured by suit; ``style`` adds to the colour (e.g. ``"reverse"``). Every joker
    is written ``JK`` whatever its id (R72), and a run joker with the card it stands for, ``JK=7S`` (``identity``,
    R62, R73)."""
    if not is_joker(c):
        return Text(cards.card_str(c), style=f"{SUIT_STYLES[cards.suit(c)]} {style}".strip())
    out = Text(cards.JOKER, style=f"{JOKER_STYLE} {style}".strip())
    if identity != engine.NO_CARD:
        out.append(DECLARES).append_text(card(identity))
    return out


def card_list(ids, highlight: int = engine.NO_CARD, identities=None) -> Text:
    """Cards separated by spaces, in the order given; ``highlight`` marks one of them (a card just drawn), and each
    run joker of ``identities`` ({joker id: natural card}) is written with the card it stands for."""
    identities = identities or {}
    return Text(" ").join(card(c, "reverse" if c == highlight else "", identities.get(c, engine.NO_CARD))
                          for c in ids)


def _place(c: int, identities) -> tuple[int, int]:
    """Where a card sorts among others, (rank, suit): a run joker at the card it stands for, any other joker after
    every natural card (a joker has no rank, R62)."""
    c = identities.get(c, c)
    return (cards.N_RANKS, c) if is_joker(c) else (cards.rank(c), cards.suit(c))


def by_rank(ids, identities=None) -> list[int]:
    """Cards sorted by rank, then suit: the order a player fans loose cards in; jokers last, but a run joker of
    ``identities`` at the card it stands for."""
    identities = identities or {}
    return sorted(ids, key=lambda c: _place(c, identities))


def meld(ids, added=(), highlight: int = engine.NO_CARD, identities=None) -> Text:
    """A meld in brackets, runs in rank order; ``added`` (cards laid off on it) follow it, each marked with ``+``.
    Run jokers of ``identities`` ({joker id: natural card}) are written ``JK=7S`` where they stand (R73, R76)."""
    identities = identities or {}
    out = Text(MELD_OPEN)
    out.append_text(card_list(by_rank(ids, identities), highlight, identities))
    for c in by_rank(added, identities):
        out.append(" +")
        out.append_text(card(c, "underline", identities.get(c, engine.NO_CARD)))
    out.append(MELD_CLOSE)
    return out


def _low_rank(ids, identities) -> int:
    """The lowest rank of a meld, its run jokers at the ranks they stand for: the order melds are laid out in."""
    return min(_place(c, identities)[0] for c in ids)


def declared(melds) -> dict[int, int]:
    """Each run joker of a solver arrangement's ``melds`` and the natural card it stands for (R65)."""
    return {j: c for m in melds if isinstance(m, solver.Meld) for j, c in m.identities.items()}


def hand(mask: int, rules: Rules, highlight: int = engine.NO_CARD) -> Text:
    """A holding sorted into one least-deadwood arrangement under ``rules`` (R7, R68): its melds, run jokers written
    with the cards they stand for, then its loose cards, then the deadwood, which for 11 cards is that of the 10
    kept after the best discard (R8)."""
    melds, loose = solver.arrangement(mask, rules)
    identities = declared(melds)
    parts = [meld(m, highlight=highlight, identities=identities)
             for m in sorted(melds, key=lambda m: _low_rank(m, identities))]
    if loose:
        parts.append(card_list(by_rank(loose), highlight))
    out = Text("  ").join(parts)
    n = mask.bit_count()
    if n > engine.HAND_SIZE:
        out.append(f"   deadwood {solver.best_discard_deadwood(mask, rules)} after the best discard")
    else:
        out.append(f"   deadwood {solver.deadwood(mask, rules)}")
    return out


# ---------------------------------------------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------------------------------------------

#: The name that is spoken to rather than about: "you draw", "your deadwood".
YOU = "you"
_PLAIN_VERBS = {"goes": "go", "passes": "pass"}


def subject(name: str, verb: str) -> str:
    """``name`` doing ``verb`` (given in the third person, "knocks"), in the second person when ``name`` is you."""
    if name.lower() != YOU:
        return f"{name} {verb}"
    return f"{name} {_PLAIN_VERBS.get(verb, verb[:-1])}"


def possessive(name: str) -> str:
    return "your" if name.lower() == YOU else f"{name}'s"


def capital(text: str) -> str:
    """``text`` to start a sentence with: "you" is capitalised, agent names are written as they are."""
    return text[:1].upper() + text[1:] if text[:len(YOU) + 1].lower() == YOU + " " else text


def move(state: engine.HandState, action: int, name: str, reveal: bool) -> Text:
    """What ``name`` does when playing ``action`` in ``state``, in words. ``reveal`` shows the card drawn from the
    stock; without it only what the other player sees is told (a stock draw is face down)."""
    top = state.pile[-1] if state.pile else engine.NO_CARD
    held = state.hands[state.current]

    def does(verb: str, rest: str = "") -> Text:
        return plain(capital(subject(name, verb)) + rest)

    if action == DRAW_STOCK:
        out = does("draws", " from the stock")
        if reveal:
            out.append(": ").append_text(card(state.deck[state.stock_top]))
    elif action == TAKE_DISCARD:
        taking = {engine.OFFER: " the upcard ", engine.WALL: " the last discard to knock: "}
        out = does("takes", taking.get(state.phase, " ")).append_text(card(top))
        if state.phase == engine.DRAW:
            out.append(" from the discard pile")
    elif action == PASS and state.phase == engine.WALL:
        out = does("leaves", " ").append_text(card(top)).append(" on the pile: the hand is dead (R38)")
    elif action == PASS:
        out = does("passes", " on the upcard ").append_text(card(top))
    elif action == BIG_GIN:
        out = does("declares", " big gin")
    elif actions.is_discard(action):
        out = does("discards", " ").append_text(card(actions.action_card(action, held)))
    else:
        c = actions.action_card(action, held)
        gin = solver.deadwood(held & ~(1 << c), state.rules) == 0
        out = does("goes", " gin") if gin else does("knocks")
        out.append(", putting ").append_text(card(c)).append(" face down")
    return out


# ---------------------------------------------------------------------------------------------------------------
# Showdown
# ---------------------------------------------------------------------------------------------------------------

def _reason(outcome: engine.HandOutcome, rules: Rules, upcard: int | None, names: tuple[str, str]) -> str:
    """Why the hand scores what it does (R30-R33, R47), with the numbers."""
    k, f = outcome.knocker_deadwood, outcome.defender_deadwood
    knocker, defender = names[outcome.knocker], names[1 - outcome.knocker]
    theirs = f"{possessive(defender)} deadwood {f}"
    if outcome.kind == "knock":
        text = capital(f"{subject(knocker, 'scores')} {theirs} - {possessive(knocker)} {k} = {f - k}")
    elif outcome.kind == "undercut":
        text = (f"Undercut: {theirs} is not more than {possessive(knocker)} {k}, so {subject(defender, 'scores')} "
                f"{k} - {f} + {rules.undercut_bonus} undercut bonus = {k - f + rules.undercut_bonus}")
    elif outcome.kind == "gin":
        text = f"Gin: {subject(knocker, 'scores')} {theirs} + {rules.gin_bonus} gin bonus = {f + rules.gin_bonus}"
    elif outcome.kind == "big_gin":
        text = (f"Big gin: {subject(knocker, 'scores')} {theirs} + {rules.big_gin_bonus} big gin bonus = "
                f"{f + rules.big_gin_bonus}")
    else:
        return f"Tie at {k}: nobody scores (undercut_on_tie is off, R31)."
    if rules.hand_multiplier(upcard) > 1:
        text += f", doubled to {outcome.points} because the upcard {cards.card_str(upcard)} is a spade (R47)"
    return text + "."


def _by_low_rank(melds, identities, added=None) -> list[tuple[list[int], list[int]]]:
    """Melds paired with their laid-off cards, ordered by their lowest rank, as a player lays them out."""
    added = added if added is not None else [[] for _ in melds]
    return sorted(zip(melds, added), key=lambda pair: _low_rank(pair[0], identities))


def _run_jokers(final: engine.HandState, upcard: int | None) -> dict[int, int]:
    """Each run joker on the table after a knock and the natural card it stands for: the knocker's as declared
    (R73, R74) and the defender's laid off (R76), from the engine's own score of the two hands; {} when neither
    holds a joker."""
    p = final.outcome.knocker
    if not (final.hands[p] | final.hands[1 - p]) & final.rules.deck.joker_mask:
        return {}
    return dict(engine.score_knock(final.hands[p], final.hands[1 - p], final.rules, upcard=upcard).identities)


def showdown(final: engine.HandState, names: tuple[str, str]) -> list[Text]:
    """How a finished hand ended, as lines: both layouts (the knocker's melds with the layoffs on them, the
    defender's own melds and deadwood), the points and the reason; or why a dead hand scores nothing."""
    outcome = final.outcome
    if outcome.kind == "dead":
        rules, values = final.rules, final.rules.turn_values
        # Each cause asked of the rule that ends the hand (hand_rules.turn), so the text cannot drift from the engine.
        if turn.turn_cap_reached(values, final.turns):
            return [Text(f"The turn limit of {rules.max_turns} is reached: dead hand, nobody scores (R19).")]
        if turn.upcard_take_ends(values, final.upcard_draws):
            return [Text(f"The cap of {counted(rules.max_upcard_draws, 'take')} from the discard pile is reached: "
                         "dead hand, nobody scores (R60).")]
        if turn.returns_end(values, final.returns):
            return [Text("Both players put back the card they had just taken: dead hand, nobody scores (R61).")]
        return [Text(f"The stock is down to {counted(rules.wall, 'card')}: dead hand, nobody scores (R37).")]
    p = outcome.knocker
    knocker, defender = names[p], names[1 - p]
    knocker_hand, defender_hand = final.hands[p], final.hands[1 - p]
    melds = [list(m) for m in outcome.knocker_melds]
    verb, rest = {"big_gin": ("declares", " big gin"), "gin": ("goes", " gin")}.get(outcome.kind, ("knocks", ""))
    header = plain(capital(subject(knocker, verb)) + rest)
    if outcome.knock_card != engine.NO_CARD:
        header.append(" with ").append_text(card(outcome.knock_card)).append(" face down")
    lines = [header.append(":")]
    melded = 0
    for m in melds:
        melded |= cards.to_mask(m)
    width = max(len(n) for n in names)
    upcard = final.initial_upcard if final.initial_upcard != engine.NO_CARD else None
    table = _run_jokers(final, upcard)
    lines.append(_layout(knocker, width, _by_low_rank(melds, table, [list(m) for m in outcome.layoff_melds]),
                         cards.to_ids(knocker_hand & ~melded), outcome.knocker_deadwood, table))
    own, loose = solver.arrangement(defender_hand & ~cards.to_mask(outcome.layoffs), final.rules)
    mine = declared(own)
    line = _layout(defender, width, _by_low_rank(own, mine), loose, outcome.defender_deadwood, mine)
    if outcome.layoffs:
        line.append("   laid off: ").append_text(card_list(by_rank(outcome.layoffs, table), identities=table))
    lines.append(line)
    lines.append(plain(_reason(outcome, final.rules, upcard, names)))
    return lines


def _layout(name: str, width: int, melds, loose, deadwood: int, identities) -> Text:
    """One player's cards on the table: melds (with what was laid off on them, run jokers with the cards they
    stand for in ``identities``), then the deadwood cards."""
    parts = [meld(m, a, identities=identities) for m, a in melds]
    if loose:
        parts.append(card_list(by_rank(loose)))
    return plain(f"  {name:<{width}}  ").append_text(Text("  ").join(parts)).append(f"   deadwood {deadwood}")
