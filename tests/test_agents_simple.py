"""The agent registry, the random agent and the simple agent (EAAI SimpleGinRummyPlayer) on our rules."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from gin_env import agents
from gin_env.agents.random_agent import RandomAgent
from gin_env.agents.simple import SimpleAgent
from gin_env.game import actions, cards, engine, solver
from gin_env.game.meld_partners import forms_meld
from gin_env.game.observation import view
from gin_env.game.rules import Rules
from tests.scripted import act, hand, make_deck

# ---------------------------------------------------------------------------------------------------------------
# forms_meld: the EAAI face-up rule
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("held, card, expected", [
    ("7S 7H", "7D", True),                 # a set of three (R4)
    ("5H 7H", "6H", True),                 # the middle of a run (R5)
    ("6H 7H", "5H", True), ("5H 6H", "7H", True),
    ("5H 7H", "9H", False), ("7S", "7D", False), ("6S 8S", "7H", False),
    ("QS KS", "AS", False),                # Q-K-A is no run (R2, E8)
    ("2S 3S", "AS", True), ("JS QS", "KS", True),
    ("KS AS", "2S", False),                # K-A-2 neither
])
def test_forms_meld(held, card, expected):
    assert forms_meld(hand(held), cards.card(card)) is expected


def test_forms_meld_counts_any_meld_not_only_the_best_arrangement():
    """EAAI's willDrawFaceUpCard takes the card when *some* meld of hand + card contains it (cardsToAllMelds),
    even a meld that no least-deadwood arrangement uses: here 6D only makes the set 6S 6H 6D, which would break the
    better run 4H-7H."""
    held = hand("4H 5H 6H 7H 6S KC QD 9C 2D JS")
    six = cards.card("6D")
    assert forms_meld(held, six)
    melds, _ = solver.arrangement(held | 1 << six)
    assert all(six not in m for m in melds)
    state = engine.new_hand(Rules(), deck=make_deck("4H 5H 6H 7H 6S KC QD 9C 2D JS", "AS 3S 5S 8S TS AC 3C 5C 7C "
                                                    "JC", "6D"), dealer=1)
    assert SimpleAgent().act(view(state, 0), np.random.default_rng(0)) == actions.TAKE_DISCARD


# ---------------------------------------------------------------------------------------------------------------
# The simple agent's decisions
# ---------------------------------------------------------------------------------------------------------------

OPPONENT = "AS 3S 5S 8S TS AC 3C 5C 7C JC"


def offer(held: str, upcard: str) -> engine.HandState:
    return engine.new_hand(Rules(), deck=make_deck(held, OPPONENT, upcard), dealer=1)


def test_offer_takes_a_melding_upcard_and_passes_otherwise():
    rng = np.random.default_rng(0)
    simple = SimpleAgent()
    assert simple.act(view(offer("4H 5H 6H 7H 6S KC QD 9C 2D JS", "8H"), 0), rng) == actions.TAKE_DISCARD
    assert simple.act(view(offer("4H 5H 6H 7H 6S KC QD 9C 2D JS", "9D"), 0), rng) == actions.PASS


def test_draw_phase_takes_a_melding_discard_else_draws_and_never_takes_after_both_passed():
    rng = np.random.default_rng(0)
    simple = SimpleAgent()
    deck = make_deck("4H 5H 6H 7H 6S KC QD 9C 2D JS", OPPONENT, "8H", stock="2C")
    state = act(engine.new_hand(Rules(), deck=deck, dealer=1), "PASS", "PASS")
    assert state.phase == engine.DRAW and state.both_passed
    assert simple.act(view(state, 0), rng) == actions.DRAW_STOCK  # 8H melds, but R13c forbids taking it
    state = act(state, "DRAW_STOCK")
    # The dealer holds AC 3C: the 2C discard makes the run A-2-3; a KC discard (JC only) makes nothing.
    assert simple.act(view(act(state, "DISCARD(2C)"), 1), rng) == actions.TAKE_DISCARD
    assert simple.act(view(act(state, "DISCARD(KC)"), 1), rng) == actions.DRAW_STOCK


def random_play_states(rules: Rules, seed: int, hands: int) -> list[engine.HandState]:
    """States of simple-vs-simple play (which reach knocks) and of random play (which reach the wall)."""
    rng = np.random.default_rng(seed)
    simple, rand = SimpleAgent(), RandomAgent()
    states = []
    for h in range(hands):
        state = engine.new_hand(rules, rng, dealer=h % 2)
        player = simple if h % 2 else rand
        while state.phase != engine.OVER:
            states.append(state)
            state = engine.step(state, player.act(view(state, state.current), rng))
    return states


@pytest.mark.parametrize("preset", ["standard", "openspiel"])
def test_discards_least_deadwood_never_the_taken_card_and_knocks_at_once(preset):
    rules = Rules.preset(preset)
    simple = SimpleAgent()
    knocks = discards = 0
    for state in random_play_states(rules, seed=2, hands=60):
        if state.phase != engine.DISCARD:
            continue
        v = view(state, state.current)
        if v.legal_mask[actions.BIG_GIN]:
            continue
        a = simple.act(v, np.random.default_rng(0))
        c = actions.action_card(a)
        blocked = state.taken if not rules.discard_taken_card else -1
        dws = {x: solver.deadwood(v.hand & ~(1 << x)) for x in cards.to_ids(v.hand) if x != blocked}
        assert c != blocked and dws[c] == min(dws.values())
        # Knock as soon as the least deadwood allows it (R20); a wall take must knock (R38).
        assert actions.is_knock(a) == (min(dws.values()) <= state.knock_limit)
        knocks += actions.is_knock(a)
        discards += actions.is_discard(a)
    assert knocks and discards


def test_ties_are_broken_at_random_with_the_callers_generator():
    # Two kings and two queens, nothing melds: four discards leave the same least deadwood.
    state = act(offer("KS KH QD QC 2S 4H 6D 8C AH 3D", "9S"), "PASS", "PASS", "DRAW_STOCK")
    v = view(state, 0)
    picks = {SimpleAgent().act(v, np.random.default_rng(seed)) for seed in range(40)}
    best = min(solver.deadwood(v.hand & ~(1 << c)) for c in cards.to_ids(v.hand))
    tied = {c for c in cards.to_ids(v.hand) if solver.deadwood(v.hand & ~(1 << c)) == best}
    assert len(tied) >= 4
    assert {actions.action_card(a) for a in picks} == tied
    assert SimpleAgent().act(v, np.random.default_rng(3)) == SimpleAgent().act(v, np.random.default_rng(3))


def test_big_gin_when_enabled_else_gin_without_the_taken_card():
    # docs/rules.md X8: 2C-4C 6C 9D 9H 9S JS QS KS takes 5C from the pile.
    player = "2C 3C 4C 6C 9D 9H 9S JS QS KS"
    defender = "AH 2H 3H KC KD KH 7D 7S 4S 3D"
    for preset, expected in (("foony", {actions.BIG_GIN}), ("standard", {actions.knock(cards.card("2C")),
                                                                          actions.knock(cards.card("6C"))})):
        state = engine.new_hand(Rules.preset(preset), deck=make_deck(player, defender, "5C"), dealer=1)
        state = act(state, "TAKE_DISCARD")
        picks = {SimpleAgent().act(view(state, 0), np.random.default_rng(s)) for s in range(20)}
        assert picks == expected, preset


def test_wall_takes_the_discard_only_to_knock():
    rules = Rules.preset("openspiel")
    seen = set()
    for state in random_play_states(rules, seed=3, hands=40):
        if state.phase == engine.WALL:
            v = view(state, state.current)
            choice = SimpleAgent().act(v, np.random.default_rng(0))
            assert choice == (actions.TAKE_DISCARD if v.legal_mask[actions.TAKE_DISCARD] else actions.PASS)
            seen.add(choice)
    assert actions.PASS in seen


def test_simple_beats_random():
    rng = np.random.default_rng(12)
    agents_by_seat = (SimpleAgent(), RandomAgent())
    points = 0
    for h in range(40):
        state = engine.new_hand(Rules(), rng, dealer=h % 2)
        while state.phase != engine.OVER:
            state = engine.step(state, agents_by_seat[state.current].act(view(state, state.current), rng))
        points += state.outcome.player_points(0)
    assert points > 200


# ---------------------------------------------------------------------------------------------------------------
# The random agent and the registry
# ---------------------------------------------------------------------------------------------------------------

def test_random_agent_plays_only_legal_actions_and_follows_the_generator():
    rules = Rules()
    states = random_play_states(rules, seed=4, hands=5)
    for state in states:
        v = view(state, state.current)
        a = RandomAgent().act(v, np.random.default_rng(1))
        assert v.legal_mask[a]
        assert a == RandomAgent().act(v, np.random.default_rng(1))
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent().act(view(states[0], 1 - states[0].current), np.random.default_rng(0))


def test_load_builtin_agents():
    assert isinstance(agents.load("random"), RandomAgent)
    assert isinstance(agents.load("simple"), SimpleAgent)
    assert isinstance(agents.load("simple"), agents.Agent)
    assert agents.names() == ["early-knocker", "exit", "expert", "gin-hunter", "knocker", "ppo", "ppo-expert",
                              "ppo-jokers", "random", "search", "simple", "switch", "undercutter"]


def test_load_unknown_names_fail_clearly():
    with pytest.raises(ValueError, match="unknown agent 'simpel'.*random, search, simple.*module:attr"):
        agents.load("simpel")


def first_legal(view, rng):
    """A strategy as a plain function, for the module:attr tests."""
    return int(view.legal_mask.nonzero()[0][0])


FIRST_LEGAL_INSTANCE = agents.CallableAgent(first_legal)


@pytest.mark.parametrize("spec, kind", [("gin_env.agents.simple:SimpleAgent", SimpleAgent),
                                        ("tests.test_agents_simple:FIRST_LEGAL_INSTANCE", agents.CallableAgent),
                                        ("tests.test_agents_simple:first_legal", agents.CallableAgent)])
def test_module_attr_names_a_class_an_instance_or_a_function(spec, kind):
    agent = agents.load(spec)
    assert isinstance(agent, kind) and isinstance(agent, agents.Agent)
    state = engine.new_hand(Rules(), np.random.default_rng(3))
    action = agent.act(view(state, state.current), np.random.default_rng(4))
    assert view(state, state.current).legal_mask[action]


@pytest.mark.parametrize("spec, message", [("no_such_module_xyz:Agent", "cannot import 'no_such_module_xyz'"),
                                           ("gin_env.agents.simple:Nobody", "has no attribute 'Nobody'"),
                                           ("gin_env.agents:AGENTS", "must be an agent name"),
                                           ("gin_env.agents.ppo:PPOAgent", "made with no arguments"),
                                           (":SimpleAgent", "write module:attr")])
def test_module_attr_failures_name_the_spec(spec, message):
    with pytest.raises(ValueError, match=message):
        agents.load(spec)


def test_module_attr_works_wherever_an_agent_name_does(capsys):
    """evaluate, play and the env's ``opponent=`` all go through agents.load."""
    from gin_env.envs.gin_rummy import GinRummyEnv
    from gin_env.evaluation import cli

    spec = "tests.test_agents_simple:first_legal"
    env = GinRummyEnv(opponent=spec)
    env.reset(seed=1)
    assert isinstance(env.opponent, agents.CallableAgent)
    assert cli.main([spec, "random", "--deals", "2", "--workers", "1", "--no-progress"]) == 0
    assert spec in capsys.readouterr().out
def test_load_missing_or_corrupt_model_fails_clearly(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model file"):
        agents.load(str(tmp_path / "missing.zip"))
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="not a model"):
        agents.load(garbage)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(ValueError, match="could not be loaded as a MaskablePPO model"):
        agents.load(str(other))


def test_load_a_saved_maskable_ppo_model(tmp_path):
    from sb3_contrib import MaskablePPO

    from gin_env.envs.gin_rummy import GinRummyEnv

    model = MaskablePPO("MlpPolicy", GinRummyEnv(), seed=0, device="cpu", policy_kwargs={"net_arch": [16]})
    path = tmp_path / "tiny.zip"
    model.save(path)
    agent = agents.load(str(path))
    for state in random_play_states(Rules(), seed=5, hands=2):
        v = view(state, state.current)
        assert v.legal_mask[agent.act(v, np.random.default_rng(0))]
    other = MaskablePPO("MlpPolicy", "CartPole-v1", seed=0, device="cpu", policy_kwargs={"net_arch": [8]})
    other.save(tmp_path / "cartpole.zip")
    with pytest.raises(ValueError, match="model for another env"):
        agents.load(str(tmp_path / "cartpole.zip"))


@pytest.mark.parametrize("preset", ["standard", "oklahoma", "openspiel", "jokers"])
def test_simple_act_batch_plays_as_act(preset):
    """The compiled batched policy chooses what ``act`` chooses in every game; where the least-deadwood cards tie
    (each agent breaks ties with its own draws), it picks one of them, as a knock when that is legal (the jokers
    held as one card, R71, R72)."""
    from gin_env.batch.hand_batch import HandBatch
    from gin_env.batch.observation import batch_view

    rules = Rules.preset(preset)
    n = 200
    rng = np.random.default_rng(17)
    b = HandBatch(rules, n)
    b.deal(np.arange(n), np.array([rng.permutation(rules.deck.n_cards) for _ in range(n)]), rng.integers(0, 2, n))
    agent = SimpleAgent()
    compared = ties = 0
    for _ in range(60):
        live = np.flatnonzero(b.phase != engine.OVER)
        if not live.size:
            break
        v = batch_view(b, live, b.current[live])
        chosen = agent.act_batch(v, rng)
        for row, game in enumerate(live):
            scalar_view = v.player_view(row)
            best = int(v.best_cards[row])
            if scalar_view.phase == engine.DISCARD and not scalar_view.legal_mask[actions.BIG_GIN] and \
                    best.bit_count() > 1:
                card = actions.action_card(chosen[row], scalar_view.hand)
                least = best >> card & 1 or card >= cards.N_CARDS and best >> cards.N_CARDS
                assert least, f"game {game}: {card} is not a least-deadwood card"
                assert scalar_view.legal_mask[chosen[row]]
                assert actions.is_knock(chosen[row]) == bool(scalar_view.legal_mask[actions.knock(card)])
                ties += 1
            else:
                assert chosen[row] == agent.act(scalar_view, rng), f"game {game}"
                compared += 1
        b.step(live, chosen)
    assert compared > 2000 and ties > 20
