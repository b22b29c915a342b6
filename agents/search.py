"""The search agent: determinized Monte Carlo over the batched engine, guided by a policy, reading only its player's
view.

The **guide** chooses first: it makes the draws, proposes the actions worth searching, and its own choice stands
unless the search finds a clearly better one. By default the guide is ``"ppo-expert"``: the shipped PPO policy
fine-tuned mostly against the expert, its actor run in numpy (:mod:`agents.numpy_policy`, no torch needed). A network
guide also plays both sides of every rollout, greedily. ``guide="ppo"`` is the shipped PPO agent's own network, a
path to a ``.npz`` any network of that shape (``gin-env export --numpy``), ``guide="switch"`` the network that
``switch-v1`` plays for the view's match record (``agents.switch``: ``ppo-v5`` against an opponent that wins by plain
knocks, ``exit-v1`` otherwise), and ``guide="expert"`` the expert, with the simple agent's compiled policy (it knocks
as soon as it may) playing the rollouts.

At each decision with more than one sensible action, where a network guide gives its choice less than ``trust``
probability, it

1. **samples** ``samples`` deals of the hidden cards consistent with its :class:`PlayerView`
   (``gin_env.belief.sample_batch`` with the default ``OpponentModel``):
   the cards the opponent took from the pile and still holds stay in its hand; its other cards are drawn from the
   unseen ones, each weighted by what the opponent showed (a neighbour of a card it discarded or declined, which it
   would have kept had it held a meld partner, weighs less; a neighbour of a card it took, which it took to meld,
   weighs more), then improved by draw-and-shed steps, so that a hand that has been played for a while is a formed
   one; the rest of the unseen cards form the stock, in random order. With ``belief`` naming a belief network
   (``gin_env.belief.NetworkModel``: ``"belief-v1"`` or a path) each unseen card weighs the odds that network gives
   it instead;
2. **plays** every (sample x candidate action) continuation to the end of the hand in one ``HandBatch`` (sampled
   once, each sample copied once per candidate with ``HandBatch.take``), both players
   following the rollout policy (simple, or the guide network greedily);
3. **picks** the candidate with the best mean value over the samples, the same samples for every candidate so that
   luck of the deal cancels between them (:func:`choose`); but another candidate than the guide's choice must beat
   it by more than ``margin`` standard errors of their paired difference. The rollouts model the opponent as the
   guide, which it is not, so a small lead in them is no reason to overrule a policy that has learnt its opponent.

The candidates: pass or take at the wall; in the discard phase gin and big gin at once when legal, otherwise the
guide's ``discards`` best actions (the network's legal actions by logit, discards and knocks alike; or the expert's
best discards, ``ExpertAgent.discard_ranking``) and the least-deadwood knock when it may knock. In the offer and the
draw it takes the guide's choice.

**Value.** When the view shows no target (rules with ``target`` None, as ``evaluate --deals`` plays) the value is the
hand's signed points. Otherwise it is the probability of winning the game once the hand is scored
(:func:`.rollouts.game_win_table`: both players equally likely to win each later hand, its points drawn from hands
of simple against simple under the same rules), blended with the hand points:
``(1 - POINTS_WEIGHT) * target * P(win) + POINTS_WEIGHT * points``. Far from the target that is close to the points
alone; near it, a knock that wins the game beats a bigger gin later, and a player far behind prefers the bigger
swing.

**Budget.** ``samples`` determinizations per decision (at most ``MAX_SAMPLES``, played in batches of at most
``BATCH_SAMPLES``, so that a decision's memory is bounded whatever ``samples`` is); ``time_ms``, if set, plays them
in rounds of ``round_samples`` and starts no round that could take the decision past that many milliseconds, a round
judged as long as the slowest one played (at least one round is played). The choice is a function
of the view and the generator alone when ``time_ms`` is None (the default); with ``time_ms`` it also depends on the
machine's speed.

**Hooks for a subclass.** :class:`SearchParams` holds what a user sets; a study that searches another way
subclasses :class:`SearchAgent` and overrides its protected hooks: ``_guide(view)`` (the network that proposes),
``_guide_draws(view)`` (whether the guide makes this decision unsearched), ``_worlds(view, n, rng)`` (the worlds
rolled out, drawn by ``_model``), ``_rollout_policies(view)`` (who plays each side of them) and
``_value(view, points)`` (a hand's value). ``experiments/study_search.py`` is such a subclass.

Version history:

* v2: the guide is a network fine-tuned against the expert (``"ppo-expert"``); it searches only where the network
  is unsure (``trust``) and overrules it only by ``margin`` (docs/search.md). ``SearchAgent(guide="expert",
  samples=192, discards=1, margin=0, trust=None)`` plays as v1.
* v1: the expert guides, simple plays the rollouts, the best mean wins.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from gin_env.batch.hand_batch import HandBatch
from gin_env.belief import NetworkModel, OpponentModel, sample_batch
from gin_env.belief.network import SHIPPED as BELIEF_NETWORKS
from gin_env.game import actions, solver
from gin_env.game.actions import BIG_GIN, DRAW_STOCK, PASS, TAKE_DISCARD
from gin_env.game.engine import DISCARD, DRAW, OFFER
from gin_env.game.match_record import knocker_opponent
from gin_env.game.observation import PlayerView, encode

from . import numpy_policy
from .expert import ExpertAgent
from .params import check_number
from .rollouts import SIMPLE, by_player, hand_value, play_out

#: The guides choose without chance; a generator that is never drawn from keeps the caller's stream untouched.
_NO_CHANCE = np.random.default_rng(0)


#: The guides by name: the expert, a shipped network (``numpy_policy.SHIPPED``) or the switch's pair of networks; a
#: path to a ``.npz`` of policy weights is a guide too.
GUIDES = ("expert", *(name for name in numpy_policy.SHIPPED if name not in numpy_policy.JOKERS_NETWORKS), "switch")
#: The guides by name under rules with jokers: the expert or a shipped network of games with jokers; a path to a
#: ``.npz`` of such a network's weights is one too.
JOKERS_GUIDES = ("expert", *numpy_policy.JOKERS_NETWORKS)
#: Share of the hand points in the value of a hand in a game to the target (the rest: the game-win chance).
POINTS_WEIGHT = 0.2
#: Parameters that only studies set, each with where it lives: ``search[KEY=VALUE]`` with one of them is refused
#: with that pointer.
STUDY_ONLY = dict.fromkeys(
    ("waiter", "opponent", "search_draws", "shunned_weight", "partner_weight", "replay", "points_weight"),
    "a study's knob, not a parameter of the shipped search since gin-env 0.13.0: experiments/study_search.py builds "
    "that search (docs/reports/2026-12-07-search.md)")

#: The most samples played in one batch (``round_samples`` at most, and the rounds of a search without ``time_ms``).
#: A batch's rollouts hold about 90 kB per sample at their peak, so a round stays under about 100 MB whatever
#: ``samples`` is (``search[samples=100000000]`` in one batch asked for 29 GiB).
BATCH_SAMPLES = 1_000
#: The most ``samples`` per decision: the values kept are a few numbers a sample, and 10,000 samples take tens of
#: seconds a decision.
MAX_SAMPLES = 10_000


@dataclass(frozen=True)
class SearchParams:
    """The search agent's numbers (docs/search.md tells how the defaults were measured)."""

    #: Who chooses first, proposes the candidates and makes the draws: a shipped policy network run in numpy, which
    #: also plays the rollouts ("ppo-expert", fine-tuned against the expert; "ppo", the ppo agent's; "exit"), a path
    #: to such weights (``.npz``, ``gin-env export --numpy``), "switch" (switch-v1's network for the view's match
    #: record), or "expert" (simple plays the rollouts).
    guide: str = "ppo-expert"
    #: Determinizations per decision.
    samples: int = 32
    #: Play rounds of ``round_samples`` samples, and start none that could take the decision past this many
    #: milliseconds (None: no clock, and the agent is deterministic given its generator).
    time_ms: float | None = None
    round_samples: int = 8
    #: Actions searched in the discard phase: the guide's best ones (the expert's best discards, the network's best
    #: discards or knocks), and the least-deadwood knock when it may knock.
    discards: int = 2
    #: How the opponent's hidden cards are weighed: "heuristic" (``gin_env.belief.OpponentModel()``) or a belief
    #: network that gives each unseen card its odds (``gin_env.belief.NetworkModel``), a shipped one by its name
    #: ("belief-v1") or a path to its weights (``.npz``).
    belief: str = "heuristic"
    #: Play another candidate than the guide's own choice only when its mean value beats that choice's by more than
    #: this many standard errors of their paired difference over the samples (0: the best mean always).
    margin: float = 2.0
    #: A network guide's choice is played without search when the network gives it at least this probability over
    #: the legal actions (None: always search). The expert gives no probabilities, so it does not apply to it.
    trust: float | None = 0.9
    #: The guide under rules with jokers (docs/rules.md section 17), whose observation and actions the standard
    #: game's networks do not read: "ppo-jokers" (the shipped network of that game), "expert" (simple plays the
    #: rollouts), or a path to the weights of a network trained with jokers.
    jokers_guide: str = "ppo-jokers"

    def __post_init__(self) -> None:
        if not isinstance(self.guide, str):
            raise TypeError(f"search parameter 'guide' must be a name or a path, got {self.guide!r}")
        if not (self.guide in GUIDES or self.guide.endswith(".npz")):
            raise ValueError(f"search parameter 'guide' must be one of {', '.join(GUIDES)} or a path to policy "
                             f"weights (.npz), got {self.guide!r}")
        if not isinstance(self.jokers_guide, str) or not (self.jokers_guide in JOKERS_GUIDES
                                                         or self.jokers_guide.endswith(".npz")):
            raise ValueError(f"search parameter 'jokers_guide' must be one of {', '.join(JOKERS_GUIDES)} or a path to "
                             f"policy weights of a game with jokers (.npz), got {self.jokers_guide!r}")
        check_number("search", "samples", self.samples, integer=True, low=1, high=MAX_SAMPLES)
        check_number("search", "round_samples", self.round_samples, integer=True, low=1, high=BATCH_SAMPLES)
        check_number("search", "discards", self.discards, integer=True, low=1)
        check_number("search", "time_ms", self.time_ms, low=0, low_open=True, none=True)
        if not isinstance(self.belief, str) or not (
                self.belief in ("heuristic", *BELIEF_NETWORKS) or self.belief.endswith(".npz")):
            raise ValueError(f"search parameter 'belief' must be one of heuristic, {', '.join(BELIEF_NETWORKS)} or a "
                             f"path to belief weights (.npz), got {self.belief!r}")
        check_number("search", "margin", self.margin, low=0)
        check_number("search", "trust", self.trust, low=0, low_open=True, high=1, none=True)


def check_parameters(overrides: dict) -> None:
    """``TypeError`` naming the first key of ``overrides`` that is no :class:`SearchParams` field: a study's knob
    with where it lives (:data:`STUDY_ONLY`), any other with the fields there are."""
    for key in sorted(set(overrides) - set(SearchParams.__dataclass_fields__)):
        if key in STUDY_ONLY:
            raise TypeError(f"search parameter {key!r} is {STUDY_ONLY[key]}")
        raise TypeError(f"SearchAgent has no parameter {key!r}; its parameters are "
                        f"{', '.join(SearchParams.__dataclass_fields__)}")


class SearchAgent:
    """Determinized Monte Carlo search from the view alone (see the module docstring)."""

    def __init__(self, params: SearchParams | None = None, **overrides) -> None:
        if params is not None and not isinstance(params, SearchParams):
            raise TypeError(f"SearchAgent params must be a SearchParams, got {params!r}")
        check_parameters(overrides)
        base = params or SearchParams()
        self.params = dataclasses.replace(base, **overrides) if overrides else base
        p = self.params
        racer, waiter = (numpy_policy.SWITCH_NETWORKS["racer"], numpy_policy.SWITCH_NETWORKS["waiter"]) \
            if p.guide == "switch" else (p.guide, None)
        self._racer = _guide_by_name(racer)
        self._waiter = None if waiter is None else _guide_by_name(waiter)
        self._jokers_guide = _guide_by_name(p.jokers_guide)
        #: What the worlds are drawn by (:meth:`_worlds`): ``gin_env.belief.OpponentModel()`` or the ``belief``
        #: network's ``NetworkModel``.
        self._model = OpponentModel() if p.belief == "heuristic" else NetworkModel(p.belief)

    def __repr__(self) -> str:
        return f"SearchAgent({self.params})"

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        start = time.perf_counter()
        if self._guide_draws(view):
            return self._guide(view).act(view, rng)
        candidates = self.candidates(view)
        if len(candidates) == 1 or self._trusts_guide(view):
            return candidates[0]
        return candidates[choose(self.sample_values(view, candidates, rng, start), self.params.margin)]

    # -- the hooks a subclass may override ---------------------------------------------------------------------------

    def _guide(self, view: PlayerView):
        """The guide for ``view``: under rules with jokers, ``jokers_guide``; with ``guide="switch"``, its waiter
        against an opponent the view's match record shows winning by plain knocks and its racer otherwise; ``guide``
        itself for any other."""
        if view.rules.jokers:
            return self._jokers_guide
        if self._waiter is not None and knocker_opponent(view.record):
            return self._waiter
        return self._racer

    def _guide_draws(self, view: PlayerView) -> bool:
        """Whether the guide makes this decision without search: the offer and the draw."""
        return view.phase in (OFFER, DRAW)

    def _worlds(self, view: PlayerView, n: int, rng: np.random.Generator) -> HandBatch:
        """The ``n`` worlds one round of rollouts plays from, drawn by ``_model``."""
        return sample_batch(view, n, rng, model=self._model)

    def _rollout_policies(self, view: PlayerView) -> tuple:
        """The policies that play the rollouts for ``view``, (the viewer's, the opponent's): the guide network on
        both sides, or simple's compiled policy for the expert guide."""
        guide = self._guide(view)
        own = SIMPLE if isinstance(guide, ExpertAgent) else guide
        return own, own

    def _value(self, view: PlayerView, points: np.ndarray) -> np.ndarray:
        """The value to the viewer of hands that scored ``points`` for it (see the module docstring)."""
        return hand_value(view, points, POINTS_WEIGHT)

    # -- what to search ---------------------------------------------------------------------------------------------

    def searches(self, view: PlayerView) -> bool:
        """Whether :meth:`act` plays rollouts for ``view``: more than one candidate, not a draw that the guide
        chooses, and not a choice the guide network is sure of (``trust``)."""
        return not self._guide_draws(view) and len(self.candidates(view)) > 1 and not self._trusts_guide(view)

    def _trusts_guide(self, view: PlayerView) -> bool:
        """Whether a network guide is sure enough of its choice (``trust``) to play it unsearched."""
        if self.params.trust is None or isinstance(self._guide(view), ExpertAgent):
            return False
        logits = np.where(view.legal_mask, self._guide_logits(view), -np.inf)
        odds = np.exp(logits - logits.max())
        return odds.max() / odds.sum() >= self.params.trust

    def _guide_logits(self, view: PlayerView) -> np.ndarray:
        """The network guide's action logits for ``view`` (with its match record, for a network that reads it)."""
        guide = self._guide(view)
        return guide.logits(encode(view, guide.match_record)[None])[0]

    def candidates(self, view: PlayerView) -> list[int]:
        """The actions worth searching, the guide's own choice first (it wins ties, and :func:`choose` holds the
        others to ``margin`` against it); a single one when the choice is forced or clear (one legal action, gin,
        big gin). In the offer and the draw :meth:`act` asks for them only where :meth:`_guide_draws` is False."""
        mask = view.legal_mask
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError("no legal action: it is not this player's turn or the hand is over")
        if len(legal) == 1:
            return legal
        if view.phase != DISCARD:
            # OFFER, DRAW, WALL: two actions.
            return self._guide_first(view, [a for a in (TAKE_DISCARD, PASS, DRAW_STOCK) if mask[a]])
        if mask[BIG_GIN]:
            return [BIG_GIN]
        values = view.rules.deck.values
        knocks = [(solver.deadwood(view.hand & ~(1 << c), view.rules), -values[c], -a)
                  for a in legal if actions.is_knock(a) for c in [actions.action_card(a, view.hand)]]
        best_knock = -min(knocks)[2] if knocks else None
        if best_knock is not None and min(knocks)[0] == 0:
            return [best_knock]
        out = self._ranking(view)[:self.params.discards]
        if best_knock is not None and best_knock not in out:
            out.append(best_knock)
        return self._guide_first(view, out)

    def _guide_first(self, view: PlayerView, candidates: list[int]) -> list[int]:
        """``candidates`` with the guide's own choice moved to the front (both guides choose without chance)."""
        choice = self._guide(view).act(view, _NO_CHANCE)
        return [choice] + [a for a in candidates if a != choice] if choice in candidates else candidates

    def _ranking(self, view: PlayerView) -> list[int]:
        """The guide's discard-phase actions, best first: the network's legal actions by logit, or the expert's
        discards."""
        guide = self._guide(view)
        if isinstance(guide, ExpertAgent):
            if not actions.discard_legal(view.legal_mask):
                return []
            return [actions.discard(c) for c in guide.discard_ranking(view)]
        logits = self._guide_logits(view)
        legal = np.flatnonzero(view.legal_mask)
        return legal[np.argsort(-logits[legal], kind="stable")].tolist()

    # -- searching --------------------------------------------------------------------------------------------------

    def values(self, view: PlayerView, candidates: list[int], rng: np.random.Generator) -> np.ndarray:
        """Mean value of each candidate over the sampled deals (see the module docstring)."""
        return self.sample_values(view, candidates, rng).mean(axis=0)

    def sample_values(self, view: PlayerView, candidates: list[int], rng: np.random.Generator,
                      start: float | None = None) -> np.ndarray:
        """(samples played, len(candidates)): the value of each candidate in each sampled deal, the same deals for
        every candidate: all ``samples``, in rounds of :data:`BATCH_SAMPLES`, or with ``time_ms`` in rounds of
        ``round_samples`` while the budget lasts (one round at least), counted from ``start`` (a
        ``time.perf_counter()`` reading; default now)."""
        p = self.params
        start = time.perf_counter() if start is None else start
        rounds = []
        slowest = 0.0
        played = 0
        while played < p.samples:
            began = time.perf_counter()
            n = min(p.round_samples if p.time_ms is not None else BATCH_SAMPLES, p.samples - played)
            rounds.append(self._rollout_values(view, candidates, n, rng))
            played += n
            if p.time_ms is not None:
                # Another round may take as long as the slowest so far: stop before it could pass the budget.
                now = time.perf_counter()
                slowest = max(slowest, now - began)
                if (now + slowest - start) * 1000.0 > p.time_ms:
                    break
        return np.concatenate(rounds)

    def _rollout_values(self, view: PlayerView, candidates: list[int], n: int,
                        rng: np.random.Generator) -> np.ndarray:
        """(n, len(candidates)): the value of each candidate in each of n fresh determinizations."""
        k = len(candidates)
        batch = self._worlds(view, n, rng).take(np.repeat(np.arange(n), k))
        games = np.arange(n * k)
        batch.step(games, np.tile(np.asarray(candidates, dtype=np.int64), n))
        own, opponent = self._rollout_policies(view)
        seats = (own, opponent) if view.player == 0 else (opponent, own)
        play_out(batch, rng, seats, by_player(view.record, view.player))
        points = batch.player_points(games, np.full(n * k, view.player))
        return self._value(view, points).reshape(n, k)


def _guide_by_name(name: str):
    """The expert, a shipped network by its name, or the network whose weights lie at the path ``name``."""
    if name == "expert":
        return ExpertAgent()
    return numpy_policy.shipped(name) if name in numpy_policy.SHIPPED else numpy_policy.load_policy(name)


def choose(values: np.ndarray, margin: float) -> int:
    """The candidate to play from ``values`` (samples x candidates, the guide's choice in column 0): the one with the
    best mean (the first of equals), unless ``margin`` > 0 and its paired difference to column 0 has a mean of at
    most ``margin`` standard errors, where the guide's choice stands."""
    means = values.mean(axis=0)
    best = int(np.argmax(means))
    if best == 0 or margin == 0:
        return best
    n = values.shape[0]
    diff = values[:, best] - values[:, 0]
    spread = diff.std(ddof=1) / np.sqrt(n) if n > 1 else np.inf
    return best if diff.mean() > margin * spread else 0
