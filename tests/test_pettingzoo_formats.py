"""The PettingZoo env in the formats of docs/rules.md section 15: the API test, seeded random play under every
preset with every step checked (the play of benchmarks/formats_random_play.py), rewards and bonuses (R53, R56, R57),
seeds, and a room's turn order across two hands (R58)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

from benchmarks.formats_random_play import FORMATS, play_game, reached_target  # noqa: E402
from gin_env.envs.pettingzoo import env  # noqa: E402
from gin_env.game import actions, four_players, three_players
from gin_env.game.rules import Rules  # noqa: E402
from tests.scripted import PRESETS, make_deck  # noqa: E402
from tests.test_pettingzoo import DICT_OBSERVATION_WARNINGS  # noqa: E402

#: Games per format and preset here; benchmarks/formats_random_play.py plays 500 (docs/formats.md has its numbers).
GAMES = 3


def deal_sequence(game) -> list:
    """What identifies a played game: its hands' (deals') outcomes in order."""
    if isinstance(game, four_players.FourState):
        return [(d.number, d.net, tuple(o.kind for o in d.outcomes)) for d in game.history]
    return [(getattr(h, "seats", None), getattr(h, "outcome", h)) for h in game.history]


@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_api_test_passes_in_every_format(fmt, episode):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(episode=episode, **FORMATS[fmt]), num_cycles=200)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


def test_agent_names():
    assert env(players=3).possible_agents == ["player_0", "player_1", "player_2"]
    assert env(players=4).possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert env(room=(2, 1)).possible_agents == ["seat_0_member_0", "seat_0_member_1", "seat_1_member_0"]


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"players": 5}, "players"), ({"room": (0, 2)}, "room"), ({"room": 3}, "room"),
    ({"players": 3, "room": (2, 2)}, "has no rooms"), ({"players": 3, "rules": Rules(players=4)}, "contradicts"),
])
def test_bad_format_arguments_are_named(kwargs, error):
    with pytest.raises(ValueError, match=error):
        env(**kwargs)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_random_games_under_every_preset_hold_every_check(fmt, preset):
    aec = env(rules=preset, episode="match", **FORMATS[fmt])
    rng = np.random.default_rng(31)
    for seed in range(GAMES):
        result = play_game(aec, seed, rng)
        game = result["game"]
        assert game.over and reached_target(aec.rules, game)
        # Every game is zero-sum between the seats (a room's seat counted once).
        seat_totals = [result["totals"][a] for a in aec.names]
        if aec.room is not None:
            seat_totals = [seat_totals[0], seat_totals[-1]]
        assert abs(sum(seat_totals)) < 1e-9


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_seed_same_game(fmt):
    games = []
    for _ in range(2):
        aec = env(episode="match", **FORMATS[fmt])
        games.append(deal_sequence(play_game(aec, 4, np.random.default_rng(5))["game"]))
    assert games[0] == games[1] and len(games[0]) > 1
    other = deal_sequence(play_game(env(episode="match", **FORMATS[fmt]), 6, np.random.default_rng(5))["game"])
    assert other != games[0]


def test_three_player_rewards_and_bonuses_follow_the_seats():
    """R53: a hand pays its two seats (0 to the seat sitting out); the game's end pays each seat its bonus less the
    mean of the others', so a seat's rewards sum to its final total less the mean of the other two."""
    aec = env(players=3, episode="match", rules="standard")
    result = play_game(aec, 8, np.random.default_rng(8))
    game = result["game"]
    totals = three_players.final_totals(game)
    for seat, agent in enumerate(aec.names):
        points = sum(h.points(seat) for h in game.history)
        bonuses = [t - s for t, s in zip(totals, game.scores)]
        others = [b for s, b in enumerate(bonuses) if s != seat]
        expected = points + bonuses[seat] - sum(others) / 2
        assert result["totals"][agent] == pytest.approx(expected / aec.reward_scale)
    assert result["infos"]["player_0"]["match"]["ranking"] == three_players.ranking(game)


def test_four_player_rewards_are_the_netted_deal_and_team_bonuses():
    """R56, R57: each deal's netted result to both partners, its negative to both opponents; the team bonus at the
    end; so each seat's rewards sum to its team's final total less the other's."""
    aec = env(players=4, episode="match")
    result = play_game(aec, 9, np.random.default_rng(9))
    game = result["game"]
    totals = four_players.final_totals(game)
    for seat, agent in enumerate(aec.names):
        own = four_players.team(seat)
        assert result["totals"][agent] == pytest.approx((totals[own] - totals[1 - own]) / aec.reward_scale)
    info = result["infos"]["player_1"]["match"]
    assert info["final_totals"] == (totals[1], totals[0]) and info["deals"] == len(game.history)


def test_a_seat_sitting_out_observes_nothing():
    aec = env(players=3)
    aec.reset(seed=2)
    out = aec.names[aec.table.game.dealer]
    obs = aec.observe(out)
    assert not obs["observation"].any() and not obs["action_mask"].any()
    assert aec.agent_selection != out


def test_r58_a_room_takes_its_turns_in_order_across_two_hands():
    """Seat 0 has members a0, a1; seat 1 has b0, b1, b2. Hand 1: a0 takes the upcard and knocks (one turn). Hand 2,
    dealt by the winner, seat 0: b0 passes, a1 passes, b1 draws and discards, a0 draws and discards, b2 ..."""
    aec = env(room=(2, 3), episode="match", rules="standard")
    aec.reset(seed=1)
    quick_knock = make_deck("AS 2S 3S 4H 5H 6H 7C 8C 9C KD", "TD JH QC KS 9D 8S 7H 5C 3D 4C", "2D")
    aec.table.deal(np.random.default_rng(1), deck=quick_knock, dealer=1)
    aec.unwrapped.agent_selection = aec.names[aec.table.actor]  # the raw env's: the wrapper only reads it
    order = []

    def act(label):
        order.append(aec.agent_selection)
        if label == "DISCARD":
            label = actions.name(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[-1]))
        aec.step(actions.parse(label))

    act("TAKE_DISCARD")
    act("KNOCK(KD)")
    assert aec.rewards["seat_0_member_1"] > 0 and aec.rewards["seat_1_member_2"] < 0
    assert aec.table.state.dealer == 0           # the winner deals hand 2 (standard, R44): seat 1 opens
    for label in ("PASS", "PASS", "DRAW_STOCK", "DISCARD", "DRAW_STOCK", "DISCARD", "DRAW_STOCK", "DISCARD",
                  "DRAW_STOCK", "DISCARD"):
        act(label)
    assert order == ["seat_0_member_0", "seat_0_member_0",      # hand 1: one turn of seat 0
                     "seat_1_member_0", "seat_0_member_1",      # hand 2: the upcard offer, a turn each
                     "seat_1_member_1", "seat_1_member_1",
                     "seat_0_member_0", "seat_0_member_0",
                     "seat_1_member_2", "seat_1_member_2",
                     "seat_0_member_1", "seat_0_member_1"]
    # Every member of a seat sees the seat's view, the one to act with its legal actions.
    obs = {a: aec.observe(a) for a in aec.names}
    assert np.array_equal(obs["seat_1_member_0"]["observation"], obs["seat_1_member_2"]["observation"])
    assert obs["seat_1_member_0"]["action_mask"].any() and not obs["seat_1_member_1"]["action_mask"].any()
