"""``GinRummy-v0``: one learner against agents that play inside ``step``, as a Gymnasium env, in every format.

This module adapts any table (``gin_env.table.protocol.GameTable``) to Gymnasium's single-agent API: the learner's
agent, the others played until its decision, illegal actions, truncation, rendering, replays. What differs by format
is the table's (seats, turns, views, rewards, infos, text, capabilities); the role arguments are ``roles``'."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from gin_env.envs import hand_history, roles
from gin_env.game import engine
from gin_env.game.actions import n_actions
from gin_env.game.observation import PlayerView, encode, obs_bounds, obs_size
from gin_env.game.rules import Rules
from gin_env.table.checks import (
    ILLEGAL_ACTION_REWARD,
    MAX_REDEALS,
    action_id,
    check_env_args,
    check_match_record,
    check_render_mode,
    check_reward_scale,
    illegal_action_message,
    is_legal,
    no_decision_error,
    resolve_rules,
    seat_among,
)
from gin_env.table.formats import make_table, resolve_format
from gin_env.table.protocol import AtTable, not_offered
from gin_env.table.two_players import OUTCOME_SIDES


class GinRummyEnv(AtTable, gym.Env):
    """Gin Rummy (docs/rules.md) from one player's seat; every other player is an agent that plays inside ``step``.

    ## Description

    The learner and built-in agents play Gin Rummy under configurable rules (``rules=``, presets of docs/rules.md
    section 10). Each turn the learner takes a card (from the stock or the discard pile), then discards, knocks or
    goes gin. The others' moves happen inside ``step`` and ``reset``, so every observation is a decision of the
    learner. An episode is one hand or a whole game to the target score.

    ## Formats

    Two players by default; three players, four players in two teams and rooms (docs/rules.md section 15) with
    ``players=`` (or ``rules.players``) or ``room=``, every hand still a two-player hand. The same class plays them
    all; what differs is the table's (``gin_env.table``):

    ```python
    gym.make("GinRummy-v0", opponent="simple")
    gym.make("GinRummy-v0", players=3, opponents=["simple", "expert"])
    gym.make("GinRummy-v0", players=4, partner="expert", opponents=["simple", "simple"])
    gym.make("GinRummy-v0", room=(2, 3), teammates=["simple"], opponents=["expert", "simple", "random"],
             learner_seat=0)
    ```

    Seats: two players, the ``opponent`` in the other seat; three players, ``opponents[0]`` at the learner's left
    (seat + 1) and ``opponents[1]`` at seat + 2; four players, the ``partner`` opposite (seat + 2), ``opponents`` at
    seat + 1 and seat + 3; a room, the learner is the first member of its seat, ``teammates`` its other members in
    order, ``opponents`` the other seat's members. Agents default to ``"simple"``. The learner acts only on its own
    decisions (in a room, its own turns, R58) and sees its seat's hand (R59). ``replay()`` and
    ``render_mode="rgb_array"`` are two-player capabilities: other formats refuse them with ``NotOffered`` (a
    ``ValueError``) naming the format.

    ## Action Space

    ``Discrete(108)``, gated by the phase of the hand; ``action_masks()`` (and ``info["action_mask"]``) gives the
    legal ones.

    | id | action | legal when |
    |---|---|---|
    | 0 | DRAW_STOCK | draw phase (after both passed on the upcard, the only choice, R13c) |
    | 1 | TAKE_DISCARD | draw phase; the upcard offer (take the upcard, R13); the wall if it allows a knock (R38) |
    | 2 | PASS | the upcard offer; the wall |
    | 3 | BIG_GIN | all 11 cards melded and big gin enabled (R24) |
    | 4 + c | DISCARD(c) | 11 cards held, c not the card just taken from the pile (R16) |
    | 56 + c | KNOCK(c) | as DISCARD, and the other 10 cards have deadwood <= the knock limit (R20); gin at 0 |
    | 108 | DISCARD(JK) | rules with jokers: a joker held, and no joker taken from the pile this turn (R71, R72) |
    | 109 | KNOCK(JK) | as DISCARD(JK), and the other 10 cards have deadwood <= the knock limit |

    Card ids: ``c = suit * 13 + rank``, suits S, H, D, C, ranks A..K. With jokers (``rules.jokers`` > 0, docs/rules.md
    section 17) the space is ``Discrete(110)``: the lowest joker held moves by the joker actions.

    ## Observation Space

    ``Box(0, high, (375,), float32)``: the encoding of ``gin_env.game.observation``, laid out by ``OBS_LAYOUT``:
    52-card planes for the learner's hand, the top discard, the rest of the pile, the opponent's cards known from
    pickups, its discards, the upcards and discards it declined, and the cards still unseen; then the phase one-hot,
    the dealer flag, stock size, knock limit, own deadwood and the match scores (own first: the hand opponent's with
    three players, the teams' over ``team_target`` with four). It holds only what the learner may know: hidden cards
    and the stock order never change it. A three-player learner sitting a hand out observes zeros. With
    ``information_state=True``: ``Dict(observation=that Box, history=Box(0, n_tokens(rules) - 1, (L,), int16))``,
    the public events of the learner's hand so far, a token each (``gin_env.game.information_state``; docs/belief.md).
    With ``match_record=True``: 381 entries, the match record appended (``RECORD_OBS_LAYOUT``, ``game.match_record``).
    With jokers, R72's seven joker counts follow (``obs_layout(rules)``: 382 entries, 388 with the match record), and
    no entry or token names a joker by id.

    ## Starting State

    A shuffled deal from ``np_random``. The learner's seat is drawn each episode unless ``learner_seat`` fixes it;
    the dealer follows ``rules.first_dealer`` (a cut, so random, in most presets) and, in a match,
    ``rules.dealer_rotation``. When the others end a hand before the learner has made any decision in it (the
    opponent took the upcard and knocked at once), ``episode="hand"`` deals again; ``episode="match"`` counts that
    hand and pays it with the learner's first reward (and deals a new game if that one ended). After ``MAX_REDEALS``
    (1,000) deals that all end before the learner's first decision, ``reset`` raises ``ValueError`` naming the rules.
    ``reset(options=...)`` may fix the ``learner_seat`` and, with two players, the first hand's ``deck`` (52 card ids
    or card names, top first) and its ``dealer``, for scripted or duplicate deals.

    ## Rewards

    The learner's signed, zero-sum points divided by ``reward_scale``: ``+points`` for a hand it wins, ``-points``
    for a hand it loses, 0 for a dead hand or a tie; with four players a deal's netted team result (R56), in a room
    its seat's points. With ``episode="match"`` each hand (deal) pays on the step it ends, and the step that ends the
    game also pays the end-of-game bonuses (R41-R43, R53, R57: a seat's or team's bonus less the others', less their
    mean with three players), so an episode's rewards sum to the learner's final total less the others' (their mean)
    over ``reward_scale``. An illegal action under ``illegal_action="penalize"`` pays -1.

    ## Episode End

    ``terminated``: the hand (deal) ends (``episode="hand"``), the game reaches its target or is abandoned
    (``episode="match"``), or an illegal action is penalized. ``truncated``: ``max_steps`` learner steps taken.
    Every episode ends: a hand lasts at most ``rules.max_turns`` discards (R19) and a game at most
    ``rules.max_dead_hands`` dead hands (deals) in a row (R19a), even between players who never knock.

    ## Information

    ``info["action_mask"]``: bool ``(108,)``, all False once the episode ends; a copy, as ``action_masks()``'s.
    Whenever hands end during the step (on a match episode's first step, also those the others ended before the
    learner's first decision): ``info["hands_ended"]``, how many, ``info["hand_points"]``, the learner's (team's)
    points summed over them, without bonuses, and for the last one ``info["outcome"]``, a dict with ``kind``,
    ``capped`` (True for a dead hand ended by the turn cap, R19), ``winner`` and ``knocker`` ("learner", "opponent"
    or None), the learner's signed ``points``, ``knocker_deadwood`` and ``defender_deadwood`` (after layoffs); with
    three players seat numbers instead (``seats``, ``winner``, ``knocker``, ``sat_out``), in a room also the
    ``seat``; with four players ``info["deal"]`` (its ``number``, the team's ``points``, each pairing's outcome under
    ``tables``). At the end of a match: ``info["match"]`` with the ``scores``, the ``final_totals`` (learner first;
    by seat with three players, with the ``ranking``), the ``winner``, the number of ``hands`` (``deals``) and
    ``abandoned`` (R19a: no winner and no bonuses). After an illegal action: ``info["illegal_action"] = True`` and
    ``info["illegal_action_message"]``.

    ## Actions given to ``step``

    An action is one integer: a python or numpy integer, or a 0-d integer array. An integer that is out of range or
    not legal now is an illegal action (``illegal_action`` decides; the message names the action, the phase and the
    legal actions). Anything else is a caller's mistake, raised whatever ``illegal_action`` says: a float (even
    ``1.0``), NaN, a string, a bool or None is a ``TypeError``, an array of another shape a ``ValueError``. The
    vector env and the PettingZoo env follow the same rule. ``step`` before ``reset`` or after the episode's end
    raises ``RuntimeError`` saying to call ``reset()``. An error while the others play inside ``step`` or ``reset``
    (an agent's ``act`` raising, or choosing an illegal action) ends the episode: raised with a note saying so, then
    ``action_masks()`` offers nothing and ``step`` raises ``RuntimeError`` until ``reset()``.

    ## Arguments

    ```python
    gym.make("GinRummy-v0", rules="standard", opponent="simple", episode="hand", reward_scale=100.0,
             illegal_action="penalize", learner_seat=None, max_steps=None, render_mode=None,
             players=None, room=None, opponents=None, partner=None, teammates=None, information_state=False)
    ```

    * ``rules``: a preset name (``standard``, ``eaai``, ``oklahoma``, ``foony``, ``seed-000``, ``openspiel``) or a
      ``gin_env.game.rules.Rules``.
    * ``opponent`` (two players), ``opponents``, ``partner`` (four players), ``teammates`` (rooms): agents, each an
      agent name for ``agents.load`` (``random``, ``simple``, ...), a model path, an object with
      ``act(view, rng) -> action``, or such a function; ``opponents`` and ``teammates`` are lists.
    * ``players``: 2, 3 or 4 (None: ``rules.players``); ``room``: (k0, k1) members per seat (R58), or None.
    * ``episode``: ``"hand"`` or ``"match"`` (a game to ``rules.target``; a single hand when the target is None).
    * ``reward_scale``: points per unit of reward, a finite positive number.
    * ``illegal_action``: ``"penalize"`` (end the episode, reward -1) or ``"raise"`` (``ValueError`` naming the
      action, the phase and the legal actions).
    * ``learner_seat``: a seat (0..players-1, 0 or 1 in a room; any integer type) to fix the learner's seat; None
      draws it each episode. A room whose seats differ in size needs it, and ``reset`` may not move the learner to
      the other seat of such a room (``ValueError``).
    * ``max_steps``: truncate after this many learner steps (None: never).
    * ``render_mode``: ``"ansi"``, the table as text (hands, pile, stock count, scores); ``"human"``, that text printed
      at every reset and step; ``"rgb_array"`` (two players), a picture (``gin_env.ui.frame``) for ``RecordVideo``.
    * ``information_state``: True adds the history of the learner's hand to each observation (a bool; rules under
      which a hand's events have no bound, ``max_turns=None``, R19, are a ``ValueError``).
    * ``match_record``: True appends how each player ended the match's earlier hands to each observation (a bool;
      ``episode="match"`` under rules with a target and two seats, else a ``ValueError``).

    ## Version History

    * v0, gin-env 0.1.0, the first numbered version: two players, three players, four players and rooms;
      ``episode="hand"`` and ``"match"``; the presets; ``render_mode="rgb_array"``; ``replay()``. Before that number,
      the id changed behaviour twice without a new id: ``eaai`` came to deal as the EAAI protocol does, and
      ``openspiel`` to end hands by R60 and R61.
    * v0, gin-env 0.2.0: ``info["action_mask"]`` and ``action_masks()`` are copies; ``reset`` raises ``ValueError``
      after 1,000 deals that never reach the learner (it looped); a room of unequal seats refuses the other seat;
      ``max_steps`` and ``players`` of any integer type; ``Rules`` bounds every number; the text says "1 card".
    * v0, gin-env 0.3.0: one class for every format (``type(env.unwrapped)`` is ``GinRummyEnv``), one set of
      messages for illegal actions and misuse; observations, rewards, terminations and infos as in 0.2.0.
    * v0, gin-env 0.4.0: ``information_state=True`` adds the history of the learner's hand to each observation;
      without it, everything an episode returns is as in 0.3.0.
    * v0, gin-env 0.7.0: ``match_record=True`` appends the match record to each observation; without it,
      everything an episode returns is as in 0.6.0.
    * v0, gin-env 0.9.1: ``info`` adds ``hands_ended`` and ``hand_points``; everything else is as in 0.9.0.

    The next change to what an episode returns, other than a new ``info`` key, registers ``GinRummy-v1``.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(self, rules: str | Rules = "standard", opponent=None, episode: str = "hand",
                 reward_scale: float = 100.0, illegal_action: str = "penalize", learner_seat: int | None = None,
                 max_steps: int | None = None, render_mode: str | None = None, *, players: int | None = None,
                 room=None, opponents=None, partner=None, teammates=None, information_state: bool = False,
                 match_record: bool = False) -> None:
        max_steps = check_env_args(episode, reward_scale, illegal_action, max_steps)
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.rules, self.room = resolve_format(resolve_rules(rules), players, room)
        self.match_record = check_match_record(match_record, episode, self.rules)
        self.table = make_table(self.rules, episode, self.room)
        if render_mode not in (None, "human", *self.table.render_modes):  # "human" prints the text every table has
            raise not_offered(self.table, f"render_mode={render_mode!r}")
        # This env's own modes, the ones its table offers (Gymnasium's env checker makes the env in each).
        self.metadata = {**self.metadata, "render_modes": ["human", *self.table.render_modes]}
        self.learner_seat = seat_among(learner_seat, self.table.learner_seats, "learner_seat")
        #: The other agents by role (``roles``), resolved.
        self.roles = roles.resolve_roles(self.table, self.learner_seat, {
            "opponent": opponent, "opponents": opponents, "partner": partner, "teammates": teammates})
        self.episode = episode
        self.reward_scale = check_reward_scale(reward_scale)
        self.illegal_action = illegal_action
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.action_space = gym.spaces.Discrete(n_actions(self.rules))
        # The history of the learner's hand (information_state=True), else a stand-in that adds nothing.
        self._history = hand_history.history(self.table, information_state)
        self.observation_space = self._history.space(gym.spaces.Box(
            *obs_bounds(self.match_record, rules=self.rules), dtype=np.float32))
        #: The learner's seat this episode, and its agent index (the seat's, or its first member's in a room).
        self.seat: int | None = None
        self.learner = 0
        #: The agent of every other seat (member) this episode, by agent index.
        self.others: dict[int, object] = {}
        self._seated: dict[int, roles.Seated] = {}
        self._others_rng: np.random.Generator | None = None
        self._view: PlayerView | None = None
        self._mask: np.ndarray | None = None
        self._steps, self._done = 0, True
        self._pending: tuple[float, dict] = (0, {})
        self._last_outcome: dict | None = None

    @property
    def opponent(self):
        """The opponent agent of two players (None in other formats); one assigned plays from its next action on."""
        return self.roles["opponent"][0] if "opponent" in self.roles else None

    @opponent.setter
    def opponent(self, agent) -> None:
        if "opponent" not in self.roles:
            raise AttributeError(f"{self.table.name} has no single opponent: make an env with its role arguments")
        self.roles["opponent"][0] = agent
        if self.seat is not None:
            self._seat(self.seat)

    # --- Gymnasium API ---------------------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray | dict, dict]:
        """Deal a new hand (or start a new game) and play the others up to the learner's first decision.

        ``options`` (all optional): ``learner_seat``, the learner's seat for this episode (any integer type); with
        two players, for scripted deals and duplicate play, ``deck``, the deal order of the (first) hand as 52 card
        ids or card names, or one string of names, top first (R10), and ``dealer``, 0 or 1, its dealer. A bad option
        raises an error that names it, before any work."""
        super().reset(seed=seed)
        seat, fixed = roles.reset_options(self.table, options, self.roles, self.learner_seat)
        rng = self.np_random
        # The others' own stream: their choices never shift the deals, and it is reproducible from the seed.
        self._others_rng = np.random.default_rng(int(rng.integers(2**63)))
        # Over until a deal reaches the learner's first decision: step() refuses a reset that raised.
        self._steps, self._last_outcome = 0, None
        self._halt()
        for _ in range(MAX_REDEALS):
            self._seat(seat if seat is not None else int(rng.integers(self.table.learner_seats)))
            self.table.deal_for(self.seat, rng, **fixed)
            self._history.dealt(self.learner)
            points, info = self._play_others(0, {})
            if not self.table.over:
                break
            # The episode ended before the learner's first decision, so it has nothing to learn from (see Starting
            # State). A random deal is dealt again; a scripted one cannot be.
            if fixed.get("deck") is not None:
                raise ValueError("the scripted deck ends the episode before the learner's first decision")
        else:
            raise no_decision_error(self.rules)
        self._done = False
        # In a match, hands finished before the learner's first decision stand; their points come with step one.
        self._pending = (points, info)
        return self._observe(), {"action_mask": self._mask.copy()}

    def step(self, action) -> tuple[np.ndarray | dict, float, bool, bool, dict]:
        """Apply the learner's action, then the others' until the learner's next decision or the episode's end."""
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        a = action_id(action)
        if not is_legal(a, self._mask):
            return self._illegal(action)
        self._steps += 1
        points, info = self._pending
        self._pending = (0, {})
        table = self.table
        finished = self._history.play(a, self.np_random)
        if finished is not None:
            points, info = self._paid(points, info, finished)
        if not table.over:
            points, info = self._play_others(points, info)
        terminated = table.over
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        self._done = terminated or truncated
        self._last_outcome = info.get("outcome", self._last_outcome)  # before _observe(), which may print it
        obs = self._observe()
        return obs, float(points) / self.reward_scale, terminated, truncated, {**info, "action_mask": self._mask.copy()}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, bool ``(108,)`` (the name sb3-contrib's MaskablePPO looks for): a copy,
        so that a caller (or a wrapper) that edits it changes nothing the env accepts."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    def replay(self):
        """The :class:`gin_env.replay.replay_file.Replay` of the last hand of this episode (two players): the deal,
        both players' actions and the outcome; ``env.unwrapped.replay().save(path)`` writes it. ``RuntimeError``
        until a hand ends; ``NotOffered`` in other formats."""
        hand = self.table.last_hand(self.learner)
        # Imported on demand, so that making an env imports no more than it needs.
        from gin_env.replay.replay_file import record

        return record(hand.start, hand.actions, players=hand.players, hand_number=hand.hand_number,
                      scores=hand.scores)

    def render(self) -> str | np.ndarray | None:
        """The table as text (``"ansi"``; ``"human"`` prints it, as every reset and step does) or, with two players, as
        an RGB picture (``"rgb_array"``, ``gin_env.ui.frame``: the hands, the pile, the stock, scores and result)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; make it with render_mode='ansi' or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            from gin_env.ui import frame

            return frame.learner_picture(self.table, self.learner, self._last_outcome)
        if self.table.game is None:
            return "(no hand dealt: call reset())"
        text = self.table.learner_text(self.learner, self.others, self._last_outcome)
        return text if self.render_mode == "ansi" else print(text)  # "human": printed, and None as Gymnasium asks

    # --- Playing ---------------------------------------------------------------------------------------------------

    def _seat(self, seat: int) -> None:
        """Seat the learner at ``seat`` and the others around it (the table's ``seating``)."""
        self.seat = seat
        self.learner, self._seated = roles.seated(self.table, seat, self.roles)
        self.others = {i: seated.agent for i, seated in self._seated.items()}

    def _observe(self) -> np.ndarray | dict:
        """The learner's observation now; keeps its view and legal actions (none while it sits out or is done)."""
        if self.render_mode == "human":  # Gymnasium's "human" mode: shown as play goes, without a call to render()
            self.render()
        view = self._view = self.table.agent_view(self.learner)
        if view is None:
            self._mask = np.zeros(self.action_space.n, dtype=bool)
            return self._history.observe(np.zeros(obs_size(self.match_record, rules=self.rules), dtype=np.float32))
        self._mask = view.legal_mask
        return self._history.observe(encode(view, self.match_record))

    def _paid(self, points: float, info: dict, finished) -> tuple[float, dict]:
        """``points`` and ``info`` with the learner's share of a finished hand (deal), counted in ``hands_ended``."""
        ended = self.table.agent_info(finished, self.learner, OUTCOME_SIDES)
        own = ended.get("deal", ended.get("outcome"))["points"]
        counts = {"hands_ended": info.get("hands_ended", 0) + 1, "hand_points": info.get("hand_points", 0) + own}
        return points + self.table.agent_points(finished, self.learner), {**info, **ended, **counts}

    def _play_others(self, points: float, info: dict) -> tuple[float, dict]:
        """Let the others act until the learner must decide or the episode is over, adding what the learner is paid
        for hands (deals) that finish meanwhile to ``points`` and ``info``."""
        table, learner, rng, deal_rng = self.table, self.learner, self._others_rng, self.np_random
        with roles.episode_ends_on_error(self._halt):
            while not table.over and (i := table.actor) != learner:
                finished = self._history.play(roles.choose(table, i, self._seated[i], rng), deal_rng)
                if finished is not None:
                    points, info = self._paid(points, info, finished)
        return points, info

    def _halt(self) -> None:
        """End the episode where it stands: no legal action offered, and ``step`` refused until ``reset``."""
        self._done, self._mask = True, np.zeros(self.action_space.n, dtype=bool)

    def _illegal(self, action) -> tuple[np.ndarray | dict, float, bool, bool, dict]:
        message = illegal_action_message(action, self._view)
        if self.illegal_action == "raise":
            raise engine.IllegalActionError(message)
        self._halt()
        self._steps += 1
        self._view = self._view._replace(legal_mask=self._mask)
        return (self._history.observe(encode(self._view, self.match_record)), ILLEGAL_ACTION_REWARD, True, False,
                {"action_mask": self._mask.copy(), "illegal_action": True, "illegal_action_message": message})
