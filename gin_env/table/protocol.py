"""The table interface: what every env and game loop asks of a table, whatever the format.

A table holds the game of one episode in one format of docs/rules.md (two players, three players, four players in
two teams, a room) and speaks of it in agents: ``n_agents`` of them, numbered from 0, one of which (``actor``) acts
next. :class:`GameTable` declares that interface; ``two_players.Table``, ``formats.ThreeTable``, ``formats.FourTable``
and ``formats.RoomTable`` satisfy it, so ``GinRummy-v0``, the PettingZoo env, the terminal game and the evaluation of
the formats each play every format through one code path. What differs by format is the table's: who sits where,
who acts, what each agent sees, each agent's points and infos, the text, and the capabilities only some formats
offer (a replay of the last hand, a picture): a table that lacks one says so with :class:`NotOffered`.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from gin_env.game import engine
from gin_env.game.observation import PlayerView
from gin_env.game.rules import Rules


class NotOffered(ValueError):
    """A capability asked of a table whose format lacks it (a replay or a picture); the message names the format."""


def not_offered(table: GameTable, what: str) -> NotOffered:
    """The error for ``what`` asked of ``table``: it names the format and the one that offers it."""
    return NotOffered(f"{what} is offered with two players only; this game is {table.name}")


class HandRecord(NamedTuple):
    """A finished two-player hand as a replay records it: its deal, both players' actions, the players' names (by
    engine player), its number in the game (None for a single hand) and the match scores before it."""

    start: engine.HandState
    actions: tuple[int, ...]
    players: tuple[str, str]
    hand_number: int | None
    scores: tuple[int, int]


class Scene(NamedTuple):
    """What a picture of a two-player table shows one player: the hand in play, that player's engine index and the
    match scores, own first (None outside a match)."""

    state: engine.HandState
    player: int
    scores: tuple[int, int] | None


@runtime_checkable
class GameTable(Protocol):
    """One game of a format for an episode (``episode="hand"``: one hand, one deal in four players; ``"match"``: a
    game to the target), dealt again by :meth:`deal`. An agent is a seat, or a member of a seat in a room."""

    rules: Rules
    episode: str
    #: The agents at the table.
    n_agents: int
    #: The format's game state (``match.MatchState``, ``ThreeState``, ``FourState``); None before the first deal.
    game: Any
    #: The seats a single-agent env may give its learner: ``learner_seat`` is 0..learner_seats-1.
    learner_seats: int
    #: The reset options that fix the first deal (keyword arguments of :meth:`deal_for`).
    deal_options: tuple[str, ...]
    #: The ``render_mode`` values the table can be shown in: ``"ansi"``, and ``"rgb_array"`` where it offers
    #: :meth:`scene`.
    render_modes: tuple[str, ...]

    @property
    def name(self) -> str:
        """The format in words, as messages name it."""

    # --- the game -----------------------------------------------------------------------------------------------

    def deal(self, rng: np.random.Generator) -> None:
        """Start the episode's game and deal its first hand (deal) from ``rng``."""

    @property
    def state(self) -> engine.HandState | None:
        """The hand that takes the next action (the last one once the game is over); None before the first deal."""

    @property
    def match(self) -> Any:
        """The game to the target in a match episode; None in a single-hand episode."""

    @property
    def over(self) -> bool:
        """The episode's game is over."""

    @property
    def scores(self) -> tuple[int, ...]:
        """The game's scores by seat (by team in four players); zeros in a single-hand episode."""

    @property
    def actor(self) -> int:
        """The agent to act."""

    def legal_mask(self) -> np.ndarray:
        """The legal actions of the agent to act, bool ``(108,)``: its view's, without building the view."""

    def agent_view(self, agent: int) -> PlayerView | None:
        """What ``agent`` may know now; None while its seat sits the hand out (three players)."""

    def hand_of(self, agent: int) -> tuple[engine.HandState, int] | None:
        """The hand ``agent``'s seat plays now and its engine player in it; None while the seat sits the hand out.
        The hand is the very object :attr:`state` returns when it takes the next action."""

    def play(self, action: int, rng: np.random.Generator) -> Any:
        """Apply the action of the agent to act (``engine.IllegalActionError``, nothing changed, when it is not
        legal); what finished with it (a hand, a deal), the next one dealt from ``rng``, or None."""

    def agent_points(self, finished: Any, agent: int) -> float:
        """``agent``'s signed points for a step that finished ``finished``, with the end-of-game bonuses once the
        game is over."""

    def agent_info(self, finished: Any, agent: int, sides: tuple[str, str]) -> dict:
        """``agent``'s info for a step that finished ``finished`` (``sides`` names own side and the other)."""

    def text(self, names) -> str:
        """The table as ansi text, every agent named by ``names`` (by agent)."""

    # --- one learner, the others inside the env's step ---------------------------------------------------------

    def seating(self, seat: int) -> tuple[int, dict[str, list[int]]]:
        """The learner's agent when it holds ``seat``, and the other agents by role (``"opponent"``,
        ``"opponents"``, ``"partner"``, ``"teammates"``), in the order the env's role arguments list them."""

    def check_deal(self, **fixed) -> dict:
        """The :attr:`deal_options` a reset gave, checked before any work; keyword arguments for :meth:`deal_for`."""

    def deal_for(self, seat: int, rng: np.random.Generator, **fixed) -> None:
        """:meth:`deal` for a learner at ``seat`` (a hand episode deals a hand the learner plays), with ``fixed``."""

    def learner_text(self, learner: int, others: dict[int, Any], last_outcome: dict | None) -> str:
        """The table as ansi text for a single-agent env: ``learner``'s side, the ``others`` (agent -> agent object)
        and the last hand's outcome info."""

    def last_hand(self, learner: int) -> HandRecord:
        """The last finished hand of the episode told with ``learner``'s side named (``RuntimeError`` before one
        finishes); :class:`NotOffered` where the format records none."""

    def scene(self, learner: int) -> Scene:
        """What a picture of the table shows ``learner``; :class:`NotOffered` where the format has no picture."""


class AtTable:
    """What an adapter over a table (its ``table``) shows of the game as attributes."""

    table: GameTable

    @property
    def state(self) -> engine.HandState | None:
        """The hand in play (the last one once the episode is over); None before the first deal."""
        return self.table.state

    @property
    def match(self) -> Any:
        """The game to the target with ``episode="match"``; None for single hands."""
        return self.table.match
