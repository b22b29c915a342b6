"""Who sits where in the terminal game, and what the person is told of the game around their hands, per format.

The person sits in seat 0 (:data:`YOU`) in every format. Two players: the ``--opponent`` agent in seat 1. Three
(R50-R53): the two other seats are ``--opponent`` agents, and the dealer sits each hand out. Four in two teams
(R54-R57): the partner (seat 2) and the two opponents (seats 1 and 3) are agents, and a deal is two tables' hands.

A :class:`Seating` owns, for its format: the seats' names and agents, the opening line, the header of each hand or
deal, the scores, what is said when a hand (three players) or a deal (four players) is done, the game's end, and
the start of the replay files' names (the rest is ``recorder.hand_label``'s). The game loop, the person's turns
and the showdowns are :mod:`gin_env.ui.terminal`'s.
"""

from __future__ import annotations

import abc

from gin_env import agents
from gin_env.game import engine, four_players, match, rule_options, three_players
from gin_env.game.rules import Rules
from gin_env.replay import recorder as recording
from gin_env.ui import render
from gin_env.ui.render import Console

#: The person's seat.
YOU = 0


def load_agent(spec) -> tuple[agents.Agent, str]:
    """An agent and its label: a name or a path is loaded and labelled by its file stem, an agent object is used as
    it is and labelled by its type."""
    if isinstance(spec, str):
        return agents.load(spec), recording.file_stem(spec)
    return spec, type(spec).__name__


class Seating(abc.ABC):
    """A format's seats and texts; the subclasses fill them in. ``names`` and ``agents`` are by seat (the person's
    agent is None); every output goes to ``console``. A ``game`` is the table's: ``match.MatchState``,
    ``three_players.ThreeState`` or ``four_players.FourState``."""

    players: int
    names: tuple[str, ...]
    agents: tuple

    def __init__(self, rules: Rules, console: Console) -> None:
        self.rules = rules
        self.console = console

    def say(self, text: str, style: str = "") -> None:
        """Print ``text``, which may hold the players' names (from ``--name`` and agent paths), as text
        (:func:`render.plain`)."""
        self.console.print(render.plain(text, style))

    def title(self, text: str) -> None:
        """A rule across the console titled ``text``, as text."""
        self.console.rule(render.plain(text))

    def pairing_of(self, game, seat: int) -> int:
        """The pairing (the table) of ``seat`` in ``game``'s hands in play: there is one but with four players."""
        return 0

    def seats(self, game, pairing: int) -> tuple[int, int]:
        """The seats of engine players 0 and 1 at pairing ``pairing`` in ``game`` (the table it is played at)."""
        return game.seats

    def watched(self, game, pairing: int) -> bool:
        """The person sees the moves and the showdown of ``pairing``: at their own, and at a hand they sit out."""
        return True

    def hands(self, game) -> dict[int, engine.HandState]:
        """The hands of ``game`` in play, by pairing."""
        return {0: game.hand}

    def replay_prefix(self, seed: int) -> str:
        """The start of the replay files' names, which the rules, the seed and the seats decide."""
        return f"{recording.file_stem(self.rules.name)}-players{self.players}-seed{seed}"

    def done(self, game, finished, unannounced: list[str]) -> None:
        """Say what a finished hand (a deal with four players) changed; ``unannounced`` are replays written but
        not yet told (those of hands the person does not watch)."""
        self.say(f"Score: {self.scores(game)}.")

    @abc.abstractmethod
    def intro(self, seed: int) -> str:
        """The game's opening line: the format, the rules, the seats, the target and the ``seed``."""

    @abc.abstractmethod
    def announce(self, game) -> None:
        """Introduce the hand (the deal with four players) just dealt: its number, who plays, the scores."""

    @abc.abstractmethod
    def scores(self, game) -> str:
        """The scores of ``game`` in words."""

    @abc.abstractmethod
    def game_over(self, game) -> None:
        """Say who won the finished ``game``, and its final totals with the end-of-game bonuses."""


class TwoSeats(Seating):
    """Two players: the person against ``opponent``."""

    players = 2

    def __init__(self, rules: Rules, console: Console, name: str, opponent, partner=None) -> None:
        super().__init__(rules, console)
        opponent_agent, label = load_agent(opponent)
        self.names, self.agents = (name, label), (None, opponent_agent)

    def seats(self, game, pairing: int) -> tuple[int, int]:
        return 0, 1

    def intro(self, seed: int) -> str:
        target = f"to {self.rules.target}" if self.rules.target is not None else "of one hand"
        return (f"Gin Rummy, {rule_options.label(self.rules)} rules: {self.names[0]} against {self.names[1]}, a game "
                f"{target}. Seed {seed}; h for help.")

    def replay_prefix(self, seed: int) -> str:
        return recording.run_prefix(self.rules, seed, self.names)

    def announce(self, game) -> None:
        number = len(game.history) + 1
        self.title(f"Hand {number} · {self.scores(game)} · {self.names[game.hand.dealer]} deals")

    def scores(self, game) -> str:
        target = f" (game to {self.rules.target})" if self.rules.target is not None else ""
        return f"{self.names[0]} {game.scores[0]}, {self.names[1]} {game.scores[1]}{target}"

    def game_over(self, game) -> None:
        totals, say, names = match.final_totals(game), self.say, self.names
        if game.winner is None:
            say("Game over: nobody won.")
        else:
            say(f"Game over: {names[game.winner]} won, {game.scores[game.winner]} to {game.scores[1 - game.winner]}.")
        say(f"Hands won: {names[0]} {game.hands_won[0]}, {names[1]} {game.hands_won[1]}. Final totals with "
            f"the end-of-game bonuses (R41-R43): {names[0]} {totals[0]}, {names[1]} {totals[1]}.")


class ThreeSeats(Seating):
    """Three players: the person and two ``opponent`` agents; the dealer sits the hand out (R50)."""

    players = 3

    def __init__(self, rules: Rules, console: Console, name: str, opponent, partner=None) -> None:
        super().__init__(rules, console)
        if partner is not None:
            raise ValueError("three players have no partner: --partner is for --players 4")
        opponent_agent, label = load_agent(opponent)
        self.names = (name, f"{label} (seat 1)", f"{label} (seat 2)")
        self.agents = (None, opponent_agent, opponent_agent)

    def intro(self, seed: int) -> str:
        game_of = f"a game to {self.rules.target}" if self.rules.target is not None else "a single hand"
        return (f"Gin Rummy, 3 players, {rule_options.label(self.rules)} rules: {self.names[0]} in seat 0; {game_of}. "
                f"Seed {seed}; h for help.")

    def announce(self, game) -> None:
        # The rule holds the number alone: rich cuts a title wider than the terminal, and the seats and the scores
        # go below it, where lines wrap instead.
        who = " and ".join(self.names[s] for s in game.seats)
        self.title(f"Hand {len(game.history) + 1}")
        self.say(render.capital(f"{who} play; {self.names[game.dealer]} deals and sits out."))
        self.say(f"Score: {self.scores(game)}.")
        if game.dealer == YOU:
            self.say("You sit this hand out and watch.")

    def scores(self, game) -> str:
        return ", ".join(f"{self.names[s]} {game.scores[s]}" for s in three_players.SEATS)

    def game_over(self, game) -> None:
        say = self.say
        totals = three_players.final_totals(game)
        if game.winner is None:
            say("Game over: nobody won.")
        else:
            say(f"Game over: {self.names[game.winner]} won with {game.scores[game.winner]}.")
        ranking = ", ".join(f"{self.names[s]} {totals[s]}" for s in three_players.ranking(game))
        say(f"Final totals with the end-of-game bonuses (R53): {ranking}.")


class FourSeats(Seating):
    """Four players in two teams: the person and their ``partner`` (seat 2, simple unless named) against two
    ``opponent`` agents (seats 1 and 3), at two tables (R54-R57). The person plays table 0 and is told only the
    other table's result."""

    players = 4
    #: The table the person plays at: seat 0 heads table 0 in every deal (R55).
    YOUR_TABLE = 0

    def __init__(self, rules: Rules, console: Console, name: str, opponent, partner=None) -> None:
        super().__init__(rules, console)
        opponent_agent, label = load_agent(opponent)
        partner_agent, self.partner_label = load_agent("simple" if partner is None else partner)
        self.names = (name, f"{label} (seat 1)", f"partner {self.partner_label}", f"{label} (seat 3)")
        self.agents = (None, opponent_agent, partner_agent, opponent_agent)

    def pairing_of(self, game, seat: int) -> int:
        return next(t for t, seats in enumerate(game.seats) if seat in seats)

    def seats(self, game, pairing: int) -> tuple[int, int]:
        return game.seats[pairing]

    def watched(self, game, pairing: int) -> bool:
        return YOU in game.seats[pairing]

    def hands(self, game) -> dict[int, engine.HandState]:
        return dict(enumerate(game.hands))

    def intro(self, seed: int) -> str:
        game_of = f"a game to {self.rules.team_target}" if self.rules.target is not None else "a single hand"
        return (f"Gin Rummy, 4 players, {rule_options.label(self.rules)} rules: {self.names[0]} in seat 0, your "
                f"partner {self.partner_label} in seat 2; {game_of}. Seed {seed}; h for help.")

    def announce(self, game) -> None:
        tables = "; ".join(f"table {t}: {self.names[a]} v {self.names[b]}" for t, (a, b) in enumerate(game.seats))
        self.title(f"Deal {game.deal}")
        self.say(f"{tables[0].upper()}{tables[1:]}.")
        self.say(f"Score: {self.scores(game)}.")

    def scores(self, game) -> str:
        return f"your team {game.scores[0]}, the other team {game.scores[1]} (to {self.rules.team_target})"

    def done(self, game, finished: four_players.Deal, unannounced: list[str]) -> None:
        """The other table's result (its cards stay private) and the deal's netting (R56), once both tables are
        done; then the other table's replay."""
        other = 1 - self.YOUR_TABLE
        a, b = finished.seats[other]
        outcome = finished.outcomes[other]
        if outcome.winner is None:
            result = f"a {outcome.kind} hand, nobody scores"
        else:
            result = f"{self.names[finished.seats[other][outcome.winner]]} wins {outcome.points} ({outcome.kind})"
        self.say(f"At the other table ({self.names[a]} v {self.names[b]}): {result}.")
        for path in unannounced:
            self.say(f"Wrote {path}", style="dim")
        yours, theirs = (o.player_points(0) for o in finished.outcomes)
        scorer = finished.scorer
        net = "nobody scores" if scorer is None else \
            f"{'your team' if scorer == 0 else 'the other team'} scores {abs(finished.net)}"
        self.say(f"Deal {finished.number}: your table {yours:+d}, the other table {theirs:+d} for your "
                           f"team: {net} (R56). Score: {self.scores(game)}.")

    def game_over(self, game) -> None:
        say = self.say
        totals = four_players.final_totals(game)
        if game.winner is None:
            say("Game over: nobody won.")
        else:
            say(f"Game over: {'your team' if game.winner == 0 else 'the other team'} won, "
                f"{game.scores[game.winner]} to {game.scores[1 - game.winner]}.")
        say(f"Final totals with the end-of-game bonuses (R57): your team {totals[0]}, the other team {totals[1]}.")


#: The seating of each number of players.
SEATINGS = {2: TwoSeats, 3: ThreeSeats, 4: FourSeats}
