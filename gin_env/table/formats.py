"""The tables of the formats of docs/rules.md section 15: three players, four players in two teams, rooms.

``two_players.Table`` is the two-player game; the tables here satisfy the same interface (``protocol.GameTable``),
so that the PettingZoo env, ``GinRummy-v0``, the terminal game and the evaluation play every format through one code
path. An agent is a seat (three or four players) or a member of a seat (rooms). Each table owns, for its format,
which agent acts next, what each agent sees (the view of the hand its seat plays, R59; None for a seat that sits the
hand out), each agent's reward for a step, the infos, the text, and where a single learner's others sit. The rules
are ``three_players``', ``four_players``' and ``room``'s.

A four-player deal is two hands, one per pairing (R54 plays them at two tables), taken one action at a time,
interleaved: the next action is in the pairing that has taken fewer actions in this deal (pairing 0, seat 0's, on a
tie), so the two alternate while both are in play and the one still in play finishes alone; the deal's result is
paid when both have finished.
"""

from __future__ import annotations

import numpy as np

from gin_env.game import cards, engine, four_players, three_players
from gin_env.game.observation import PlayerView, view
from gin_env.game.room import RoomTurns, check_room
from gin_env.game.rules import Rules, format_name
from gin_env.table.checks import check_episode, integer
from gin_env.table.protocol import HandRecord, Scene, not_offered
from gin_env.table.two_players import Table, counted

#: How a team's own side and the other are named in its match info (four players).
TEAM_SIDES = ("own team", "other team")


def resolve_format(rules: Rules, players: int | None, room) -> tuple[Rules, tuple[int, int] | None]:
    """The rules of the format asked for, and the room (or None): ``players`` (None keeps ``rules.players``) sets
    ``rules.players`` when ``rules`` are two-player or say the same; a ``room`` is a two-seat game (R58)."""
    players = None if players is None else integer(players, "players")
    if players is not None and players != rules.players:
        if rules.players != 2:
            raise ValueError(f"players={players!r} contradicts rules.players={rules.players}")
        rules = rules.replace(players=players)
    if room is not None:
        room = check_room(room)
        if rules.players != 2:
            raise ValueError(f"a room seats its members in the two seats of a two-player game (R58); "
                             f"{format_name(rules.players)} has no rooms")
    return rules, room


def make_table(rules: Rules, episode: str, room: tuple[int, int] | None = None):
    """The table of ``rules.players`` (or of a ``room``) for ``episode`` (``"hand"``: one hand; one deal in four
    players; ``"match"``: a game to the target)."""
    if room is not None:
        return RoomTable(rules, episode, room)
    return {2: Table, 3: ThreeTable, 4: FourTable}[rules.players](rules, episode)


def _seat_outcome(outcome: engine.HandOutcome, seats: tuple[int, int], points: int) -> dict:
    """A hand outcome with seat numbers: the seats of engine players 0 and 1, the winner's and knocker's seats, and
    ``points``, the signed points of the agent it is told to."""

    def seat(player: int | None) -> int | None:
        return None if player is None else seats[player]

    return {"kind": outcome.kind, "capped": outcome.capped, "seats": seats, "winner": seat(outcome.winner),
            "knocker": seat(outcome.knocker), "points": points, "knocker_deadwood": outcome.knocker_deadwood,
            "defender_deadwood": outcome.defender_deadwood}


class FormatTable:
    """What the tables of this module share for a single-agent env: the text names each agent by its agent's class,
    a reset fixes no deal, and neither a replay nor a picture is offered (both show one two-player hand from one
    player's side, and a hand here has several agents to it or is one of several at once)."""

    deal_options: tuple[str, ...] = ()
    render_modes = ("ansi",)

    @property
    def name(self) -> str:
        return format_name(self.rules.players)

    @property
    def match(self):
        """The game to the target in a match episode; None in a single-hand (single-deal) episode."""
        return self.game if self.episode == "match" else None

    @property
    def over(self) -> bool:
        return self.game.over

    def legal_mask(self) -> np.ndarray:
        return engine.legal_mask(self.state)

    def check_deal(self) -> dict:
        return {}

    def deal_for(self, seat: int, rng: np.random.Generator) -> None:
        self.deal(rng)

    def learner_text(self, learner: int, others: dict, last_outcome: dict | None) -> str:
        """:meth:`text`, the learner named ``learner-i`` and every other agent ``Class-i`` (its agent's class)."""
        return self.text([f"{'learner' if i == learner else type(others[i]).__name__}-{i}"
                          for i in range(self.n_agents)])

    def last_hand(self, learner: int) -> HandRecord:
        raise not_offered(self, "replay()")

    def scene(self, learner: int) -> Scene:
        raise not_offered(self, "render_mode='rgb_array'")


class ThreeTable(FormatTable):
    """Three players (R50-R53): an agent per seat; the seat that deals sits the hand out and sees nothing."""

    n_agents = 3
    learner_seats = 3

    def __init__(self, rules: Rules, episode: str) -> None:
        check_episode(episode)
        self.rules = rules
        self.episode = episode
        self.game: three_players.ThreeState | None = None

    def deal(self, rng: np.random.Generator, *, deck=None, dealer: int | None = None) -> None:
        """Start the episode's game and deal its first hand; ``dealer`` (the seat that sits out) and ``deck`` fix it."""
        self.game = three_players.new_game(self.rules, rng, dealer=dealer, deck=deck,
                                           single_hand=self.episode == "hand")

    @property
    def state(self) -> engine.HandState | None:
        return None if self.game is None else self.game.hand

    @property
    def actor(self) -> int:
        return self.game.seats[self.game.hand.current]

    @property
    def scores(self) -> tuple[int, int, int]:
        """Scores by seat; zeros in a single-hand episode."""
        return self.game.scores if self.episode == "match" else (0, 0, 0)

    def agent_view(self, agent: int) -> PlayerView | None:
        """The view of the hand in play from ``agent``'s seat, its scores own first (R59); None while it sits out."""
        g = self.game
        if agent not in g.seats:
            return None
        scores = self.scores
        return view(g.hand, g.seats.index(agent), tuple(scores[s] for s in g.seats))

    def hand_of(self, agent: int) -> tuple[engine.HandState, int] | None:
        g = self.game
        return (g.hand, g.seats.index(agent)) if agent in g.seats else None

    def play(self, action: int, rng: np.random.Generator) -> three_players.SeatedHand | None:
        """Apply the action of the seat to act; the hand that ended with it (recorded, the next one dealt), or None."""
        before = len(self.game.history)
        self.game = three_players.step(self.game, action, rng)
        return self.game.history[-1] if len(self.game.history) > before else None

    def agent_points(self, finished: three_players.SeatedHand, agent: int) -> float:
        """The hand's signed points of ``agent``'s seat (0 for the seat that sat out), and once the game is over its
        end-of-game bonus (R53) less the mean of the other two seats' bonuses: zero-sum, and with two seats the same
        as ``Table.points``."""
        return finished.points(agent) + (self._bonus(agent) if self.over else 0)

    def _bonus(self, agent: int) -> float:
        bonuses = [t - s for t, s in zip(three_players.final_totals(self.game), self.game.scores)]
        others = [b for seat, b in enumerate(bonuses) if seat != agent]
        return bonuses[agent] - sum(others) / len(others)

    def agent_info(self, finished: three_players.SeatedHand, agent: int, sides: tuple[str, str]) -> dict:
        """``outcome`` with seat numbers (``sat_out`` for the seat that dealt) and, once a match is over, ``match``:
        scores and final totals by seat, the winning seat, the ranking, the hands and ``abandoned``."""
        outcome = _seat_outcome(finished.outcome, finished.seats, finished.points(agent))
        outcome["sat_out"] = finished.dealer
        info = {"outcome": outcome}
        if self.match is not None and self.over:
            g = self.game
            info["match"] = {"scores": g.scores, "final_totals": three_players.final_totals(g), "winner": g.winner,
                             "ranking": three_players.ranking(g), "hands": len(g.history), "abandoned": g.abandoned}
        return info

    def text(self, names) -> str:
        g, s = self.game, self.game.hand
        lines = [f"Gin Rummy, three players [{self.rules.name}]  phase: {engine.PHASE_NAMES[s.phase]}  "
                 f"to act: {names[self.actor]}"]
        for seat in three_players.SEATS:
            hand = "deals, sits out" if seat == g.dealer else cards.to_str(s.hands[g.seats.index(seat)])
            lines.append(f"  {names[seat]:<12} {hand:<32} score {self.scores[seat]}")
        top = cards.card_str(s.pile[-1]) if s.pile else "--"
        lines.append(f"  discard pile: top {top}, {counted(len(s.pile), 'card')}   "
                     f"stock: {counted(engine.stock_size(s), 'card')}")
        return "\n".join(lines)


    def seating(self, seat: int) -> tuple[int, dict[str, list[int]]]:
        """The learner's opponents: the seat at its left (seat + 1), then seat + 2."""
        return seat, {"opponents": [(seat + 1) % 3, (seat + 2) % 3]}

    def deal_for(self, seat: int, rng: np.random.Generator) -> None:
        """:meth:`deal`; a hand episode is one hand the learner plays, so one of the other two seats deals it and sits
        it out."""
        self.deal(rng, dealer=(seat + 1 + int(rng.integers(2))) % 3 if self.episode == "hand" else None)


class FourTable(FormatTable):
    """Four players in two teams (R54-R57): an agent per seat; each sees the hand of its own pairing, with the team
    scores (own first) over ``team_target``; rewards are the deal's netted team result, paid when both pairings'
    hands are done."""

    n_agents = 4
    learner_seats = 4

    def __init__(self, rules: Rules, episode: str) -> None:
        check_episode(episode)
        self.rules = rules
        self.episode = episode
        self.game: four_players.FourState | None = None
        #: Actions taken in each pairing in the deal in play (the interleaving of the module docstring).
        self._moves = [0, 0]

    def deal(self, rng: np.random.Generator, *, decks=None) -> None:
        """Start the episode's game and its first deal; ``decks`` (one per pairing) fix it."""
        self.game = four_players.new_game(self.rules, rng, decks=decks, single_deal=self.episode == "hand")
        self._moves = [0, 0]

    @property
    def pairing(self) -> int:
        """The pairing whose hand takes the next action."""
        live = [p for p in four_players.PAIRINGS if self.game.results[p] is None]
        return min(live, key=lambda p: (self._moves[p], p)) if live else 0

    @property
    def state(self) -> engine.HandState | None:
        """The hand of the pairing to act next (of pairing 0 once the game is over)."""
        return None if self.game is None else self.game.hands[self.pairing]

    @property
    def actor(self) -> int:
        p = self.pairing
        return self.game.seats[p][self.game.hands[p].current]

    @property
    def scores(self) -> tuple[int, int]:
        """Team scores; zeros in a single-deal episode."""
        return self.game.scores if self.episode == "match" else (0, 0)

    def agent_view(self, agent: int) -> PlayerView:
        """The view of the hand of ``agent``'s pairing; its scores are the teams' (own first) over ``team_target``."""
        g = self.game
        p = g.pairing_of(agent)
        # The team-0 seat is engine player 0 in both pairings, so the team scores are indexed by engine player.
        return view(g.hands[p], g.seats[p].index(agent), self.scores)._replace(target=self.rules.team_target)

    def hand_of(self, agent: int) -> tuple[engine.HandState, int]:
        """The hand of ``agent``'s pairing."""
        g = self.game
        p = g.pairing_of(agent)
        return g.hands[p], g.seats[p].index(agent)

    def play(self, action: int, rng: np.random.Generator) -> four_players.Deal | None:
        """Apply the action in the pairing to act; the deal that ended with it (scored, the next one dealt), or None."""
        p, before = self.pairing, len(self.game.history)
        self.game = four_players.step(self.game, p, action, rng)
        self._moves[p] += 1
        if len(self.game.history) == before:
            return None
        self._moves = [0, 0]
        return self.game.history[-1]

    def agent_points(self, deal: four_players.Deal, agent: int) -> int:
        """The deal's netted result for ``agent``'s team (R56), the same for both partners, and once the game is
        over the team's end-of-game bonus less the other team's (R57)."""
        own = four_players.team(agent)
        return deal.team_points(own) + (self._bonus(own) if self.over else 0)

    def _bonus(self, own: int) -> int:
        totals, scores = four_players.final_totals(self.game), self.game.scores
        return (totals[own] - totals[1 - own]) - (scores[own] - scores[1 - own])

    def agent_info(self, deal: four_players.Deal, agent: int, sides: tuple[str, str]) -> dict:
        """``deal``: its number, the team's netted ``points`` and each pairing's outcome with seat numbers (under
        ``tables``: R54 plays the pairings at two tables); once a match is over, ``match``: team scores and final
        totals (own team first), the winner (``TEAM_SIDES``), the deals and ``abandoned``."""
        own = four_players.team(agent)
        tables = [_seat_outcome(o, seats, o.player_points(seats.index(agent)) if agent in seats else 0)
                  for o, seats in zip(deal.outcomes, deal.seats)]
        info = {"deal": {"number": deal.number, "points": deal.team_points(own), "tables": tables}}
        if self.match is not None and self.over:
            g = self.game
            totals = four_players.final_totals(g)
            info["match"] = {"scores": (g.scores[own], g.scores[1 - own]),
                             "final_totals": (totals[own], totals[1 - own]),
                             "winner": None if g.winner is None else TEAM_SIDES[g.winner != own],
                             "deals": len(g.history), "abandoned": g.abandoned}
        return info

    def text(self, names) -> str:
        g = self.game
        lines = [f"Gin Rummy, four players [{self.rules.name}]  deal {g.deal}  team scores {g.scores[0]}-"
                 f"{g.scores[1]} (to {self.rules.team_target})  to act: {names[self.actor]}"]
        for pairing, (hand, seats) in enumerate(zip(g.hands, g.seats)):
            lines.append(f"  table {pairing}: phase {engine.PHASE_NAMES[hand.phase]}, stock {engine.stock_size(hand)}")
            for p, seat in enumerate(seats):
                dealer = " (dealer)" if p == hand.dealer else ""
                lines.append(f"    {names[seat] + dealer:<22} {cards.to_str(hand.hands[p])}")
        return "\n".join(lines)

    def seating(self, seat: int) -> tuple[int, dict[str, list[int]]]:
        """The learner's opponents at seat + 1 and seat + 3, its partner opposite (seat + 2, R54)."""
        return seat, {"opponents": [(seat + 1) % 4, (seat + 3) % 4], "partner": [(seat + 2) % 4]}


class RoomTable(FormatTable, Table):
    """A room (R58-R59): the two-player game of ``Table``, its seats held by ``room`` = (k0, k1) members who take
    the seat's turns in order, across the hands of the game. Agent ``i`` is member ``i`` of seat 0 for ``i < k0``,
    else member ``i - k0`` of seat 1; every member sees the seat's view and gets the seat's points. A single-agent
    env frames it as the other formats do (``FormatTable``)."""

    def __init__(self, rules: Rules, episode: str, room: tuple[int, int]) -> None:
        super().__init__(rules, episode)
        self.room = check_room(room)
        self.n_agents = sum(self.room)
        self.turns = RoomTurns(self.room)

    @property
    def name(self) -> str:
        return format_name(self.rules.players, self.room)

    def seat_of(self, agent: int) -> int:
        return 0 if agent < self.room[0] else 1

    def agent_of(self, seat: int, member: int) -> int:
        return member if seat == 0 else self.room[0] + member

    def deal(self, rng: np.random.Generator, *, deck=None, dealer: int | None = None) -> None:
        """Start the game, its first turns taken by each seat's first member."""
        super().deal(rng, deck=deck, dealer=dealer)
        self.turns = RoomTurns(self.room)

    @property
    def actor(self) -> int:
        seat = self.state.current
        return self.agent_of(seat, self.turns.member(seat))

    def play(self, action: int, rng: np.random.Generator) -> engine.HandOutcome | None:
        """As ``Table.play``; the seat's turn passes to its next member once the other seat moves or the hand ends."""
        seat = self.state.current
        outcome = super().play(action, rng)
        self.turns = self.turns.after(seat, outcome is not None or self.state.current != seat)
        return outcome

    def agent_view(self, agent: int) -> PlayerView:
        return self.view(self.seat_of(agent))

    def hand_of(self, agent: int) -> tuple[engine.HandState, int]:
        """The seat's hand: a member sees its teammates' moves as the seat's own (R59)."""
        return self.state, self.seat_of(agent)

    def agent_points(self, outcome: engine.HandOutcome, agent: int) -> int:
        return self.points(outcome, self.seat_of(agent))

    def agent_info(self, outcome: engine.HandOutcome, agent: int, sides: tuple[str, str]) -> dict:
        info = super().agent_info(outcome, self.seat_of(agent), sides)
        info["outcome"]["seat"] = self.seat_of(agent)
        return info

    def text(self, names, **kwargs) -> str:
        """``Table.text`` with the seats named, then the member to act (``names``: by agent)."""
        return super().text(tuple(f"seat {s}" for s in (0, 1)), **kwargs) + f"\n  member to act: {names[self.actor]}"

    def seating(self, seat: int) -> tuple[int, dict[str, list[int]]]:
        """The learner is the first member of ``seat``; its teammates the seat's other members in order, its
        opponents the other seat's members."""
        return self.agent_of(seat, 0), {"teammates": [self.agent_of(seat, m) for m in range(1, self.room[seat])],
                                        "opponents": [self.agent_of(1 - seat, m) for m in range(self.room[1 - seat])]}
