"""The terminal game: a person plays a whole game of Gin Rummy against an agent, drawn with rich.

    gin-env play [--opponent simple] [--rules standard] [--seed S] [--save-replays DIR] [--name NAME]
                           [--players 2|3|4] [--partner AGENT]

With ``--players 3`` or ``4`` the game is :mod:`gin_env.ui.play_formats`'s (three players, four in two teams).

This module owns the human side of the table: what the person is shown (their hand sorted into its best melds with
the deadwood, the top of the discard pile, the stock, the scores, the opponent's moves as far as they are public),
reading commands and explaining in one line why one cannot be played, and the showdown and the scores after each
hand. The rules are the engine's and the match's. The opponent acts on its own view only, and the person is shown
nothing of the opponent's hidden cards before the showdown.

Commands: a card such as ``TD`` discards it; ``d`` draws from the stock, ``t`` takes the upcard or the top
discard, ``p`` passes, ``k TD`` knocks with ``TD``, ``g`` declares big gin, ``h`` or ``?`` shows the help and ``q``
quits. :func:`play` takes the input function and the console, so tests and scripts can drive a game.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import sys
from collections.abc import Callable

import numpy as np

from gin_env import agents
from gin_env.arguments import ArgumentParser, at_least
from gin_env.game import actions, cards, engine, match, solver
from gin_env.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from gin_env.game.observation import view
from gin_env.game.rules import PRESETS, Rules
from gin_env.optional import require, script
from gin_env.replay import recorder as recording
from gin_env.table.two_players import agent_action

with script(__name__, "gin-env play"):
    Console = require("rich.console", "the terminal game").Console
    Text = require("rich.text", "the terminal game").Text
    from gin_env.ui import render

HELP = """Commands:
  TD      discard that card (rank A 2-9 T J Q K, or 10; suit S H D C)
  d       draw the top card of the stock
  t       take the upcard, or the top card of the discard pile
  p       pass on the upcard (first turn), or leave the last discard at the wall
  k TD    knock, putting TD face down (gin when the other ten cards are all melded)
  g       big gin: all 11 cards melded (only under rules that have it)
  h, ?    this help
  q       quit the game"""
#: One-letter commands and the action each stands for.
SIMPLE_COMMANDS = {"d": DRAW_STOCK, "t": TAKE_DISCARD, "p": PASS, "g": BIG_GIN}
QUIT, HELP_WORDS = ("q", "quit", "exit"), ("h", "?", "help")
COMMAND_LIST = "a card to discard (e.g. TD), d, t, p, k TD, g, q, or h for help"


class CommandError(ValueError):
    """A command that cannot be played now; the message is the one-line explanation shown to the player."""


def command(action: int) -> str:
    """The command that plays ``action``: the inverse of :func:`parse_command`."""
    if action in SIMPLE_COMMANDS.values():
        return next(word for word, a in SIMPLE_COMMANDS.items() if a == action)
    c = cards.card_str(actions.action_card(action))
    return f"k {c}" if actions.is_knock(action) else c


def _card(token: str) -> int:
    try:
        return cards.card(token.upper().replace("10", "T"))
    except ValueError:
        raise CommandError(f"{token!r} is not a card: write rank then suit, e.g. TD, 7H, AS "
                           f"(ranks {cards.RANKS}, suits {cards.SUITS}).") from None


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
        action = KNOCK_BASE + _card(words[1])
    elif len(words) > 1:
        raise CommandError(f"Unknown command {text.strip()!r}: type {COMMAND_LIST}.")
    elif head in SIMPLE_COMMANDS:
        action = SIMPLE_COMMANDS[head]
    elif len(head) in (2, 3) and head[0] in cards.RANKS.lower() + "1":
        action = DISCARD_BASE + _card(words[0])
    else:
        raise CommandError(f"Unknown command {text.strip()!r}: type {COMMAND_LIST}.")
    if not engine.legal_mask(state)[action]:
        raise CommandError(why_not(state, action))
    return action


def why_not(state: engine.HandState, action: int) -> str:
    """Why ``action`` is illegal for the player to act in ``state``, in one line that says what to do instead."""
    phase, rules = state.phase, state.rules
    top = cards.card_str(state.pile[-1]) if state.pile else None
    hand = state.hands[state.current]
    first_take = {engine.OFFER: f"take the upcard {top} (t) or pass (p)",
                  engine.DRAW: "draw from the stock (d)" + ("" if state.both_passed else f" or take {top} (t)"),
                  engine.WALL: f"take {top} to knock at once (t) or pass (p)"}
    if action == BIG_GIN:
        if rules.big_gin_bonus is None:
            return f"Big gin is not played under the {rules.name} rules."
        if phase != engine.DISCARD:
            return f"Big gin is declared holding 11 cards: first {first_take[phase]}."
        return "Big gin needs all 11 cards in melds, and yours are not."
    if phase == engine.DISCARD:
        if action in (DRAW_STOCK, TAKE_DISCARD, PASS):
            return "You already hold 11 cards: discard one (e.g. TD) or knock (k TD)."
        c = actions.action_card(action)
        name = cards.card_str(c)
        if not hand >> c & 1:
            return f"You don't hold {name}."
        if c == state.taken:
            return f"You just took {name} from the discard pile: it can't leave your hand this turn (R16)."
        if actions.is_discard(action):
            return f"You took {cards.card_str(state.taken)} at the wall only to knock: knock now (k CARD)."
        left = solver.deadwood(hand & ~(1 << c))
        return f"You can't knock with {name}: that leaves deadwood {left}, over the knock limit {state.knock_limit}."
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


class TerminalGame:
    """One game between a person (P1) and an agent (P2) on a rich console, to the target of the rules.

    ``input_fn(prompt) -> str`` reads the person's commands (end of input quits); ``seed`` fixes the deals (and
    the agent's random choices), so a game can be dealt again; with ``save_replays`` each hand is saved there as a
    replay. ``match`` is the game as it stands (after :meth:`run`, over unless the person quit) and ``hand`` the
    hand in play, or the last one played."""

    def __init__(self, opponent="simple", rules: str | Rules = "standard", input_fn: Callable[[str], str] = input,
                 console: Console | None = None, seed: int | None = None,
                 save_replays: str | os.PathLike | None = None, name: str = "you") -> None:
        self.rules = rules if isinstance(rules, Rules) else Rules.preset(rules)
        if isinstance(opponent, str):
            self.agent, opponent_name = agents.load(opponent), recording.file_stem(opponent)
        else:
            self.agent, opponent_name = opponent, type(opponent).__name__
        self.names = (name, opponent_name)
        #: The name of the person's opponent in the hand in play.
        self.facing = opponent_name
        self.input_fn = input_fn
        self.console = console if console is not None else render.console()
        # Without a seed, draw one and show it, so that any game can be dealt again.
        self.seed = secrets.randbelow(2**32) if seed is None else seed
        # Separate streams: the deals never depend on the agent's choices, nor on how the person plays.
        deal_seed, agent_seed = np.random.SeedSequence(self.seed).spawn(2)
        self.deal_rng = np.random.default_rng(deal_seed)
        self.agent_rng = np.random.default_rng(agent_seed)
        self.recorder = None
        if save_replays is not None:
            prefix = recording.run_prefix(self.rules, self.seed, self.names)
            recording.make_folder(save_replays, (prefix + "-",), "--save-replays")
            self.recorder = recording.Recorder(save_replays, prefix, self.names)
        self.match = match.new_match(self.rules, self.deal_rng)
        self.hand = self.match.hand

    def run(self) -> match.MatchState:
        """Play hands until the game is over or the person quits; returns the match as it stands."""
        say = self.console.print
        rules = self.rules
        target = f"to {rules.target}" if rules.target is not None else "of one hand"
        say(f"Gin Rummy, {rules.name} rules: {self.names[0]} against {self.names[1]}, a game {target}. "
            f"Seed {self.seed}; h for help.")
        while not self.match.over:
            finished = self._play_hand(self.match.hand)
            if finished is None:
                say(render.capital(f"{self.names[0]} left the game."))
                return self.match
            for line in render.showdown(finished, self.names):
                say(line)
            if self.recorder is not None:
                say(f"Wrote {self.recorder.paths[-1]}", style="dim")
            self.match = match.record_hand(dataclasses.replace(self.match, hand=finished), finished.outcome,
                                           self.deal_rng)
            say(f"Score: {self._score_text()}.")
        self._game_over()
        return self.match

    def _score_text(self) -> str:
        scores = self.match.scores
        target = f" (game to {self.rules.target})" if self.rules.target is not None else ""
        return f"{self.names[0]} {scores[0]}, {self.names[1]} {scores[1]}{target}"

    def _game_over(self) -> None:
        m = self.match
        totals = match.final_totals(m)
        say = self.console.print
        if m.winner is None:
            say("Game over: nobody won.")
        else:
            say(f"Game over: {self.names[m.winner]} won, {m.scores[m.winner]} to {m.scores[1 - m.winner]}.")
        say(f"Hands won: {self.names[0]} {m.hands_won[0]}, {self.names[1]} {m.hands_won[1]}. Final totals with "
            f"the end-of-game bonuses (R41-R43): {self.names[0]} {totals[0]}, {self.names[1]} {totals[1]}.")

    # -------------------------------------------------------------------------------------------------------------
    # One hand
    # -------------------------------------------------------------------------------------------------------------

    def _play_hand(self, state: engine.HandState) -> engine.HandState | None:
        """Play one hand to its end; None when the person quits. ``self.hand`` follows the hand as it goes."""
        self.hand = state
        number = len(self.match.history) + 1
        self.console.rule(f"Hand {number} · {self._score_text()} · {self.names[state.dealer]} deals")
        if state.initial_upcard != engine.NO_CARD:
            line = Text("Upcard ").append_text(render.card(state.initial_upcard))
            self.console.print(line.append(f", knock limit {state.knock_limit}."))
        while state.phase != engine.OVER:
            if state.current == 0:
                action = self._ask(state)
                if action is None:
                    return None
                if action == DRAW_STOCK:
                    drawn = render.card(state.deck[state.stock_top])
                    self.console.print(Text("You draw ").append_text(drawn).append("."))
            else:
                action = agent_action(self.agent, self.agent.act(view(state, 1, self.match.scores), self.agent_rng))
                # A knock or big gin is told by the showdown that follows.
                if not (actions.is_knock(action) or action == BIG_GIN):
                    self.console.print(render.move(state, action, self.names[1], reveal=False).append("."))
            if self.recorder is not None:
                self.recorder(state, action)
            state = self.hand = engine.step(state, action)
        return state

    def _ask(self, state: engine.HandState) -> int | None:
        """Show the person what they may know, then read commands until one is legal; None to quit."""
        if state.phase == engine.DISCARD:
            self._show_hand(state, highlight=state.taken if state.taken != engine.NO_CARD else self._drawn(state))
            self._show_knock_hint(state)
        else:
            self._show_table(state)
        prompt = self._prompt(state)
        while True:
            try:
                text = self.input_fn(prompt)
            except EOFError:
                return None
            word = text.strip().lower()
            if word in QUIT:
                return None
            if word in HELP_WORDS:
                self.console.print(HELP, markup=False)
                continue
            try:
                return parse_command(text, state)
            except CommandError as err:
                self.console.print(str(err), markup=False)

    @staticmethod
    def _drawn(state: engine.HandState) -> int:
        """The card just drawn from the stock, the one before ``stock_top`` in the deal order."""
        return state.deck[state.stock_top - 1]

    def _show_table(self, state: engine.HandState) -> None:
        """The public table, then the person's hand (the player to act): the pile, the stock, the cards the opponent
        is known to hold."""
        line = Text(f"Stock {engine.stock_size(state)} · discard pile ")
        if state.pile:
            n = len(state.pile)
            line.append_text(render.card(state.pile[-1])).append(f" ({n} card{'s' if n > 1 else ''})")
        else:
            line.append("empty")
        known = state.known[1 - state.current]
        if known:
            line.append(f" · {self.facing} holds ").append_text(render.card_list(render.by_rank(cards.to_ids(known))))
        self.console.print(line)
        self._show_hand(state, engine.NO_CARD)

    def _show_hand(self, state: engine.HandState, highlight: int) -> None:
        self.console.print(Text(f"{self.names[0]}: ").append_text(render.hand(state.hands[state.current], highlight)))

    def _show_knock_hint(self, state: engine.HandState) -> None:
        """Say when knocking is possible, and with which card the deadwood is least: it is easy to miss."""
        mask = engine.legal_mask(state)
        if mask[BIG_GIN]:
            self.console.print("You have big gin: g declares it.")
        knocks = {c: solver.deadwood(state.hands[state.current] & ~(1 << c))
                  for c in range(cards.N_CARDS) if mask[KNOCK_BASE + c]}
        if knocks:
            best = min(knocks, key=knocks.get)
            what = "gin" if knocks[best] == 0 else f"deadwood {knocks[best]}"
            self.console.print(f"You may knock: {command(KNOCK_BASE + best)} leaves {what}.")

    def _prompt(self, state: engine.HandState) -> str:
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


def play(opponent="simple", rules: str | Rules = "standard", input_fn: Callable[[str], str] = input,
         console: Console | None = None, seed: int | None = None, save_replays: str | os.PathLike | None = None,
         name: str = "you") -> match.MatchState:
    """Play one game in the terminal (see :class:`TerminalGame`); returns the match, over unless the person quit."""
    return TerminalGame(opponent, rules, input_fn, console, seed, save_replays, name).run()


def main(argv: list[str] | None = None, prog: str = "gin-env play") -> int:
    """Run the command line; the exit code (0 played or left, 2 bad input, 130 interrupted while loading)."""
    parser = ArgumentParser(prog=prog, description="Play a game of Gin Rummy against an agent in the terminal.")
    parser.add_argument("--opponent", default="simple",
                        help=f"agent name ({', '.join(agents.names())}), a MaskablePPO .zip, a train_rllib.py .pt, "
                             "or module:attr (an Agent class, instance or act(view, rng) function) (default simple)")
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rules preset (default standard)")
    parser.add_argument("--seed", type=at_least(0),
                        help="seed of the deals and the agent's choices (default: a random one)")
    parser.add_argument("--save-replays", metavar="DIR", help="save each hand as a replay JSON file in DIR")
    parser.add_argument("--name", default="you", help="your name at the table (default you)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                        help="2 (default); 3: you and two --opponent agents, the dealer sits each hand out; 4: you "
                             "and a --partner against two --opponent agents, at two tables (rules.md section 15)")
    parser.add_argument("--partner", help="your partner's agent with --players 4 (default simple)")
    args = parser.parse_args(argv)
    if args.partner is not None and args.players != 4:
        parser.error("--partner is for --players 4")
    console = render.console()
    try:
        if args.players == 2:
            game = TerminalGame(args.opponent, args.rules, console.input, console, args.seed, args.save_replays,
                                args.name)
        else:
            from gin_env.ui.play_formats import FormatTerminalGame  # the formats' game only when asked for

            game = FormatTerminalGame(args.players, args.opponent, args.partner, args.rules, console.input, console,
                                      args.seed, args.save_replays, args.name)
    except (ValueError, FileNotFoundError, ImportError, OSError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted while setting up the game", file=sys.stderr)
        return 130
    try:
        game.run()
    except KeyboardInterrupt:
        console.print("\n" + render.capital(f"{args.name} left the game."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
