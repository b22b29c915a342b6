"""``GinRummy-v0``: one learner against an opponent that plays inside ``step``, as a Gymnasium env.

This module adapts ``table.Table`` to Gymnasium's single-agent API: which seat the learner holds, running the
opponent until the learner has a decision, illegal actions, truncation and replays. The episode kinds, rewards,
bonuses, infos, argument checks and text are ``table``'s; the rules ``engine``'s and ``match``'s; what the learner
sees ``observation``'s.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from gin_env import agents
from gin_env.game import actions, engine
from gin_env.game.actions import N_ACTIONS
from gin_env.game.observation import OBS_HIGH, OBS_LOW, PlayerView, encode
from gin_env.game.rules import Rules
from gin_env.table.two_players import (
    ILLEGAL_ACTION_REWARD,
    MAX_REDEALS,
    AtTable,
    Table,
    action_id,
    agent_action,
    check_env_args,
    check_render_mode,
    check_reward_scale,
    is_legal,
    no_decision_error,
    outcome_info,
    resolve_rules,
    seat_or_none,
)

#: How the learner's side and the other are named in infos and text.
SIDES = ("learner", "opponent")


class GinRummyEnv(AtTable, gym.Env):
    """Two-player Gin Rummy (docs/rules.md) from one player's seat; the opponent plays inside ``step``.

    ## Description

    The learner and a built-in opponent play Gin Rummy under configurable rules (``rules=``, presets of docs/rules.md
    section 10). Each turn the learner takes a card (from the stock or the discard pile), then discards, knocks or
    goes gin. The opponent's moves happen inside ``step`` and ``reset``, so every observation is a decision of the
    learner. An episode is one hand or a whole game to the target score.

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

    Card ids: ``c = suit * 13 + rank``, suits S, H, D, C, ranks A..K.

    ## Observation Space

    ``Box(0, high, (375,), float32)``: the encoding of ``gin_env.game.observation``, laid out by ``OBS_LAYOUT``: 52-card
    planes for the learner's hand, the top discard, the rest of the pile, the opponent's cards known from pickups,
    its discards, the upcards and discards it declined, and the cards still unseen; then the phase one-hot, the
    dealer flag, stock size, knock limit, own deadwood and the match scores. It holds only what the learner may
    know: the opponent's hidden cards and the stock order never change it.

    ## Starting State

    A shuffled deal from ``np_random``. The learner's seat (player 0 or 1) is drawn each episode unless ``learner_seat``
    fixes it; the dealer follows ``rules.first_dealer`` (a cut, so random, in most presets) and, in a match,
    ``rules.dealer_rotation``. When the opponent ends a hand before the learner has made any decision in it (it took the
    upcard and knocked at once), ``episode="hand"`` deals again; ``episode="match"`` counts that hand and pays it with
    the learner's first reward (and deals a new game if that one ended). After ``MAX_REDEALS`` (1,000) deals that all
    end before the learner's first decision, ``reset`` raises ``ValueError`` naming the rules. ``reset(options=...)``
    may fix the first hand's ``deck`` (52 card ids or card names, top first), its ``dealer`` and the ``learner_seat``,
    for scripted or duplicate deals.

    ## Rewards

    The learner's signed, zero-sum hand points divided by ``reward_scale``: ``+points`` for a hand it wins,
    ``-points`` for a hand it loses, 0 for a dead hand or a tie. With ``episode="match"`` each hand pays on the
    step it ends, and the step that ends the game also pays the end-of-game bonuses as ``match.final_totals``
    computes them (game, box, shutout), so an episode's rewards sum to (learner's final total - opponent's final
    total) / ``reward_scale``. An illegal action under ``illegal_action="penalize"`` pays -1.

    ## Episode End

    ``terminated``: the hand ends (knock, gin, big gin, dead hand, capped hand; ``episode="hand"``), the game
    reaches its target or is abandoned (``episode="match"``), or an illegal action is penalized. ``truncated``:
    ``max_steps`` learner steps taken. Every episode ends: a hand lasts at most ``rules.max_turns`` discards (R19)
    and a game at most ``rules.max_dead_hands`` dead hands in a row (R19a), even between players who never knock.

    ## Information

    ``info["action_mask"]``: bool ``(108,)``, all False once the episode ends; a copy, as ``action_masks()``'s. Whenever
    a hand ends during the step (and on the first step of a match episode, for a hand the opponent ended before the
    learner's first decision, the last one if several ended since): ``info["outcome"]``, a dict with ``kind``,
    ``capped`` (True for a dead hand ended by the turn cap ``rules.max_turns``, R19), ``winner`` and ``knocker``
    ("learner", "opponent" or None), the learner's signed ``points``, ``knocker_deadwood`` and ``defender_deadwood``
    (after layoffs). At the end of a match: ``info["match"]`` with both ``scores``, both ``final_totals`` (learner
    first), the ``winner``, the number of ``hands`` and ``abandoned`` (True when ``rules.max_dead_hands`` dead hands in
    a row ended the game with no winner and no bonuses, R19a). After an illegal action: ``info["illegal_action"] =
    True``.

    ## Actions given to ``step``

    An action is one integer: a python or numpy integer, or a 0-d integer array. An integer that is out of range or
    not legal now is an illegal action (``illegal_action`` decides). Anything else is a caller's mistake, raised
    whatever ``illegal_action`` says: a float (even ``1.0``), NaN, a string, a bool or None is a ``TypeError``, an
    array of another shape a ``ValueError``. The vector env and the PettingZoo env follow the same rule.

    ## Arguments

    ```python
    gym.make("GinRummy-v0", rules="standard", opponent="simple", episode="hand", reward_scale=100.0,
             illegal_action="penalize", learner_seat=None, max_steps=None, render_mode=None)
    ```

    * ``rules``: a preset name (``standard``, ``eaai``, ``oklahoma``, ``foony``, ``seed-000``, ``openspiel``) or a
      ``gin_env.game.rules.Rules``.
    * ``opponent``: an agent name for ``agents.load`` (``random``, ``simple``), a model path, an object with
      ``act(view, rng) -> action``, or such a function.
    * ``episode``: ``"hand"`` or ``"match"`` (a game to ``rules.target``; a single hand when the target is None).
    * ``reward_scale``: points per unit of reward, a finite positive number.
    * ``illegal_action``: ``"penalize"`` (end the episode, reward -1) or ``"raise"`` (``ValueError`` naming the
      action, the phase and the legal actions).
    * ``learner_seat``: 0 or 1 (any integer type) to fix the learner's player index; None draws it each episode.
    * ``max_steps``: truncate after this many learner steps (None: never).
    * ``render_mode``: ``"ansi"`` for the table as text (both hands, pile, stock count, scores), ``"rgb_array"`` for
      it as a picture (``gin_env.ui.frame``; Gymnasium's ``RecordVideo`` records it).

    ## Version History

    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, rules: str | Rules = "standard", opponent="simple", episode: str = "hand",
                 reward_scale: float = 100.0, illegal_action: str = "penalize", learner_seat: int | None = None,
                 max_steps: int | None = None, render_mode: str | None = None) -> None:
        max_steps = check_env_args(episode, reward_scale, illegal_action, max_steps)
        learner_seat = seat_or_none(learner_seat, "learner_seat")
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.rules = resolve_rules(rules)
        if self.rules.players != 2:
            raise ValueError(f"GinRummyEnv is two-player; rules.players={self.rules.players}: make the env with "
                             "gym.make('GinRummy-v0', players=..., opponents=[...]) (FormatEnv)")
        self.opponent = agents.resolve(opponent, "opponent")
        self.episode = episode
        self.reward_scale = check_reward_scale(reward_scale)
        self.illegal_action = illegal_action
        self.learner_seat = learner_seat
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.action_space = gym.spaces.Discrete(N_ACTIONS)
        self.observation_space = gym.spaces.Box(OBS_LOW, OBS_HIGH, dtype=np.float32)
        self.table = Table(self.rules, episode)
        self.learner = 0
        self._opponent_rng: np.random.Generator | None = None
        self._view: PlayerView | None = None
        self._steps = 0
        self._done = True
        self._pending_reward = 0
        self._pending_outcome: dict | None = None
        self._last_outcome: dict | None = None
        # For replay(): the hand in play as (its deal, match scores before it, its number in the game, the actions
        # of both players so far), and the last finished hand as the same tuple.
        self._hand_record: tuple[engine.HandState, tuple[int, int], int | None, list[int]] | None = None
        self._finished_hand: tuple[engine.HandState, tuple[int, int], int | None, list[int]] | None = None

    # -------------------------------------------------------------------------------------------------------------
    # Gymnasium API
    # -------------------------------------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new hand (or start a new game) and play the opponent up to the learner's first decision.

        ``options`` (all optional), for scripted deals and duplicate play: ``deck``, the deal order of the (first)
        hand as 52 card ids or card names, or one string of names, top first (R10); ``dealer``, 0 or 1, the dealer
        of that hand; ``learner_seat``, 0 or 1, the learner's player index for this episode (seats of any integer
        type). A bad option raises an error that names it."""
        super().reset(seed=seed)
        options = dict(options or {})
        deck = options.pop("deck", None)
        dealer = options.pop("dealer", None)
        seat = options.pop("learner_seat", self.learner_seat)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; known: deck, dealer, learner_seat")
        dealer, seat = seat_or_none(dealer, "dealer"), seat_or_none(seat, "learner_seat")
        if deck is not None:
            deck = engine.deck_ids(deck)
        rng = self.np_random
        # The opponent's own stream: its choices never shift the deals, and it is reproducible from the seed.
        self._opponent_rng = np.random.default_rng(int(rng.integers(2**63)))
        self._steps = 0
        # Over until a deal reaches the learner's first decision: step() refuses a reset that raised.
        self._done = True
        self._last_outcome = None
        for _ in range(MAX_REDEALS):
            self.learner = seat if seat is not None else int(rng.integers(2))
            self.table.deal(rng, deck=deck, dealer=dealer)
            self._finished_hand = None
            self._start_hand_record()
            points, outcome = self._play_opponent()
            if not self.table.over:
                break
            # The episode ended before the learner's first decision, so it has nothing to learn from (see Starting
            # State). A random deal is dealt again; a scripted one cannot be.
            if deck is not None:
                raise ValueError("the opponent ended the episode on this deck before the learner's first decision")
        else:
            raise no_decision_error(self.rules)
        self._done = False
        # In a match, hands finished before the learner's first decision stand; their points come with step one.
        self._pending_reward, self._pending_outcome = points, outcome
        self._view = self.table.view(self.learner)
        return encode(self._view), {"action_mask": self._view.legal_mask.copy()}

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's action, then the opponent's until the learner's next decision or the episode's end."""
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        a = action_id(action)
        if not is_legal(a, self._view.legal_mask):
            return self._illegal(action)
        self._steps += 1
        points, outcome = self._pending_reward, self._pending_outcome
        self._pending_reward, self._pending_outcome = 0, None
        more, new_outcome = self._apply(a)
        points += more
        outcome = new_outcome or outcome
        if not self.table.over:
            more, new_outcome = self._play_opponent()
            points += more
            outcome = new_outcome or outcome
        terminated = self.table.over
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        self._done = terminated or truncated
        self._view = self.table.view(self.learner)
        info = {"action_mask": self._view.legal_mask.copy()}
        if outcome is not None:
            info["outcome"] = self._last_outcome = outcome
        if terminated and self.match is not None:
            info["match"] = self.table.match_info(self.learner, SIDES)
        return encode(self._view), float(points) / self.reward_scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, bool ``(108,)`` (the name sb3-contrib's MaskablePPO looks for): a copy,
        so that a caller (or a wrapper) that edits it changes nothing the env accepts."""
        if self._view is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._view.legal_mask.copy()

    def replay(self):
        """The :class:`gin_env.replay.Replay` of the last hand of this episode: the deal, both players' actions
        and the outcome; ``env.unwrapped.replay().save(path)`` writes it. ``RuntimeError`` until a hand ends."""
        if self._finished_hand is None:
            raise RuntimeError("no hand has finished in this episode yet: replay() returns the last finished hand")
        # Imported on demand, so that making an env imports no more than it needs.
        from gin_env.replay.replay_file import record

        start, scores, number, hand_actions = self._finished_hand
        players = SIDES if self.learner == 0 else SIDES[::-1]
        return record(start, hand_actions, players=players, hand_number=number, scores=scores)

    def render(self) -> str | np.ndarray | None:
        """The table as text (``render_mode="ansi"``: both hands, the pile, the stock count and the scores) or as an
        RGB picture (``"rgb_array"``, ``gin_env.ui.frame``: the learner's hand face up, the opponent's face down until
        the showdown, the top of the pile, the stock count, the scores and the last hand's result)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; make the env with render_mode='ansi' or "
                            "'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return self._table_frame()
        if self.state is None:
            return "(no hand dealt: call reset())"
        names = SIDES if self.learner == 0 else SIDES[::-1]
        return self.table.text(names, viewer=self.learner, deadwood=None if self._view is None else self._view.deadwood,
                               last_outcome=self._last_outcome)

    # -------------------------------------------------------------------------------------------------------------
    # Playing
    # -------------------------------------------------------------------------------------------------------------

    def _start_hand_record(self) -> None:
        """Start recording the hand now in play (just dealt) for :meth:`replay`."""
        self._hand_record = (self.state, self.table.scores, self.table.hand_number, [])

    def _apply(self, action: int) -> tuple[int, dict | None]:
        """Play one action of whoever is to act. Returns the learner's points for it (``Table.points``) and the
        outcome of a hand that ended in it, as :func:`table.outcome_info`."""
        outcome = self.table.play(action, self.np_random)
        # Recorded once the engine has accepted it: a refused action is no part of the replay.
        self._hand_record[3].append(action)
        if outcome is None:
            return 0, None
        self._finished_hand = self._hand_record
        self._start_hand_record()
        return self.table.points(outcome, self.learner), outcome_info(outcome, self.learner)

    def _play_opponent(self) -> tuple[int, dict | None]:
        """Let the opponent act until the learner must decide or the episode is over. Returns the learner's points
        from hands that ended meanwhile and the last such hand's outcome."""
        opponent = 1 - self.learner
        points, outcome = 0, None
        # An agent that reads only the legal actions gets them without a view, whose deadwood solve and planes it
        # would throw away.
        act_on_mask = getattr(self.opponent, "act_on_mask", None)
        table = self.table
        while not table.over and (state := table.state).current == opponent:
            if act_on_mask is None:
                mask = (v := table.view(opponent)).legal_mask
                action = self.opponent.act(v, self._opponent_rng)
            else:
                mask = engine.legal_mask(state)
                action = act_on_mask(mask, self._opponent_rng)
            a = agent_action(self.opponent, action, "opponent")
            if not is_legal(a, mask):
                raise engine.IllegalActionError(f"opponent {self.opponent!r} chose {action!r}, which is not legal: "
                                                + _legal_text(self.table.view(opponent)))
            more, new_outcome = self._apply(a)
            points += more
            outcome = new_outcome or outcome
        return points, outcome

    def _illegal(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        message = f"illegal action {_action_text(action)}: " + _legal_text(self._view)
        if self.illegal_action == "raise":
            raise engine.IllegalActionError(message)
        self._done = True
        self._steps += 1
        mask = np.zeros(N_ACTIONS, dtype=bool)
        self._view = self._view._replace(legal_mask=mask)
        return (encode(self._view), ILLEGAL_ACTION_REWARD, True, False,
                {"action_mask": mask.copy(), "illegal_action": True, "illegal_action_message": message})

    def _table_frame(self) -> np.ndarray:
        from gin_env.ui import frame

        if self.state is None:
            picture = np.empty((frame.HEIGHT, frame.WIDTH, 3), dtype=np.uint8)
            picture[:] = frame.FELT
            return picture
        scores = self.table.scores
        result = None if self._last_outcome is None else frame.result_line(self._last_outcome)
        return frame.draw(self.state, self.learner, ("LEARNER", "OPPONENT"),
                          None if self.match is None else (scores[self.learner], scores[1 - self.learner]), result)


def _action_text(action) -> str:
    a = action_id(action)
    if not 0 <= a < N_ACTIONS:
        return f"{action!r} (not an action id 0..{N_ACTIONS - 1})"
    return actions.name(a)


def _legal_text(v: PlayerView) -> str:
    legal = ", ".join(actions.name(a) for a in v.legal_actions) or "none"
    return f"phase {engine.PHASE_NAMES[v.phase]!r}, legal actions: {legal}"

