"""The web table's words are told per receiver: a person's own moves read "you discard", "your deadwood", everyone
else reads the name; a room refuses the name "you"."""

import pytest

from gin_env import agents
from gin_env.game.rules import Rules
from gin_env.web import wire
from gin_env.web.games import Game
from gin_env.web.rooms import Room

SIMPLE = agents.load("simple-v1")


def test_own_moves_read_you_and_a_spectator_reads_the_name():
    game = Game(Rules.preset("standard"), players=[None, SIMPLE], names=["ann", "simple-v1"], seed=4)
    game.advance()
    while game.actor == 0:
        game.act(0, game.view(0).legal_actions[0])
        game.advance()
    own, public = game.frame(0)["log"], game.spectator_frame()["log"]
    assert len(own) == len(public) and own != public
    for mine, theirs in zip(own, public):
        assert mine == theirs or (mine.startswith("you ") and theirs.startswith("ann ")), (mine, theirs)
    assert not any(line.startswith("ann ") for line in own)


def test_said_and_possessive_forms():
    said = wire.Said("ann", "pass", " on the upcard 7S")
    assert said.text("ann") == "you pass on the upcard 7S" and said.text() == "ann passes on the upcard 7S"
    assert wire.possessive("ann", "ann") == "your" and wire.possessive("ann", "bob") == "ann's"


def test_a_room_refuses_the_name_you():
    room = Room(Rules.preset("standard"), bot=SIMPLE)
    with pytest.raises(ValueError, match="would read as everyone's own"):
        room.join("You", True)
