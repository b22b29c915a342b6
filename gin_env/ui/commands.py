"""What the person types in the terminal game, in every format: the commands, the action each stands for, the prompt
of each phase, and the one-line explanation of a command that cannot be played now.

Commands: a card such as ``TD`` discards it, and ``JK`` a joker under rules that deal jokers (R72); ``d`` draws from
the stock, ``t`` takes the upcard or the top discard, ``p`` passes, ``k TD`` (or ``k JK``) knocks with that card, ``g``
declares big gin, ``h`` or ``?`` shows the help and ``q`` quits. Every hand of every format is a two-player engine
hand, so a command is read against that hand alone; this module needs neither rich nor a table.
"""

from __future__ import annotations

from gin_env.game import actions, cards, engine, rule_options, solver
from gin_env.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from gin_env.game.hand_rules import taken_card
from gin_env.game.rules import Rules

#: The help, one command a line, each marked True where it is shown only under rules that deal jokers.
_HELP = (
    ("  TD      discard that card (rank A 2-9 T J Q K, or 10; suit S H D C)", False),
    (f"  {cards.JOKER}      discard a joker (every joker is alike: R71, R72)", True),
    ("  d       draw the top card of the stock", False),
    ("  t       take the upcard, or the top card of the discard pile", False),
    ("  p       pass on the upcard (first turn), or leave the last discard at the wall", False),
    ("  k TD    knock, putting TD face down (gin when the other ten cards are all melded)", False),
    (f"  k {cards.JOKER}    knock, putting a joker face down", True),
    ("  g       big gin: all 11 cards melded (only under rules that have it)", False),
    ("  h, ?    this help", False),
    ("  q       quit the game", False),
)
#: One-letter commands and the action each stands for.
SIMPLE_COMMANDS = {"d": DRAW_STOCK, "t": TAKE_DISCARD, "p": PASS, "g": BIG_GIN}
QUIT, HELP_WORDS = ("q", "quit", "exit"), ("h", "?", "help")
COMMAND_LIST = "a card to discard (e.g. TD), d, t, p, k TD, g, q, or h for help"
#: The actions that move a joker, whichever the player holds (R72).
JOKER_ACTIONS = (actions.DISCARD_JOKER, actions.KNOCK_JOKER)


def help_text(rules: Rules) -> str:
    """The help the ``h`` command shows: every command, the joker's only under ``rules`` that deal jokers."""
    return "\n".join(["Commands:"] + [line for line, joker in _HELP if rules.deck.n_jokers or not joker])


class CommandError(ValueError):
    """A command that cannot be played now; the message is the one-line explanation shown to the player."""


def command(action: int) -> str:
    """The command that plays ``action``: the inverse of :func:`parse_command`."""
    if action in SIMPLE_COMMANDS.values():
        return next(word for word, a in SIMPLE_COMMANDS.items() if a == action)
    c = cards.JOKER if action in JOKER_ACTIONS else cards.card_str(actions.action_card(action))
    return f"k {c}" if actions.is_knock(action) else c


def _card_action(token: str, knock: bool, rules: Rules) -> int:
    """The DISCARD or KNOCK action of the card written ``token``: a natural card, or ``JK`` for a joker (R72)."""
    if token.upper() == cards.JOKER:
        if not rules.deck.n_jokers:
            raise CommandError(f"There are no jokers ({cards.JOKER}) under the {rule_options.label(rules)} rules.")
        return actions.KNOCK_JOKER if knock else actions.DISCARD_JOKER
    try:
        c = cards.card(token.upper().replace("10", "T"))
    except ValueError:
        joker = f", or {cards.JOKER} for a joker" if rules.deck.n_jokers else ""
        raise CommandError(f"{token!r} is not a card: write rank then suit, e.g. TD, 7H, AS "
                           f"(ranks {cards.RANKS}, suits {cards.SUITS}){joker}.") from None
    return (KNOCK_BASE if knock else DISCARD_BASE) + c


def parse_command(text: str, state: engine.HandState) -> int:
    """The legal action that ``text`` asks for, for the player to act in ``state``; :class:`CommandError` with a
    one-line explanation when the command is unknown or the move is not allowed now."""
    words = text.split()
    if not words:
        raise CommandError(f"Type a command: {COMMAND_LIST}.")
    head = words[0].lower()
    if head in ("k", "knock"):
        if len(words) != 2:
            raise CommandError("Say which card to knock with, e.g. k TD: it goes face down.")
        action = _card_action(words[1], True, state.rules)
    elif len(words) > 1:
        raise CommandError(f"Unknown command {text.strip()!r}: type {COMMAND_LIST}.")
    elif head in SIMPLE_COMMANDS:
        action = SIMPLE_COMMANDS[head]
    elif len(head) in (2, 3) and head[0] in cards.RANKS.lower() + "1":
        action = _card_action(words[0], False, state.rules)
    else:
        raise CommandError(f"Unknown command {text.strip()!r}: type {COMMAND_LIST}.")
    if not engine.legal_mask(state)[action]:
        raise CommandError(why_not(state, action))
    return action


def why_not(state: engine.HandState, action: int) -> str:
    """Why ``action`` is illegal for the player to act in ``state``, in one line that says what to do instead."""
    phase, rules = state.phase, state.rules
    top = cards.card_str(state.pile[-1]) if state.pile else None
    first_take = {engine.OFFER: f"take the upcard {top} (t) or pass (p)",
                  engine.DRAW: "draw from the stock (d)" + ("" if state.both_passed else f" or take {top} (t)"),
                  engine.WALL: f"take {top} to knock at once (t) or pass (p)"}
    if action == BIG_GIN:
        if rules.big_gin_bonus is None:
            return f"Big gin is not played under the {rule_options.label(rules)} rules."
        if phase != engine.DISCARD:
            return f"Big gin is declared holding 11 cards: first {first_take[phase]}."
        return "Big gin needs all 11 cards in melds, and yours are not."
    if phase == engine.DISCARD:
        return _why_not_discard(state, action)
    if action == PASS:
        return f"You can pass only on the upcard or at the wall: {first_take[phase]}."
    if action == TAKE_DISCARD:
        if phase == engine.DRAW:
            return "Both players passed on the upcard, so it can't be taken now: draw from the stock (d)."
        return f"Taking {top} at the wall is allowed only to knock at once, and it would not let you knock (R38)."
    if action == DRAW_STOCK:
        if phase == engine.WALL:
            return f"Only {rules.wall} cards are left in the stock, which are never drawn: {first_take[phase]}."
        return f"Not yet: {first_take[phase]}."
    return f"Take a card first: {first_take[phase]}."


def _why_not_discard(state: engine.HandState, action: int) -> str:
    """:func:`why_not` for a player holding 11 cards, who must discard or knock."""
    if action in (DRAW_STOCK, TAKE_DISCARD, PASS):
        return "You already hold 11 cards: discard one (e.g. TD) or knock (k TD)."
    hand = state.hands[state.current]
    if action in JOKER_ACTIONS and not hand & state.rules.deck.joker_mask:
        return f"You don't hold a joker ({cards.JOKER})."
    c = actions.action_card(action, hand)
    name = cards.card_str(c)
    if not hand >> c & 1:
        return f"You don't hold {name}."
    if taken_card.blocks(state.taken, c):
        if c != state.taken:
            return ("You just took a joker from the discard pile: neither joker can leave your hand this turn "
                    "(R16, R71).")
        return f"You just took {name} from the discard pile: it can't leave your hand this turn (R16)."
    if actions.is_discard(action):
        return f"You took {cards.card_str(state.taken)} at the wall only to knock: knock now (k CARD)."
    left = solver.deadwood(hand & ~(1 << c), state.rules)
    return f"You can't knock with {name}: that leaves deadwood {left}, over the knock limit {state.knock_limit}."


def prompt(state: engine.HandState) -> str:
    """The prompt that asks the player to act in ``state`` for a command, naming the ones that fit the phase."""
    top = cards.card_str(state.pile[-1]) if state.pile else ""
    if state.phase == engine.OFFER:
        return f"Take the upcard {top} (t) or pass (p) > "
    if state.phase == engine.DRAW:
        return "Draw from the stock (d) > " if state.both_passed else f"Draw (d) or take {top} (t) > "
    if state.phase == engine.WALL:
        return f"Take {top} to knock (t) or pass (p) > "
    if state.must_knock:
        return "Knock (k CARD) > "
    return "Discard (card) or knock (k card) > "
