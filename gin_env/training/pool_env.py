"""The training env: the SB3 adapter (``sb3.SB3VecEnv``) over several groups of batched games, one opponent per
group, with potential-based deadwood shaping added to the rewards by an SB3 ``VecEnvWrapper``, and for a privileged
critic what no player sees (the opponent's hand, the stock's order) after each observation."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import cards
from gin_env.game.observation import DEADWOOD_SCALE, OBS_LAYOUT, PRIVILEGED_SIZE, STOCK_DEPTH_DECAY, obs_bounds
from gin_env.interop.sb3 import SB3VecEnv
from gin_env.optional import require
from gin_env.training.config import Args

VecEnvWrapper = require("stable_baselines3.common.vec_env", "training").VecEnvWrapper

#: Where the learner's own deadwood sits in an observation.
DEADWOOD_ENTRY = OBS_LAYOUT["deadwood"].start


def potential(obs: np.ndarray, args: Args) -> np.ndarray:
    """The shaping potential of each observation: minus its own deadwood in reward units, times ``args.shaping``.

    Potential-based shaping (Ng, Harada and Russell, 1999) leaves the best policy unchanged, since its rewards
    telescope over an episode, but pays every drop in deadwood at once, instead of only through the hand's outcome
    many decisions later: the dense signal a sparse per-hand reward lacks."""
    return -args.shaping * obs[:, DEADWOOD_ENTRY] * DEADWOOD_SCALE / args.reward_scale


def episodes(args: Args) -> dict:
    """The vector env's episode arguments for ``args``: single hands, or with ``--match-record`` games to the target
    with the match record in the learner's observation."""
    return {"episode": "match", "match_record": True} if args.match_record else {}


class PoolVecEnv(VecEnvWrapper):
    """The env that trains against several opponents at once: ``sb3.SB3VecEnv`` over ``args.slots`` vector envs of
    ``num_envs / slots`` games each (single hands, or games to the target with ``--match-record``), with the
    deadwood shaping of :func:`potential` added to the rewards. ``set_opponent(slot, agent)`` swaps a group's
    opponent (games in progress go on with the new one, which reads the same views).

    With ``--privileged-critic`` each observation ends in the ``PRIVILEGED_PLANES`` (:func:`hidden_planes`), for
    the critic alone (``agents.networks.CardFeatures``). A terminal observation's are zeros: the hand is dealt
    anew by then, and these games end but never truncate, so SB3 never values a terminal observation."""

    def __init__(self, args: Args) -> None:
        if args.num_envs % args.slots:
            raise ValueError(f"--slots ({args.slots}) must divide --num-envs ({args.num_envs})")
        self.args = args
        self.slot_size = args.num_envs // args.slots
        # The placeholder opponent is replaced before the first rollout.
        super().__init__(SB3VecEnv([GinRummyVectorEnv(self.slot_size, rules=args.game_rules(), opponent="random",
                                                      reward_scale=args.reward_scale, **episodes(args))
                                    for _ in range(args.slots)]))
        self.potential = np.zeros(args.num_envs)
        if args.privileged_critic:
            self.observation_space = spaces.Box(*obs_bounds(args.match_record, privileged=True),
                                                dtype=self.venv.observation_space.dtype)

    def set_opponent(self, slot: int, agent) -> None:
        self.venv.parts[slot].opponent = agent

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        self.potential = potential(obs, self.args)
        return self._with_hidden(obs)

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        # Shaping F = gamma * phi(s') - phi(s), with phi = 0 at the end of an episode (the observation of an ended
        # game is already the next episode's first one). Within a game to the target, phi runs on across its hands:
        # zeroing it at each hand's end would pay every new deal's deadwood, a reward for playing more hands.
        now = potential(obs, self.args)
        rewards = rewards + (self.args.gamma * np.where(dones, 0.0, now) - self.potential).astype(np.float32)
        self.potential = now
        if self.args.privileged_critic:
            for info in infos:
                if "terminal_observation" in info:
                    info["terminal_observation"] = np.append(info["terminal_observation"],
                                                             np.zeros(PRIVILEGED_SIZE, np.float32))
        return self._with_hidden(obs), rewards, dones, infos

    def _with_hidden(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` with :func:`hidden_planes` of each game after it, when the critic is privileged."""
        if not self.args.privileged_critic:
            return obs
        return np.concatenate([obs, np.concatenate([hidden_planes(part) for part in self.venv.parts])], axis=1)


def hidden_planes(part: GinRummyVectorEnv) -> np.ndarray:
    """``(num_envs, PRIVILEGED_SIZE)``: per game of ``part``, the learner's opponent's hand, then the stock, the next
    card to be drawn 1 and each one after it ``STOCK_DEPTH_DECAY`` times the one before; natural cards only (the
    jokers' counts are in the view)."""
    games = np.arange(part.num_envs)
    hands = part.batch.hands[games, 1 - part.learner].astype("<u8")
    out = np.zeros((part.num_envs, PRIVILEGED_SIZE), dtype=np.float32)
    # Card c is bit c of a hand's word (cards.to_mask).
    out[:, :cards.N_CARDS] = np.unpackbits(hands.view(np.uint8).reshape(-1, 8), axis=1, count=cards.N_CARDS,
                                           bitorder="little")
    depth = np.arange(part.batch.deck.shape[1]) - part.batch.stock_top[:, None]  # the deck's slots from the stock's top
    # The planes hold the natural cards: a joker's place in the stock is not among them.
    in_stock = (depth >= 0) & (part.batch.deck < cards.N_CARDS)
    rows = np.broadcast_to(games[:, None], depth.shape)[in_stock]
    out[rows, cards.N_CARDS + part.batch.deck[in_stock]] = STOCK_DEPTH_DECAY ** depth[in_stock]
    return out
