"""Gin Rummy as a PettingZoo AEC environment, one agent per player (the optional ``pettingzoo`` extra).

PettingZoo dropped its own ``gin_rummy`` (built on RLCard); this module replaces it on our rules engine. It adapts
the tables (any ``table.protocol.GameTable``: two players, three and four players, rooms, docs/rules.md section 15)
to PettingZoo's AEC API: agent names, ``agent_selection``, per-agent observations with action masks, and the
reward, termination and info dicts. Episode kinds, rewards, bonuses, infos, the turn order of a four-player deal's
two pairings and text are the tables', the same as ``GinRummy-v0``'s; the argument checks are ``table.checks``'.
As in PettingZoo's classic envs, :class:`raw_env` is the env and :func:`env` returns it wrapped.

``import gin_env`` never imports this module; ``import gin_env.envs.pettingzoo`` needs ``pettingzoo`` installed.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from gin_env.game.actions import n_actions
from gin_env.game.observation import encode, obs_bounds, obs_size
from gin_env.game.rules import Rules
from gin_env.optional import require
from gin_env.table.checks import (
    action_id,
    check_episode,
    check_match_record,
    check_render_mode,
    check_reward_scale,
    resolve_rules,
)
from gin_env.table.formats import make_table, resolve_format
from gin_env.table.protocol import AtTable, GameTable

AECEnv = require("pettingzoo", "gin_env.envs.pettingzoo").AECEnv
OrderEnforcingWrapper = require("pettingzoo.utils.wrappers", "gin_env.envs.pettingzoo").OrderEnforcingWrapper

AGENTS = ("player_0", "player_1")
#: How a seat's own side and the other are named in its match info.
SIDES = ("self", "other")


def agent_names(players: int, room: tuple[int, int] | None) -> tuple[str, ...]:
    """The agents: ``player_0`` .. ``player_{players-1}`` by seat (R49), or in a room ``seat_S_member_M`` for member M
    of seat S (R58), seat 0's members first."""
    if room is not None:
        return tuple(f"seat_{s}_member_{m}" for s, k in enumerate(room) for m in range(k))
    return tuple(f"player_{seat}" for seat in range(players))


class GinRummyAEC(AtTable, AECEnv):
    """Gin Rummy, one agent per player: two players (``player_0`` and ``player_1``, the engine's players 0 and 1),
    three players, four players in two teams, or a room (docs/rules.md section 15, :func:`agent_names`).

    Observation of each agent: ``{"observation": float32 (375,), "action_mask": int8 (108,)}``, the encoding of
    ``gin_env.game.observation`` of the hand its seat plays (only what that seat may know; in a room every member sees
    the seat's view, R59) and its legal actions, all zero for every agent but the one to act. A seat sitting a
    three-player hand out observes zeros. The two score entries are the agent's and its hand opponent's (three
    players), or its team's and the other team's over ``team_target`` (four players). Action space:
    ``Discrete(108)`` as in ``GinRummy-v0``. With ``match_record=True`` (two seats, ``episode="match"``) the
    observation has 381 entries: the match record of the game's earlier hands appended, the agent's seat's counts
    first, as ``GinRummy-v0(match_record=True)`` (``game.match_record``).

    Rewards, / ``reward_scale``, on the step that ends a hand: its two players' signed points, zero-sum (0 to a
    seat that sat it out); in four players, on the step that ends a deal (both pairings), the deal's netted team
    result (R56) to both partners and its negative to both opponents; in a room, the seat's points to every member.
    With ``episode="match"`` the step that ends the game also pays the end-of-game bonuses (R41-R43, R53, R57): a
    seat's (team's) bonus less the others' (less their mean with three players), so that every game is zero-sum.
    Every agent terminates when the episode ends; an illegal action raises ``gin_env.game.engine.IllegalActionError`` (a
    ``ValueError``), and an action that is not one integer raises ``TypeError`` (``ValueError`` for an array of
    another shape), as in ``GinRummy-v0``. A four-player deal's two pairings (R54's two tables) take actions
    alternately (the one with fewer actions in the deal next, seat 0's on a tie; the one still in play finishes
    alone), so ``agent_selection`` moves between them.

    Infos, on the step that ends a hand (deal): two players and rooms, ``infos[agent]["outcome"]`` as
    ``GinRummy-v0``'s (``kind``, ``capped``, ``winner``, ``points``, ...) from that agent's side (and in a room the
    ``seat``); three players, ``outcome`` with seat numbers (``seats``, ``winner``, ``knocker``, ``sat_out``) and
    the agent's ``points``; four players, ``deal`` with its ``number``, the team's ``points`` and each table's
    outcome. On the step that ends a game, also ``infos[agent]["match"]``: scores and ``final_totals`` (own first
    for two sides, by seat for three players, with the ``ranking``), the ``winner``, the hands (deals) and
    ``abandoned`` (R19a). Every episode ends: hands are capped at ``rules.max_turns`` discards (R19) and games at
    ``rules.max_dead_hands`` dead hands (deals) in a row (R19a). ``step``, ``last`` and ``observe`` before
    ``reset``, and ``step`` or ``last`` once every agent is done, raise ``RuntimeError`` saying to call ``reset()``.

    Arguments: ``rules`` (a preset name or a ``Rules``), ``episode`` (``"hand"``: one hand, one deal in four
    players; ``"match"``: a game), ``reward_scale``, ``render_mode`` (``"ansi"`` or None), ``players`` (2, 3 or 4;
    None: ``rules.players``), ``room`` ((k0, k1) members per seat, or None), ``match_record`` (a bool). Seeding:
    ``reset(seed=...)``; the dealer follows ``rules.first_dealer`` (a three-way cut with three players, R50; R55 with
    four).
    """

    metadata = {"render_modes": ["ansi"], "name": "gin_rummy_v0", "is_parallelizable": False}

    def __init__(self, rules: str | Rules = "standard", episode: str = "hand", reward_scale: float = 100.0,
                 render_mode: str | None = None, players: int | None = None,
                 room: tuple[int, int] | None = None, match_record: bool = False) -> None:
        super().__init__()
        check_episode(episode)
        reward_scale = check_reward_scale(reward_scale)
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.rules, self.room = resolve_format(resolve_rules(rules), players, room)
        self.match_record = check_match_record(match_record, episode, self.rules)
        self.episode = episode
        self.reward_scale = reward_scale
        self.render_mode = render_mode
        self.names = agent_names(self.rules.players, self.room)
        self.possible_agents = list(self.names)
        obs_space = gym.spaces.Dict({
            "observation": gym.spaces.Box(*obs_bounds(self.match_record, rules=self.rules), dtype=np.float32),
            "action_mask": gym.spaces.Box(0, 1, (n_actions(self.rules),), dtype=np.int8),
        })
        # One space object per agent, returned every time (PettingZoo seeds spaces through these objects).
        self.observation_spaces = {a: obs_space for a in self.names}
        self.action_spaces = {a: gym.spaces.Discrete(n_actions(self.rules)) for a in self.names}
        self._index = {a: i for i, a in enumerate(self.names)}
        self._rng: np.random.Generator | None = None
        self.table: GameTable = make_table(self.rules, episode, self.room)

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new hand (or start a game) with a generator seeded by ``seed`` (or continuing the last one)."""
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.table.deal(self._rng)
        names = self.names
        self.agents = list(names)
        self.rewards = {a: 0.0 for a in names}
        self._cumulative_rewards = {a: 0.0 for a in names}
        self.terminations = {a: False for a in names}
        self.truncations = {a: False for a in names}
        self.infos = {a: {} for a in names}
        self.agent_selection = names[self.table.actor]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._check_reset("observe")
        if agent not in self._index:
            raise ValueError(f"unknown agent {agent!r}; the agents are {', '.join(self.names)}")
        i = self._index[agent]
        v = self.table.agent_view(i)
        if v is None:  # a seat sitting a three-player hand out holds no cards, and sees nothing
            return {"observation": np.zeros(obs_size(self.match_record, rules=self.rules), dtype=np.float32),
                    "action_mask": np.zeros(self.action_spaces[agent].n, dtype=np.int8)}
        to_act = not self.table.over and i == self.table.actor
        mask = v.legal_mask.astype(np.int8) if to_act else np.zeros(self.action_spaces[agent].n, dtype=np.int8)
        return {"observation": encode(v, self.match_record), "action_mask": mask}

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
            for i, a in enumerate(self.names):
                self.rewards[a] = self.table.agent_points(finished, i) / self.reward_scale
                self.infos[a] = self.table.agent_info(finished, i, SIDES)
        if self.table.over:
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.names[self.table.actor]
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
        """The hands, the pile, the stock count and the scores, as text."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; make the env with render_mode='ansi'")
            return None
        if self.state is None:
            return "(no hand dealt: call reset())"
        return self.table.text(self.names)

    def close(self) -> None:
        """Nothing to release: text rendering holds no window or file."""


#: PettingZoo's name for the env class that ``env()`` wraps.
raw_env = GinRummyAEC


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the env's own errors where both check the same misuse.

    From PettingZoo's: ``agents``, ``agent_selection``, ``rewards``, ``terminations``, ``truncations``, ``infos`` and
    ``num_agents`` before ``reset`` raise ``AttributeError``, ``agent_iter`` before ``reset`` and a loop over it
    that neither steps nor resets raise ``AssertionError``. From the env: ``step``, ``last`` and ``observe`` before
    ``reset``, and ``step`` and ``last`` once every agent is done, raise its ``RuntimeError`` saying to call
    ``reset()``, where PettingZoo's raises ``AssertionError`` or (a step once every agent is done) only warns and
    drops the action; ``render`` before ``reset`` says no hand is dealt, where PettingZoo's raises. The engine's
    hand is ``unwrapped.state``: the wrapper's ``state()`` is PettingZoo's global state, which this env does not offer.
    """

    # The four calls below skip PettingZoo's checks before and after an episode: the env makes them itself.
    def step(self, action) -> None:
        self._has_updated = True  # agent_iter's check: this loop's turn stepped
        self.env.step(action)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.env.observe(agent)

    def last(self, observe: bool = True):
        return self.env.last(observe)

    def render(self) -> str | None:
        return self.env.render()

    def state(self) -> np.ndarray:
        # PettingZoo's would call the raw env's state, a HandState, and fail with "not callable".
        raise NotImplementedError("this env has no global state() array; the hand in play is env.unwrapped.state")


def env(**kwargs) -> OrderEnforcing:
    """A :class:`raw_env` made with ``kwargs``, wrapped as PettingZoo's classic envs are, where their wrappers fit
    (docs/pettingzoo.md): :class:`OrderEnforcing`. ``env(...).unwrapped`` is the :class:`raw_env`."""
    return OrderEnforcing(raw_env(**kwargs))
