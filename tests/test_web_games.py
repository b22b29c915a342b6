"""The web table's game core: ``gin_env.web.games.Game`` in every format with scripted people, the frames of
``gin_env.web.wire`` held to what each receiver may know, the replays it saves, and the hints of
``gin_env.web.hints``."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from gin_env import agents
from gin_env.game import cards, engine, solver
from gin_env.game.rules import Rules
from gin_env.replay import replay_file
from gin_env.web import hints, wire
from gin_env.web.games import Game

SIMPLE = agents.load("simple")
#: (players, room, people): the formats of rules.md section 15 with the agent indices people play.
FORMATS = {"two": (2, None, (0,)), "three": (3, None, (0,)), "four": (4, None, (0, 1)),
           "room": (2, (2, 1), (0, 1))}
NAMES = ("ann", "bob", "cy", "dee")
JOKER_DECLARED = re.compile(r"JK=([A2-9TJQK][SHDC])")
CARD = re.compile(r"\b(?:[A2-9TJQK][SHDC]|JK)\b")


def make_game(fmt: str, preset: str = "standard", episode: str = "match", seed: int = 7, folder=None) -> Game:
    players, room, people = FORMATS[fmt]
    n = sum(room) if room else players
    rules = Rules.preset(preset).replace(players=players)
    return Game(rules, players=[None if a in people else SIMPLE for a in range(n)], names=NAMES[:n],
                episode=episode, seed=seed, replay_folder=folder, room=room)


# -----------------------------------------------------------------------------------------------------------------
# What a receiver may know, from the engine's states alone
# -----------------------------------------------------------------------------------------------------------------

def public_cards(state: engine.HandState) -> int:
    """Every card of a hand that has been face up: the pile, the first upcard, each discard, each card taken."""
    upcard = 0 if state.initial_upcard == engine.NO_CARD else 1 << state.initial_upcard
    return (cards.to_mask(state.pile) | upcard | state.known[0] | state.known[1] | state.discarded[0]
            | state.discarded[1] | state.declined[0] | state.declined[1])


def every_card(state: engine.HandState) -> int:
    return state.hands[0] | state.hands[1] | public_cards(state)


def allowed(game: Game, agent: int | None) -> set[str]:
    """The card texts ``agent`` (None: a spectator) may be told now: its own hand and the public cards of the hand
    it plays or watches, every card of a hand that is over, and every card of the finished hands it sat at."""
    masks = []
    for pairing, hand in game._hands().items():
        seats = game._hand_seats(pairing)
        if hand.phase == engine.OVER:
            masks.append(every_card(hand))
        elif agent is None:
            masks.append(public_cards(hand))
        elif game.seat_of(agent) in seats:
            masks.append(public_cards(hand) | hand.hands[seats.index(game.seat_of(agent))])
        elif game.rules.players == 3:
            masks.append(public_cards(hand))
    for _, final, _, seats in game.finished:
        if agent is None or game.rules.players != 4 or game.seat_of(agent) in seats:
            masks.append(every_card(final))
    return {cards.card_str(c) for m in masks for c in cards.to_ids(m)}


def strings(value, path=()):
    """Every string of a JSON value with the keys above it."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(v, (*path, k))
    elif isinstance(value, list):
        for v in value:
            yield from strings(v, path)


def check_frame(frame: dict, may_know: set[str], opened: bool = False) -> None:
    """No card of ``frame`` lies outside ``may_know``; a joker is only ever "JK", and "JK=7S" only in the
    receiver's own arrangement, a showdown or (``opened``) every hand of a game no person plays."""
    json.dumps(frame)
    for path, text in strings(frame):
        if JOKER_DECLARED.search(text):
            assert "arrangement" in path or "showdowns" in path or opened, (path, text)
        for token in CARD.findall(JOKER_DECLARED.sub("JK", text)):
            assert token == "JK" or token in may_know, f"{token} at {path} ({text!r}) is not the receiver's to know"


def check_all(game: Game) -> None:
    for agent in range(len(game.players)):
        check_frame(game.frame(agent), allowed(game, agent))
    check_frame(game.spectator_frame(), allowed(game, None))


def play(game: Game, seed: int = 0, each_step=check_all, hint_agents=None) -> list[dict]:
    """Play ``game`` to its end, every person choosing uniformly among its frame's ``moves``; ``each_step(game)``
    after every move; with ``hint_agents`` every person asks for hints first. The moves played."""
    rng = np.random.default_rng(seed)
    played = []
    while True:
        played += game.advance()
        each_step(game)
        if game.over:
            return played
        if game.waiting:
            assert game.frame(game.people[0])["showdowns"], "a hand ended unseen"
            game.next_hand()
            continue
        agent = game.actor
        options = game.frame(agent)["view"]["moves"]
        if hint_agents is not None:
            hints.hints(game.view(agent), hint_agents, seed=len(played))
        played.append(game.act(agent, options[int(rng.integers(len(options)))]["action"]))
        each_step(game)


# -----------------------------------------------------------------------------------------------------------------
# Whole games
# -----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["standard", "jokers"])
@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("episode", ["hand", "match"])
def test_whole_games_send_no_card_a_receiver_may_not_know(fmt, preset, episode):
    game = make_game(fmt, preset, episode)
    played = play(game)
    assert game.over and played
    end = game.frame(0)
    assert end["over"] and end["result"] is not None and end["showdowns"]
    if episode == "match":
        target = game.rules.team_target if game.rules.players == 4 else game.rules.target
        assert max(s["score"] for s in end["scores"]) >= target or game.table.game.abandoned


SEAT_FRAME = Game.frame


def leak_opponent_hand(game: Game, agent: int) -> dict:
    """A broken frame: the seat's frame with the opponent's cards in it."""
    frame = SEAT_FRAME(game, agent)
    hand = game.table.hand_of(agent)
    if hand is not None and frame["view"] is not None:
        state, player = hand
        frame["view"]["opponent_known"].extend(wire.card_texts(state.hands[1 - player]))
    return frame


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_checker_catches_an_opponent_hand_in_a_seat_frame(fmt, monkeypatch):
    game = make_game(fmt, "jokers", "hand")
    monkeypatch.setattr(Game, "frame", leak_opponent_hand)
    with pytest.raises(AssertionError, match="is not the receiver's to know"):
        play(game)


PUBLIC_FRAME = wire.public_frame


def test_the_checker_catches_every_hand_in_a_spectator_frame(monkeypatch):
    def with_hands(state, names):
        return {**PUBLIC_FRAME(state, names), "hands": [wire.card_texts(h) for h in state.hands]}

    game = make_game("two", "standard", "hand")
    monkeypatch.setattr(wire, "public_frame", with_hands)
    with pytest.raises(AssertionError, match="is not the receiver's to know"):
        play(game)


def test_a_declared_joker_outside_an_arrangement_is_caught():
    with pytest.raises(AssertionError):
        check_frame({"view": {"log": ["ann discards JK=7S"]}}, {"7S"})
    check_frame({"view": {"arrangement": {"melds": [["6S", "JK=7S", "8S"]]}}}, {"6S", "8S"})


def test_a_seat_frame_holds_the_hand_in_its_melds_and_the_legal_moves():
    game = make_game("two", "jokers", "match", seed=3)
    steps = 0

    def check_view(g):
        nonlocal steps
        agent = g.actor
        if agent is None or g.waiting:
            return
        view, frame = g.view(agent), g.frame(agent)["view"]
        steps += 1
        assert [m["action"] for m in frame["moves"]] == view.legal_actions
        held = frame["arrangement"]
        assert sorted(frame["hand"]) == sorted(wire.card_texts(view.hand))
        assert held["deadwood"] == solver.deadwood(view.hand, view.rules)
        after = held["deadwood_after_discard"]
        assert (view.deadwood if after is not None else held["deadwood"]) == (after if after is not None
                                                                               else view.deadwood)
        melded = [c.split("=")[0] for m in held["melds"] for c in m]
        assert sorted(melded + held["deadwood_cards"]) == sorted(frame["hand"])

    play(game, each_step=check_view)
    assert steps > 10


# -----------------------------------------------------------------------------------------------------------------
# Refusals
# -----------------------------------------------------------------------------------------------------------------

def snapshot(game: Game):
    return game.table.game, json.dumps([game.frame(a) for a in range(len(game.players))])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_illegal_and_out_of_turn_actions_are_refused_and_change_nothing(fmt):
    game = make_game(fmt, "jokers", "match")
    game.advance()
    agent = game.actor
    legal = set(game.view(agent).legal_actions)
    illegal = next(a for a in range(game.rules.n_actions) if a not in legal)
    other_person = [a for a in game.people if a != agent]
    before = snapshot(game)
    bot = next(a for a, p in enumerate(game.players) if p is not None)
    for who, action, message in [(agent, illegal, "not legal"), (agent, 10**6, "not legal"),
                                 (agent, "1", "int id"), (agent, True, "int id"), (bot, min(legal), "agent"),
                                 (len(game.players), min(legal), "index"), (-1, min(legal), "index")] + \
            [(a, min(legal), "turn") for a in other_person]:
        with pytest.raises(ValueError, match=message):
            game.act(who, action)
        after = snapshot(game)
        assert after[0] is before[0] and after[1] == before[1]


def test_a_finished_hand_waits_for_next_hand():
    game = make_game("two", "standard", "match", seed=11)
    rng = np.random.default_rng(1)
    while not game.waiting:
        game.advance()
        if game.waiting:
            break
        options = game.frame(0)["view"]["moves"]
        game.act(0, options[int(rng.integers(len(options)))]["action"])
    frame = game.frame(0)
    assert frame["view"] is None and frame["showdowns"] and frame["actor"] is None
    assert game.advance() == []
    with pytest.raises(ValueError, match="next_hand"):
        game.act(0, 0)
    game.next_hand()
    with pytest.raises(ValueError, match="no finished hand"):
        game.next_hand()
    assert game.frame(0)["showdowns"] == []


def test_a_game_of_agents_alone_plays_through_and_shows_every_hand():
    rules = Rules.preset("standard")
    game = Game(rules, players=[SIMPLE, SIMPLE], names=["a", "b"], episode="match", seed=2)
    assert game.advance()
    assert game.over and not game.waiting
    frame = game.owner_frame()
    assert frame["tables"][0]["kind"] == "open" and len(frame["tables"][0]["hands"]) == 2
    person = make_game("two")
    with pytest.raises(ValueError, match="person"):
        person.owner_frame()


@pytest.mark.parametrize("kwargs, message", [
    ({"names": ["a"]}, "names"), ({"players": [None]}, "players"), ({"episode": "set"}, "episode"),
    ({"seed": -1}, "seed"), ({"seed": "1"}, "seed")])
def test_bad_arguments_are_refused_before_any_deal(kwargs, message):
    args = {"players": [None, SIMPLE], "names": ["a", "b"], "episode": "hand", "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        Game(Rules.preset("standard"), **args)


# -----------------------------------------------------------------------------------------------------------------
# Replays
# -----------------------------------------------------------------------------------------------------------------

def outcomes(game: Game) -> list:
    """The game's hand outcomes in the order of its replay files' names."""
    history = game.table.game.history
    return {2: lambda: list(history), 3: lambda: [h.outcome for h in history],
            4: lambda: [o for deal in history for o in deal.outcomes]}[game.rules.players]()


def summary(o: engine.HandOutcome) -> tuple:
    return o.kind, o.winner, o.points, o.knocker, o.knocker_deadwood, o.defender_deadwood, o.capped


@pytest.mark.parametrize("preset", ["standard", "jokers"])
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_finished_hand_is_saved_and_replays_to_its_outcome(fmt, preset, tmp_path):
    game = make_game(fmt, preset, "match", folder=tmp_path / "replays")
    play(game, each_step=lambda g: None)
    paths = sorted(game.saved)
    assert paths and sorted(p.name for p in (tmp_path / "replays").iterdir()) == [p.rsplit("/", 1)[1] for p in paths]
    loaded = [replay_file.load(p) for p in paths]
    assert [summary(r.states()[-1].outcome) for r in loaded] == [summary(o) for o in outcomes(game)]
    names = set(game.names) | {game.seat_name(s) for s in range(2)}
    assert all(set(r.players) <= names for r in loaded)


def test_a_replay_folder_with_the_same_game_is_refused_before_any_deal(tmp_path):
    play(make_game("two", folder=tmp_path), each_step=lambda g: None)
    with pytest.raises(FileExistsError):
        make_game("two", folder=tmp_path)


# -----------------------------------------------------------------------------------------------------------------
# Hints
# -----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["two", "four"])
def test_hints_do_not_change_the_game(fmt):
    helpers = {name: agents.load(name) for name in ("simple", "expert", "random")}
    with_hints = play(make_game(fmt, "jokers", "match", seed=5), each_step=lambda g: None, hint_agents=helpers)
    without = play(make_game(fmt, "jokers", "match", seed=5), each_step=lambda g: None)
    assert with_hints == without


def test_hints_name_a_legal_action_of_each_agent_and_the_search_values_each_candidate():
    game = make_game("two", "standard", "hand", seed=4)
    game.advance()
    view = game.view(game.actor)
    helpers = {name: agents.load(name) for name in ("simple", "expert")}
    said = hints.hints(view, helpers, seed=1)
    assert [h["agent"] for h in said] == ["simple", "expert"]
    assert all(h["action"] in view.legal_actions and h["label"] == wire.move_label(view, h["action"]) for h in said)
    assert said == hints.hints(view, helpers, seed=1)
    values = hints.search_values(view, seed=1, samples=4)
    assert values and all(v["action"] in view.legal_actions and np.isfinite(v["value"]) for v in values)
    assert values == hints.search_values(view, seed=1, samples=4)
    bot = next(a for a, p in enumerate(game.players) if p is not None)
    with pytest.raises(ValueError, match="not this player's turn"):
        hints.hints(game.view(bot), helpers, seed=1)
    with pytest.raises(ValueError, match="samples"):
        hints.search_values(view, seed=1, samples=0)


def test_an_agent_that_answers_an_illegal_action_changes_nothing():
    class Stubborn:
        def act(self, view, rng):
            return next(a for a in range(len(view.legal_mask)) if not view.legal_mask[a])

    game = Game(Rules.preset("standard"), players=[Stubborn(), None], names=["a", "b"], seed=1)
    while game.actor == 1:
        game.act(1, game.view(1).legal_actions[0])
    before = snapshot(game)
    with pytest.raises(engine.IllegalActionError):
        game.advance()
    after = snapshot(game)
    assert after[0] is before[0] and after[1] == before[1]
