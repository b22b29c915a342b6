"""``GinRummy-v0`` for one learner in the formats of docs/rules.md section 15: three players, four players in two
teams, rooms. Every other seat (or member) is an agent that plays inside ``step``.

This module adapts ``format_table``'s tables to Gymnasium's single-agent API, as ``env.GinRummyEnv`` adapts the
two-player ``table.Table``: which agent the learner is, who sits where, running the others until the learner has a
decision, illegal actions and truncation. :func:`make_env` is ``GinRummy-v0``'s entry point: it makes a
``GinRummyEnv`` for two players and a :class:`FormatEnv` for the other formats.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from gin_env import agents
from gin_env.game import actions, engine
from gin_env.game.actions import N_ACTIONS
from gin_env.game.observation import OBS_HIGH, OBS_LOW, OBS_SIZE, PlayerView, encode
from gin_env.game.rules import Rules
from gin_env.table.formats import make_table, resolve_format
from gin_env.table.two_players import (
    ILLEGAL_ACTION_REWARD,
    MAX_REDEALS,
    AtTable,
    action_id,
    agent_action,
    check_env_args,
    check_render_mode,
    check_reward_scale,
    counted,
    integer,
    is_legal,
    no_decision_error,
    resolve_rules,
)

#: The keyword arguments that ask ``GinRummy-v0`` for a format other than two players.
FORMAT_ARGS = ("players", "room", "opponents", "partner", "teammates")
#: How the learner's side and the other are named in infos.
SIDES = ("learner", "opponent")
_NO_ACTIONS = np.zeros(N_ACTIONS, dtype=bool)


def make_env(**kwargs) -> gym.Env:
    """``GinRummy-v0``: a :class:`FormatEnv` when any of ``FORMAT_ARGS`` is given (``players=2`` alone excepted)
    or the rules have ``players`` other than 2, else the two-player ``GinRummyEnv``."""
    rules = resolve_rules(kwargs.get("rules", "standard"))
    players = kwargs.get("players")
    formatted = any(kwargs.get(k) is not None for k in FORMAT_ARGS if k != "players")
    if formatted or rules.players != 2 or players not in (None, 2):
        return FormatEnv(**kwargs)
    from gin_env.envs.gin_rummy import GinRummyEnv

    kwargs.pop("players", None)
    return GinRummyEnv(**kwargs)


def _seat_of_learner(value, seats: int) -> int | None:
    """``learner_seat`` as an int seat 0..seats-1 or None: any integer type; ``TypeError`` for a bool or a
    non-integer, ``ValueError`` for a seat out of range."""
    if value is None:
        return None
    seat = integer(value, "learner_seat")
    if not 0 <= seat < seats:
        raise ValueError(f"learner_seat must be a seat 0..{seats - 1} or None, got {value!r}")
    return seat


class FormatEnv(AtTable, gym.Env):
    """Gin Rummy from one learner's seat in three players, four players or a room; everyone else plays inside
    ``step``. Observations, actions, masks and ``illegal_action`` are those of ``GinRummyEnv``; the view is the
    learner's seat's hand (R59). The learner acts only on its own decisions (in a room, its own turns, R58).

    ```python
    gym.make("GinRummy-v0", players=3, opponents=["simple", "expert"])
    gym.make("GinRummy-v0", players=4, partner="expert", opponents=["simple", "simple"])
    gym.make("GinRummy-v0", room=(2, 3), teammates=["simple"], opponents=["expert", "simple", "random"],
             learner_seat=0)
    ```

    Seats: three players, ``opponents[0]`` at the learner's left (seat + 1) and ``opponents[1]`` at seat + 2; four
    players, the ``partner`` opposite (seat + 2), ``opponents`` at seat + 1 and seat + 3; a room, the learner is the
    first member of its seat, ``teammates`` its other members in order, ``opponents`` the other seat's members.
    ``learner_seat`` fixes the learner's seat (0..players-1; 0 or 1 in a room), None draws it each episode (a room
    whose seats hold different numbers of members needs it, and ``reset`` may not move the learner to the other seat
    of such a room: ``ValueError``). Agents default to ``"simple"``. As in ``GinRummyEnv``, ``reset`` deals again when
    the episode ends before the learner's first decision, and raises ``ValueError`` after ``MAX_REDEALS`` such deals.

    Episodes: ``"match"``, a game to the target (the team target with four players); ``"hand"``, one hand the
    learner plays (with three players the seat that sits it out is drawn among the others), one deal with four
    players (its two tables). Rewards, / ``reward_scale``: the learner's points from the PettingZoo env's rewards
    (``envs.pettingzoo``): its hands' signed points, the deals' netted team results, the seat's points in a room,
    and at the end of a match the end-of-game bonuses. ``info``: ``action_mask``; ``outcome`` (three players and
    rooms) or ``deal`` (four players) when a hand (deal) ended in the step, as the PettingZoo env's infos; ``match``
    at the end of a match.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, rules: str | Rules = "standard", players: int | None = None, room=None, opponents=None,
                 partner=None, teammates=None, episode: str = "hand", reward_scale: float = 100.0,
                 illegal_action: str = "penalize", learner_seat: int | None = None, max_steps: int | None = None,
                 render_mode: str | None = None, opponent=None) -> None:
        max_steps = check_env_args(episode, reward_scale, illegal_action, max_steps)
        check_render_mode(render_mode, self.metadata["render_modes"])
        if opponent is not None:
            raise ValueError("this format has several opponents: give them as opponents=[...], not opponent=")
        self.rules, self.room = resolve_format(resolve_rules(rules), players, room)
        if self.rules.players == 2 and self.room is None:
            raise ValueError("FormatEnv plays three players, four players or a room; two players is GinRummyEnv")
        self.episode = episode
        self.reward_scale = check_reward_scale(reward_scale)
        self.illegal_action = illegal_action
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.table = make_table(self.rules, episode, self.room)
        self.learner_seat = _seat_of_learner(learner_seat, 2 if self.room is not None else self.rules.players)
        self._roles = self._check_roles(opponents, partner, teammates)
        self.action_space = gym.spaces.Discrete(N_ACTIONS)
        self.observation_space = gym.spaces.Box(OBS_LOW, OBS_HIGH, dtype=np.float32)
        self.learner = 0
        #: The agent of every other seat (member) this episode, by agent index.
        self.others: dict[int, agents.Agent] = {}
        self._others_rng: np.random.Generator | None = None
        self._view: PlayerView | None = None
        self._steps = 0
        self._done = True
        self._pending: tuple[float, dict] = (0.0, {})

    def _check_roles(self, opponents, partner, teammates) -> dict[str, list]:
        """The other agents by role, resolved, with their numbers checked against the format."""
        def listed(value, n: int, name: str) -> list:
            value = ["simple"] * n if value is None else value
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != n:
                raise ValueError(f"{name} must be a list of {counted(n, 'agent')} in this format, got {value!r}")
            return [agents.resolve(a, name) for a in value]

        players, room = self.rules.players, self.room
        if room is None:
            if teammates is not None:
                raise ValueError("teammates= is for rooms; four players take partner=")
            if players == 3 and partner is not None:
                raise ValueError("three players have no partners; give opponents=[a, b]")
            roles = {"opponents": listed(opponents, 2, "opponents")}
            if players == 4:
                roles["partner"] = [agents.resolve("simple" if partner is None else partner, "partner")]
            return roles
        if partner is not None:
            raise ValueError("a room has no partner: give teammates=[...] (the learner's seat) and opponents=[...]")
        if self.learner_seat is None and room[0] != room[1]:
            raise ValueError(f"room {room} has seats of different sizes: fix learner_seat (0 or 1) so that "
                             "teammates and opponents fill them")
        seat = self.learner_seat or 0
        return {"teammates": listed(teammates, room[seat] - 1, "teammates"),
                "opponents": listed(opponents, room[1 - seat], "opponents")}

    def _seat_others(self, seat: int) -> dict[int, agents.Agent]:
        """Agent index -> agent, for the learner at ``seat`` (the seats of the class docstring)."""
        roles, players = self._roles, self.rules.players
        if self.room is not None:
            self.learner = self.table.agent_of(seat, 0)
            others = {self.table.agent_of(seat, m + 1): a for m, a in enumerate(roles["teammates"])}
            others.update({self.table.agent_of(1 - seat, m): a for m, a in enumerate(roles["opponents"])})
            return others
        self.learner = seat
        if players == 3:
            return {(seat + 1) % 3: roles["opponents"][0], (seat + 2) % 3: roles["opponents"][1]}
        return {(seat + 1) % 4: roles["opponents"][0], (seat + 2) % 4: roles["partner"][0],
                (seat + 3) % 4: roles["opponents"][1]}

    # -------------------------------------------------------------------------------------------------------------
    # Gymnasium API
    # -------------------------------------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start a game (or deal a hand, a deal) and play the others up to the learner's first decision.
        ``options``: ``learner_seat`` for this episode."""
        super().reset(seed=seed)
        options = dict(options or {})
        seats = 2 if self.room is not None else self.rules.players
        fixed = _seat_of_learner(options.pop("learner_seat", self.learner_seat), seats)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; known: learner_seat")
        self._check_room_seat(fixed)
        rng = self.np_random
        self._others_rng = np.random.default_rng(int(rng.integers(2**63)))
        # Over until a deal reaches the learner's first decision: step() refuses a reset that raised.
        self._steps, self._done = 0, True
        for _ in range(MAX_REDEALS):
            seat = fixed if fixed is not None else int(rng.integers(seats))
            self.others = self._seat_others(seat)
            if self.rules.players == 3 and self.episode == "hand":
                # One hand the learner plays: the seat that deals it and sits out is one of the other two.
                self.table.deal(rng, dealer=(seat + 1 + int(rng.integers(2))) % 3)
            else:
                self.table.deal(rng)
            points, info = self._play_others()
            if not self.table.over:
                break
        else:
            raise no_decision_error(self.rules)
        self._done = False
        self._pending = (points, info)
        return self._observe(), {"action_mask": self._mask()}

    def _check_room_seat(self, seat: int | None) -> None:
        """In a room whose seats differ in size, the teammates and opponents given fill the seat fixed when the env
        was made (R58): ``reset`` may not move the learner to the other seat."""
        room = self.room
        if room is not None and room[0] != room[1] and seat != self.learner_seat:
            raise ValueError(f"reset option learner_seat={seat}: room {room} has seats of different sizes, and its "
                             f"{len(self._roles['teammates'])} teammates and {len(self._roles['opponents'])} "
                             f"opponents fill the seats for learner_seat={self.learner_seat}; make an env with "
                             f"learner_seat={seat} to play the other seat")

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's action, then the others' until the learner's next decision or the episode's end."""
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        a = action_id(action)
        mask = self._mask()
        if not is_legal(a, mask):
            return self._illegal(a, mask)
        self._steps += 1
        points, info = self._pending
        self._pending = (0.0, {})
        more, more_info = self._apply(a)
        points, info = points + more, {**info, **more_info}
        if not self.table.over:
            more, more_info = self._play_others()
            points, info = points + more, {**info, **more_info}
        terminated = self.table.over
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        self._done = terminated or truncated
        obs = self._observe()
        info["action_mask"] = self._mask()
        return obs, float(points) / self.reward_scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, bool ``(108,)``."""
        if self._view is None and self.table.game is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask()

    def render(self) -> str | None:
        """The table as text: every seat's cards, the pile, the stock and the scores."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; make the env with render_mode='ansi'")
            return None
        if self.table.game is None:
            return "(no hand dealt: call reset())"
        names = [f"{'learner' if i == self.learner else type(self.others[i]).__name__}-{i}"
                 for i in range(self.table.n_agents)]
        return self.table.text(names)

    # -------------------------------------------------------------------------------------------------------------
    # Playing
    # -------------------------------------------------------------------------------------------------------------

    def _observe(self) -> np.ndarray:
        self._view = self.table.agent_view(self.learner)
        return np.zeros(OBS_SIZE, dtype=np.float32) if self._view is None else encode(self._view)

    def _mask(self) -> np.ndarray:
        """The learner's legal actions: its view's, when it is the one to act."""
        table = self.table
        if self._done or table.over or table.actor != self.learner:
            return _NO_ACTIONS.copy()
        return table.agent_view(self.learner).legal_mask

    def _apply(self, action: int) -> tuple[float, dict]:
        """Play one action of the agent to act; the learner's points and info from a hand (deal) that ended."""
        finished = self.table.play(action, self.np_random)
        if finished is None:
            return 0.0, {}
        return self.table.agent_points(finished, self.learner), self.table.agent_info(finished, self.learner, SIDES)

    def _play_others(self) -> tuple[float, dict]:
        """Let the others act until the learner must decide or the episode is over."""
        points, info = 0.0, {}
        while not self.table.over and self.table.actor != self.learner:
            i = self.table.actor
            agent, v = self.others[i], self.table.agent_view(i)
            action = agent.act(v, self._others_rng)
            a = agent_action(agent, action)
            if not is_legal(a, v.legal_mask):
                raise engine.IllegalActionError(f"agent {agent!r} chose {action!r}, which is not legal")
            more, more_info = self._apply(a)
            points, info = points + more, {**info, **more_info}
        return points, info

    def _illegal(self, action: int, mask: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict]:
        legal = ", ".join(actions.name(int(a)) for a in np.flatnonzero(mask)) or "none"
        shown = actions.name(action) if 0 <= action < N_ACTIONS else f"{action} (not an action id 0..{N_ACTIONS - 1})"
        message = f"illegal action {shown}: legal actions are {legal}"
        if self.illegal_action == "raise":
            raise engine.IllegalActionError(message)
        self._done = True
        self._steps += 1
        return (self._observe(), ILLEGAL_ACTION_REWARD, True, False,
                {"action_mask": _NO_ACTIONS.copy(), "illegal_action": True, "illegal_action_message": message})
