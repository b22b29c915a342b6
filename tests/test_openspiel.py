"""gin-env agents inside OpenSpiel's gin_rummy (``interop.openspiel``) and OpenSpiel as a live differential check of the
``openspiel`` preset: legal moves at every decision, hand ends (R37, R38, R60, R61) and scores (docs/openspiel.md)."""

from __future__ import annotations

import collections
import importlib
import sys

import numpy as np
import pytest

from gin_env.game import actions, cards, engine, solver


def test_missing_open_spiel_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes ``import pyspiel`` fail as if it were not installed
    monkeypatch.delitem(sys.modules, "gin_env.interop.openspiel", raising=False)
    monkeypatch.delitem(sys.modules, "gin_env.interop.openspiel_history", raising=False)
    with pytest.raises(ImportError, match=r"^gin_env.interop.openspiel \(GinEnvBot\) needs pyspiel, which is not "
                                          r"installed: pip install 'gin-env\[openspiel\]'$"):
        importlib.import_module("gin_env.interop.openspiel")


pyspiel = pytest.importorskip("pyspiel")
gos = importlib.import_module("gin_env.interop.openspiel")
gos_history = importlib.import_module("gin_env.interop.openspiel_history")
GAME = pyspiel.load_game("gin_rummy")
IDS = gos_history.action_ids(GAME)
#: OpenSpiel's own deadwood, to tell its inexact 11-card values (difference 4) from disagreements on the rules.
OS_UTILS = pyspiel.gin_rummy.GinRummyUtils(cards.N_RANKS, 4, engine.HAND_SIZE)


def os_cards(text: str) -> list[int]:
    return [IDS.to_openspiel[c] for c in cards.parse(text)]


def test_action_ids_read_openspiel_names():
    state = GAME.new_initial_state()
    assert state.action_to_string(0, IDS.to_openspiel[cards.card("TC")]).endswith("Action: Tc")
    assert [state.action_to_string(0, a).split("Action: ")[1] for a in
            (gos_history.OS_DRAW_UPCARD, gos_history.OS_DRAW_STOCK, gos_history.OS_PASS, gos_history.OS_KNOCK)] == [
        "Draw upcard", "Draw stock", "Pass", "Knock"]
    assert sorted(IDS.to_ours) == list(range(cards.N_CARDS))
    # 65 sets of 3 or 4 and 120 runs of 3 to 5: OpenSpiel's whole meld list, each a legal meld (R4, R5).
    assert len(IDS.meld_masks) == 185
    assert all(solver.is_meld(cards.to_ids(m)) for m in IDS.meld_masks.values())
    assert max(m.bit_count() for m in IDS.meld_masks.values()) == gos_history.OS_MAX_RUN


@pytest.mark.parametrize(("meld", "sizes"), [
    ("4C 4D 4H 4S", [4]), ("AH 2H 3H 4H 5H", [5]), ("AH 2H 3H 4H 5H 6H", [3, 3]),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH", [3, 3, 5])])
def test_long_runs_are_laid_in_openspiel_pieces(meld, sizes):
    """R5: a run of 6 or more is laid as shorter runs, all OpenSpiel meld actions."""
    pieces = gos_history.openspiel_pieces(cards.parse(meld))
    assert [p.bit_count() for p in pieces] == sizes
    assert all(p in IDS.meld_actions for p in pieces)
    assert sum(pieces) == cards.to_mask(meld)


@pytest.mark.parametrize(("game", "message"), [
    ("tic_tac_toe", "plays OpenSpiel's 'gin_rummy', not 'tic_tac_toe'"),
    ("gin_rummy(knock_card=9)", r"default parameters only .* knock_card=9 \(default 10\)"),
    ("gin_rummy(oklahoma=True)", r"oklahoma=True \(default False\)")])
def test_games_it_cannot_play_are_refused_in_one_line(game, message):
    with pytest.raises(ValueError, match=message):
        gos.GinEnvBot("random", pyspiel.load_game(game), 0)


def test_bad_seat_and_bad_agent_are_refused():
    with pytest.raises(ValueError, match="player_id must be 0 or 1"):
        gos.GinEnvBot("random", GAME, 2)
    with pytest.raises(TypeError, match="must be an agent name"):
        gos.GinEnvBot(42, GAME, 0)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        gos.GinEnvBot("nobody", GAME, 0)
    with pytest.raises(ValueError, match="cannot import 'no_such_module'"):
        gos.GinEnvBot("no_such_module:Agent", GAME, 0)


def test_module_attr_names_an_agent():
    bot = gos.GinEnvBot("gin_env.agents.simple:SimpleAgent", GAME, 1, seed=3)
    assert type(bot.agent).__name__ == "SimpleAgent"


def test_a_function_plays_as_an_agent():
    """Any callable(view, rng) is an agent, as for GinRummy-v0's opponent: here the lowest legal action."""
    bots = [gos.GinEnvBot(lambda view, rng: view.legal_actions[0], GAME, 0),
            pyspiel.make_simple_gin_rummy_bot(GAME.get_parameters(), 1)]
    returns = gos.play_hand(GAME.new_initial_state(), bots, np.random.default_rng(4))
    assert returns[0] == -returns[1]


def deal(state, player0: str, player1: str, upcard: str) -> None:
    """OpenSpiel's deal as chance outcomes: ten cards to player 0, ten to player 1, then the upcard."""
    for c in os_cards(player0) + os_cards(player1) + os_cards(upcard):
        state.apply_action(c)


class Scripted:
    """An agent that plays the named actions in order."""

    def __init__(self, *names: str):
        self.moves = [actions.parse(n) for n in names]

    def act(self, view, rng) -> int:
        return self.moves.pop(0)


def test_a_knock_openspiel_refuses_becomes_the_discard_of_the_same_card():
    """Difference 4 of docs/openspiel.md: discarding 7D leaves AS 3C 5C AH = 10 beside 5S-7S and 5H-7H (R20), but
    OpenSpiel's 11-card deadwood says 11 and offers no Knock."""
    state = GAME.new_initial_state()
    deal(state, "AS 5S 6S 7S 3C 5C AH 5H 6H 7H", "2S 3S 4S 8S 9S TS JS QS KS 2C", "7D")
    state.apply_action(gos_history.OS_DRAW_UPCARD)
    replay = gos_history.History(IDS).update(state)
    assert engine.legal_mask(replay.hand)[actions.parse("KNOCK(7D)")]
    assert gos_history.OS_KNOCK not in state.legal_actions()
    bot = gos.GinEnvBot(Scripted("KNOCK(7D)"), GAME, 0)
    assert bot.step(state) == IDS.to_openspiel[cards.card("7D")]
    assert bot.refused_knocks == 1


def check_masks(replay, state, seen: collections.Counter) -> None:
    """Our legal mask equals OpenSpiel's legal moves in our ids, except where OpenSpiel's inexact 11-card deadwood
    (difference 4) hides all knocks that docs/rules.md allows (R20); those decisions are counted."""
    ours, theirs = engine.legal_mask(replay.hand), replay.legal_mask(state)
    seen["decisions"] += 1
    seen["walls"] += replay.hand.phase == engine.WALL
    if np.array_equal(ours, theirs):
        return
    knocks = np.zeros_like(ours)
    knocks[actions.KNOCK_BASE:] = True
    hand11 = [IDS.to_openspiel[c] for c in cards.to_ids(replay.hand.hands[replay.hand.current])]
    assert np.array_equal(ours & ~knocks, theirs) and OS_UTILS.min_deadwood(hand11) > gos_history.RULES.knock_limit, (
        f"masks differ: ours {[actions.name(a) for a in np.flatnonzero(ours)]}, "
        f"OpenSpiel's {[actions.name(a) for a in np.flatnonzero(theirs)]}")
    seen["knocks OpenSpiel misses"] += 1


def play_hand(game_rng, bots, seen: collections.Counter) -> tuple:
    """One hand of OpenSpiel's gin_rummy with chance drawn from ``game_rng``, the masks checked at every decision
    our engine also has. Returns the final state and its replay."""
    state = GAME.new_initial_state()
    replay = gos_history.History(IDS)
    for bot in bots:
        bot.restart_at(state)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[game_rng.integers(len(outcomes))][0])
            continue
        replay = replay.update(state)
        if replay.decision:
            check_masks(replay, state, seen)
        state.apply_action(bots[state.current_player()].step(state))
    return state, replay.update(state)


@pytest.mark.parametrize(("agents", "hands", "seed"), [(("random", "random"), 600, 1),
                                                       (("random", "simple"), 250, 2),
                                                       (("simple", "random"), 250, 3)])
def test_openspiel_and_the_openspiel_preset_agree(agents, hands, seed):
    """Our agents through OpenSpiel, seats as given: the masks agree at every decision (in play_hand); every hand
    ends where ours does, dead hands by the same rule; and a hand scores the same unless OpenSpiel refused one of
    our layoffs (difference 2), which can only cost the defender."""
    rng = np.random.default_rng(seed)
    bots = [gos.GinEnvBot(name, GAME, p, seed=seed * 10 + p) for p, name in enumerate(agents)]
    seen = collections.Counter()
    for _ in range(hands):
        state, replay = play_hand(rng, bots, seen)
        hand = replay.hand
        assert hand.phase == engine.OVER, "OpenSpiel ended a hand that our engine goes on with"
        outcome = hand.outcome
        ours = [outcome.player_points(p) for p in (0, 1)]
        theirs = [int(r) for r in state.returns()]
        seen[outcome.kind] += 1
        seen["R60"] += hand.upcard_draws >= gos_history.RULES.max_upcard_draws
        seen["R61"] += hand.returns >= 2
        refused = bots[1 - outcome.knocker].refused_layoffs if outcome.knocker is not None else ()
        if refused:
            seen["refused layoffs"] += 1
            assert theirs[outcome.knocker] >= ours[outcome.knocker]
        else:
            assert theirs == ours, (outcome, theirs)
            seen["layoffs"] += bool(outcome.layoffs)
    assert seen["decisions"] > 20 * hands and seen["knocks OpenSpiel misses"] < seen["decisions"] / 1000, seen
    if "simple" in agents:
        assert seen["knock"] > hands // 2 and seen["layoffs"] > 20 and seen["gin"] > 2, seen
    else:
        # Random play rarely knocks; it is here for the ends of OpenSpiel's dead hands, and the wall (R38).
        assert seen["R60"] and seen["R61"] > 20 and seen["walls"] > 100 and seen["dead"] > hands // 2, seen


def test_gin_env_bots_play_against_openspiels_simple_bot():
    """OpenSpiel's evaluate_bots loop (gos.play_hand) with our expert against OpenSpiel's simple bot, seats
    alternating: every hand ends, zero-sum, and the expert is ahead over 40 hands."""
    rng = np.random.default_rng(5)
    totals = np.zeros(2)
    for hand in range(40):
        ours = hand % 2
        bots = [None, None]
        bots[ours] = gos.GinEnvBot("expert", GAME, ours, seed=hand)
        bots[1 - ours] = pyspiel.make_simple_gin_rummy_bot(GAME.get_parameters(), 1 - ours)
        returns = gos.play_hand(GAME.new_initial_state(), bots, rng)
        assert returns[0] == -returns[1]
        totals += [returns[ours], returns[1 - ours]]
    assert totals[0] > totals[1]


def test_gin_env_bots_play_in_openspiels_evaluate_bots():
    """OpenSpiel's own loop (it calls restart_at, which GinEnvBot implements): ten hands, simple against expert."""
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    rng = np.random.RandomState(9)
    bots = [gos.GinEnvBot("simple", GAME, 0, seed=1), gos.GinEnvBot("expert", GAME, 1, seed=2)]
    scored = 0
    for _ in range(10):
        returns = evaluate_bots(GAME.new_initial_state(), bots, rng)
        assert returns[0] == -returns[1]
        scored += returns[0] != 0
    assert scored >= 5


def test_a_network_that_plays_jokers_is_refused_in_one_line():
    """OpenSpiel's gin_rummy deals no jokers (docs/rules.md section 17): a network trained with them (382 entries,
    110 actions, R72) is refused when it is seated, naming both sizes."""
    from gin_env.agents import numpy_policy

    weights = numpy_policy.read_weights(numpy_policy.SHIPPED_WEIGHTS)
    summary = weights["pi_features_extractor.summary.0.weight"]
    weights["pi_features_extractor.summary.0.weight"] = np.concatenate([summary, np.zeros((len(summary), 7))], 1)
    context = weights["action_net.free_out.weight"].shape[1]
    weights["action_net.joker_out.weight"] = np.zeros((actions.JOKER_ACTIONS, context))
    weights["action_net.joker_out.bias"] = np.zeros(actions.JOKER_ACTIONS)
    jokers_network = numpy_policy.NumpyPolicyAgent(weights)
    assert (jokers_network.reads, jokers_network.n_actions) == (382, 110)
    with pytest.raises(ValueError, match=r"reads observations of 382 entries and gives 110 actions, and a game under "
                                         r"rules 'openspiel' has 375 and 108"):
        gos.GinEnvBot(jokers_network, GAME, 0)
