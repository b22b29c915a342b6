"""``GinRummyVectorEnv``: N games of ``GinRummy-v0`` stepped together on the batched engine.

This module adapts ``batch_table.BatchTable`` to Gymnasium's vector API with the same semantics as
``env.GinRummyEnv``: the learner's seat drawn per episode, a batched opponent that plays inside ``step`` until every
game waits on the learner, illegal actions, truncation, infos and same-step autoreset. Episode kinds, scores,
bonuses and dealing are ``batch_table``'s; ``sb3.SB3VecEnv`` gives stable-baselines3 a ``VecEnv`` over this env.
"""

from __future__ import annotations

import weakref

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from gin_env import agents
from gin_env.batch.hand_batch import KIND_NAMES
from gin_env.batch.history import BatchHistory
from gin_env.batch.observation import batch_view, encode_batch
from gin_env.envs import hand_history, roles
from gin_env.game import engine
from gin_env.game.actions import n_actions
from gin_env.game.information_state import n_tokens
from gin_env.game.observation import obs_bounds, obs_size
from gin_env.game.rules import Rules, format_name
from gin_env.table.batched import BatchTable, check_num_envs
from gin_env.table.checks import (
    ILLEGAL_ACTION_REWARD,
    MAX_REDEALS,
    check_env_args,
    check_match_record,
    check_render_mode,
    check_reward_scale,
    integer,
    no_decision_error,
    resolve_rules,
    seat_or_none,
)

#: Outcome names indexed by kind code, with "" for -1 (no hand ended).
_KIND_LABELS = np.array(KIND_NAMES + ("",), dtype=object)


class _RecycledArrays:
    """Float32 arrays of one shape for ``reset`` and ``step`` to hand out, on memory that is reused once the caller
    has let go of every array made from it.

    Writing a fresh ``(num_envs, 375)`` array each step costs more in page faults than encoding it. Each array
    lent is a view of a new flat array on its memory, which numpy makes the base of every further view (the first
    base that is not a view of another array), so a dead weak reference to the flat array proves that nothing the
    caller holds shares the memory. Up to ``kept`` memories are kept: a caller commonly holds the last observation
    while it asks for the next."""

    def __init__(self, shape: tuple[int, ...], kept: int):
        self._shape = shape
        self._nbytes = int(np.prod(shape)) * np.dtype(np.float32).itemsize
        self._kept = kept
        self._memories: list[tuple[bytearray, weakref.ref]] = []

    def __getstate__(self) -> dict:
        """Everything but the memories (weak references do not pickle): a copy of the env lends new memory."""
        return {**self.__dict__, "_memories": []}

    def lend(self) -> tuple[np.ndarray, bool]:
        """An array of the shape, and whether its memory is new (all zero) rather than a released one."""
        free = [i for i, (_, lent) in enumerate(self._memories) if lent() is None]
        fresh = not free
        if fresh:
            memory = bytearray(self._nbytes)
            del self._memories[:len(self._memories) + 1 - self._kept]
        else:
            memory = self._memories.pop(free[0])[0]
        flat = np.frombuffer(memory, dtype=np.float32)
        self._memories.append((memory, weakref.ref(flat)))
        return flat.reshape(self._shape), fresh


class _Outcomes:
    """Per game, the hands that ended in a step: the last one's kind code (-1 for none), learner's points and
    capped flag, with how many ended and the learner's points summed over them. More than one hand ends in a step
    of a match when the opponent ends the next hand before the learner's first decision of it."""

    def __init__(self, num_envs: int) -> None:
        self.kind = np.full(num_envs, -1, dtype=np.int64)
        self.points = np.zeros(num_envs, dtype=np.int64)
        self.capped = np.zeros(num_envs, dtype=bool)
        self.hands = np.zeros(num_envs, dtype=np.int64)
        self.points_sum = np.zeros(num_envs, dtype=np.int64)

    def fields(self) -> tuple[np.ndarray, ...]:
        return self.kind, self.points, self.capped, self.hands, self.points_sum

    def copy(self) -> _Outcomes:
        copied = _Outcomes(self.kind.size)
        copied.take(slice(None), self)
        return copied

    def clear(self, games) -> None:
        """Forget the hands of ``games``."""
        self.kind[games] = -1
        self.hands[games] = 0
        self.points_sum[games] = 0

    def take(self, games: np.ndarray, other: _Outcomes) -> None:
        """The hands of ``games`` are those ``other`` holds."""
        for mine, theirs in zip(self.fields(), other.fields()):
            mine[games] = theirs[games]

    def add(self, games: np.ndarray, kind: np.ndarray, points: np.ndarray, capped: np.ndarray) -> None:
        """One more hand ended in each of ``games``."""
        self.kind[games], self.points[games], self.capped[games] = kind, points, capped
        self.hands[games] += 1
        self.points_sum[games] += points


def _batched(opponent):
    """The opponent as an agent with ``act_batch(view, rng)``; names go through ``agents.load``."""
    agent = agents.resolve(opponent, "opponent")
    if not callable(getattr(agent, "act_batch", None)):
        raise TypeError(f"opponent {agent!r} has no batched form act_batch(view, rng); the vector env needs one "
                        "(random, simple, expert and ppo have one)")
    return agent


class GinRummyVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games of ``GinRummy-v0`` on one batched engine (a Gymnasium ``VectorEnv``).

    Arguments are those of ``GinRummyEnv`` plus ``num_envs`` (any integer type, 1 to 65,536); the games are two-player
    only (``players=3`` or ``4``, a ``room`` or rules with ``players`` other than 2 raise ``ValueError``: those formats
    are ``GinRummyEnv``'s); the opponent needs a batched form ``act_batch`` (``random``, ``simple``, ``expert`` and
    ``ppo`` have one). Observations ``(num_envs, 375)`` float32, actions one id per game, ``action_masks()``
    ``(num_envs, 108)`` bool. Autoreset is same-step: a game whose episode ends returns the first observation of its
    next episode, with the last one in ``info["final_obs"]`` (masked by ``info["_final_obs"]``); gymnasium 1.2.2's
    ``RecordEpisodeStatistics`` miscounts such episodes (docs/vector.md shows a wrapper that counts right). ``info``
    also holds ``action_mask``; for games whose hand ended in the step (or, on an episode's first step, before the
    learner's first decision, as in ``GinRummyEnv``), ``outcome_kind`` (a name of ``batch.KIND_NAMES``),
    ``outcome_capped`` (a dead hand ended by the turn cap, R19) and ``outcome_points`` (learner's signed points) of
    the last hand, ``hands_ended`` and ``hand_points`` (how many ended, and the learner's points summed over them),
    each masked by its ``_``-prefixed twin; and with ``episode="match"``, for games whose match ended, ``match_scores``,
    ``match_hands_won`` and ``match_totals`` (learner first, always the match that just ended, even when the next one
    ends before the learner's first move) and ``match_abandoned`` (R19a: no winner, no bonuses), each masked likewise.
    Actions: an integer array of shape ``(num_envs,)`` (a list of ints too; any layout, copied to the compiled engine's
    one); out-of-range or illegal ids are illegal actions, other dtypes a ``TypeError``, other shapes a ``ValueError``,
    as in ``GinRummyEnv``. Under rules where no deal reaches a learner's first decision, ``reset`` raises ``ValueError``
    after ``MAX_REDEALS`` deals, as ``GinRummyEnv`` does. An error while the opponent plays (its ``act_batch`` raising
    or choosing an illegal action) ends every game's episode as in ``GinRummyEnv``: raised with a note saying so, then
    ``action_masks()`` offers nothing and ``step`` raises ``RuntimeError`` until ``reset()``. With
    ``information_state=True`` every observation (and ``final_obs``) is a dict of ``observation`` ``(num_envs, 375)``
    and ``history`` ``(num_envs, L)`` int16, each row the history ``GinRummyEnv`` gives its learner (docs/belief.md,
    "The information state"). With ``match_record=True`` (``episode="match"`` only) an observation has 381 entries: the
    375 and the match record (``observation.RECORD_OBS_LAYOUT``). It draws nothing: ``render_mode`` (which
    ``gym.make_vec`` passes) is None."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 64, rules: str | Rules = "standard", opponent="simple",
                 episode: str = "hand", reward_scale: float = 100.0, illegal_action: str = "penalize",
                 learner_seat: int | None = None, max_steps: int | None = None, players: int | None = None,
                 room: tuple[int, int] | None = None, information_state: bool = False,
                 match_record: bool = False, render_mode: str | None = None) -> None:
        num_envs = check_num_envs(num_envs)
        check_render_mode(render_mode, self.metadata["render_modes"])
        max_steps = check_env_args(episode, reward_scale, illegal_action, max_steps)
        information_state = hand_history.check_flag(information_state)
        self.num_envs = num_envs
        self.rules = resolve_rules(rules)
        self.match_record = check_match_record(match_record, episode, self.rules)
        fmt = integer(players, "players") if players is not None else self.rules.players
        if fmt != 2 or room is not None:
            raise ValueError(f"the vector env plays two-player games only, not {format_name(fmt, room)}: use "
                             "GinRummy-v0 or gin_env.envs.pettingzoo for that format")
        self.opponent = _batched(opponent)
        self.episode = episode
        self.reward_scale = check_reward_scale(reward_scale)
        self.illegal_action = illegal_action
        self.learner_seat = seat_or_none(learner_seat, "learner_seat")
        self.max_steps = max_steps
        self.render_mode = None
        self.single_observation_space = gym.spaces.Box(*obs_bounds(self.match_record, rules=self.rules),
                                                       dtype=np.float32)
        #: The histories of the learners' hands (``information_state=True``), else None.
        self.history = BatchHistory(self.rules, num_envs) if information_state else None
        if self.history is not None:
            self.single_observation_space = hand_history.space(self.single_observation_space, self.history.length,
                                                               n_tokens(self.rules))
        self.single_action_space = gym.spaces.Discrete(n_actions(self.rules))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.table = BatchTable(self.rules, episode, num_envs)
        self.batch = self.table.batch
        self.learner = np.zeros(num_envs, dtype=np.int64)
        self.steps = np.zeros(num_envs, dtype=np.int64)
        self._pending = np.zeros(num_envs, dtype=np.float64)
        #: Per game, the hands that ended before the learner's first decision of the episode, reported with the first
        #: step as ``GinRummyEnv`` does.
        self._pending_outcome = _Outcomes(num_envs)
        self._masks = np.zeros((num_envs, self.single_action_space.n), dtype=bool)
        #: Per game, at the end of its last match: learner/opponent scores, hands won, final totals and abandoned (1).
        self._match_end = np.zeros((num_envs, 7), dtype=np.int64)
        #: Opponent decisions made so far (for throughput counts).
        self.opponent_actions = 0
        self._opponent_rng: np.random.Generator | None = None
        self._all = np.arange(num_envs)
        width = obs_size(self.match_record, rules=self.rules)
        self._observations = _RecycledArrays((num_envs, width), kept=2)
        # One memory only, so that the rows to clear when it is reused are those written last.
        self._final_observations = _RecycledArrays((num_envs, width), kept=1)
        #: Rows of the final-observation memory that hold observations (the others are zero).
        self._final_rows = np.zeros(0, dtype=np.int64)

    @property
    def scores(self) -> np.ndarray:
        """(num_envs, 2): each game's match scores by player (zero in single-hand episodes)."""
        return self.table.scores

    # --- Gymnasium API ---------------------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray | dict, dict]:
        """Start a new episode in every game and play the opponent up to each learner's first decision."""
        super().reset(seed=seed)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; GinRummyVectorEnv takes none")
        self._opponent_rng = np.random.default_rng(int(self.np_random.integers(2**63)))
        self._pending[:] = 0.0
        self._start_episodes(self._all)
        return self._observe_all(), {"action_mask": self._masks.copy()}

    def step(self, actions) -> tuple[np.ndarray | dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One learner action per game, then the opponent until every game waits on the learner again."""
        if self._opponent_rng is None:
            raise RuntimeError("call reset() before step()")
        chosen = self._action_array(actions)
        width = self._masks.shape[1]
        in_range = (chosen >= 0) & (chosen < width)
        legal = in_range & self._masks.reshape(-1).take(self._all * width + np.where(in_range, chosen, 0))
        if not legal.all() and self.illegal_action == "raise":
            bad = int((~legal).nonzero()[0][0])
            self.batch.step(np.array([bad]), chosen[bad:bad + 1])  # raises IllegalActionError naming the action
        rewards = self._pending.copy()
        self._pending[:] = 0.0
        self.steps += 1
        ok = legal.nonzero()[0]
        tokens = None if self.history is None else self.history.moves(self.batch, ok, chosen[ok], self.learner[ok])
        if ok.size == self.num_envs:
            self.batch.step(ok, chosen, masks=self._masks)
        else:
            self.batch.step(ok, chosen[ok], masks=self._masks[ok])
        if tokens is not None:
            self.history.add(ok, tokens)
        outcomes = self._pending_outcome.copy()
        self._pending_outcome.clear(self._all)
        over = self._settle(ok, rewards, outcomes)
        illegal = (~legal).nonzero()[0]
        outcomes.clear(illegal)
        rewards[illegal] = ILLEGAL_ACTION_REWARD * self.reward_scale
        terminated = over.copy()
        terminated[illegal] = True
        truncated = ~terminated & (self.max_steps is not None) & (self.steps >= (self.max_steps or 0))
        done = (terminated | truncated).nonzero()[0]
        infos: dict = {}
        if self.episode == "match" and terminated.any():
            finished = terminated.copy()
            finished[illegal] = False
            # Copied out before the autoreset below: a new match that ends before the learner's first move records
            # its own numbers.
            for key, columns in (("match_scores", [0, 1]), ("match_hands_won", [2, 3]), ("match_totals", [4, 5])):
                infos[key], infos["_" + key] = self._match_end[:, columns], finished
            infos["match_abandoned"], infos["_match_abandoned"] = self._match_end[:, 6] == 1, finished
        if done.size:
            infos["final_obs"], infos["_final_obs"] = self._final_obs(done), terminated | truncated
            self._start_episodes(done)
        ended = outcomes.hands > 0
        if ended.any():
            infos["outcome_kind"] = _KIND_LABELS[outcomes.kind]
            infos["_outcome_kind"] = ended
            for key, values in (("outcome_capped", outcomes.capped), ("outcome_points", outcomes.points),
                                ("hands_ended", outcomes.hands), ("hand_points", outcomes.points_sum)):
                infos[key], infos["_" + key] = values, ended
        if illegal.size:
            infos["illegal_action"], infos["_illegal_action"] = ~legal, ~legal
        obs = self._observe_all()
        infos["action_mask"] = self._masks.copy()
        return obs, rewards / self.reward_scale, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 108)`` bool: each learner's legal actions now."""
        return self._masks.copy()

    def _action_array(self, actions) -> np.ndarray:
        """The actions as int64 ``(num_envs,)``; the rule of ``env.action_id`` for a batch: integers only, one per
        game."""
        chosen = np.asarray(actions)
        if chosen.dtype.kind not in "iu":
            raise TypeError(f"actions must be integer action ids, got an array of dtype {chosen.dtype}")
        if chosen.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per game, got {chosen.shape}")
        if chosen.dtype.kind == "u":
            # Unsigned ids past int64 would wrap around to small ones: clip them, still out of range.
            chosen = np.minimum(chosen, self.single_action_space.n)
        return chosen.astype(np.int64, copy=False)

    # --- Playing ---------------------------------------------------------------------------------------------------

    def _start_episodes(self, games: np.ndarray) -> None:
        """Seat the learner, deal, and play the opponent to the learner's first decision. As in ``GinRummyEnv``, a
        hand the opponent ends before that is dealt again (``episode="hand"``) or counted and paid with the first
        reward (``episode="match"``); ``ValueError`` when games are still undecided after ``MAX_REDEALS`` deals."""
        rng = self.np_random
        self.steps[games] = 0
        todo = games
        for _ in range(MAX_REDEALS):
            if not todo.size:
                return
            seat = rng.integers(2, size=todo.size) if self.learner_seat is None else self.learner_seat
            self.learner[todo] = seat
            self.table.new_games(todo, rng)
            if self.history is not None:
                self.history.dealt(self.batch, todo)
            rewards = np.zeros(self.num_envs)
            outcomes = _Outcomes(self.num_envs)
            over = self._settle(todo, rewards, outcomes)
            self._pending[todo] += rewards[todo]
            self._pending_outcome.take(todo, outcomes)
            todo = todo[over[todo]]
            self._pending[todo] = 0.0
        if todo.size:
            self._halt()  # step() then says to reset, rather than play half-dealt games
            raise no_decision_error(self.rules)

    def _settle(self, games: np.ndarray, rewards: np.ndarray, outcomes: _Outcomes) -> np.ndarray:
        """Play the opponent in ``games`` until each waits on the learner or its episode is over; record finished
        hands (adding the learner's points to ``rewards``, the hands to ``outcomes`` and the match bookkeeping).
        Returns a bool (num_envs,) array: the episode of that game is over."""
        b, active = self.batch, games
        over = np.zeros(self.num_envs, dtype=bool)
        with roles.episode_ends_on_error(self._halt):
            while active.size:
                finished = b.phase[active] == engine.OVER
                if finished.any():
                    self._record(active[finished], rewards, outcomes, over)
                    active = active[~over[active]]
                opponent_turn = active[b.current[active] != self.learner[active]]
                if opponent_turn.size == 0:
                    break
                v = batch_view(b, opponent_turn, 1 - self.learner.take(opponent_turn),
                               self.table.scores.take(opponent_turn, axis=0),
                               self.table.match_record.take(opponent_turn, axis=0))
                chosen = np.asarray(self.opponent.act_batch(v, self._opponent_rng))
                if chosen.dtype.kind not in "iu":
                    raise TypeError(f"opponent {self.opponent!r} returned actions of dtype {chosen.dtype}; action ids "
                                    "are integers")
                tokens = None if self.history is None else self.history.moves(b, opponent_turn, chosen,
                                                                                self.learner[opponent_turn])
                b.step(opponent_turn, chosen, legal_bits=v.legal_bits)
                if tokens is not None:
                    self.history.add(opponent_turn, tokens)
                self.opponent_actions += opponent_turn.size
                # Games not at the opponent's turn wait on the learner; the others may have more to do.
                active = opponent_turn
        return over

    def _halt(self) -> None:
        """End every game's episode where it stands: no legal action offered, ``step`` refused until ``reset``."""
        self._opponent_rng = None
        self._masks = np.zeros((self.num_envs, self.single_action_space.n), dtype=bool)

    def _record(self, games: np.ndarray, rewards: np.ndarray, outcomes: _Outcomes, over: np.ndarray) -> None:
        """Pay finished hands to the learners (``BatchTable.record``: hand points, and the bonuses where a game
        ended), note their outcomes and the numbers of ended matches."""
        kind, capped = self.batch.kind[games], self.batch.capped[games]
        recorded = self.table.record(games, self.learner[games], self.np_random)
        outcomes.add(games, kind, recorded.hand_points, capped)
        rewards[games] += recorded.points
        done = games[recorded.ends]
        over[done] = True
        if self.history is not None:
            self.history.dealt(self.batch, games[~recorded.ends])
        if self.episode == "match":
            self._match_end[done] = recorded.ended

    def _observe_all(self) -> np.ndarray | dict:
        """Every learner's observation, on recycled memory; records their legal masks."""
        v = batch_view(self.batch, self._all, self.learner, self.table.scores, self.table.match_record)
        self._masks = v.legal_mask
        obs = encode_batch(v, self._observations.lend()[0], self.match_record)
        return obs if self.history is None else {"observation": obs, "history": self.history.tokens.copy()}

    def _final_obs(self, done: np.ndarray) -> np.ndarray | dict:
        """``(num_envs, obs_size(match_record))``: the last observation of the games in ``done``, zero elsewhere
        (with the histories, a dict of both)."""
        final_obs, fresh = self._final_observations.lend()
        if not fresh:
            final_obs[self._final_rows] = 0.0
        final_obs[done] = encode_batch(batch_view(self.batch, done, self.learner[done], self.table.scores[done],
                                                  self.table.match_record[done]), match_record=self.match_record)
        self._final_rows = done
        return final_obs if self.history is None else {"observation": final_obs, "history": self.history.rows(done)}
