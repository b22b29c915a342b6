"""Hints for a person at the web table: what each offered agent would play from the person's own view, and the
search agent's value of each action it would consider.

This module owns the hints' promise that asking for one changes nothing: every agent acts on the person's
``PlayerView`` (nothing else is given to it) with a generator of its own seeded from ``seed``, never the game's, so a
game plays the same moves with and without hints.
"""

from __future__ import annotations

import numpy as np

from gin_env.agents.search import SearchAgent
from gin_env.game.observation import PlayerView
from gin_env.table.checks import agent_action, is_legal
from gin_env.web import wire

#: Samples of the search's values: few, so that a hint answers at once; its means are rough.
HINT_SAMPLES = 16


def _to_act(view: PlayerView | None) -> PlayerView:
    if not isinstance(view, PlayerView):
        raise ValueError(f"a hint needs the view of the player to act, got {type(view).__name__}")
    if not view.to_act:
        raise ValueError("no hint: it is not this player's turn")
    return view


def hints(view: PlayerView, agents: dict, seed: int) -> list[dict]:
    """What each of ``agents`` (name -> agent object) would play at ``view``, in the order given: ``{"agent":
    name, "action": int id, "label": str}`` (``wire.move_label``). Each acts with its own generator seeded from
    ``seed`` and its place in ``agents``; an agent that answers an illegal action is a ``ValueError`` naming it."""
    view = _to_act(view)
    out = []
    for k, (name, agent) in enumerate(agents.items()):
        rng = np.random.default_rng([seed, k])
        action = agent_action(agent, agent.act(view, rng), f"hint agent {name!r}")
        if not is_legal(action, view.legal_mask):
            raise ValueError(f"hint agent {name!r} answered action {action}, which is not legal here")
        out.append({"agent": name, "action": action, "label": wire.move_label(view, action)})
    return out


def search_values(view: PlayerView, seed: int, samples: int = HINT_SAMPLES) -> list[dict]:
    """The search agent's candidates at ``view`` (``SearchAgent.candidates``: its guide's choice first) with each
    one's mean value over ``samples`` hidden deals drawn from the view (the same deals for every candidate):
    ``{"action": int id, "label": str, "value": float, "stderr": float}``. The value is what the search maximises
    (``agents.search``): the hand's signed points for the player when the view shows no target, else a blend of
    the points and the target times the chance of winning the game; the rollouts play both sides with the guide, so
    it is an estimate against that player, not against the actual opponent."""
    view = _to_act(view)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be an int >= 1, got {samples!r}")
    search = SearchAgent(samples=samples, time_ms=None)
    candidates = search.candidates(view)
    values = search.sample_values(view, candidates, np.random.default_rng(seed))
    means = values.mean(axis=0)
    stderr = values.std(axis=0, ddof=1) / np.sqrt(len(values)) if len(values) > 1 else np.zeros(len(candidates))
    return [{"action": int(a), "label": wire.move_label(view, a), "value": float(m), "stderr": float(s)}
            for a, m, s in zip(candidates, means, stderr)]
