"""Gin Rummy for RLlib's new API stack (the optional ``ray`` extra): a multi-agent env over the PettingZoo env with
a league of opponents, and a PPO RL module that never samples an illegal action.

* :class:`GinRummyLeagueEnv` adapts ``gin_env.envs.pettingzoo.GinRummyAEC`` to RLlib's ``MultiAgentEnv``. Its agents
  are roles, not seats: ``"learner"``, and the opponent of the episode. Each episode draws the learner's seat and
  its opponent from the ``opponents`` weights: a fixed agent (``simple``, ``expert``, any ``agents.load`` name) that
  the env plays itself, as ``GinRummy-v0`` plays its opponent, or ``"self"``: one of ``snapshots`` frozen copies of
  the learner, an RLlib agent named ``snapshot_K`` whose module is ``snapshot_K`` too (:func:`module_for`). Every
  draw comes from the env's own generator, seeded by ``reset(seed=...)``.
* :class:`MaskedPPOModule` is RLlib's default PPO module (an MLP encoder, policy and value heads) on the
  ``"observation"`` entry of the observation dict, with the logits of the actions that the ``"action_mask"``
  entry forbids set to minus infinity before any distribution is built: illegal actions have probability 0 in
  exploration, inference and the PPO loss alike.
* :func:`export_policy` writes the module's policy path as the plain torch file that
  ``gin_env.agents.torch_policy`` loads without Ray.
"""

from __future__ import annotations

import numpy as np

from gin_env import agents
from gin_env.agents.torch_policy import save_policy
from gin_env.envs.pettingzoo import AGENTS, GinRummyAEC
from gin_env.optional import require

MultiAgentEnv = require("ray.rllib.env.multi_agent_env", "the RLlib env").MultiAgentEnv
torch = require("torch", "the RLlib module")
Columns = require("ray.rllib.core.columns", "the RLlib module").Columns
DefaultPPOTorchRLModule = require("ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module",
                                  "the RLlib module").DefaultPPOTorchRLModule

#: The agent (and module) being trained.
LEARNER = "learner"
#: The opponent name that stands for the learner's frozen snapshots.
SELF = "self"
#: The entries of every agent's observation dict (those of ``GinRummyAEC``).
OBSERVATION, ACTION_MASK = "observation", "action_mask"


def snapshot_id(slot: int) -> str:
    """The agent and module id of snapshot ``slot``."""
    return f"snapshot_{slot}"


def module_for(agent_id: str, episode=None, **kwargs) -> str:
    """RLlib's ``policy_mapping_fn``: each role has the module of its own name."""
    return agent_id


class GinRummyLeagueEnv(MultiAgentEnv):
    """Two-player Gin Rummy for RLlib: the learner against a fixed agent or one of its snapshots, per episode.

    ``config`` (RLlib's ``env_config``): ``rules``, ``episode`` and ``reward_scale`` as ``GinRummyAEC``'s;
    ``opponents``: ``{name: weight}`` with names that ``agents.load`` takes or ``"self"`` (default ``{"self": 1}``);
    ``snapshots``: how many snapshot agents there are (default 1). Observations and spaces are ``GinRummyAEC``'s.
    Rewards: each RLlib agent's hand points / ``reward_scale`` on the step that ends a hand, summed over the fixed
    opponent's moves in between. The learner's last info holds ``opponent`` (its name) and ``points`` (the learner's
    hand points in the episode). A hand that the fixed opponent ends before the learner's first decision (it may
    knock on its first turn) is dealt again, counted in ``redeals``: an episode must start with a decision."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.opponents = dict(config.pop("opponents", {SELF: 1.0}))
        self.snapshots = int(config.pop("snapshots", 1))
        self.aec = GinRummyAEC(**config)  # checks rules, episode and reward_scale
        if len(self.aec.possible_agents) != len(AGENTS):
            raise ValueError(f"GinRummyLeagueEnv seats two players; got the format of {self.aec.possible_agents}")
        names, weights = list(self.opponents), np.array(list(self.opponents.values()), dtype=float)
        if not names or (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(f"opponents must map agent names to weights >= 0, not all 0; got {self.opponents}")
        if self.snapshots < 1:
            raise ValueError(f"snapshots must be at least 1, got {self.snapshots}")
        self._names, self._weights = names, weights / weights.sum()
        self._fixed = {name: agents.load(name) for name in names if name != SELF}
        self.possible_agents = [LEARNER, *(snapshot_id(k) for k in range(self.snapshots))]
        self.agents = []
        space, actions = self.aec.observation_space(AGENTS[0]), self.aec.action_space(AGENTS[0])
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: actions for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._seats: dict[str, int] = {}
        self._fixed_seat: tuple[int, object] | None = None
        self._pending: dict[str, float] = {}
        self._points = 0.0
        self.opponent = ""
        #: Hands dealt again because the fixed opponent ended them before the learner's first decision.
        self.redeals = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:
            self._deal()
            # Rewards of the fixed opponent's opening moves in a match (a hand it ended): paid on the next step.
            self._pending = self._play_fixed()
            if not self._over():
                return {self._acting(): self._observe(self._acting())}, {}
            # The fixed opponent ended the hand before the learner's first decision (it knocked on its first
            # turn): an episode without a decision teaches nothing, and RLlib needs a first observation.
            self.redeals += 1

    def _deal(self) -> None:
        """Draw the opponent and the seats of a new episode, and deal its first hand."""
        self.opponent = self._names[self._rng.choice(len(self._names), p=self._weights)]
        learner_seat = int(self._rng.integers(2))
        other = 1 - learner_seat
        if self.opponent == SELF:
            self._seats = {LEARNER: learner_seat, snapshot_id(int(self._rng.integers(self.snapshots))): other}
            self._fixed_seat = None
        else:
            self._seats = {LEARNER: learner_seat}
            self._fixed_seat = (other, self._fixed[self.opponent])
        self.agents = list(self._seats)
        self.aec.reset(seed=int(self._rng.integers(2**63)))
        self._points = 0.0

    def step(self, action_dict: dict):
        mine = self._engine_step(int(action_dict[self._acting()]))
        fixed = self._play_fixed()
        rewards = {agent: mine[agent] + fixed[agent] + self._pending[agent] for agent in self._seats}
        self._pending = {agent: 0.0 for agent in self._seats}
        over = self._over()
        if over:
            agents_now = list(self._seats)
            infos = {LEARNER: {"opponent": self.opponent, "points": self._points}}
        else:
            agents_now = [self._acting()]
            infos = {}
        observations = {agent: self._observe(agent) for agent in agents_now}
        terminated = {agent: over for agent in agents_now}
        return (observations, rewards, {**terminated, "__all__": over}, {"__all__": False}, infos)

    def _over(self) -> bool:
        return all(self.aec.terminations.values())

    def _acting(self) -> str:
        seat = AGENTS.index(self.aec.agent_selection)
        return next(agent for agent, s in self._seats.items() if s == seat)

    def _observe(self, agent: str) -> dict:
        return self.aec.observe(AGENTS[self._seats[agent]])

    def _engine_step(self, action: int) -> dict[str, float]:
        """Play ``action`` for the player to move; the RLlib agents' rewards of that step."""
        self.aec.step(action)
        rewards = {agent: self.aec.rewards[AGENTS[seat]] for agent, seat in self._seats.items()}
        self._points += rewards[LEARNER] * self.aec.reward_scale
        return rewards

    def _play_fixed(self) -> dict[str, float]:
        """Play the fixed opponent until the learner is to move or the episode is over; its steps' rewards summed."""
        rewards = {agent: 0.0 for agent in self._seats}
        if self._fixed_seat is None:
            return rewards
        seat, agent = self._fixed_seat
        while not self._over() and AGENTS.index(self.aec.agent_selection) == seat:
            for role, reward in self._engine_step(agent.act(self.aec.table.agent_view(seat), self._rng)).items():
                rewards[role] += reward
        return rewards


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module over the ``"observation"`` entry of an observation dict, whose policy never gives
    probability to an action that the ``"action_mask"`` entry forbids: those logits are set to minus infinity."""

    def __init__(self, *args, observation_space=None, **kwargs) -> None:
        if observation_space is None or OBSERVATION not in getattr(observation_space, "spaces", {}):
            raise ValueError(f"MaskedPPOModule needs a Dict observation space with {OBSERVATION!r} and "
                             f"{ACTION_MASK!r} entries, got {observation_space!r}")
        super().__init__(*args, observation_space=observation_space[OBSERVATION], **kwargs)

    def _forward(self, batch: dict, **kwargs) -> dict:
        inner, mask = _split(batch)
        return _masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        inner, mask = _split(batch)
        return _masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings=None):
        return super().compute_values(_split(batch)[0], embeddings)


def _split(batch: dict) -> tuple[dict, torch.Tensor]:
    """The batch with the plain observations in place of the dict, and the legal-action mask."""
    obs = batch[Columns.OBS]
    return {**batch, Columns.OBS: obs[OBSERVATION]}, obs[ACTION_MASK].bool()


def _masked(output: dict, mask: torch.Tensor) -> dict:
    logits = output[Columns.ACTION_DIST_INPUTS]
    output[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(~mask, -torch.inf)
    return output


def policy_layers(module: MaskedPPOModule) -> list:
    """The torch layers from an observation to the action logits (the actor's encoder, then the policy head), in
    order. RLlib's default MLP module is linear layers and activations; ``agents.torch_policy.save_policy`` refuses
    any other layer (a layer norm, say), so an export never silently drops one."""
    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder  # separate or shared (vf_share_layers)
    return [layer for part in (actor, module.pi) for layer in part.modules()
            if not list(layer.children()) and not isinstance(layer, torch.nn.Identity)]


def export_policy(module: MaskedPPOModule, path: str, meta: dict) -> None:
    """Write ``module``'s policy path to ``path`` (``agents.torch_policy.save_policy``), with ``meta`` (what
    produced it) beside it."""
    save_policy(policy_layers(module), path, meta)
