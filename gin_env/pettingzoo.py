"""Gin Rummy as a PettingZoo AEC environment for two learners (the optional ``pettingzoo`` extra).

PettingZoo dropped its own ``gin_rummy`` (built on RLCard); this module replaces it on our rules engine. It owns
the multi-agent framing only: agent names, turn order through ``agent_selection``, per-agent observations with
action masks, and per-hand rewards. The rules are ``engine``'s and ``match``'s, the observation is
``observation``'s, the same as ``GinRummy-v0`` sees.

``import gin_env`` never imports this module; ``import gin_env.pettingzoo`` needs ``pettingzoo`` installed.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from gin_env import cards, engine, match
from gin_env.actions import N_ACTIONS
from gin_env.env import action_id, check_episode, check_reward_scale, outcome_info, resolve_rules
from gin_env.observation import OBS_HIGH, OBS_LOW, encode, view
from gin_env.optional import require
from gin_env.rules import Rules

AECEnv = require("pettingzoo", "gin_env.pettingzoo").AECEnv

AGENTS = ("player_0", "player_1")


def env(**kwargs) -> GinRummyAEC:
    """A :class:`GinRummyAEC` (the PettingZoo ``env()`` convention); keyword arguments as its constructor."""
    return GinRummyAEC(**kwargs)


class GinRummyAEC(AECEnv):
    """Two-player Gin Rummy, one agent per player: ``player_0`` is player 0 of the engine, ``player_1`` player 1.

    Observation of each agent: ``{"observation": float32 (375,), "action_mask": int8 (108,)}``, the encoding of
    ``gin_env.observation`` (only what that player may know) and its legal actions (all zero when it is not its
    turn). Action space: ``Discrete(108)`` as in ``GinRummy-v0``. Rewards: each player's signed hand points /
    ``reward_scale`` on the step that ends a hand (zero-sum); with ``episode="match"`` the step that ends the game
    also pays the end-of-game bonuses, as in ``GinRummy-v0``. Both agents terminate when the episode ends; an illegal
    action raises ``gin_env.engine.IllegalActionError`` (a ``ValueError``), and an action that is not one integer
    raises ``TypeError`` (``ValueError`` for an array of another shape), as in ``GinRummy-v0``.

    Infos: on the step that ends a hand, ``infos[agent]["outcome"]`` as ``GinRummy-v0``'s (``kind``, ``capped``,
    ``winner``, ``points``, ...), from that agent's side; on the step that ends a game, also ``infos[agent]["match"]``
    with both ``scores`` and ``final_totals`` (own first), the ``winner`` ("self", "other" or None), ``hands`` and
    ``abandoned`` (R19a). Every episode ends: hands are capped at ``rules.max_turns`` discards (R19) and games at
    ``rules.max_dead_hands`` dead hands in a row (R19a). ``step``, ``last`` and ``observe`` before ``reset``, and
    ``step`` or ``last`` once every agent is done, raise ``RuntimeError`` saying to call ``reset()``.

    Arguments: ``rules`` (a preset name or a ``Rules``), ``episode`` (``"hand"`` or ``"match"``), ``reward_scale``,
    ``render_mode`` (``"ansi"`` or None). Seeding: ``reset(seed=...)``; the dealer follows ``rules.first_dealer``.
    """

    metadata = {"render_modes": ["ansi"], "name": "gin_rummy_v0", "is_parallelizable": False}

    def __init__(self, rules: str | Rules = "standard", episode: str = "hand", reward_scale: float = 100.0,
                 render_mode: str | None = None) -> None:
        super().__init__()
        check_episode(episode)
        reward_scale = check_reward_scale(reward_scale)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.rules = resolve_rules(rules)
        self.episode = episode
        self.reward_scale = reward_scale
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        obs_space = gym.spaces.Dict({
            "observation": gym.spaces.Box(OBS_LOW, OBS_HIGH, dtype=np.float32),
            "action_mask": gym.spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
        })
        # One space object per agent, returned every time (PettingZoo seeds spaces through these objects).
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: gym.spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self._rng: np.random.Generator | None = None
        self.state: engine.HandState | None = None
        self.match: match.MatchState | None = None

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new hand (or start a game) with a generator seeded by ``seed`` (or continuing the last one)."""
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        if self.episode == "match":
            self.match = match.new_match(self.rules, self._rng)
            self.state = self.match.hand
        else:
            self.match = None
            self.state = engine.new_hand(self.rules, self._rng, dealer=match.first_dealer(self.rules, self._rng))
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.state.current]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._check_reset("observe")
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r}; the agents are {', '.join(AGENTS)}")
        v = view(self.state, AGENTS.index(agent), self._scores())
        return {"observation": encode(v), "action_mask": v.legal_mask.astype(np.int8)}

    def step(self, action) -> None:
        """Play ``action`` for ``agent_selection``; ``None`` for an agent that is already done (AEC convention)."""
        self._check_live("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        finished = self._apply(action_id(action))  # first: an illegal action raises with nothing changed (R18)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if finished is not None:
            points = (finished.player_points(0), finished.player_points(1))
            if self.match is not None and self.match.over:
                totals = match.final_totals(self.match)
                # The bonuses: final totals' difference beyond the hand points paid hand by hand.
                points = tuple(p + (totals[i] - totals[1 - i]) - (self.match.scores[i] - self.match.scores[1 - i])
                               for i, p in enumerate(points))
            for i, a in enumerate(AGENTS):
                self.rewards[a] = points[i] / self.reward_scale
                self.infos[a] = {"outcome": outcome_info(finished, i)}
                if self.match is not None and self.match.over:
                    self.infos[a]["match"] = self._match_info(i)
        over = self.match.over if self.match is not None else self.state.phase == engine.OVER
        if over:
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = AGENTS[self.state.current]
        self._accumulate_rewards()

    def last(self, observe: bool = True):
        """As ``AECEnv.last``, with a clear error before ``reset`` and once every agent is done."""
        self._check_live("last")
        return super().last(observe)

    def _check_reset(self, method: str) -> None:
        if self.state is None:
            raise RuntimeError(f"call reset() before {method}()")

    def _check_live(self, method: str) -> None:
        self._check_reset(method)
        if not self.agents:
            raise RuntimeError(f"every agent is done: call reset() before {method}()")

    def _match_info(self, player: int) -> dict:
        """The finished game from ``player``'s side: own numbers first."""
        m = self.match
        totals, other = match.final_totals(m), 1 - player
        winner = None if m.winner is None else ("self" if m.winner == player else "other")
        return {"scores": (m.scores[player], m.scores[other]), "final_totals": (totals[player], totals[other]),
                "winner": winner, "hands": len(m.history), "abandoned": m.abandoned}

    def render(self) -> str | None:
        """Both hands, the pile, the stock count and the scores, as text."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; make the env with render_mode='ansi'")
            return None
        if self.state is None:
            return "(no hand dealt: call reset())"
        s = self.state
        top = cards.card_str(s.pile[-1]) if s.pile else "--"
        scores = self._scores()
        lines = [f"Gin Rummy [{self.rules.name}]  phase: {engine.PHASE_NAMES[s.phase]}  to act: {AGENTS[s.current]}"]
        for p, name in enumerate(AGENTS):
            dealer = " (dealer)" if p == s.dealer else ""
            lines.append(f"  {name + dealer:<20} {cards.to_str(s.hands[p])}   score {scores[p]}")
        lines.append(f"  discard pile: top {top}, {len(s.pile)} cards   stock: {engine.stock_size(s)} cards")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release: text rendering holds no window or file."""

    def _scores(self) -> tuple[int, int]:
        return self.match.scores if self.match is not None else (0, 0)

    def _apply(self, action) -> engine.HandOutcome | None:
        """Step the hand (recording it in the match, if any); the outcome of a hand that ended, else None."""
        if self.match is None:
            self.state = engine.step(self.state, action)
            return self.state.outcome
        hands_before = len(self.match.history)
        self.match = match.step(self.match, action, self._rng)
        self.state = self.match.hand
        return self.match.history[-1] if len(self.match.history) > hands_before else None
