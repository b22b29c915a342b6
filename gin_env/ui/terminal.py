"""The terminal game: a person plays a whole game of Gin Rummy against agents, drawn with rich, in every format.

This module owns the human side of the table: what the person is shown at their turn (their hand sorted into its
best melds with the deadwood, the top of the discard pile, the stock, the cards the opponent is known to hold), the
commands read until one is legal (:mod:`gin_env.ui.commands`), the agents' moves as far as they are public, the
showdown of every hand the person watches, and the replays. The game is played through the table of its format
(``gin_env.table.formats.make_table``), as the envs play it: the rules are the engine's and the game's, each agent
acts on its own view only, and the person is shown nothing of another player's hidden cards before the showdown.
Who sits where and what is said between the hands is the format's :class:`~gin_env.ui.seating.Seating`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable

import numpy as np

from gin_env.game import actions, cards, engine, solver
from gin_env.game.actions import BIG_GIN, DRAW_STOCK
from gin_env.game.rules import Rules
from gin_env.replay import recorder as recording
from gin_env.replay import replay_file as replay
from gin_env.table.checks import agent_action
from gin_env.table.formats import make_table
from gin_env.ui import render
from gin_env.ui.commands import HELP_WORDS, QUIT, CommandError, command, help_text, parse_command, prompt
from gin_env.ui.render import Console, Text
from gin_env.ui.seating import SEATINGS, YOU


class TerminalGame:
    """One game of ``players`` (2, 3 or 4; None: the rules') on a rich console, to the target of the rules, with
    the person in seat 0 against ``opponent`` agents (and with four players beside a ``partner``).

    ``opponent`` and ``partner`` are agent names, paths or agent objects. ``input_fn(prompt) -> str`` reads the
    person's commands (end of input quits); ``seed`` fixes the deals (and the agents' random choices), so a game
    can be dealt again; with ``save_replays`` every table's hand is saved there as a replay. ``table`` holds the
    game as it stands (after :meth:`run`, over unless the person quit)."""

    def __init__(self, opponent="simple", rules: str | Rules = "standard", input_fn: Callable[[str], str] = input,
                 console: Console | None = None, seed: int | None = None,
                 save_replays: str | os.PathLike | None = None, name: str = "you", *, players: int | None = None,
                 partner=None) -> None:
        rules = rules if isinstance(rules, Rules) else Rules.preset(rules)
        self.rules = rules if players in (None, rules.players) else rules.replace(players=players)
        if partner is not None and self.rules.players != 4:
            raise ValueError(f"{self.rules.players} players have no partner: --partner is for --players 4")
        self.input_fn = input_fn
        self.console = console if console is not None else render.console()
        self.seating = SEATINGS[self.rules.players](self.rules, self.console, name, opponent, partner)
        # Without a seed, draw one and show it, so that any game can be dealt again.
        self.seed = secrets.randbelow(2**32) if seed is None else seed
        # Separate streams: the deals never depend on the agents' choices, nor on how the person plays.
        deal_seed, agent_seed = np.random.SeedSequence(self.seed).spawn(2)
        self.deal_rng = np.random.default_rng(deal_seed)
        self.agent_rng = np.random.default_rng(agent_seed)
        self.save_replays = save_replays
        self.prefix = self.seating.replay_prefix(self.seed)
        if save_replays is not None:
            recording.make_folder(save_replays, (self.prefix + "-",), "--save-replays")
        self.table = make_table(self.rules, "match" if self.rules.target is not None else "hand")
        self.table.deal(self.deal_rng)
        #: Per pairing: the hand as dealt and the actions played in it, for the replays.
        self._records: dict[int, tuple[engine.HandState, list[int]]] = {}
        #: Replays of hands the person does not watch, written but not yet told.
        self._unannounced: list[str] = []

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names by seat."""
        return self.seating.names

    def run(self):
        """Play until the game is over or the person quits; returns the game as it stands (the table's ``game``:
        ``match.MatchState``, ``three_players.ThreeState`` or ``four_players.FourState``)."""
        self.console.print(render.plain(self.seating.intro(self.seed)))
        self._start_hands()
        while not self.table.over:
            game, state = self.table.game, self.table.state
            seat = self.table.actor
            pairing = self.seating.pairing_of(game, seat)
            if seat == YOU:
                action = self._ask(state, pairing)
                if action is None:
                    self.console.print(render.plain(render.capital(f"{self.names[YOU]} left the game.")))
                    return self.table.game
            else:
                action = self._agent_move(state, pairing, seat)
            self._records[pairing][1].append(action)
            finished = self.table.play(action, self.deal_rng)
            # The table deals the next hand once one ends, so the hand as it ended is the engine's step here.
            after = engine.step(state, action)
            if after.phase == engine.OVER:
                self._hand_over(pairing, after, game, finished)
        self.seating.game_over(self.table.game)
        return self.table.game

    def _agent_move(self, state: engine.HandState, pairing: int, seat: int) -> int:
        """The action of the agent in ``seat``, told when the person watches its table. A knock or big gin is told
        by the showdown that follows."""
        agent = self.seating.agents[seat]
        action = agent_action(agent, agent.act(self.table.agent_view(seat), self.agent_rng))
        if self.seating.watched(self.table.game, pairing) and not (actions.is_knock(action) or action == BIG_GIN):
            self.console.print(render.move(state, action, self.names[seat], reveal=False).append("."))
        return action

    def _start_hands(self) -> None:
        """Introduce the hands just dealt, and start their records."""
        game = self.table.game
        self._records = {t: (hand, []) for t, hand in self.seating.hands(game).items()}
        self.seating.announce(game)
        for t, (hand, _) in self._records.items():
            if self.seating.watched(game, t) and hand.initial_upcard != engine.NO_CARD:
                line = Text("Upcard ").append_text(render.card(hand.initial_upcard))
                self.console.print(line.append(f", knock limit {hand.knock_limit}."))

    def _hand_over(self, pairing: int, final: engine.HandState, before, finished) -> None:
        """Show a hand that ended and save its replay; once ``finished`` (the hand, or the deal with four players,
        as the table recorded it), say what it changed and introduce the next hands if the game goes on.
        ``before`` is the game before the hand's last action."""
        seats = self.seating.seats(before, pairing)
        watched = self.seating.watched(before, pairing)
        if watched:
            for line in render.showdown(final, tuple(self.names[s] for s in seats)):
                self.console.print(line)
        if self.save_replays is not None:
            path = self._save(pairing, before)
            if watched:
                self.console.print(render.plain(f"Wrote {path}", style="dim"))
            else:
                self._unannounced.append(path)
        if finished is None:
            return
        self.seating.done(self.table.game, finished, self._unannounced)
        self._unannounced = []
        if not self.table.over:
            self._start_hands()

    def _save(self, pairing: int, game) -> str:
        """Save pairing ``pairing``'s finished hand as a replay; its path."""
        start, hand_actions = self._records[pairing]
        stem, number, seats, scores = recording.hand_label(game, pairing)
        saved = replay.record(start, hand_actions, players=tuple(self.names[s] for s in seats), hand_number=number,
                              scores=scores, seats=seats)
        path = os.path.join(self.save_replays, f"{self.prefix}-{stem}.json")
        saved.save(path)
        return path

    # -------------------------------------------------------------------------------------------------------------
    # The person's turn
    # -------------------------------------------------------------------------------------------------------------

    def _ask(self, state: engine.HandState, pairing: int) -> int | None:
        """Show the person what they may know, then read commands until one is legal; None to quit."""
        if state.phase == engine.DISCARD:
            self._show_hand(state, highlight=state.taken if state.taken != engine.NO_CARD else self._drawn(state))
            self._show_knock_hint(state)
        else:
            self._show_table(state, pairing)
        text_prompt = prompt(state)
        while True:
            try:
                text = self.input_fn(text_prompt)
            except EOFError:
                return None
            word = text.strip().lower()
            if word in QUIT:
                return None
            if word in HELP_WORDS:
                self.console.print(help_text(state.rules), markup=False)
                continue
            try:
                action = parse_command(text, state)
            except CommandError as err:
                self.console.print(render.plain(str(err)))
                continue
            if action == DRAW_STOCK:
                self.console.print(Text("You draw ").append_text(render.card(state.deck[state.stock_top])).append("."))
            return action

    @staticmethod
    def _drawn(state: engine.HandState) -> int:
        """The card just drawn from the stock, the one before ``stock_top`` in the deal order."""
        return state.deck[state.stock_top - 1]

    def _show_table(self, state: engine.HandState, pairing: int) -> None:
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
            facing = self.names[self.seating.seats(self.table.game, pairing)[1 - state.current]]
            line.append_text(render.plain(f" · {facing} holds "))
            line.append_text(render.card_list(render.by_rank(cards.to_ids(known))))
        self.console.print(line)
        self._show_hand(state, engine.NO_CARD)

    def _show_hand(self, state: engine.HandState, highlight: int) -> None:
        line = render.plain(f"{self.names[YOU]}: ")
        self.console.print(line.append_text(render.hand(state.hands[state.current], state.rules, highlight)))

    def _show_knock_hint(self, state: engine.HandState) -> None:
        """Say when knocking is possible, and with which card the deadwood is least: it is easy to miss."""
        mask = engine.legal_mask(state)
        if mask[BIG_GIN]:
            self.console.print("You have big gin: g declares it.")
        hand = state.hands[state.current]
        knocks = {a: solver.deadwood(hand & ~(1 << actions.action_card(a, hand)), state.rules)
                  for a in np.flatnonzero(mask).tolist() if actions.is_knock(a)}
        if knocks:
            best = min(knocks, key=knocks.get)
            what = "gin" if knocks[best] == 0 else f"deadwood {knocks[best]}"
            self.console.print(f"You may knock: {command(best)} leaves {what}.")


def play(opponent="simple", rules: str | Rules = "standard", input_fn: Callable[[str], str] = input,
         console: Console | None = None, seed: int | None = None, save_replays: str | os.PathLike | None = None,
         name: str = "you", *, players: int | None = None, partner=None):
    """Play one game in the terminal (see :class:`TerminalGame`); returns the game, over unless the person quit."""
    return TerminalGame(opponent, rules, input_fn, console, seed, save_replays, name, players=players,
                        partner=partner).run()
