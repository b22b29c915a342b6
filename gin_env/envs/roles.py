"""The agents ``GinRummy-v0`` seats around its learner, by role: ``opponent`` (two players), ``opponents`` (three and
four players, rooms), ``partner`` (four players), ``teammates`` (rooms). Which roles a format has and where each sits
is its table's (``GameTable.seating``); this module checks the role arguments and a reset's options against them,
resolves the agents and seats them."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from gin_env import agents
from gin_env.game import engine
from gin_env.table.checks import agent_action, is_legal, legal_text, seat_among
from gin_env.table.protocol import GameTable
from gin_env.table.two_players import counted

#: The roles given as a list of agents; every other role is one agent.
LISTED = ("opponents", "teammates")
#: The agent of a role left out.
DEFAULT_AGENT = "simple"
#: The note an error raised while the agents inside an env played carries (``GinRummy-v0``, the vector env): the
#: game had moved on when it came, so the env ends the episode rather than offer a half-played step.
ENDED_BY_ERROR = "the episode is over (this error came while the agents inside the env played): call reset()"


class Seated(NamedTuple):
    """Another agent at the learner's table: the agent, its role as messages name it (``opponents[1]``), and its
    ``act_on_mask`` (None for an agent that reads a view)."""

    agent: agents.Agent
    role: str
    act_on_mask: Callable | None


def sizes_at(table: GameTable, seat: int) -> dict[str, int]:
    """How many agents each role of ``table``'s format holds around a learner at ``seat``."""
    return {role: len(placed) for role, placed in table.seating(seat)[1].items()}


def arguments(sizes: dict[str, int]) -> str:
    """The role arguments of a format, as a message spells them: ``opponents=[...], partner=...``."""
    return ", ".join(f"{role}=[...]" if role in LISTED else f"{role}=..." for role in sizes)


def described(sizes: dict[str, int]) -> str:
    """The agents of each role in words: ``0 teammates and 2 opponents``."""
    return " and ".join(counted(n, role.removesuffix("s")) for role, n in sizes.items())


def resolve_roles(table: GameTable, learner_seat: int | None, given: dict) -> dict[str, list[agents.Agent]]:
    """The agents of every role of ``table``'s format, by role, from ``given`` (role -> the argument, None where
    left out: ``DEFAULT_AGENT``). Refused with a ``ValueError`` naming the format: a role it lacks, a list of the
    wrong length, and, with ``learner_seat`` None, a format whose seats hold different roles (a room of unequal
    seats), which the learner's seat must then fix."""
    seats = range(table.learner_seats) if learner_seat is None else (learner_seat,)
    sizes = sizes_at(table, seats[0])
    if any(sizes_at(table, seat) != sizes for seat in seats):
        raise ValueError(f"{table.name} holds different agents around each seat: fix learner_seat "
                         f"(0..{table.learner_seats - 1}) so that {arguments(sizes)} fill the learner's")
    for role, value in given.items():
        if value is not None and role not in sizes:
            raise ValueError(f"{table.name} takes no {role}=: its agents are {arguments(sizes)}")
    return {role: _agents(role, given.get(role), n, table.name) for role, n in sizes.items()}


def _agents(role: str, value, n: int, format_name: str) -> list[agents.Agent]:
    if role not in LISTED:
        return [agents.resolve(DEFAULT_AGENT if value is None else value, role)]
    value = [DEFAULT_AGENT] * n if value is None else value
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != n:
        raise ValueError(f"{role} must be a list of {counted(n, 'agent')} in {format_name}, got {value!r}")
    return [agents.resolve(a, role) for a in value]


def check_seat(table: GameTable, seat: int, roles: dict[str, list], made_for: int | None) -> None:
    """A reset's ``learner_seat`` option: the agents ``roles`` (given for ``made_for``) must fill the roles around
    ``seat`` (in a room of unequal seats they fill one seat only, R58)."""
    sizes, given = sizes_at(table, seat), {role: len(placed) for role, placed in roles.items()}
    if sizes != given:
        raise ValueError(f"reset option learner_seat={seat}: {table.name} seats {described(sizes)} around it, and "
                         f"this env holds {described(given)} for learner_seat={made_for}; make an env with "
                         f"learner_seat={seat} to play that seat")


def seated(table: GameTable, seat: int, roles: dict[str, list]) -> tuple[int, dict[int, Seated]]:
    """The learner's agent at ``seat`` and every other agent of ``roles`` by agent index (``table.seating``)."""
    learner, placed = table.seating(seat)
    others = {}
    for role, indices in placed.items():
        for k, i in enumerate(indices):
            agent = roles[role][k]
            name = role if role not in LISTED else f"{role}[{k}]"
            # An agent that reads only the legal actions gets them without a view, whose deadwood solve and planes
            # it would throw away.
            others[i] = Seated(agent, name, getattr(agent, "act_on_mask", None))
    return learner, others


def reset_options(table: GameTable, options: dict | None, roles: dict[str, list],
                  learner_seat: int | None) -> tuple[int | None, dict]:
    """A reset's ``options``, checked before any work: the learner's seat (``learner_seat``, the env's, when not
    given; None: drawn) and the table's deal options, checked by the table (keyword arguments of ``deal_for``)."""
    options = dict(options or {})
    fixed = {key: options.pop(key) for key in table.deal_options if key in options}
    seat = options.pop("learner_seat", learner_seat)
    if options:
        raise ValueError(f"unknown reset options {sorted(options)}; known: "
                         + ", ".join((*table.deal_options, "learner_seat")))
    seat = seat_among(seat, table.learner_seats, "learner_seat")
    if seat is not None:
        check_seat(table, seat, roles, learner_seat)
    return seat, table.check_deal(**fixed)


def choose(table: GameTable, i: int, agent: Seated, rng: np.random.Generator) -> int:
    """The action agent ``i`` of ``table``, seated as ``agent``, chooses now: from its view, or from the legal
    actions alone for an agent with ``act_on_mask``. ``AgentActionError`` for an answer that is not one action id,
    ``IllegalActionError`` naming the agent for an action that is not legal now."""
    if agent.act_on_mask is None:
        mask = (v := table.agent_view(i)).legal_mask
        action = agent.agent.act(v, rng)
    else:
        mask = table.legal_mask()
        action = agent.act_on_mask(mask, rng)
    a = agent_action(agent.agent, action, agent.role)
    if not is_legal(a, mask):
        raise engine.IllegalActionError(f"{agent.role} {agent.agent!r} chose {action!r}, which is not legal: "
                                        + legal_text(table.agent_view(i)))
    return a


@contextlib.contextmanager
def episode_ends_on_error(halt: Callable[[], None]) -> Iterator[None]:
    """Around the agents inside an env playing: an error there (an agent's, or Ctrl-C) has left the game moved on
    past the learner's decision, so ``halt()`` ends the episode, and the error is raised with a note saying so
    (:data:`ENDED_BY_ERROR`; Python 3.10 has no notes: there ``step`` alone says to call ``reset()``)."""
    try:
        yield
    except BaseException as error:
        halt()
        if hasattr(error, "add_note"):
            error.add_note(ENDED_BY_ERROR)
        raise
