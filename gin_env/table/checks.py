"""The checks every env shares, before any work: the arguments (episode, reward scale, illegal-action mode, seats,
integers, rules), the action rule (one integer id, from a caller or an agent), and the refusals of a single-agent
env (an illegal action's reward, the cap on deals that never reach the learner). Each error names its argument."""

from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from gin_env.game import actions, engine, rule_options
from gin_env.game.observation import PlayerView
from gin_env.game.rules import Rules

EPISODES = ("hand", "match")
ILLEGAL_ACTION_MODES = ("penalize", "raise")
#: Reward of an illegal action under ``illegal_action="penalize"``, whatever ``reward_scale`` is.
ILLEGAL_ACTION_REWARD = -1.0
#: Deals ``reset`` tries for one in which the learner gets a decision, before it gives up (some rules end every deal
#: first: a fixed dealer under ``deal_mode="eleven"`` and ``max_turns=1``, say).
MAX_REDEALS = 1_000


def check_env_args(episode: str, reward_scale: float, illegal_action: str, max_steps: int | None) -> int | None:
    """Validate the arguments of the single-agent envs (scalar and vector); each error names its argument. Returns
    ``max_steps`` as an int (or None)."""
    check_episode(episode)
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
    check_reward_scale(reward_scale)
    return None if max_steps is None else positive_int(max_steps, "max_steps")


def flag(value, name: str) -> bool:
    """A True/False argument (numpy's bool too); ``TypeError`` naming it for anything else."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_match_record(match_record, episode: str, rules: Rules) -> bool:
    """The envs' ``match_record`` argument (``flag``); ``ValueError`` when it is True for episodes of one hand
    (``episode="hand"``, or rules without a target), which have no earlier hands to record, or for more than two
    seats, whose records are not kept."""
    on = flag(match_record, "match_record")
    if on and episode != "match":
        raise ValueError(f"match_record=True needs episode='match', got episode={episode!r}: a single-hand episode "
                         "has no earlier hands to record")
    if on and rules.target is None:
        raise ValueError(f"match_record=True needs a game to a target, and the rules {rules.name!r} have none: "
                         "each episode is one hand, with no earlier hands to record")
    if on and rules.players != 2:
        raise ValueError(f"match_record=True is kept for two seats (two players or a room), not {rules.players} "
                         "players")
    return on


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
    try:
        scale = float(reward_scale)
    except OverflowError:  # an int past the float range
        scale = math.inf
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


def resolve_rules(rules: str | Rules | dict) -> Rules:
    """A ``Rules`` from a preset name, a ``Rules``, or an object of rules keys (``Rules.as_dict``, as a JSON env spec
    carries rules that are no preset: ``rule_options.as_data``)."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    if isinstance(rules, dict):
        return rule_options.from_data(rules)
    raise TypeError(f"rules must be a preset name, a Rules or a dict of rules keys, got {type(rules).__name__}")


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
    """An action id in range (of the rules' actions: the mask's size) and legal in ``legal_mask`` (a view's, or the
    engine's)."""
    return 0 <= action < legal_mask.size and bool(legal_mask[action])


def legal_text(v: PlayerView) -> str:
    """The phase and the legal actions of a view, as the messages of illegal actions give them."""
    legal = ", ".join(actions.name(a) for a in v.legal_actions) or "none"
    return f"phase {engine.PHASE_NAMES[v.phase]!r}, legal actions: {legal}"


def illegal_action_message(action, v: PlayerView) -> str:
    """The message of an illegal ``action`` (an integer, in range or not) of the player who sees ``v``: the action,
    the phase and the legal actions, in every format."""
    a, n_actions = action_id(action), v.rules.n_actions
    shown = actions.name(a) if 0 <= a < n_actions else f"{action!r} (not an action id 0..{n_actions - 1})"
    return f"illegal action {shown}: {legal_text(v)}"


def seat_among(value, seats: int, name: str) -> int | None:
    """A seat argument of a game of ``seats`` seats: None, or 0..seats-1 as any integer type; ``TypeError`` for a
    bool or a non-integer, ``ValueError`` for a seat out of range, both naming ``name``."""
    if value is None:
        return None
    seat = integer(value, name)
    if not 0 <= seat < seats:
        raise ValueError(f"{name} must be a seat 0..{seats - 1} or None, got {value!r}")
    return seat
