"""Rooms of people (gin_env.web.rooms): each member sees only their seat's cards (R59) and spectators public ones,
members take a seat's turns by R58 with the order drawn again when membership changes, tokens hold seats, the bot
plays an away member's late turn, the limits hold, and a room's replays name who made each action, so that one
person's dataset holds only their own turns."""

from __future__ import annotations

import json
import os
import secrets

import numpy as np
import pytest

from gin_env import agents
from gin_env.game import engine, observation
from gin_env.game.room import MAX_MEMBERS
from gin_env.game.rules import Rules
from gin_env.replay import replay_file
from gin_env.replay.fields import ReplayError
from gin_env.web import wire
from gin_env.web.rooms import MAX_SPECTATORS, TURN_TIMEOUT_S, Room
from tests.test_web_games import allowed, check_frame

SIMPLE = agents.load("simple")


class Clock:
    """A clock the test moves by hand: no sleeping."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def short(preset: str = "standard", players: int = 2) -> Rules:
    """A preset with a low target, so that a match is a few hands."""
    rules = Rules.preset(preset).replace(players=players)
    return rules.replace(team_target=30) if players == 4 else rules.replace(target=30)


def check_room(room: Room, members: list) -> None:
    """Every frame of every member and of a spectator holds only cards its receiver may know."""
    game = room.game
    for member in members:
        if member.left:
            continue
        seat = next((s for s, held in enumerate(room._lineup) if member in held), None)
        check_frame(room.frame_for(member.token), allowed(game, seat))
    check_frame(room.spectator_frame(), allowed(game, None))


def drive(room: Room, starter, seed: int = 0, each_step=None, max_actions: int | None = None) -> list[tuple]:
    """Play the room's game by its members, each choosing uniformly among their frame's moves, the next hand asked
    for by ``starter``; ``each_step(room)`` after every move. The actions as (hand number, seat, member name)."""
    rng = np.random.default_rng(seed)
    log = []
    while room.state != "over" and (max_actions is None or len(log) < max_actions):
        if room.state == "between":
            room.next_hand(starter.token)
            continue
        member = room.acting()
        frame = room.frame_for(member.token)
        moves = frame["view"]["moves"]
        log.append((frame["hand_number"], room.game.actor, member.name))
        room.act(member.token, moves[int(rng.integers(len(moves)))]["action"])
        if each_step is not None:
            each_step(room)
    return log


def turns(log: list[tuple]) -> dict[int, list[str]]:
    """Each seat's turns in order, as the member who took each: a turn is a seat's actions until the other seat
    moves or the hand ends (R58)."""
    out: dict[int, list[str]] = {}
    last = None
    for hand, seat, name in log:
        if (hand, seat) != last:
            out.setdefault(seat, []).append(name)
        last = (hand, seat)
    return out


# -----------------------------------------------------------------------------------------------------------------
# What each receiver may know
# -----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["standard", "jokers"])
def test_two_people_see_only_their_own_seat_and_finish_a_hand(preset):
    room = Room(Rules.preset(preset), episode="hand", bot=SIMPLE, seed=3)
    ann, bob = room.join("ann", True), room.join("bob", True)
    watcher = room.join("sam", False)
    assert (ann.seat, bob.seat, watcher.seat) == (0, 1, None)
    room.start(ann.token)
    members = [ann, bob, watcher]
    check_room(room, members)
    seen = set()

    def each(r):
        check_room(r, members)
        if r.state == "playing":
            frame = r.frame_for(r.acting().token)["view"]
            seen.add(r.acting().name)
            assert frame["hand"] == wire.card_texts(r.game.table.state.hands[r.game.actor]) and frame["moves"]

    log = drive(room, ann, each_step=each)
    assert room.state == "over" and seen == {"ann", "bob"} and {name for _, _, name in log} == {"ann", "bob"}
    end = room.spectator_frame()
    assert end["showdowns"] and len(end["showdowns"][0]["hands"]) == 2


def test_the_checker_catches_a_seat_frame_sent_to_the_other_seat(monkeypatch):
    room = Room(Rules.preset("standard"), episode="hand", bot=SIMPLE, seed=3)
    ann, bob = room.join("ann", True), room.join("bob", True)
    room.start(ann.token)
    monkeypatch.setattr(Room, "_seat_in_hand", lambda self, member: 0)
    with pytest.raises(AssertionError, match="is not the receiver's to know"):
        check_room(room, [ann, bob])


@pytest.mark.parametrize("players, preset", [(3, "standard"), (3, "jokers"), (4, "standard"), (4, "jokers")])
def test_three_and_four_players_one_person_per_seat(players, preset):
    room = Room(short(preset, players), bot=SIMPLE, seed=5)
    people = [room.join(name, True) for name in ("ann", "bob", "cy", "dee")[:players - 1]]
    assert [p.seat for p in people] == list(range(players - 1))
    late = room.join("eve", True)
    extra = room.join("fay", True)
    assert late.seat == players - 1 and extra.seat is None and "spectator" in extra.notice
    with pytest.raises(ValueError, match="taken by ann"):
        room.join("gus", True, seat=0)
    room.leave(late.token)
    room.start(people[0].token)
    assert room.spectator_frame()["room"]["seats"][players - 1]["bot"]
    members = [*people, extra]
    log = drive(room, people[0], each_step=lambda r: check_room(r, members))
    assert room.state == "over" and log and {name for _, _, name in log} <= {p.name for p in people}
    assert room.game.frame(0)["result"] is not None


# -----------------------------------------------------------------------------------------------------------------
# R58: turns in order, cycling, across hands; joiners from the next hand
# -----------------------------------------------------------------------------------------------------------------

def test_three_people_in_two_seats_take_turns_by_r58(tmp_path):
    room = Room(short(), bot=SIMPLE, seed=7, replay_folder=tmp_path)
    ann, bob = room.join("ann", True, 0), room.join("bob", True, 1)
    room.join("cy", True, 0)
    room.start(bob.token)
    order = [m["name"] for m in room.frame_for(ann.token)["room"]["seats"][0]["order"]]
    assert sorted(order) == ["ann", "cy"]
    log = drive(room, bob)
    hands = {hand for hand, _, _ in log}
    assert room.state == "over" and len(hands) > 1
    taken = turns(log)
    assert taken[0] == [order[i % 2] for i in range(len(taken[0]))]
    assert set(taken[1]) == {"bob"}
    # The replays name who made each action, in the order played.
    saved = [replay_file.load(p) for p in room.game.saved]
    assert [name for r in saved for name in r.members] == [name for _, _, name in log]
    assert all(r.players == (" & ".join(order), "bob") for r in saved)


def test_a_join_mid_hand_takes_turns_from_the_next_hand_with_the_order_drawn_again():
    first_of_new_order = set()
    for seed in range(8):
        room = Room(short(), bot=SIMPLE, seed=seed)
        ann, bob = room.join("ann", True), room.join("bob", True)
        room.start(ann.token)
        drive(room, ann, seed=seed, max_actions=3)
        cy = room.join("cy", True, seat=0)
        info = room.frame_for(cy.token)
        assert info["view"] is None and info["room"]["seats"][0]["joining"] == ["cy"]
        assert [m["name"] for m in info["room"]["seats"][0]["order"]] == ["ann"]
        while room.state == "playing":
            acting = room.acting()
            with pytest.raises(ValueError, match="not cy's turn"):
                room.act(cy.token, room.game.view(room.game.actor).legal_actions[0])
            room.act(acting.token, room.game.view(room.game.actor).legal_actions[0])
        assert room.state == "between"
        room.next_hand(bob.token)
        order = [m["name"] for m in room.frame_for(cy.token)["room"]["seats"][0]["order"]]
        assert sorted(order) == ["ann", "cy"]
        first_of_new_order.add(order[0])
        log = drive(room, ann, seed=seed, max_actions=60)
        seat0 = turns([entry for entry in log if entry[0] == log[0][0]])[0]
        assert seat0 == [order[i % 2] for i in range(len(seat0))]
    # The new order is drawn (by the room's generator), not the order people joined in.
    assert first_of_new_order == {"ann", "cy"}


# -----------------------------------------------------------------------------------------------------------------
# Tokens, absence, the bot
# -----------------------------------------------------------------------------------------------------------------

def test_reconnect_by_token_gets_the_seat_back_and_other_tokens_are_refused():
    room = Room(Rules.preset("standard"), bot=SIMPLE, seed=1)
    ann, bob = room.join("ann", True), room.join("bob", True)
    assert len({ann.token, bob.token, room.invite, room.id}) == 4 and min(len(ann.token), len(room.invite)) >= 32
    room.start(ann.token)
    hand = room.frame_for(ann.token)["view"]["hand"]
    room.disconnect(ann.token)
    assert room.frame_for(bob.token)["room"]["seats"][0]["order"][0]["away"]
    back = room.reconnect(ann.token)
    assert back is ann and back.seat == 0 and back.away_since is None
    assert room.frame_for(ann.token)["view"]["hand"] == hand
    before = json.dumps(room.spectator_frame())
    for guess in (secrets.token_urlsafe(24), ann.token[:-1], "", None, 7):
        for call in (room.reconnect, room.frame_for, room.disconnect, room.leave, room.start):
            with pytest.raises(ValueError, match="no member of this room holds that token"):
                call(guess)
        with pytest.raises(ValueError, match="token"):
            room.act(guess, 0)
    room.check_invite(room.invite)
    with pytest.raises(ValueError, match="invite"):
        room.check_invite(room.invite[:-1] + "A" if room.invite[-1] != "A" else room.invite[:-1] + "B")
    assert json.dumps(room.spectator_frame()) == before
    room.leave(bob.token)
    with pytest.raises(ValueError, match="token"):
        room.reconnect(bob.token)


def test_a_bad_move_is_refused_and_changes_nothing():
    room = Room(Rules.preset("jokers"), bot=SIMPLE, seed=2)
    ann, bob, watcher = room.join("ann", True), room.join("bob", True), room.join("sam", False)
    room.start(ann.token)
    acting = room.acting()
    other = bob if acting is ann else ann
    legal = room.game.view(room.game.actor).legal_actions
    illegal = next(a for a in range(room.rules.n_actions) if a not in legal)
    before = json.dumps([room.frame_for(m.token) for m in (ann, bob, watcher)])
    for token, action, message in [(acting.token, illegal, "not legal"), (acting.token, "1", "int id"),
                                   (other.token, legal[0], "turn"), (watcher.token, legal[0], "turn")]:
        with pytest.raises(ValueError, match=message):
            room.act(token, action)
        assert json.dumps([room.frame_for(m.token) for m in (ann, bob, watcher)]) == before
    with pytest.raises(ValueError, match="game is in play"):
        room.start(ann.token)
    with pytest.raises(ValueError, match="watches"):
        room.next_hand(watcher.token)
    room.act(acting.token, legal[0])


def test_an_away_members_turn_is_played_by_the_bot_after_the_timeout(tmp_path):
    clock = Clock()
    room = Room(Rules.preset("standard"), episode="hand", bot=SIMPLE, bot_name="simple", clock=clock, seed=4,
                replay_folder=tmp_path)
    ann, bob = room.join("ann", True), room.join("bob", True)
    room.start(ann.token)
    clock.now = 100.0
    assert not room.tick()  # nobody is away: the room waits on a member who is here
    acting = room.acting()
    room.disconnect(acting.token)
    before = json.dumps(room.game.spectator_frame())
    clock.now += TURN_TIMEOUT_S - 1
    assert not room.tick() and room.acting() is acting
    assert room.frame_for(bob.token)["room"]["seconds_left"] == pytest.approx(1.0)
    assert json.dumps(room.game.spectator_frame()) == before
    clock.now += 1
    assert room.tick()
    assert room.acting() is not acting and json.dumps(room.game.spectator_frame()) != before
    room.reconnect(acting.token)
    drive(room, ann)
    members = replay_file.load(room.game.saved[0]).members
    by_bot = len(members) - len(tuple(m for m in members if m != "simple"))
    # The bot played the away member's whole first turn, and nothing else.
    assert by_bot >= 1 and members[:by_bot] == ("simple",) * by_bot and set(members[by_bot:]) == {"ann", "bob"}


def test_a_member_who_leaves_mid_turn_is_replaced_by_the_bot_and_the_seat_from_the_next_hand():
    clock = Clock()
    room = Room(Rules.preset("standard"), bot=SIMPLE, clock=clock, seed=6)
    ann, bob = room.join("ann", True), room.join("bob", True)
    room.start(ann.token)
    leaver = room.acting()
    stays = bob if leaver is ann else ann
    room.leave(leaver.token)
    clock.now = TURN_TIMEOUT_S
    while room.state == "playing":
        if room.acting() is stays:
            room.act(stays.token, room.game.view(room.game.actor).legal_actions[0])
        else:
            clock.now += TURN_TIMEOUT_S
            assert room.tick()
    assert room.state == "between"
    clock.now += TURN_TIMEOUT_S
    assert room.tick()  # the next hand starts by itself, the empty seat played by the bot
    seats = room.spectator_frame()["room"]["seats"]
    assert seats[leaver.seat]["bot"] and [m["name"] for m in seats[stays.seat]["order"]] == [stays.name]
    assert room.state == "playing" and room.acting() is stays


# -----------------------------------------------------------------------------------------------------------------
# Limits and names
# -----------------------------------------------------------------------------------------------------------------

def test_limits_on_members_spectators_and_names():
    room = Room(Rules.preset("standard"), bot=SIMPLE, bot_name="robot", max_members=3, max_spectators=2)
    for name in ("a", "b", "c"):
        room.join(name, True)
    with pytest.raises(ValueError, match="hold 3 members"):
        room.join("d", True)
    room.join("e", False)
    room.join("f", False)
    with pytest.raises(ValueError, match="2 spectators"):
        room.join("g", False)
    named = Room(Rules.preset("standard"), bot=SIMPLE, bot_name="robot")
    named.join("ann", True)
    for name, message in [("", "visible"), ("   ", "visible"), ("x" * 33, "visible"), (" bo", "space"),
                          ("a\x00b", "control"), ("a\x1b[31m", "control"), (7, "visible"), ("ANN", "taken"),
                          ("Robot", "taken")]:
        with pytest.raises(ValueError, match=message):
            named.join(name, False)
    with pytest.raises(ValueError, match="seat"):
        room.join("h", True, seat=2)
    with pytest.raises(ValueError, match="spectator holds no seat"):
        room.join("h", False, seat=0)
    assert MAX_SPECTATORS > 0 and Room(Rules.preset("standard"), bot=SIMPLE).max_members == MAX_MEMBERS


@pytest.mark.parametrize("kwargs, message", [
    ({"players": 5}, "players"), ({"episode": "set"}, "episode"), ({"bot": object()}, "bot"),
    ({"turn_timeout_s": 0}, "turn_timeout_s"), ({"turn_timeout_s": float("nan")}, "turn_timeout_s"),
    ({"max_members": MAX_MEMBERS + 1}, "max_members"), ({"max_spectators": 0}, "max_spectators"),
    ({"seed": -1}, "seed"), ({"bot_name": "a\nb"}, "control"),
    ({"replay_folder": "/nonexistent/x/y"}, "does not exist")])
def test_bad_room_arguments_are_refused_before_anything(kwargs, message):
    args = {"bot": SIMPLE, **kwargs}
    with pytest.raises((ValueError, OSError), match=message):
        Room(Rules.preset("standard"), **args)


# -----------------------------------------------------------------------------------------------------------------
# Replays and the dataset of one person
# -----------------------------------------------------------------------------------------------------------------

def test_members_are_written_for_room_hands_only_and_checked_when_read(tmp_path):
    room = Room(Rules.preset("jokers"), episode="hand", bot=SIMPLE, seed=8, replay_folder=tmp_path)
    ann = room.join("ann", True)
    room.join("bob", True)
    room.start(ann.token)
    drive(room, ann)
    saved = replay_file.load(room.game.saved[0])
    assert saved.members is not None and len(saved.members) == len(saved.actions)
    plain = replay_file.record(engine.new_hand(saved.rules, dealer=saved.dealer, deck=saved.deck), saved.actions,
                               players=saved.players)
    assert "members" not in plain.to_dict() and replay_file.loads(plain.to_json()).members is None
    data = saved.to_dict()
    for bad in (data["members"][:-1], [*data["members"][:-1], 3], "ann", [*data["members"][:-1], ""]):
        with pytest.raises(ReplayError, match="members"):
            replay_file.from_dict({**data, "members": bad})


def test_the_dataset_of_a_room_holds_exactly_one_members_turns(tmp_path):
    minari = pytest.importorskip("minari")
    from gin_env.datasets import cli as dataset_cli
    from gin_env.datasets import minari_files

    folder = tmp_path / "replays"
    room = Room(Rules.preset("standard"), bot=SIMPLE, seed=9, replay_folder=folder)
    ann = room.join("ann", True, 0)
    room.join("bob", True, 1)
    room.join("cy", True, 0)
    room.start(ann.token)
    log = drive(room, ann)
    saved = [replay_file.load(p) for p in room.game.saved]
    for person in ("ann", "cy"):
        dataset_id = f"people/{person}-v0"
        assert dataset_cli.main(["--root", str(tmp_path / "data"), "--no-progress", "--from-replays", str(folder),
                                 "--player", person, "--id", dataset_id], "gin-env dataset") == 0
        dataset = minari.MinariDataset(os.path.join(minari_files.dataset_folder(str(tmp_path / "data"), dataset_id),
                                                    "data"))
        own = [[a for a, m in zip(r.actions, r.members) if m == person] for r in saved]
        own = [actions for actions in own if actions]
        episodes = list(dataset.iterate_episodes())
        assert [e.actions.tolist() for e in episodes] == own
        assert sum(len(a) for a in own) == sum(1 for _, _, name in log if name == person) > 0
        for episode, replay in zip(episodes, [r for r in saved if person in r.members]):
            assert episode.rewards.sum() * 100 == pytest.approx(replay.outcome.player_points(0))
            assert episode.infos["action_mask"][np.arange(len(episode.actions)), episode.actions].all()
            # Each of the person's decisions sees the seat's view of the recorded state: the teammates' turns
            # between them were played by the env.
            decisions = [s for s, m in zip(replay.states(), replay.members) if m == person]
            expected = [observation.encode(observation.view(s, 0)) for s in decisions]
            assert np.array_equal(np.stack(expected), episode.observations[:-1])
        assert dataset.storage.metadata["gin_env"]["others"]["teammates"]
