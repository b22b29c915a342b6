"""The search agent with the knobs its studies turned: the shipped ``SearchAgent`` (``agents/search.py``) and, through
its protected hooks, a waiter, another opponent in the rollouts, searched draws, the heuristic's weights, the world
model and the share of points in a hand's value (docs/reports/2026-12-07-search.md).

    from study_search import load
    agent = load("search[waiter=ppo,opponent=record]")   # the public parameters and the study's, in one name
    agent.model = MyModel()                               # worlds drawn by another opponent model

The other scripts here build their searches with :func:`load`; ``search_variants.py --set KEY=VALUE`` takes the
same keys.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from gin_env import agents
from gin_env.agents import numpy_policy
from gin_env.agents.expert import ExpertAgent
from gin_env.agents.params import check_flag, check_number
from gin_env.agents.rollouts import SIMPLE, hand_value
from gin_env.agents.search import POINTS_WEIGHT, SearchAgent, SearchParams
from gin_env.belief import NetworkModel, OpponentModel, sample_batch
from gin_env.game.match_record import knocker_opponent

#: The most ``replay`` steps per opponent discard: each step solves every sampled hand, so the cost of a decision
#: grows with it (the search reports measured 0 to 2).
MAX_REPLAY = 8.0
#: The guides by name that ``waiter`` may take: the expert or a shipped network; a path to a ``.npz`` too.
WAITERS = ("expert", *numpy_policy.SHIPPED)
#: The opponents of the rollouts by name (``opponent``); a shipped network's name or a ``.npz`` path is one too.
OPPONENT_MODELS = ("guide", "record", "simple")
#: The agent names :func:`load` reads as the search.
SEARCH_NAMES = ("search", *(name for name in agents.versioned_names() if name.startswith("search-")))


@dataclass(frozen=True)
class StudyParams:
    """The knobs the studies turned, beside :class:`SearchParams`; the defaults play as the shipped search."""

    #: The guide in place of ``guide`` against an opponent the match record shows winning by plain knocks
    #: (``match_record.knocker_opponents``): a shipped network or a path (None: ``guide`` always).
    waiter: str | None = None
    #: Who the opponent is in the rollouts: "guide" (the guide network, or simple under the expert guide);
    #: "record": simple's compiled policy against an opponent the record shows winning by plain knocks, the guide
    #: otherwise; "simple" always; or a network, a shipped one by its name or a path to its weights (``.npz``).
    opponent: str = "guide"
    #: Search the offer and the draw too (take the face-up card or not).
    search_draws: bool = False
    #: The heuristic opponent model's numbers (``gin_env.belief.OpponentModel``); ``replay`` also follows a
    #: belief network's draw.
    shunned_weight: float = OpponentModel.shunned_weight
    partner_weight: float = OpponentModel.partner_weight
    replay: float = OpponentModel.replay
    #: Share of the hand points in the value of a hand in a game to the target.
    points_weight: float = POINTS_WEIGHT

    def __post_init__(self) -> None:
        if self.waiter is not None and not (self.waiter in WAITERS or str(self.waiter).endswith(".npz")):
            raise ValueError(f"search parameter 'waiter' must be one of {', '.join(WAITERS)} or a path to policy "
                             f"weights (.npz), got {self.waiter!r}")
        if not (self.opponent in (*OPPONENT_MODELS, *numpy_policy.SHIPPED) or str(self.opponent).endswith(".npz")):
            raise ValueError(f"search parameter 'opponent' must be one of "
                             f"{', '.join((*OPPONENT_MODELS, *numpy_policy.SHIPPED))} or a path to policy weights "
                             f"(.npz), got {self.opponent!r}")
        check_flag("search", "search_draws", self.search_draws)
        for key in ("shunned_weight", "partner_weight"):
            check_number("search", key, getattr(self, key), low=0, low_open=True)
        check_number("search", "replay", self.replay, low=0, high=MAX_REPLAY)
        check_number("search", "points_weight", self.points_weight, low=0, high=1)


def policy(name: str):
    """The expert, a shipped network by its name, or the network whose weights lie at the path ``name``."""
    if name == "expert":
        return ExpertAgent()
    return numpy_policy.shipped(name) if name in numpy_policy.SHIPPED else numpy_policy.load_policy(name)


class StudySearch(SearchAgent):
    """:class:`SearchAgent` with :class:`StudyParams`; ``model`` is the opponent model its worlds are drawn by, which a
    study may replace."""

    def __init__(self, params: SearchParams | None = None, study: StudyParams | None = None) -> None:
        super().__init__(params)
        self.study = study or StudyParams()
        s = self.study
        if s.waiter is not None and self.params.guide == "switch":
            raise ValueError(f"search parameter 'waiter' must not be given with guide='switch', whose waiter is "
                             f"{numpy_policy.SWITCH_NETWORKS['waiter']!r}")
        self._study_waiter = None if s.waiter is None else policy(s.waiter)
        self._opponent = SIMPLE if s.opponent == "simple" else \
            None if s.opponent in OPPONENT_MODELS else policy(s.opponent)
        self.model = OpponentModel(s.shunned_weight, s.partner_weight, s.replay) \
            if self.params.belief == "heuristic" else NetworkModel(self.params.belief, s.replay)

    def __repr__(self) -> str:
        return f"StudySearch({self.params}, {self.study})"

    def guide(self, view):
        """The network (or the expert) that proposes at ``view``."""
        return self._guide(view)

    def _guide(self, view):
        if self._study_waiter is not None and knocker_opponent(view.record):
            return self._study_waiter
        return super()._guide(view)

    def _guide_draws(self, view) -> bool:
        return not self.study.search_draws and super()._guide_draws(view)

    def _worlds(self, view, n: int, rng: np.random.Generator):
        return sample_batch(view, n, rng, model=self.model)

    def _rollout_policies(self, view) -> tuple:
        own, _ = super()._rollout_policies(view)
        if self._opponent is not None:
            return own, self._opponent
        knocker = self.study.opponent == "record" and knocker_opponent(view.record)
        return own, SIMPLE if knocker else own

    def _value(self, view, points: np.ndarray) -> np.ndarray:
        return hand_value(view, points, self.study.points_weight)


def load(spec: str) -> StudySearch:
    """The search named ``spec`` (``search``, ``search-v2``, ``search-v1`` or one of them with ``[KEY=VALUE,...]``),
    its parameters split between :class:`SearchParams` and :class:`StudyParams`; ``ValueError`` naming ``spec`` for
    another agent or a parameter neither takes."""
    base, parameters = agents.split_parameters(spec)
    if base not in SEARCH_NAMES:
        raise ValueError(f"{spec!r} is not a search agent; give search[KEY=VALUE,...]")
    shipped = agents.load(base).params
    fields = {f.name for f in dataclasses.fields(StudyParams)}
    unknown = sorted(set(parameters) - fields - set(SearchParams.__dataclass_fields__))
    if unknown:
        raise ValueError(f"{spec!r}: no search parameter {unknown[0]!r}")
    try:
        agent = StudySearch(dataclasses.replace(shipped, **{k: v for k, v in parameters.items() if k not in fields}),
                            StudyParams(**{k: v for k, v in parameters.items() if k in fields}))
    except (TypeError, ValueError) as err:
        raise ValueError(f"{spec!r}: {err}") from None
    agent.name = agents.join_parameters(agents.versioned(base), parameters)
    return agent
