"""The table interface (``gin_env.table.protocol.GameTable``): every format's table declares all of it, with
signatures that take the protocol's arguments, and the single-learner parts agree with the game (every other agent
seated once, the learner never among them)."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from gin_env.game.rules import Rules
from gin_env.table.formats import FourTable, RoomTable, ThreeTable, make_table
from gin_env.table.protocol import GameTable, NotOffered
from gin_env.table.two_players import Table

TABLES = {
    "two players": lambda episode: Table(Rules(), episode),
    "three players": lambda episode: ThreeTable(Rules(players=3), episode),
    "four players": lambda episode: FourTable(Rules(players=4), episode),
    "room (2, 3)": lambda episode: RoomTable(Rules(), episode, (2, 3)),
}
#: The protocol's members: its methods and properties, and its declared attributes.
MEMBERS = sorted({name for name in vars(GameTable) if not name.startswith("_")} | set(GameTable.__annotations__))


def required(function) -> int:
    """How many arguments a caller must give ``function`` (self excepted): the protocol's callers pass them by
    position, so the names may be each format's own (a hand's outcome, a deal)."""
    return sum(p.name != "self" and p.default is p.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
               for p in inspect.signature(function).parameters.values())


@pytest.mark.parametrize("make", TABLES.values(), ids=TABLES.keys())
@pytest.mark.parametrize("episode", ["hand", "match"])
def test_every_table_satisfies_the_protocol(make, episode):
    table = make(episode)
    table.deal(np.random.default_rng(0))  # the game's properties (actor, over) read the game: isinstance reads them
    assert isinstance(table, GameTable)
    for name in MEMBERS:
        assert hasattr(type(table), name) or hasattr(table, name), f"{type(table).__name__} lacks {name}"
        declared = inspect.getattr_static(GameTable, name, None)
        if inspect.isfunction(declared):
            assert required(getattr(table, name)) == required(declared), f"{type(table).__name__}.{name}"
        elif isinstance(declared, property):
            assert isinstance(inspect.getattr_static(table, name), property), f"{type(table).__name__}.{name}"


@pytest.mark.parametrize("make", TABLES.values(), ids=TABLES.keys())
def test_the_protocol_plays_a_game_to_its_end(make):
    table, rng = make("match"), np.random.default_rng(0)
    table.deal(rng)
    assert table.game is not None and len(table.scores) in (2, 3)
    while not table.over:
        mask = table.legal_mask()
        np.testing.assert_array_equal(mask, table.agent_view(table.actor).legal_mask)
        table.play(int(rng.choice(np.flatnonzero(mask))), rng)
    assert table.match is table.game


@pytest.mark.parametrize("make", TABLES.values(), ids=TABLES.keys())
def test_seating_places_every_other_agent_once(make):
    table = make("hand")
    for seat in range(table.learner_seats):
        learner, placed = table.seating(seat)
        others = [agent for agents in placed.values() for agent in agents]
        assert sorted([learner, *others]) == list(range(table.n_agents))


def test_the_capabilities_of_two_players_are_refused_by_the_other_formats_naming_them():
    assert Table(Rules(), "hand").render_modes == ("ansi", "rgb_array")
    for name, make in TABLES.items():
        table = make("hand")
        table.deal(np.random.default_rng(0))
        if name == "two players":
            with pytest.raises(RuntimeError, match="no hand has finished"):
                table.last_hand(0)
            assert table.scene(1).player == 1
            continue
        assert table.render_modes == ("ansi",) and table.deal_options == ()
        for ask in (table.last_hand, table.scene):
            with pytest.raises(NotOffered, match=f"two players only; this game is {re.escape(table.name)}$"):
                ask(0)


def test_make_table_makes_the_table_of_each_format():
    assert type(make_table(Rules(players=3), "hand")) is ThreeTable
    assert type(make_table(Rules(players=4), "hand")) is FourTable
    assert type(make_table(Rules(), "hand", (1, 2))) is RoomTable
    assert type(make_table(Rules(), "hand")) is Table
