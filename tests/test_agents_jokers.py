"""The built-in agents under jokers (docs/rules.md section 17): the heuristic ones play every phase legally and use
the joker actions (R70, R72), simple's meld test and the expert's joker values follow R65 and R67, and the network
agents, which read the standard deck, refuse a jokers game in one line."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env import agents
from gin_env.agents import numpy_policy
from gin_env.agents.expert import ExpertAgent
from gin_env.agents.simple import _melds_with_jokers
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.evaluation import duel
from gin_env.game import actions, cards, engine, observation
from gin_env.game.rules import Rules

JOKERS = Rules.preset("jokers", target=None)
#: The heuristic agents and the gauntlet's styles.
HEURISTIC = ("random", "simple", "expert", "knocker", "early-knocker", "gin-hunter", "undercutter")
HANDS = 12


def test_heuristic_agents_play_jokers_hands_legally_and_move_jokers_by_the_joker_actions_r70_r72():
    """Every heuristic agent against every other plays whole hands under preset ``jokers`` (``play_hand`` raises on
    an illegal action), and across them jokers are discarded by ``DISCARD(JK)``."""
    chosen = set()
    for number, name in enumerate(HEURISTIC):
        for other in HEURISTIC:
            seats = [agents.load(name), agents.load(other)]
            for hand in range(HANDS // len(HEURISTIC) + 1):
                rngs = [duel.agent_rng(3, number, hand, seat) for seat in (0, 1)]
                state = engine.new_hand(JOKERS, duel.deal_rng(3, number * len(HEURISTIC) + hand, 0), dealer=hand % 2)
                duel.play_hand(state, seats, rngs, observer=lambda s, action: chosen.add(action))
    assert actions.DISCARD_JOKER in chosen


@pytest.mark.parametrize(("held", "card", "min_naturals", "expected"), [
    ("7S JK", "7H", 2, True),          # a set of two naturals and a joker
    ("7S 2D", "7H", 2, False),         # no joker, one other seven
    ("5S JK JK", "8S", 2, True),       # 5S JK JK 8S: a run whose jokers fill the middle (R65, E17)
    ("5S JK", "8S", 2, False),         # one joker cannot fill two ranks
    ("5S 6S 2D", "JK", 2, True),       # the joker taken completes 5S 6S
    ("2S 9H KD", "JK", 2, False),      # no two naturals meld with a joker
    ("2S 9H JK", "JK", 1, True),       # one natural and two jokers under joker_min_naturals 1
    ("2S 9H JK", "JK", 2, False),      # ... but not under 2 (E17)
    ("KS JK", "AS", 2, False),         # no wrap (E16)
])
def test_simple_takes_a_card_it_melds_with_the_jokers_held_r65(held, card, min_naturals, expected):
    hand = cards.to_mask(held)
    taken = cards.parse(card)[0]
    taken = taken + (hand >> cards.N_CARDS).bit_count() if taken >= cards.N_CARDS else taken
    assert _melds_with_jokers(np.uint64(hand), taken, min_naturals) is expected
    assert _melds_with_jokers(np.uint64(hand), cards.NO_CARD, min_naturals) is False


def _discard_view(rules: Rules, held: str, upcard: str) -> observation.PlayerView:
    """The non-dealer's view after it took the upcard ``upcard`` to its 10 cards ``held`` (R10, R13)."""
    first, up = cards.parse(held), cards.parse(upcard)
    dealer_cards = [c for c in range(cards.N_CARDS) if c not in first + up][:len(first)]
    rest = [c for c in range(rules.deck.n_cards) if c not in first + up + dealer_cards]
    deck = [c for pair in zip(first, dealer_cards) for c in pair] + up + rest
    state = engine.step(engine.new_hand(rules, deck=deck, dealer=1), actions.TAKE_DISCARD)
    return observation.view(state, 0)


def test_the_expert_ranks_a_joker_that_may_still_meld_last_whatever_its_value_r67_r68():
    """A joker melds with any neighbour drawn next (R65), so the lookahead keeps it over every loose natural, whether
    it counts 0 or 50 unmelded; held with 5S 6S it is melded already and kept too."""
    for held, upcard in (("JK AS 4S 7S TS KH 3H 6H 9H QD", "2C"), ("JK 5S 6S 9H 9D KC QH 2D 3C TH", "AS")):
        for value in (0, 50):
            view = _discard_view(JOKERS.replace(joker_value=value), held, upcard)
            ranking = ExpertAgent().discard_ranking(view)
            assert ranking[-1] >= cards.N_CARDS and all(c < cards.N_CARDS for c in ranking[:-1])
            assert ExpertAgent().act(view, np.random.default_rng(0)) == actions.discard(ranking[0])


def test_the_expert_goes_gin_with_a_spare_joker_by_the_joker_knock_e24():
    """Ten melded naturals and a joker: every discard gins, and the expert knocks with the costliest card, the
    joker, by ``KNOCK(JK)`` (R72, E24)."""
    v = _discard_view(JOKERS, "JK AS 2S 3S 5H 6H 7H 9D 9C 9H", "4S")
    assert ExpertAgent().act(v, np.random.default_rng(0)) == actions.KNOCK_JOKER


def test_a_network_agent_refuses_a_jokers_game_in_one_line_naming_both_sizes_r72():
    """The shipped network reads the standard deck's observation and actions; a jokers view, a jokers env and a
    jokers vector env are refused with its sizes and theirs."""
    network = agents.load("ppo")
    v = _discard_view(JOKERS, "JK 5S 6S 9H 9D KC QH 2D 3C TH", "AS")
    sizes = [str(observation.obs_size()), str(actions.N_ACTIONS), str(observation.obs_size(rules=JOKERS)),
             str(JOKERS.n_actions)]
    with pytest.raises(ValueError) as refused:
        network.act(v, np.random.default_rng(0))
    message = str(refused.value)
    assert "\n" not in message and all(size in message for size in sizes)
    with pytest.raises(ValueError, match=" and ".join(sizes[2:])):
        GinRummyEnv(rules="jokers", opponent="ppo").reset(seed=0)


def test_the_shipped_jokers_network_plays_jokers_and_refuses_the_standard_game_r72():
    """``ppo-jokers`` plays whole jokers hands to their end (the engine raises on an illegal action); the standard
    game is refused in one line naming both sizes."""
    network = agents.load("ppo-jokers")
    assert network.name == "ppo-jokers-v1"
    for hand in range(6):
        seats = [network, agents.load("simple")] if hand % 2 == 0 else [agents.load("simple"), network]
        rngs = [duel.agent_rng(3, 0, hand, s) for s in (0, 1)]
        state = engine.new_hand(JOKERS, duel.deal_rng(3, hand, 0), dealer=hand % 2)
        assert duel.play_hand(state, seats, rngs).outcome is not None
    standard = observation.view(engine.new_hand(Rules(), np.random.default_rng(0)), 0)
    with pytest.raises(ValueError) as refused:
        network.act(standard, np.random.default_rng(0))
    assert "\n" not in str(refused.value) and str(observation.obs_size()) in str(refused.value)


@pytest.mark.parametrize("guide", ["ppo-jokers", "expert"])
def test_the_search_plays_jokers_guided_by_its_jokers_guide_and_the_heuristic_worlds_r72(guide):
    """Under jokers the search is guided by ``jokers_guide`` (the shipped ``ppo-jokers`` network by default, or the
    expert; the standard game's networks do not read the jokers' observation) and searches its candidates, joker
    actions among them, over worlds that the heuristic opponent model draws; a belief network, which reads 52-card
    views, is refused in one line."""
    search = agents.load(f"search[samples=8,jokers_guide={guide}]")
    searched, chosen = [], set()

    def note(state, action):
        chosen.add(action)
        if state.current is not None and state.phase == engine.DISCARD and state.current == seat:
            view = observation.view(state, state.current)
            if search.searches(view):
                searched.append(search.candidates(view))

    for hand in range(6):
        seat = hand % 2
        seats = [search, agents.load("expert")] if seat == 0 else [agents.load("expert"), search]
        rngs = [duel.agent_rng(5, 0, hand, s) for s in (0, 1)]
        state = engine.new_hand(JOKERS, duel.deal_rng(5, hand, 0), dealer=hand % 2)
        duel.play_hand(state, seats, rngs, observer=note)
    assert searched, "the search never searched a jokers hand"
    jokers_guide = search._guide(observation.view(state, 0))
    if guide == "expert":
        assert isinstance(jokers_guide, ExpertAgent)
    else:
        assert jokers_guide.path == numpy_policy.SHIPPED[guide] and agents.load("search").params.jokers_guide == guide
    believer = agents.load("search[samples=8,belief=belief-v1]")
    state = engine.new_hand(JOKERS, np.random.default_rng(1))
    for action in (actions.PASS, actions.PASS, actions.DRAW_STOCK):
        state = engine.step(state, action)
    view = observation.view(state, state.current)
    assert believer.searches(view)
    with pytest.raises(ValueError, match="a belief network reads views of the 52-card deck only"):
        believer.act(view, np.random.default_rng(0))
