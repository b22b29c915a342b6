"""Gin Rummy as a PettingZoo AEC environment for two learners (the optional ``pettingzoo`` extra).

PettingZoo dropped its own ``gin_rummy`` (built on RLCard); this module replaces it on our rules engine. It adapts
``table.Table`` to PettingZoo's AEC API: agent names, ``agent_selection``, per-agent observations with action masks,
and the reward, termination and info dicts. Episode kinds, rewards, bonuses, infos, argument checks and text are
``table``'s, the same as ``GinRummy-v0``'s.

``import gin_env`` never imports this module; ``import gin_env.pettingzoo`` needs ``pettingzoo`` installed.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from gin_env.actions import N_ACTIONS
from gin_env.observation import OBS_HIGH, OBS_LOW, encode
from gin_env.optional import require
from gin_env.rules import Rules
from gin_env.table import (
    AtTable,
    Table,
    action_id,
    check_episode,
    check_render_mode,
    check_reward_scale,
    outcome_info,
    resolve_rules,
)

AECEnv = require("pettingzoo", "gin_env.pettingzoo").AECEnv

AGENTS = ("player_0", "player_1")
#: How a seat's own side and the other are named in its match info.
SIDES = ("self", "other")


def env(**kwargs) -> GinRummyAEC:
    """A :class:`GinRummyAEC` (the PettingZoo ``env()`` convention); keyword arguments as its constructor."""
    return GinRummyAEC(**kwargs)


class GinRummyAEC(AtTable, AECEnv):
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
        check_render_mode(render_mode, self.metadata["render_modes"])
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
        self.table = Table(self.rules, episode)

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new hand (or start a game) with a generator seeded by ``seed`` (or continuing the last one)."""
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.table.deal(self._rng)
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
        v = self.table.view(AGENTS.index(agent))
        return {"observation": encode(v), "action_mask": v.legal_mask.astype(np.int8)}

    def step(self, action) -> None:
        """Play ``action`` for ``agent_selection``; ``None`` for an agent that is already done (AEC convention)."""
        self._check_live("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        finished = self.table.play(action_id(action), self._rng)  # an illegal action raises, nothing changed (R18)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if finished is not None:
            for seat, a in enumerate(AGENTS):
                self.rewards[a] = self.table.points(finished, seat) / self.reward_scale
                self.infos[a] = {"outcome": outcome_info(finished, seat)}
                end = self.table.match_info(seat, SIDES)
                if end is not None:
                    self.infos[a]["match"] = end
        if self.table.over:
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

    def render(self) -> str | None:
        """Both hands, the pile, the stock count and the scores, as text."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; make the env with render_mode='ansi'")
            return None
        if self.state is None:
            return "(no hand dealt: call reset())"
        return self.table.text(AGENTS)

    def close(self) -> None:
        """Nothing to release: text rendering holds no window or file."""
