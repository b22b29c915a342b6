"""experiments/study_search.py, the search with the knobs its studies turned, built on the shipped search's protected
hooks: with its defaults it plays as ``search-v2`` sample for sample; each knob does what the studies measured
(searched draws, a waiter, the rollouts' opponent, the heuristic's weights, a model put in place); a bad one is
refused by name."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from gin_env import agents
from gin_env.agents import numpy_policy, rollouts
from gin_env.agents.search import SearchAgent
from gin_env.belief import NetworkModel, OpponentModel
from gin_env.game import engine
from gin_env.game.actions import TAKE_DISCARD
from gin_env.game.rules import Rules
from tests.test_search import (
    FAST,
    GIN_RECORD,
    KNOCKER_RECORD,
    assert_the_record_picks_the_guide,
    assert_the_worlds_follow_the_model,
    seeded_views,
)

#: The experiments import their siblings by name, as when a script there runs.
EXPERIMENTS = str(Path(__file__).resolve().parents[1] / "experiments")
if EXPERIMENTS not in sys.path:
    sys.path.append(EXPERIMENTS)
from study_search import StudyParams, StudySearch, load  # noqa: E402


def test_with_its_defaults_the_study_search_plays_as_the_shipped_one():
    """The hooks' defaults are the shipped search's: the same candidates, and the same value in every sample."""
    shipped, study = SearchAgent(**FAST), load(f"search[samples={FAST['samples']}]")
    views = [v for _, v in seeded_views(Rules.preset("eaai"), 7, 3) if shipped.searches(v)][:4]
    assert views
    for k, v in enumerate(views):
        assert study.searches(v) and study.candidates(v) == shipped.candidates(v)
        ours = study.sample_values(v, shipped.candidates(v), np.random.default_rng(k))
        theirs = shipped.sample_values(v, shipped.candidates(v), np.random.default_rng(k))
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert study.name == "search-v2[samples=6]"


@pytest.mark.parametrize("guide", ["expert", "ppo"])
def test_searched_draws_weigh_taking_the_face_up_card_against_leaving_it(guide):
    reference = numpy_policy.shipped() if guide == "ppo" else agents.load("expert")
    drawing = StudySearch(SearchAgent(**FAST, guide=guide).params, StudyParams(search_draws=True))
    draws = [v for _, v in seeded_views(Rules.preset("eaai"), 18, 4)
             if v.phase in (engine.OFFER, engine.DRAW) and v.legal_mask[TAKE_DISCARD]]
    assert len(draws) >= 10
    for i, v in enumerate(draws):
        weighed = drawing.candidates(v)
        assert weighed[0] == reference.act(v, np.random.default_rng(i)) and len(weighed) == 2
        assert TAKE_DISCARD in weighed
        assert drawing.act(v, np.random.default_rng(i)) in weighed


def test_the_waiter_guides_once_the_record_shows_a_knocker():
    """``waiter``: the search proposes on its guide until the record shows the opponent winning by plain knocks, on
    the waiter from then on."""
    assert_the_record_picks_the_guide(load("search[samples=6,waiter=ppo]"), agents.load("ppo-expert"),
                                      agents.load("ppo"))


def note_movers(monkeypatch, policies: dict) -> dict[str, set]:
    """Wrap each policy's ``act_batch`` to note the players it moves for, by the policy's key in ``policies``."""
    movers = {key: set() for key in policies}
    for key, policy in policies.items():
        act_batch = policy.act_batch

        def noted(v, rng, key=key, act_batch=act_batch):
            movers[key].update(v.player.tolist())
            return act_batch(v, rng)

        monkeypatch.setattr(policy, "act_batch", noted)
    return movers


@pytest.mark.parametrize(("record", "simple_plays_the_opponent"), [(KNOCKER_RECORD, True), (GIN_RECORD, False)])
def test_the_record_opponent_model_plays_simple_against_a_knocker(monkeypatch, record, simple_plays_the_opponent):
    """``opponent=record``: in the rollouts the opponent's moves are simple's against an opponent the record shows
    winning by plain knocks, the guide's otherwise; the searcher's own moves are always the guide's."""
    search = load("search[samples=6,guide=exit,opponent=record]")
    movers = note_movers(monkeypatch, {"network": search._racer, "simple": rollouts.SIMPLE})
    v = next(v for _, v in seeded_views(Rules.preset("eaai"), 5, 4)
             if v.phase == engine.DISCARD and len(search.candidates(v)) > 1)
    v = v._replace(record=record)
    search.sample_values(v, search.candidates(v), np.random.default_rng(0))
    opponent = 1 - v.player
    if simple_plays_the_opponent:
        assert movers == {"network": {v.player}, "simple": {opponent}}
    else:
        assert movers == {"network": {v.player, opponent}, "simple": set()}


@pytest.mark.parametrize("opponent", ["ppo", "simple", "path"])
def test_a_named_opponent_model_plays_the_opponent_side_of_every_rollout(monkeypatch, opponent):
    """``opponent`` naming a policy (a shipped network, simple, or a path to weights): in the rollouts every move of
    the opponent is that policy's, whatever the record shows, and every move of the searcher the guide's."""
    name = numpy_policy.SHIPPED["ppo"] if opponent == "path" else opponent
    search = load(f"search[samples=6,guide=exit,opponent={name}]")
    guide, model = search._racer, search._opponent
    assert model is not guide
    assert (model is rollouts.SIMPLE) == (opponent == "simple")
    movers = note_movers(monkeypatch, {"guide": guide, "model": model})
    views = [v for _, v in seeded_views(Rules.preset("eaai"), 5, 4)
             if v.phase == engine.DISCARD and len(search.candidates(v)) > 1]
    for record in (KNOCKER_RECORD, GIN_RECORD):
        v = views[0]._replace(record=record)
        search.sample_values(v, search.candidates(v), np.random.default_rng(0))
        assert movers == {"guide": {v.player}, "model": {1 - v.player}}


def test_the_worlds_are_drawn_by_the_model_made_from_the_weights_or_put_in_its_place():
    search = load("search[samples=6,shunned_weight=0.25,partner_weight=3.0,replay=1.0]")
    assert search.model == OpponentModel(shunned_weight=0.25, partner_weight=3.0, replay=1.0)
    assert load("search[belief=belief-v1,replay=0]").model == NetworkModel("belief-v1", 0)
    assert_the_worlds_follow_the_model(search, lambda model: setattr(search, "model", model))


@pytest.mark.parametrize(("spec", "mention"), [
    ("search[waiter=switch]", "'waiter' must be one of"), ("search[opponent=expert]", "'opponent' must be one of"),
    ("search[replay=9.0]", "'replay' must lie in"), ("search[shunned_weight=0]", "'shunned_weight' must"),
    ("search[points_weight=1.5]", "'points_weight' must"), ("search[search_draws=1]", "'search_draws' must"),
    ("search[guide=switch,waiter=ppo-expert]", "'waiter' must not be given with guide='switch'"),
    ("search[sampels=3]", "no search parameter 'sampels'"), ("expert", "'expert' is not a search agent")])
def test_a_bad_study_parameter_is_refused_by_name(spec, mention):
    with pytest.raises(ValueError, match=mention) as refused:
        load(spec)
    assert "\n" not in str(refused.value)
