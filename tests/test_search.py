"""The search agent (agents/search.py): legal play in every phase, determinizations consistent with the view,
determinism given the generator, the budget, the game-win table, a quick edge over random, and a study's knob refused
with where it lives (tests/test_study_search.py tests the study's search)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from gin_env import agents
from gin_env.agents import numpy_policy
from gin_env.agents import search as search_module
from gin_env.agents.rollouts import game_win_table, hand_value
from gin_env.agents.search import SearchAgent, SearchParams, choose
from gin_env.batch.hand_batch import HandBatch
from gin_env.belief import NetworkModel, OpponentModel, sample_worlds
from gin_env.evaluation import duel
from gin_env.game import actions, cards, engine, solver
from gin_env.game.actions import KNOCK_BASE, TAKE_DISCARD
from gin_env.game.observation import encode, view
from gin_env.game.rules import Rules
from tests.scripted import make_deck

#: A small budget keeps the tests fast; the behaviour tested does not depend on it.
FAST = {"samples": 6}


def seeded_views(rules: Rules, seed: int, hands: int, opponent: str = "expert"):
    """Every view the search agent (P1) decides from in ``hands`` seeded hands against ``opponent``, with the real
    state it came from; the search plays P1's moves, so the views cover every phase it meets."""
    search, other = SearchAgent(**FAST), agents.load(opponent)
    rng = np.random.default_rng(seed)
    out = []
    for h in range(hands):
        state = engine.new_hand(rules, np.random.default_rng([seed, h]), dealer=h % 2)
        while state.phase != engine.OVER:
            v = view(state, state.current)
            if state.current == 0:
                out.append((state, v))
                action = search.act(v, rng)
            else:
                action = other.act(v, rng)
            state = engine.step(state, action)
    return out


@pytest.mark.parametrize(("preset", "guide"), [("eaai", "expert"), ("openspiel", "expert"), ("oklahoma", "expert"),
                                               ("foony", "expert"), ("eaai", "ppo"), ("openspiel", "ppo")])
def test_the_search_plays_only_legal_actions_in_every_phase(preset, guide):
    """duel raises on an illegal action; every phase the search meets is listed, including the first-upcard offer,
    the draw, the discard phase and a knock (the wall comes up under openspiel, R38)."""
    rules = Rules.preset(preset, target=None)
    search, phases, knocked = SearchAgent(samples=2, guide=guide), set(), False

    def observe(state, action):
        nonlocal knocked
        engine.validate(state)
        if state.current == seat:
            phases.add(state.phase)
            knocked |= action >= KNOCK_BASE

    for game in range(6):
        for seat, opponent in ((0, "simple"), (1, "random")):
            players = (search, agents.load(opponent)) if seat == 0 else (agents.load(opponent), search)
            duel.play_game(rules, players, 40, game, observer=observe)
    assert {engine.OFFER, engine.DRAW, engine.DISCARD} <= phases and knocked


def wall_states(rules: Rules, seed: int, hands: int):
    """States at the wall (R38) where taking the discard is legal, from hands in which both players draw from the
    stock and shed their worst card as simple does, but never knock."""
    rng, simple = np.random.default_rng(seed), agents.load("simple")
    out = []
    for h in range(hands):
        state = engine.new_hand(rules, rng, dealer=h % 2)
        while state.phase not in (engine.OVER, engine.WALL):
            action = simple.act(view(state, state.current), rng)
            if action == TAKE_DISCARD:
                action = actions.DRAW_STOCK if state.phase == engine.DRAW else actions.PASS
            if action >= KNOCK_BASE:
                action = actions.discard(action - KNOCK_BASE)
            state = engine.step(state, action)
        if state.phase == engine.WALL and engine.legal_mask(state)[TAKE_DISCARD]:
            out.append(state)
    return out


def test_at_the_wall_the_search_passes_or_takes_and_then_knocks():
    """R38 (openspiel): at the wall the search weighs PASS against TAKE_DISCARD; after a take only knocks are legal
    (must_knock), and it knocks."""
    rules = Rules.preset("openspiel")
    states = wall_states(rules, 5, 60)
    assert len(states) >= 3
    search = SearchAgent(**FAST)
    for state in states:
        v = view(state, state.current)
        guide = search._guide(v).act(v, np.random.default_rng(0))
        assert guide in (TAKE_DISCARD, actions.PASS)
        assert search.candidates(v) == [guide, TAKE_DISCARD + actions.PASS - guide]
        assert search.act(v, np.random.default_rng(0)) in (TAKE_DISCARD, actions.PASS)
        taken = engine.step(state, TAKE_DISCARD)
        assert taken.must_knock and search.act(view(taken, taken.current), np.random.default_rng(0)) >= KNOCK_BASE
        # The expert, the search's guide, never takes there above its knock threshold, but must act if it is put
        # there: it knocks with the least deadwood.
        forced = view(taken, taken.current)
        knock = agents.load("expert").act(forced, np.random.default_rng(0))
        assert knock == min(np.flatnonzero(forced.legal_mask), key=lambda a: (
            solver.deadwood(forced.hand & ~(1 << (a - KNOCK_BASE))), -cards.VALUES[a - KNOCK_BASE], -a))


def test_determinizations_are_consistent_with_the_view():
    """Each sampled state passes the engine's invariants, gives the viewer exactly the view it was drawn from, keeps
    the cards the opponent is known to hold in its hand and deals it only cards the viewer cannot see."""
    rules = Rules.preset("eaai")
    checked = 0
    for _, v in seeded_views(rules, 11, 6)[::3]:
        for state in sample_worlds(v, 5, np.random.default_rng(checked), model=OpponentModel()):
            engine.validate(state)
            assert view(state, v.player) == v
            opponent_hand = state.hands[1 - v.player]
            assert opponent_hand & v.opponent_known == v.opponent_known
            assert opponent_hand & ~v.opponent_known & ~v.unseen == 0
            assert cards.to_mask(state.deck[state.stock_top:]) & ~v.unseen == 0
            checked += 1
    assert checked > 20


def test_sampled_opponent_hands_lean_away_from_what_it_discarded():
    """A neighbour of a card the opponent discarded is drawn into its hand less often than an unrelated card."""
    rules = Rules.preset("eaai")
    views = [v for _, v in seeded_views(rules, 12, 4) if v.opponent_discards.bit_count() >= 3]
    v = views[0]
    from gin_env.game import meld_partners

    shunned = 0
    for c in cards.to_ids(v.opponent_discards):
        shunned |= meld_partners.NEIGHBOURS[c]
    near = [c for c in cards.to_ids(v.unseen) if shunned >> c & 1]
    far = [c for c in cards.to_ids(v.unseen) if not shunned >> c & 1]
    states = sample_worlds(v, 400, np.random.default_rng(3), model=OpponentModel(replay=0.0))
    held = np.array([[s.hands[1 - v.player] >> c & 1 for c in range(52)] for s in states]).mean(axis=0)
    assert held[near].mean() < held[far].mean()


def test_the_choice_is_a_function_of_the_view_and_the_generator():
    rules = Rules.preset("eaai")
    views = [v for _, v in seeded_views(rules, 13, 3) if len(SearchAgent(**FAST).candidates(v)) > 1][:8]
    assert views
    for v in views:
        one = SearchAgent(**FAST).values(v, SearchAgent(**FAST).candidates(v), np.random.default_rng(9))
        two = SearchAgent(**FAST).values(v, SearchAgent(**FAST).candidates(v), np.random.default_rng(9))
        assert np.array_equal(one, two)
    plays = [duel.play_game(rules, (SearchAgent(**FAST), agents.load("expert")), 3, 0).outcomes for _ in range(2)]
    assert plays[0] == plays[1]


@pytest.mark.parametrize("guide", ["expert", "ppo"])
def test_by_default_the_guide_chooses_the_draw_and_the_search_the_discard_phase(guide):
    """In the offer and the draw (R13, R15) the search plays its guide's choice (the expert's, or the shipped
    network's). In the discard phase it searches the guide's best ``discards`` actions, and the least-deadwood knock
    when it may knock."""
    views = [v for _, v in seeded_views(Rules.preset("eaai"), 18, 4)]
    reference = numpy_policy.shipped() if guide == "ppo" else agents.load("expert")
    default = SearchAgent(**FAST, guide=guide, discards=2)
    draws = [v for v in views if v.phase in (engine.OFFER, engine.DRAW) and v.legal_mask[TAKE_DISCARD]]
    assert len(draws) >= 10
    for i, v in enumerate(draws):
        assert default.act(v, np.random.default_rng(i)) == reference.act(v, np.random.default_rng(i))
        assert not default.searches(v)
    discards = [v for v in views if v.phase == engine.DISCARD and v.legal_mask.sum() > 2]
    assert len(discards) >= 10
    for v in discards:
        searched = default.candidates(v)
        if len(searched) == 1:  # gin, played at once (below)
            assert searched[0] >= KNOCK_BASE
            continue
        if guide == "ppo":
            logits = np.where(v.legal_mask, reference.logits(encode(v)[None])[0], -np.inf)
            best = np.argsort(-logits, kind="stable")[:2].tolist()
        else:
            best = [actions.discard(c) for c in reference.discard_ranking(v)[:2]]
        assert searched[0] == reference.act(v, np.random.default_rng(0))  # the guide's own choice first
        assert set(best) <= set(searched) and len(searched) <= 3
        assert all(a >= KNOCK_BASE for a in searched if a not in best)
        assert any(a >= KNOCK_BASE for a in searched) == v.legal_mask[KNOCK_BASE:].any()


def test_the_guide_may_be_any_exported_policy(tmp_path):
    """A path to policy weights (``gin-env export --numpy``) guides the search as the shipped ones do; a missing
    file is named."""
    v = next(v for _, v in seeded_views(Rules.preset("eaai"), 19, 2) if v.phase == engine.DISCARD)
    own = SearchAgent(**FAST, guide=numpy_policy.SHIPPED_WEIGHTS)
    assert own.candidates(v) == SearchAgent(**FAST, guide="ppo").candidates(v)
    with pytest.raises(FileNotFoundError, match="missing.npz"):
        SearchAgent(guide=str(tmp_path / "missing.npz"))


def test_the_rollouts_play_from_the_worlds_the_worlds_hook_gives():
    """``SearchAgent._worlds`` is where a search draws the worlds it rolls out (a study reweighs them there): a
    search handed the real state through it rolls out that state, in every sample."""
    rules = Rules.preset("eaai")
    cases = [(s, v) for s, v in seeded_views(rules, 21, 3) if SearchAgent(**FAST).searches(v)][:4]
    assert cases

    class Told(SearchAgent):
        def _worlds(self, view, n, rng):
            self.drawn += n
            return HandBatch.from_states([self.state] * n)

    for state, v in cases:
        told = Told(**FAST)
        told.drawn, told.state = 0, state
        candidates = told.candidates(v)
        values = told.sample_values(v, candidates, np.random.default_rng(1))
        assert told.drawn == FAST["samples"]
        # The real state's stock order is fixed and both players' rollouts are greedy: every sample plays the same.
        assert np.allclose(values, values[0])


def test_the_worlds_are_drawn_by_the_model_the_belief_parameter_names():
    """``_model`` is the heuristic ``OpponentModel()`` or the ``belief`` network's model, and it draws every world:
    a model that gives the opponent's real hidden cards all the weight deals them."""
    search = SearchAgent(**FAST)
    assert search._model == OpponentModel()
    assert SearchAgent(**FAST, belief="belief-v1")._model == NetworkModel("belief-v1")
    assert_the_worlds_follow_the_model(search, lambda model: setattr(search, "_model", model))


def assert_the_worlds_follow_the_model(search, put_model) -> None:
    """The worlds ``search._worlds`` draws follow the opponent model that ``put_model`` gives it: one that knows the
    opponent's real hidden cards deals them in every world."""
    state, v = next((s, v) for s, v in seeded_views(Rules.preset("eaai"), 23, 2)
                    if v.phase == engine.DISCARD and len(cards.to_ids(v.unseen)) > 20)
    hidden = state.hands[1 - v.player] & v.unseen

    class Real(OpponentModel):
        def card_weights(self, view):
            return np.where(cards.to_array(hidden), 1e12, np.where(cards.to_array(view.unseen), 1e-12, 0.0))

    put_model(Real(replay=0.0))
    worlds = search._worlds(v, 8, np.random.default_rng(0))
    assert all(int(hand) & hidden == hidden for hand in worlds.hands[:, 1 - v.player])


def test_gin_and_a_single_legal_action_are_played_without_search():
    rules = Rules()
    p1, p2 = "AS 2S 3S 4H 5H 6H 7C 7D 7S KD", "2C 3C 4C 9D TD JC QC KC 9S TS"
    state = engine.new_hand(rules, dealer=1, deck=make_deck(p1, p2, "7H"))
    state = engine.step(state, TAKE_DISCARD)
    search = SearchAgent(**FAST)
    assert search.candidates(view(state, 0)) == [actions.knock(cards.card("KD"))]  # gin (R23)
    after_passes = engine.step(engine.step(engine.new_hand(rules, dealer=1, deck=make_deck(p1, p2, "KH")),
                                           actions.PASS), actions.PASS)
    assert search.candidates(view(after_passes, 0)) == [actions.DRAW_STOCK]  # R13c


def test_another_candidate_than_the_guides_must_beat_it_by_the_margin():
    """``choose``: the best mean wins at margin 0; with a margin, a candidate whose paired lead over the guide's
    choice (column 0) is within that many standard errors leaves the guide's choice standing."""
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(64, 1)) * 10.0  # luck of the deal, shared by every candidate
    lead = rng.normal(size=64) * 4.0 + 1.0  # a lead of about 2 standard errors (4 / sqrt(64) = 0.5)
    values = np.hstack([noise, noise[:, 0:1] + lead[:, None] - lead.mean() + 1.0, noise - 5.0])
    assert choose(values, 0.0) == 1
    assert choose(values, 1.5) == 1
    assert choose(values, 2.5) == 0
    assert choose(values[:, [0, 2]], 0.0) == 0
    assert choose(np.zeros((8, 3)), 0.0) == 0  # ties go to the guide
    assert choose(values[:1], 1.0) == 0  # one sample has no standard error: the guide stands


@pytest.mark.parametrize("guide", ["expert", "ppo"])
def test_with_a_wide_margin_the_search_plays_its_guide(guide):
    views = [v for _, v in seeded_views(Rules.preset("eaai"), 21, 3) if v.phase == engine.DISCARD]
    assert len(views) >= 10
    reference = numpy_policy.shipped() if guide == "ppo" else agents.load("expert")
    search = SearchAgent(**FAST, guide=guide, discards=2, margin=1e9, trust=None)
    assert sum(search.searches(v) for v in views) >= 5
    for i, v in enumerate(views):
        assert search.act(v, np.random.default_rng(i)) == reference.act(v, np.random.default_rng(i))


def test_a_network_guide_sure_of_its_choice_is_played_unsearched():
    """``trust``: where the network gives its choice at least that probability the search plays it without rollouts;
    elsewhere it searches as before. The expert guide has no probabilities and is always searched."""
    views = [v for _, v in seeded_views(Rules.preset("eaai"), 22, 3) if v.phase == engine.DISCARD]
    network = numpy_policy.shipped()
    sure = []
    for v in views:
        logits = np.where(v.legal_mask, network.logits(encode(v)[None])[0], -np.inf)
        odds = np.exp(logits - logits.max())
        sure.append(odds.max() / odds.sum() >= 0.9)
    assert 0 < sum(sure) < len(views)
    trusting, plain = SearchAgent(**FAST, guide="ppo", trust=0.9), SearchAgent(**FAST, guide="ppo", trust=None)
    for i, (v, is_sure) in enumerate(zip(views, sure)):
        multiple = len(plain.candidates(v)) > 1
        assert trusting.searches(v) == (multiple and not is_sure)
        if is_sure:
            assert trusting.act(v, np.random.default_rng(i)) == network.act(v, np.random.default_rng(i))
        else:
            assert trusting.act(v, np.random.default_rng(i)) == plain.act(v, np.random.default_rng(i))
    expert_guided = SearchAgent(**FAST, guide="expert", trust=0.01)
    assert any(expert_guided.searches(v) for v in views)


def test_the_sample_budget_and_the_clock_are_honoured():
    """Without a clock the search plays its ``samples`` exactly; with ``time_ms`` it stops a huge sample budget at the
    end of the round in which the time ran out. Counted in samples, not seconds, so a slow or busy machine passes."""
    rules = Rules.preset("eaai")
    v = [v for _, v in seeded_views(rules, 14, 2) if v.phase == engine.DISCARD][1]
    exact = SearchAgent(samples=24, trust=None)
    assert exact.searches(v)
    assert exact.sample_values(v, exact.candidates(v), np.random.default_rng(0)).shape[0] == 24
    clocked = SearchAgent(samples=search_module.MAX_SAMPLES, time_ms=30.0, round_samples=8, trust=None)
    played = clocked.sample_values(v, clocked.candidates(v), np.random.default_rng(0)).shape[0]
    assert played % 8 == 0 and 8 <= played < search_module.MAX_SAMPLES  # the whole budget would take a minute


def test_the_clock_stops_before_a_round_that_would_pass_the_budget(monkeypatch):
    """With ``time_ms`` the search plays no round that would take the decision past the budget: rounds that take
    10 ms each fit three into 35 ms (the fourth would end at 40). A fake clock, so that it counts rounds, not a
    machine's speed."""
    v = [v for _, v in seeded_views(Rules.preset("eaai"), 14, 2) if v.phase == engine.DISCARD][1]
    clock = [0.0]
    monkeypatch.setattr(search_module, "time", SimpleNamespace(perf_counter=lambda: clock[0]))

    def rollout_values(self, view, candidates, n, rng):
        clock[0] += 0.010
        return np.zeros((n, len(candidates)))

    monkeypatch.setattr(SearchAgent, "_rollout_values", rollout_values)
    agent = SearchAgent(samples=1000, time_ms=35.0, round_samples=8, trust=None)
    assert agent.sample_values(v, [0, 1], np.random.default_rng(0)).shape[0] == 3 * 8
    assert clock[0] * 1000.0 <= 35.0


@pytest.mark.parametrize(("key", "value"), [
    ("samples", 0), ("time_ms", 0), ("discards", 0), ("guide", "mcts"), ("margin", -1.0), ("trust", 0.0),
    ("trust", 1.5), ("belief", "ppo"),
    # Not finite: each would fail, or hang, in the middle of a game.
    ("time_ms", float("inf")), ("margin", float("inf")), ("trust", float("nan"))])
def test_bad_parameters_name_the_key(key, value):
    with pytest.raises(ValueError, match=f"search parameter '{key}' must"):
        SearchParams(**{key: value})
    with pytest.raises(ValueError, match=f"search parameter '{key}' must"):
        SearchAgent(**{key: value})


@pytest.mark.parametrize("key", sorted(search_module.STUDY_ONLY))
def test_a_studys_knob_is_refused_with_where_it_lives(key):
    """The knobs only studies set are no parameters of the shipped search: by name or as ``search[KEY=VALUE]`` each
    is refused in one line that names the experiment which builds that search."""
    with pytest.raises(TypeError, match=f"search parameter '{key}' is a study's knob.*experiments/study_search.py"):
        SearchAgent(**{key: 1})
    with pytest.raises(ValueError, match=f"agent search-v2: search parameter '{key}' is a study's knob") as refused:
        agents.load(f"search[{key}=1]")
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(("key", "value"), [("samples", 2.5), ("samples", 8.0), ("samples", True), ("guide", 3),
                                            ("margin", None), ("round_samples", "8")])
def test_parameters_of_the_wrong_type_name_the_key(key, value):
    with pytest.raises(TypeError, match=f"search parameter '{key}' must"):
        SearchParams(**{key: value})


def test_numpy_numbers_are_parameters_and_the_agent_takes_only_its_own():
    params = SearchAgent(samples=np.int64(4), margin=np.float32(1.0)).params
    assert (params.samples, params.margin) == (4, 1.0)
    with pytest.raises(TypeError, match="SearchAgent has no parameter 'sampels'; its parameters are guide, samples"):
        SearchAgent(sampels=3)
    with pytest.raises(TypeError, match="SearchAgent params must be a SearchParams"):
        SearchAgent({"samples": 3})


def test_the_game_win_table_is_a_probability_that_grows_with_the_own_score():
    rules = Rules.preset("eaai")
    table = game_win_table(rules)
    target = rules.target
    assert table.shape == (target + 1, target + 1)
    assert (table[target, :target] == 1).all() and (table[:target, target] == 0).all()
    inner = table[:target, :target]
    assert np.allclose(inner + inner.T, 1.0)  # the hand model is symmetric
    assert (np.diff(inner, axis=0) >= -1e-12).all() and (np.diff(inner, axis=1) <= 1e-12).all()


def test_near_the_target_a_game_winning_knock_is_worth_more_than_its_points():
    """With 95 to 90 in a game to 100, a 5-point knock ends the game: worth more than a 25-point gin at 0 to 0
    (docs/search.md: the value is the game-win chance blended with points)."""
    rules = Rules.preset("eaai")
    late = view(engine.new_hand(rules, np.random.default_rng(0)), 0, (95, 90))
    early = view(engine.new_hand(rules, np.random.default_rng(0)), 0, (0, 0))
    small_win_late = hand_value(late, np.array([5]), 0.2)[0]
    big_win_early = hand_value(early, np.array([25]), 0.2)[0]
    assert small_win_late > big_win_early
    single = view(engine.new_hand(rules.replace(target=None), np.random.default_rng(0)), 0)
    assert hand_value(single, np.array([-7, 25]), 0.2).tolist() == [-7.0, 25.0]


def test_the_search_beats_random_clearly():
    rules = Rules.preset("eaai", target=None)
    search, random = SearchAgent(**FAST), agents.load("random")
    points = sum(duel.a_side(result, seating).points
                 for game in range(6) for seating, result in enumerate(duel.play_duplicate(rules, search, random,
                                                                                           17, game)))
    assert points > 6 * 2 * 20


def test_load_gives_the_search_agent():
    assert isinstance(agents.load("search"), SearchAgent)


def test_a_guide_that_reads_the_match_record_sees_it_at_the_table_and_in_the_rollouts(tmp_path):
    """A network that reads the match record (``gin-env train --match-record``) guides the search: its choices and
    every rollout position carry the record of the view searched, by player; a whole game to the target is legal."""
    weights = dict(np.load(numpy_policy.EXIT_WEIGHTS))
    key = "pi_features_extractor.summary.0.weight"
    record_columns = np.random.default_rng(0).normal(0.0, 1.0, (weights[key].shape[0], 6)).astype(np.float32)
    weights[key] = np.concatenate([weights[key], record_columns], axis=1)
    path = str(tmp_path / "record.npz")
    np.savez(path, **weights)
    search = SearchAgent(**FAST, guide=path)
    network = search._racer
    assert network.match_record
    seen = []
    rollout_act = network.act_batch

    def noted(v, rng):
        seen.append(v.record)
        return rollout_act(v, rng)

    network.act_batch = noted
    shown = []

    def searching(v, rng):
        if any(v.record) and search.searches(v) and not shown:
            shown.append(v)
            seen.clear()
        return search.act(v, rng)

    result = duel.play_game(Rules.preset("eaai"), (agents.CallableAgent(searching), agents.load("simple")), 3, 0)
    assert result.winner is not None and shown, "no search after a finished hand"
    v = shown[0]
    own, other = list(v.record[:3]), list(v.record[3:])
    expected = np.array([own + other if p == v.player else other + own for p in (0, 1)])
    rows = np.concatenate(seen[:3])
    assert rows.shape[1] == 6 and any(rows.any(axis=1))
    # Each rollout row is the record as one of the two players sees it.
    assert all(any((row == e).all() for e in expected) for row in rows)


#: A match record seen by its viewer (own counts first) after the opponent won two hands by plain knocks, and one
#: after it won by gin (match_record.knocker_opponents: a knocker, and not one).
KNOCKER_RECORD, GIN_RECORD = (0, 0, 0, 2, 0, 0), (0, 0, 0, 0, 0, 1)


def test_the_switchs_waiter_guides_once_the_record_shows_a_knocker():
    """``guide="switch"`` (switch-v1's networks): the search proposes and trusts ``exit-v1`` until the record shows
    the opponent winning by plain knocks, ``ppo-v5`` from then on."""
    assert_the_record_picks_the_guide(SearchAgent(**FAST, guide="switch"), agents.load("exit"), agents.load("ppo"))


def assert_the_record_picks_the_guide(search, racer, waiter) -> None:
    """``search`` proposes first what ``racer`` plays until the match record shows the opponent winning by plain
    knocks, and what ``waiter`` plays from then on, over discard-phase views where the two networks disagree."""
    views = [v for _, v in seeded_views(Rules.preset("eaai"), 5, 4) if v.phase == engine.DISCARD]
    differ = 0
    for v in views:
        for record, network in ((GIN_RECORD, racer), (KNOCKER_RECORD, waiter)):
            seen = v._replace(record=record)
            assert search.candidates(seen)[0] == network.act(seen, np.random.default_rng(0))
        differ += racer.act(v, np.random.default_rng(0)) != waiter.act(v, np.random.default_rng(0))
    assert differ, "the two networks never disagreed: the test tells nothing"
