"""The terminal game in three players and four players in two teams (docs/rules.md R49-R57).

    gin-env play --players 3 [--opponent expert] [--rules standard] [--seed S] [--save-replays DIR]
    gin-env play --players 4 [--partner expert] [--opponent simple] ...

The person sits in seat 0. With three players the two other seats are ``--opponent`` agents; the person plays the
hands they are dealt into and watches, as far as it is public, the hands they sit out (R50). With four players the
partner (seat 2) and the two opponents (seats 1 and 3) are agents; the person plays their own table, then is shown
the other table's result and the netting of the deal (R56). The game runs through ``format_table``, as the envs do;
commands, prompts and the showdown are ``play``'s. With ``--save-replays`` every table's hand is saved with the
format (the rules' ``players``), the hand or deal number and the seats.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable

import numpy as np

from gin_env import agents
from gin_env.game import actions, engine, four_players, three_players
from gin_env.game.actions import BIG_GIN, DRAW_STOCK
from gin_env.game.rules import Rules
from gin_env.replay import recorder as recording
from gin_env.replay import replay_file as replay
from gin_env.table.formats import make_table
from gin_env.table.two_players import agent_action
from gin_env.ui.play import Console, TerminalGame, Text, render

#: The person's seat.
YOU = 0


class FormatTerminalGame(TerminalGame):
    """A game of ``players`` (3 or 4) with the person in seat 0, to the target (the team target with four)."""

    def __init__(self, players: int, opponent="simple", partner=None, rules: str | Rules = "standard",
                 input_fn: Callable[[str], str] = input, console: Console | None = None, seed: int | None = None,
                 save_replays: str | os.PathLike | None = None, name: str = "you") -> None:
        rules = rules if isinstance(rules, Rules) else Rules.preset(rules)
        self.rules = rules.replace(players=players)
        if players == 3 and partner is not None:
            raise ValueError("three players have no partner: --partner is for --players 4")
        opponent_agent, opponent_label = agents.load(opponent), recording.file_stem(opponent)
        if players == 3:
            seat_agents = [None, opponent_agent, opponent_agent]
            self.seat_names = (name, f"{opponent_label} (seat 1)", f"{opponent_label} (seat 2)")
        else:
            partner = "simple" if partner is None else partner
            seat_agents = [None, opponent_agent, agents.load(partner), opponent_agent]
            self.partner_label = recording.file_stem(partner)
            self.seat_names = (name, f"{opponent_label} (seat 1)", f"partner {self.partner_label}",
                               f"{opponent_label} (seat 3)")
        self.seat_agents = seat_agents
        self.names = (name, "")
        self.facing = ""
        self.input_fn = input_fn
        self.console = console if console is not None else render.console()
        self.seed = secrets.randbelow(2**32) if seed is None else seed
        deal_seed, agent_seed = np.random.SeedSequence(self.seed).spawn(2)
        self.deal_rng = np.random.default_rng(deal_seed)
        self.agent_rng = np.random.default_rng(agent_seed)
        self.save_replays = save_replays
        self.prefix = f"{recording.file_stem(self.rules.name)}-players{players}-seed{self.seed}"
        if save_replays is not None:
            recording.make_folder(save_replays, (self.prefix + "-",), "--save-replays")
        self.table = make_table(self.rules, "match" if self.rules.target is not None else "hand")
        self.table.deal(self.deal_rng)
        #: Per table: the hand as dealt and the actions played in it, for the replays.
        self._records: dict[int, tuple[engine.HandState, list[int]]] = {}
        #: Replays of the other table's hand, written but not yet told (four players).
        self._unannounced: list[str] = []

    @property
    def players(self) -> int:
        return self.rules.players

    # -------------------------------------------------------------------------------------------------------------
    # The game
    # -------------------------------------------------------------------------------------------------------------

    def run(self):
        """Play until the game is over or the person quits; returns the game (``three_players.ThreeState`` or
        ``four_players.FourState``) as it stands."""
        say = self.console.print
        target = self.rules.target if self.players == 3 else self.rules.team_target
        game_of = f"a game to {target}" if self.rules.target is not None else "a single hand"
        team = f", your partner {self.partner_label} in seat 2" if self.players == 4 else ""
        say(f"Gin Rummy, {self.players} players, {self.rules.name} rules: {self.seat_names[0]} in seat 0{team}; "
            f"{game_of}. Seed {self.seed}; h for help.")
        self._start_records()
        while not self.table.over:
            table, state = self._table_index(), self.table.state
            seat = self.table.actor
            if seat == YOU:
                self.facing = self._opponent_name(table)
                action = self._ask(state)
                if action is None:
                    say(render.capital(f"{self.seat_names[0]} left the game."))
                    return self.table.game
                if action == DRAW_STOCK:
                    say(Text("You draw ").append_text(render.card(state.deck[state.stock_top])).append("."))
            else:
                agent = self.seat_agents[seat]
                action = agent_action(agent, agent.act(self.table.agent_view(seat), self.agent_rng))
                if self._watched(table) and not (actions.is_knock(action) or action == BIG_GIN):
                    say(render.move(state, action, self.seat_names[seat], reveal=False).append("."))
            self._records[table][1].append(action)
            before = self.table.game
            finished = self.table.play(action, self.deal_rng)
            self._after_action(table, engine.step(state, action), before, finished)
        self._game_over()
        return self.table.game

    def _table_index(self) -> int:
        return self.table.table if self.players == 4 else 0

    def _seats(self, table: int, game=None) -> tuple[int, int]:
        game = self.table.game if game is None else game
        return game.seats[table] if self.players == 4 else game.seats

    def _opponent_name(self, table: int) -> str:
        a, b = self._seats(table)
        return self.seat_names[b if a == YOU else a]

    def _watched(self, table: int) -> bool:
        """The person sees the moves at their own table, and in three players those of a hand they sit out."""
        return self.players == 3 or YOU in self._seats(table)

    def _start_records(self) -> None:
        """Note the hands just dealt, and introduce them."""
        game = self.table.game
        # The rule holds the number alone: rich cuts a title wider than the terminal, and the seats and the scores
        # go below it, where lines wrap instead.
        if self.players == 3:
            self._records = {0: (game.hand, [])}
            out = self.seat_names[game.dealer]
            who = " and ".join(self.seat_names[s] for s in game.seats)
            self.console.rule(f"Hand {len(game.history) + 1}")
            self.console.print(render.capital(f"{who} play; {out} deals and sits out."))
            self.console.print(f"Score: {self._scores()}.")
            if game.dealer == YOU:
                self.console.print("You sit this hand out and watch.")
        else:
            self._records = {t: (game.hands[t], []) for t in four_players.TABLES}
            tables = "; ".join(f"table {t}: {self.seat_names[a]} v {self.seat_names[b]}"
                               for t, (a, b) in enumerate(game.seats))
            self.console.rule(f"Deal {game.deal}")
            self.console.print(f"{tables[0].upper()}{tables[1:]}.")
            self.console.print(f"Score: {self._scores()}.")
        for t, (hand, _) in self._records.items():
            if self._watched(t) and hand.initial_upcard != engine.NO_CARD:
                line = Text("Upcard ").append_text(render.card(hand.initial_upcard))
                self.console.print(line.append(f", knock limit {hand.knock_limit}."))

    def _after_action(self, table: int, after: engine.HandState, before, finished) -> None:
        """Show a hand that ended (and, with four players, the other table and the deal's netting), save its
        replay, and introduce the next hands once the game goes on."""
        if after.phase != engine.OVER:
            return
        seats = self._seats(table, before)
        if self._watched(table):
            for line in render.showdown(after, tuple(self.seat_names[s] for s in seats)):
                self.console.print(line)
        self._save(table, before, seats)
        if finished is None:
            return
        if self.players == 4:
            self._show_deal(finished)
        else:
            self.console.print(f"Score: {self._scores()}.")
        if not self.table.over:
            self._start_records()

    def _show_deal(self, deal: four_players.Deal) -> None:
        """The other table's result and the deal's netting (R56), once both tables are done. Seat 0 plays at table
        0, so the other table is table 1; its cards stay private, only its result is told."""
        other = 1
        a, b = deal.seats[other]
        outcome = deal.outcomes[other]
        if outcome.winner is None:
            result = f"a {outcome.kind} hand, nobody scores"
        else:
            result = f"{self.seat_names[deal.seats[other][outcome.winner]]} wins {outcome.points} ({outcome.kind})"
        self.console.print(f"At the other table ({self.seat_names[a]} v {self.seat_names[b]}): {result}.")
        for path in self._unannounced:
            self.console.print(f"Wrote {path}", style="dim")
        self._unannounced = []
        yours, theirs = (o.player_points(0) for o in deal.outcomes)
        scorer = deal.scorer
        net = "nobody scores" if scorer is None else \
            f"{'your team' if scorer == 0 else 'the other team'} scores {abs(deal.net)}"
        self.console.print(f"Deal {deal.number}: your table {yours:+d}, the other table {theirs:+d} for your team: "
                           f"{net} (R56). Score: {self._scores()}.")

    def _save(self, table: int, game, seats: tuple[int, int]) -> None:
        if self.save_replays is None:
            return
        start, hand_actions = self._records[table]
        number = game.deal if self.players == 4 else len(game.history) + 1
        if self.players == 4:
            scores, stem = game.scores, f"deal{number:03d}-table{table}"
        else:
            scores, stem = (game.scores[seats[0]], game.scores[seats[1]]), f"hand{number:03d}"
        names = tuple(self.seat_names[s] for s in seats)
        saved = replay.record(start, hand_actions, players=names, hand_number=number, scores=scores, seats=seats)
        path = os.path.join(self.save_replays, f"{self.prefix}-{stem}.json")
        saved.save(path)
        if self._watched(table):
            self.console.print(f"Wrote {path}", style="dim")
        else:
            self._unannounced.append(path)  # told with the other table's result, at the end of the deal

    def _scores(self) -> str:
        g = self.table.game
        if self.players == 3:
            return ", ".join(f"{self.seat_names[s]} {g.scores[s]}" for s in three_players.SEATS)
        return f"your team {g.scores[0]}, the other team {g.scores[1]} (to {self.rules.team_target})"

    def _game_over(self) -> None:
        g, say = self.table.game, self.console.print
        if self.players == 3:
            totals = three_players.final_totals(g)
            if g.winner is None:
                say("Game over: nobody won.")
            else:
                say(f"Game over: {self.seat_names[g.winner]} won with {g.scores[g.winner]}.")
            ranking = ", ".join(f"{self.seat_names[s]} {totals[s]}" for s in three_players.ranking(g))
            say(f"Final totals with the end-of-game bonuses (R53): {ranking}.")
            return
        totals = four_players.final_totals(g)
        if g.winner is None:
            say("Game over: nobody won.")
        else:
            say(f"Game over: {'your team' if g.winner == 0 else 'the other team'} won, "
                f"{g.scores[g.winner]} to {g.scores[1 - g.winner]}.")
        say(f"Final totals with the end-of-game bonuses (R57): your team {totals[0]}, the other team {totals[1]}.")
