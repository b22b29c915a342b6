"""The framing every adapter shares: a game at a table, seat by seat.

This module owns what lies between the rules (``engine``, ``match``) and an env's API: the episode kind (a single
hand is a match of one hand, ``match.new_match(single_hand=True)``, so both kinds take one code path), who acts
next, what each seat sees, each seat's reward for a step (hand points, and the end-of-game bonuses on the step that
ends the game), the outcome and match dicts of ``info``, the ansi text, and the checks of the arguments the envs
share. ``GinRummyEnv`` (one learner, the opponent inside ``step``) and the PettingZoo env (one agent per seat) are
thin adapters over :class:`Table`; ``batch_table`` is its batched twin for the vector env.

The formats of docs/rules.md section 15 (three players, four players in two teams, rooms) are ``format_table``'s
tables, with the agents' interface of :class:`Table` (``n_agents``, ``actor``, ``agent_view``, ``agent_points``,
``agent_info``): every hand stays a two-player engine hand, and the adapters play every format through that one
interface.
"""

from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from gin_env.game import cards, engine, match
from gin_env.game.actions import N_ACTIONS
from gin_env.game.observation import PlayerView, view
from gin_env.game.rules import Rules

EPISODES = ("hand", "match")
ILLEGAL_ACTION_MODES = ("penalize", "raise")
#: Reward of an illegal action under ``illegal_action="penalize"``, whatever ``reward_scale`` is.
ILLEGAL_ACTION_REWARD = -1.0
#: Labels of a hand outcome's sides, from the seat it is told to: its own, the other.
OUTCOME_SIDES = ("learner", "opponent")
#: Deals ``reset`` tries for one in which the learner gets a decision, before it gives up (some rules end every deal
#: first: a fixed dealer under ``deal_mode="eleven"`` and ``max_turns=1``, say).
MAX_REDEALS = 1_000


# -----------------------------------------------------------------------------------------------------------------
# Argument checks
# -----------------------------------------------------------------------------------------------------------------

def check_env_args(episode: str, reward_scale: float, illegal_action: str, max_steps: int | None) -> int | None:
    """Validate the arguments of the single-agent envs (scalar and vector); each error names its argument. Returns
    ``max_steps`` as an int (or None)."""
    check_episode(episode)
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
    check_reward_scale(reward_scale)
    return None if max_steps is None else positive_int(max_steps, "max_steps")


def integer(value, name: str) -> int:
    """``value`` as an int: any integer type is accepted (numpy's too); a bool, a float (even ``2.0``) or anything
    else raises ``TypeError`` naming the argument ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)


def positive_int(value, name: str) -> int:
    """``value`` as an int >= 1 (:func:`integer`'s types; ``ValueError`` naming ``name`` below 1)."""
    n = integer(value, name)
    if n < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return n


def check_episode(episode: str) -> None:
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")


def check_reward_scale(reward_scale) -> float:
    """``reward_scale`` as a float: a finite positive real number (an infinite scale would make every reward 0)."""
    if isinstance(reward_scale, bool) or not isinstance(reward_scale, numbers.Real):
        raise TypeError(f"reward_scale must be a positive real number, got {reward_scale!r}")
    scale = float(reward_scale)
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"reward_scale must be finite and positive, got {reward_scale!r}")
    return scale


def check_render_mode(render_mode: str | None, modes: list[str]) -> None:
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")


def seat_or_none(value, name: str) -> int | None:
    """A seat argument: None, or 0 or 1 as any integer type (``engine.player_index`` names ``name`` on errors)."""
    return None if value is None else engine.player_index(value, name)


def no_decision_error(rules: Rules) -> ValueError:
    """The error of a ``reset`` that dealt ``MAX_REDEALS`` times and never reached the learner's first decision."""
    return ValueError(f"no deal reached the learner's first decision in {MAX_REDEALS:,} deals under "
                      f"{rules.describe()}: the other players end every episode before the learner acts; change the "
                      "rules (max_turns, knock_limit, deal_mode, first_dealer) or learner_seat")


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: "1 card", "0 cards", "31 cards"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def resolve_rules(rules: str | Rules) -> Rules:
    """A ``Rules`` from a preset name or a ``Rules``."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    raise TypeError(f"rules must be a preset name or a Rules, got {type(rules).__name__}")


def action_id(action) -> int:
    """One action as an int id: a python or numpy integer, or a 0-d integer array. The rule every env shares: a
    float (even 1.0), NaN, a string, a bool or anything else raises ``TypeError``, an array of another shape
    ``ValueError``; an integer that is out of range or not legal is an illegal action, which the env handles."""
    if type(action) is int:  # the common case, on every step of every env: answered before the checks
        return action
    if isinstance(action, np.ndarray):
        if action.shape != ():
            raise ValueError(f"an action must be one integer, got an array of shape {action.shape}")
        action = action[()]
    if isinstance(action, (bool, np.bool_)):
        raise TypeError(f"an action must be an integer action id, got {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        raise TypeError(f"an action must be an integer action id, got {action!r} ({type(action).__name__})") from None


class AgentActionError(TypeError):
    """An agent's ``act`` answered with something other than one integer action id; the message names the agent."""


def agent_action(agent, action, role: str = "agent") -> int:
    """The action an agent (an opponent, a seat's agent, a bot) answered, as an int id by :func:`action_id`'s rule;
    anything else raises :class:`AgentActionError` naming the ``role`` and the ``agent``, never coerced
    (``int(1.7)`` would play 1)."""
    try:
        return action_id(action)
    except (TypeError, ValueError) as error:
        raise AgentActionError(f"{role} {agent!r}: {error}") from None


def is_legal(action: int, legal_mask: np.ndarray) -> bool:
    """An action id in range and legal in ``legal_mask`` (a view's, or the engine's)."""
    return 0 <= action < N_ACTIONS and bool(legal_mask[action])


# -----------------------------------------------------------------------------------------------------------------
# The game at the table
# -----------------------------------------------------------------------------------------------------------------

def outcome_info(outcome: engine.HandOutcome, player: int) -> dict:
    """A hand outcome told to ``player``: who won and knocked (``OUTCOME_SIDES``: its own side, the other, or None)
    and that player's signed points."""

    def side(p: int | None) -> str | None:
        return None if p is None else OUTCOME_SIDES[p != player]

    return {"kind": outcome.kind, "capped": outcome.capped, "winner": side(outcome.winner),
            "points": outcome.player_points(player), "knocker": side(outcome.knocker),
            "knocker_deadwood": outcome.knocker_deadwood, "defender_deadwood": outcome.defender_deadwood}


class AtTable:
    """What an adapter over a :class:`Table` (its ``table``) shows of the game as attributes."""

    table: Table

    @property
    def state(self) -> engine.HandState | None:
        """The hand in play (the last one once the episode is over); None before the first deal."""
        return self.table.state

    @property
    def match(self) -> match.MatchState | None:
        """The game to the target with ``episode="match"``; None for single hands."""
        return self.table.match


class Table:
    """One game of ``rules`` for two seats, dealt again by :meth:`deal`: ``episode="hand"`` plays one hand,
    ``"match"`` a game to the target. Seat ``p`` is player ``p`` of the engine."""

    def __init__(self, rules: Rules, episode: str) -> None:
        check_episode(episode)
        self.rules = rules
        self.episode = episode
        self.game: match.MatchState | None = None

    # --- the state --------------------------------------------------------------------------------------------------

    def deal(self, rng: np.random.Generator, *, deck=None, dealer: int | None = None) -> None:
        """Start the episode's game and deal its first hand; ``deck`` and ``dealer`` fix that hand."""
        self.game = match.new_match(self.rules, rng, dealer=dealer, deck=deck, single_hand=self.episode == "hand")

    @property
    def state(self) -> engine.HandState | None:
        """The hand in play (the last hand once the game is over); None before the first deal."""
        return None if self.game is None else self.game.hand

    @property
    def match(self) -> match.MatchState | None:
        """The game to the target in a match episode; None in a single-hand episode."""
        return self.game if self.episode == "match" else None

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def current(self) -> int:
        """The seat to act."""
        return self.state.current

    @property
    def scores(self) -> tuple[int, int]:
        """Match scores by seat; (0, 0) in a single-hand episode, where no score is kept."""
        return self.game.scores if self.episode == "match" else (0, 0)

    @property
    def hand_number(self) -> int | None:
        """The number of the hand in play within the game; None in a single-hand episode."""
        return len(self.game.history) + 1 if self.episode == "match" else None

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now."""
        return view(self.state, seat, self.scores)

    # --- playing ----------------------------------------------------------------------------------------------------

    def play(self, action: int, rng: np.random.Generator) -> engine.HandOutcome | None:
        """Apply the action of the seat to act (``engine.IllegalActionError`` with nothing changed when it is not
        legal, R18). Returns the outcome of a hand that ended, recorded in the game (the next hand dealt with
        ``rng`` if the game goes on), else None."""
        hands_before = len(self.game.history)
        self.game = match.step(self.game, action, rng)
        return self.game.history[-1] if len(self.game.history) > hands_before else None

    def points(self, outcome: engine.HandOutcome | None, seat: int) -> int:
        """``seat``'s signed points for a step: the hand's points if one ended, and once the game is over, the
        end-of-game bonuses (game, box, shutout) as the final totals' difference beyond the hand points paid hand by
        hand. A step's reward is this over the env's ``reward_scale``."""
        return (0 if outcome is None else outcome.player_points(seat)) + (self.bonus(seat) if self.over else 0)

    def bonus(self, seat: int) -> int:
        """The end-of-game part of ``seat``'s margin (0 for a single hand or an abandoned game)."""
        totals, scores, other = match.final_totals(self.game), self.game.scores, 1 - seat
        return (totals[seat] - totals[other]) - (scores[seat] - scores[other])

    # --- the agents' interface every format shares (``format_table``); here an agent is a seat ---------------------

    #: Agents at the table: one per seat.
    n_agents = 2

    @property
    def actor(self) -> int:
        """The agent to act: the seat to act."""
        return self.state.current

    def agent_view(self, agent: int) -> PlayerView:
        """What ``agent`` may know now: its seat's view."""
        return self.view(agent)

    def agent_points(self, outcome: engine.HandOutcome, agent: int) -> int:
        """``agent``'s points for a step that ended a hand: :meth:`points`."""
        return self.points(outcome, agent)

    def agent_info(self, outcome: engine.HandOutcome, agent: int, sides: tuple[str, str]) -> dict:
        """The info of ``agent`` for a step that ended a hand: the ``outcome`` (:func:`outcome_info`) and, once a
        match episode is over, the ``match`` (:meth:`match_info`)."""
        info = {"outcome": outcome_info(outcome, agent)}
        end = self.match_info(agent, sides)
        if end is not None:
            info["match"] = end
        return info

    def match_info(self, seat: int, sides: tuple[str, str]) -> dict | None:
        """The finished game told to ``seat`` (own numbers first; ``sides`` labels the winner: own, other); None
        unless a match episode is over."""
        if self.match is None or not self.over:
            return None
        m, other = self.game, 1 - seat
        totals = match.final_totals(m)
        winner = None if m.winner is None else sides[m.winner != seat]
        return {"scores": (m.scores[seat], m.scores[other]), "final_totals": (totals[seat], totals[other]),
                "winner": winner, "hands": len(m.history), "abandoned": m.abandoned}

    # --- text -------------------------------------------------------------------------------------------------------

    def text(self, names: tuple[str, str], *, viewer: int | None = None, deadwood=None,
             last_outcome: dict | None = None) -> str:
        """The table as ansi text, seats named by ``names`` (by seat). With ``viewer`` (a single-agent env): the
        other seat's hand above the viewer's, the pile spelled out, the knock limit, ``deadwood`` (the viewer's),
        the match scores and ``last_outcome`` (an :func:`outcome_info` dict). Without: each seat's hand and score."""
        s, scores = self.state, self.scores
        top = cards.card_str(s.pile[-1]) if s.pile else "--"

        def who(p: int) -> str:
            dealer = " (dealer)" if p == s.dealer else ""
            return names[p] + dealer if viewer is None else f"{names[p]:<8}{dealer}"

        lines = [f"Gin Rummy [{self.rules.name}]  phase: {engine.PHASE_NAMES[s.phase]}  to act: "
                 + (names[s.current] if viewer is None else who(s.current))]
        if viewer is None:
            lines += [f"  {who(p):<20} {cards.to_str(s.hands[p])}   score {scores[p]}" for p in (0, 1)]
            lines.append(f"  discard pile: top {top}, {counted(len(s.pile), 'card')}   "
                         f"stock: {counted(engine.stock_size(s), 'card')}")
            return "\n".join(lines)
        me, opp = viewer, 1 - viewer
        lines += [
            f"  {who(opp):<20} {cards.to_str(s.hands[opp])}",
            f"  {who(me):<20} {cards.to_str(s.hands[me])}",
            f"  discard pile: top {top}, {counted(len(s.pile), 'card')} ({' '.join(map(cards.card_str, s.pile))})",
            f"  stock: {counted(engine.stock_size(s), 'card')}   knock limit: {s.knock_limit}   "
            f"{names[me]} deadwood: {'?' if deadwood is None else deadwood}",
        ]
        if self.match is not None:
            lines.append(f"  match to {self.rules.target}: {names[me]} {scores[me]}, {names[opp]} {scores[opp]}")
        if last_outcome is not None:
            o = last_outcome
            lines.append(f"  last hand: {o['kind']}, winner {o['winner']}, {names[me]} points {o['points']:+d}")
        return "\n".join(lines)
