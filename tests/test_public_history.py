"""Public history in, state out: ``public_history.player_view`` of a player's own deal and the public events equals
``observation.view`` of the real state at every point of random hands under several presets, for both players; an
impossible history is a ``ValueError`` naming the event and why."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from gin_env import agents
from gin_env.game import actions, cards, engine, observation
from gin_env.game.public_history import (
    BigGin,
    Discard,
    Draw,
    Knock,
    Pass,
    Take,
    Upcard,
    deal_events,
    player_view,
    public_event,
)
from gin_env.game.rules import Rules

RULES = {
    "standard": Rules.preset("standard"),
    "oklahoma": Rules.preset("oklahoma"),
    "foony": Rules.preset("foony"),                     # big gin (R24)
    "openspiel": Rules.preset("openspiel"),             # R16 lifted, the wall's take (R38), R60, R61
    "eleven": Rules.preset("standard", deal_mode="eleven", discard_taken_card=True),
    "short": Rules.preset("standard", max_turns=8, max_upcard_draws=2, wall=26, wall_upcard_knock=True,
                          big_gin_bonus=31),
    "jokers": Rules.preset("jokers"),                   # R62-R72: events speak of a joker, never of its id
}
HANDS = 12


def play_and_compare(rules: Rules, seed: int) -> set[str]:
    """Play ``HANDS`` hands with the random and simple agents, checking both players' views after every event;
    the kinds of event seen (with the phase they came in)."""
    rng = np.random.default_rng(seed)
    seats = (agents.load("random"), agents.load("simple"))
    seen = set()
    for hand in range(HANDS):
        dealer = hand % 2
        state = engine.new_hand(rules, rng, dealer=dealer)
        own = state.hands
        events = (list(deal_events(state)), list(deal_events(state)))
        scores = (hand, 2 * hand)
        while True:
            for p in (0, 1):
                assert player_view(rules, p, own[p], dealer, events[p], scores=scores) == \
                    observation.view(state, p, scores), (hand, p, events[p])
            if state.phase == engine.OVER:
                break
            agent = seats[(hand + state.current) % 2]
            action = agent.act(observation.view(state, state.current), rng)
            for p in (0, 1):
                events[p].append(public_event(state, action, p))
            seen.add(f"{type(events[0][-1]).__name__} in {engine.PHASE_NAMES[state.phase]}")
            if any(getattr(events[p][-1], "card", None) == cards.N_CARDS for p in (0, 1)):
                seen.add(f"{type(events[0][-1]).__name__} of a joker")
            state = engine.step(state, action)
        if state.outcome.kind == "dead":
            seen.add("dead hand")
    return seen


@pytest.mark.parametrize("name", sorted(RULES))
def test_the_view_of_the_public_history_is_the_real_view(name):
    seen = play_and_compare(RULES[name], seed=sorted(RULES).index(name))
    assert {"Draw in draw", "Discard in discard", "Take in draw"} <= seen
    if name != "eleven":
        assert {"Pass in offer"} <= seen


def test_every_kind_of_event_comes_up():
    """Over the presets, the random and simple agents reach every event in every phase it may come in."""
    seen = set().union(*(play_and_compare(rules, seed=100 + i) for i, rules in enumerate(RULES.values())))
    assert {"Pass in offer", "Take in offer", "Draw in draw", "Take in draw", "Discard in discard",
            "Knock in discard", "Pass in wall", "dead hand"} <= seen


def replay_and_compare(state: engine.HandState, choose) -> list[int]:
    """Play ``state`` out with ``choose(state) -> action``, checking both players' views after every action; the
    actions played."""
    own, dealer = state.hands, state.dealer
    events, played = (list(deal_events(state)), list(deal_events(state))), []
    while state.phase != engine.OVER:
        action = choose(state)
        for p in (0, 1):
            events[p].append(public_event(state, action, p))
        played.append(action)
        state = engine.step(state, action)
        for p in (0, 1):
            assert player_view(state.rules, p, own[p], dealer, events[p]) == observation.view(state, p)
    return played


def test_the_wall_take_from_either_seat():
    """Stock draws and random discards to the wall, where any take allows a knock (knock limit 99): the player to
    act takes the discard (R38) and must knock; by either player, both views match throughout."""
    rules = Rules.preset("standard", wall=26, wall_upcard_knock=True, knock_limit=99)

    takers = set()

    def choose(state):
        legal = engine.legal_actions(state)
        if state.phase == engine.WALL:
            takers.add(state.current)
            return actions.TAKE_DISCARD
        if state.phase == engine.OFFER:
            return actions.PASS
        if state.phase == engine.DRAW:
            return actions.DRAW_STOCK
        return legal[-1] if state.must_knock else actions.discard(cards.to_ids(state.hands[state.current])[0])

    for seed in range(4):
        state = engine.new_hand(rules, np.random.default_rng(seed), dealer=seed % 2)
        played = replay_and_compare(state, choose)
        assert played[-2] == actions.TAKE_DISCARD and actions.is_knock(played[-1])
    assert takers == {0, 1}


def test_jokers_come_up_as_events_never_as_ids_R72():
    """R72: over random hands under the preset ``jokers``, jokers are taken, drawn and discarded, every event names
    a joker ``cards.N_CARDS`` whichever joker moved, and each player's view of the events is the real view."""
    seen = set().union(*(play_and_compare(RULES["jokers"], seed=200 + i) for i in range(3)))
    assert {"Take of a joker", "Draw of a joker", "Discard of a joker"} <= seen


def joker_history(joker) -> list:
    """Player 1 draws a joker and discards it; player 0 takes it from the pile and discards the KD."""
    return [Upcard("4S"), Pass(1), Pass(0), Draw(1, joker), Discard(1, joker), Take(0, joker), Discard(0, "KD")]


def test_either_joker_id_or_its_name_is_the_same_event_R72():
    """R72: an event naming joker 52, joker 53 or ``"JK"`` is "a joker": the views are equal, and count one joker
    held (player 1 was dealt joker 53), one on the opponent known to hold it from the pile and none unseen."""
    rules = Rules.preset("jokers")
    own = cards.parse("AS 3S 5H 7H 9D JD KC 2C 6C") + [rules.deck.joker_ids[-1]]
    views = [player_view(rules, 1, own, 0, joker_history(joker)) for joker in (52, 53, "JK")]
    assert views[0] == views[1] == views[2]
    counts = observation.encode(views[0])[observation.obs_layout(rules)["jokers"]] * rules.jokers
    assert dict(zip(observation.JOKER_COUNTS, counts.round().astype(int).tolist())) == {
        "hand": 1, "top_discard": 0, "pile_rest": 0, "opponent_known": 1, "opponent_discards": 0,
        "opponent_declined": 0, "unseen": 0}


def test_impossible_joker_events_are_named_R71_R72():
    """A joker drawn when the player sees both elsewhere, a joker discarded the turn one was taken (R71), and a
    joker under rules without any are refused, naming the event."""
    rules = Rules.preset("jokers")
    own = cards.parse("AS 3S 5H 7H 9D JD KC 2C 6C JK")
    seen = r"no joker can be there: player 1 \(the viewer\) sees each elsewhere \(player 1 .*; it is in the discard"
    with pytest.raises(ValueError, match=f"event 3 .*{seen}"):
        player_view(rules, 1, own, 0, [Upcard("JK"), Pass(1), Pass(0), Draw(1, "JK")])
    with pytest.raises(ValueError, match=r"event 6 .*DISCARD\(JK\) is not legal"):
        player_view(rules, 1, own, 0, joker_history("JK")[:6] + [Discard(0, "JK")])
    with pytest.raises(ValueError, match="event 3 .*card id 52 out of range 0..51"):
        player_view(Rules(), 1, own[:9] + [cards.card("8D")], 0, joker_history(52))


@pytest.mark.parametrize("dealer", [0, 1])
def test_big_gin_seen_by_both_players(dealer):
    """Eleven-card deal (RLCard) with a spade run of eleven to the non-dealer, who declares big gin (R24) at once."""
    rules = Rules.preset("standard", deal_mode="eleven", big_gin_bonus=31)
    run = [cards.card(f"{rank}S") for rank in "A23456789TJ"]
    slots = [*range(1 - dealer, engine.DEALT, 2), engine.DEALT]
    rest = iter(sorted(set(range(cards.N_CARDS)) - set(run)))
    deck = [run[slots.index(i)] if i in slots else next(rest) for i in range(cards.N_CARDS)]
    state = engine.new_hand(rules, dealer=dealer, deck=deck)
    assert replay_and_compare(state, lambda s: actions.BIG_GIN) == [actions.BIG_GIN]


# ---------------------------------------------------------------------------------------------------------------
# Impossible histories
# ---------------------------------------------------------------------------------------------------------------

STANDARD = Rules.preset("standard")
DEAL = engine.new_hand(STANDARD, np.random.default_rng(5), dealer=0)
VIEWER = 1                                             # the non-dealer, first to act
OWN = DEAL.hands[VIEWER]
UP = DEAL.initial_upcard
MINE = cards.to_ids(OWN)[0]
STOCK = DEAL.deck[engine.DEALT + 1:]
DREW, OTHER = STOCK[0], STOCK[1]
OPENING = [Upcard(UP), Pass(1), Pass(0), Draw(1, DREW), Discard(1, DREW)]


def error_of(events, *, own=OWN, rules=STANDARD):
    with pytest.raises(ValueError) as raised:
        player_view(rules, VIEWER, own, 0, events)
    return str(raised.value)


@pytest.mark.parametrize("events, index, reason", [
    ([], 0, "first event is its Upcard"),
    ([Upcard(UP), Upcard(UP)], 1, "turned only once"),
    ([Upcard(UP), Pass(0)], 1, "player 0 moved where player 1 is to act"),
    ([Upcard(UP), Discard(1, MINE)], 1, r"DISCARD\(.*\) is not legal in phase 'offer'"),
    ([Upcard(UP), Take(1, OTHER)], 1, "is not the top of the pile"),
    ([Upcard(UP), Pass(1), Pass(0), Draw(1)], 3, "names the card drawn"),
    ([Upcard(UP), Pass(1), Pass(0), Draw(1, UP)], 3, "the stock cannot hold .*: it is in the discard pile"),
    ([Upcard(UP), Pass(1), Pass(0), Draw(1, MINE)], 3, r"the stock cannot hold .*: player 1 \(the viewer\) holds"),
    ([Upcard(UP), Pass(1), Pass(0), Draw(1, DREW), Discard(1, OTHER)], 4, "is not legal in phase 'discard'"),
    ([Upcard(UP), Pass(1), Pass(0), Take(1, UP)], 3, "TAKE_DISCARD is not legal in phase 'draw'"),
    ([*OPENING, Draw(0, OTHER)], 5, "cannot see the card player 0 draws"),
    ([*OPENING, Draw(0), Discard(0, MINE)], 6, r"player 0 cannot hold .*: player 1 \(the viewer\) holds it"),
    ([*OPENING, Draw(0), Discard(0, DREW)], 6, "player 0 cannot hold .*: it is in the discard pile"),
    ([*OPENING, Draw(0), Pass(0)], 6, "PASS is not legal in phase 'discard'"),
    ([*OPENING, Draw(0), BigGin(0)], 6, "BIG_GIN is not legal"),
    ([*OPENING, Draw(0), Knock(0, OTHER), Pass(1)], 7, "the hand is already over"),
    ([Upcard(UP), Pass(1), Take(0, UP), Knock(0, UP)], 3, r"KNOCK\(.*\) is not legal"),
    ([Upcard(UP), Pass(1), Take(0, UP), Discard(0, UP)], 3, r"DISCARD\(.*\) is not legal"),
    ([Upcard(UP), "PASS"], 1, "not an event"),
    ([Upcard(UP), Pass(2)], 1, "player must be 0 or 1"),
    ([Upcard("ZZ")], 0, "malformed card"),
    ([Upcard(MINE)], 0, "is one of own_cards"),
])
def test_an_impossible_event_is_named(events, index, reason):
    message = error_of(events)
    assert message.startswith(f"event {index}"), message
    assert re.search(reason, message), message


def test_bad_own_cards_are_named():
    assert "own_cards must be 10 distinct cards" in error_of([Upcard(UP)], own=cards.to_ids(OWN)[:9])
    assert "own_cards" in error_of([Upcard(UP)], own=[MINE, MINE])
    eleven = Rules.preset("standard", deal_mode="eleven")
    assert "own_cards must be 11" in error_of([], own=OWN, rules=eleven)


def test_cards_may_be_names():
    names = [Upcard(cards.card_str(UP)), Pass(1), Pass(0), Draw(1, cards.card_str(DREW))]
    assert player_view(STANDARD, VIEWER, cards.to_str(OWN), 0, names) == \
        player_view(STANDARD, VIEWER, OWN, 0, names[:3] + [Draw(1, DREW)])


def test_the_example_of_docs_bridges_runs():
    page = (Path(__file__).resolve().parent.parent / "docs" / "bridges.md").read_text(encoding="utf-8")
    exec(re.search(r"```python\n(.*?)```", page, re.DOTALL).group(1), {})
