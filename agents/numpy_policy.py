"""PPO policy networks run in numpy: the ``ppo`` and ``ppo-expert`` agents and the search agent's guides, with no
torch.

:class:`NumpyPolicyAgent` computes the same action logits as a MaskablePPO model's actor (``agents/networks.py``:
``CardFeatures`` and ``CardActionHead``), from weights stored in a ``.npz`` file, so a core install plays the learned
policies: ``agents.load("ppo")`` and the search agent's rollouts. Four ship (:data:`SHIPPED`): the shipped model's
actor (``ppo``), ``ppo-expert``, the search's default guide, ``exit``, a generation of expert iteration, and
``ppo-jokers``, which plays games with jokers (the search's guide there). The
arrays keep the torch names and shapes of the actor's parameters; :func:`save_weights` writes them from a model file
(``gin-env export --numpy``), a test holds the shipped ``ppo`` weights to the shipped ``.zip``, and another that both
pick the same actions. A weights file is checked whole from its array headers (:func:`check_shapes`) before any
array is read.

The convolutions run as matrix products over the suit x rank grid: a (1 x 3) kernel along the ranks is three
products, one per tap, shifted and summed; the (4 x 1) kernel over the suits is one product per rank.
"""

from __future__ import annotations

import math
import os

import numpy as np

from gin_env.files import atomic_write, npz_arrays, npz_headers
from gin_env.game import cards
from gin_env.game.actions import DISCARD_BASE, JOKER_ACTIONS
from gin_env.game.observation import OBS_SIZE, PLANES, obs_size

from .model_archive import JOKERS
from .params import check_flag
from .ppo import PolicyAgent, read_model

_MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
#: The weights of the shipped model's actor (``agents/models/ppo_gin.zip``), for :func:`shipped`.
SHIPPED_WEIGHTS = os.path.join(_MODELS, "ppo_gin_policy.npz")
#: The actor of the shipped model fine-tuned mostly against the expert (docs/training.md, leg 6), the search agent's
#: default guide.
EXPERT_TUNED_WEIGHTS = os.path.join(_MODELS, "ppo_expert_policy.npz")
#: Generation 1 of expert iteration (docs/iteration.md): ``ppo-expert`` after cloning its search's play and 3 M more
#: PPO steps.
EXIT_WEIGHTS = os.path.join(_MODELS, "exit_v1_policy.npz")
#: ``ppo-v5`` widened to the jokers preset's observation and actions and fine-tuned under it (docs/training.md,
#: "Jokers"): ``ppo-jokers``, the search's guide under jokers.
JOKERS_WEIGHTS = os.path.join(_MODELS, "ppo_jokers_policy.npz")
#: The shipped networks that play games with jokers (docs/rules.md section 17), and only those.
JOKERS_NETWORKS = ("ppo-jokers",)
#: The shipped weights by the search agent's guide names.
SHIPPED = {"ppo": SHIPPED_WEIGHTS, "ppo-expert": EXPERT_TUNED_WEIGHTS, "exit": EXIT_WEIGHTS,
           "ppo-jokers": JOKERS_WEIGHTS}
#: The shipped networks of ``switch-v1`` (``agents.switch``) by their part, the defaults of its parameters; also the
#: search's ``guide="switch"``.
SWITCH_NETWORKS = {"racer": "exit", "waiter": "ppo"}

#: The actor's parameters, by their torch names in the MaskablePPO policy.
_FEATURES = "pi_features_extractor."
_HEAD = "action_net."
PARAMETERS = [_FEATURES + name for name in ("runs.weight", "runs.bias", "sets.weight", "sets.bias", "mix.weight",
                                            "mix.bias", "summary.0.weight", "summary.0.bias")] + \
             [_HEAD + name for name in ("card.weight", "card.bias", "context.weight", "context.bias",
                                        "card_out.weight", "card_out.bias", "free_out.weight", "free_out.bias")]
#: The joker actions' layer (``CardActionHead.joker_out``), in a network of a game with jokers only.
JOKER_PARAMETERS = [_HEAD + name for name in ("joker_out.weight", "joker_out.bias")]
_N_PLANE_ENTRIES = len(PLANES) * cards.N_CARDS
#: The observation widths an actor may read, by whether it plays jokers: with the match record or without; every game
#: with jokers has the layout of the ``jokers`` preset's (R72's counts are the same entries for one joker or two).
READABLE_SIZES = {jokers: tuple(obs_size(record, rules=JOKERS if jokers else None) for record in (False, True))
                  for jokers in (False, True)}
#: What a policy weights file is, in the errors that refuse one.
WEIGHTS_FILE = "a policy weights file (.npz written by gin-env export --numpy)"


class NumpyPolicyAgent(PolicyAgent):
    """The actor of a :class:`agents.networks.CardPolicy`, evaluated in float32 numpy: greedy by default, else
    sampled with the caller's generator (``PolicyAgent``)."""

    def __init__(self, weights: dict[str, np.ndarray], path: str | None = None, deterministic: bool = True) -> None:
        check_flag("numpy policy agent", "deterministic", deterministic)
        source = repr(path) if path else "the policy weights"
        size = check_shapes({key: np.shape(weights[key]) for key in PARAMETERS + JOKER_PARAMETERS if key in weights},
                            source)
        w = {key: np.asarray(weights[key], dtype=np.float32) for key in PARAMETERS + JOKER_PARAMETERS
             if key in weights}
        bad = [key for key, value in w.items() if not np.isfinite(value).all()]
        if bad:
            raise ValueError(f"{source} holds weights that are not finite numbers: {', '.join(bad)}")
        self.path, self.deterministic = path, deterministic
        self.channels = w[_FEATURES + "runs.bias"].size
        c = self.channels
        self._runs = _taps(w[_FEATURES + "runs.weight"]), w[_FEATURES + "runs.bias"]
        sets = w[_FEATURES + "sets.weight"][:, :, :, 0]  # (out, planes, suits)
        self._sets = sets.transpose(2, 1, 0).reshape(-1, c), w[_FEATURES + "sets.bias"]
        mix = w[_FEATURES + "mix.weight"]
        self._mix = _taps(mix[:, :c]), _taps(mix[:, c:]), w[_FEATURES + "mix.bias"]
        # torch flattens the card maps channel-major (channel, card); here they lie card-major (card, channel).
        summary = w[_FEATURES + "summary.0.weight"].T
        self.jokers = JOKER_PARAMETERS[0] in w
        self.match_record = size == READABLE_SIZES[self.jokers][1]
        per_card = summary[:c * cards.N_CARDS].reshape(c, cards.N_CARDS, -1).transpose(1, 0, 2).reshape(
            c * cards.N_CARDS, -1)
        self._summary = np.ascontiguousarray(per_card), np.ascontiguousarray(summary[c * cards.N_CARDS:]), \
            w[_FEATURES + "summary.0.bias"]
        self._card = w[_HEAD + "card.weight"][:, :, 0].T.copy(), w[_HEAD + "card.bias"]
        self._context = w[_HEAD + "context.weight"].T.copy(), w[_HEAD + "context.bias"]
        self._card_out = w[_HEAD + "card_out.weight"][:, :, 0].T.copy(), w[_HEAD + "card_out.bias"]
        self._free_out = w[_HEAD + "free_out.weight"].T.copy(), w[_HEAD + "free_out.bias"]
        self._joker_out = (w[JOKER_PARAMETERS[0]].T.copy(), w[JOKER_PARAMETERS[1]]) if self.jokers else None
        self.reads, self.n_actions = size, DISCARD_BASE + 2 * cards.N_CARDS + (JOKER_ACTIONS if self.jokers else 0)

    def logits(self, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """``(N, n_actions)`` action logits for encoded observations ``(N, reads)`` (``OBS_SIZE``, or
        ``RECORD_OBS_SIZE`` for a network that reads the match record, ``match_record``; with jokers the layout of
        a game with them), before masking."""
        n, c = obs.shape[0], self.channels
        obs = obs.astype(np.float32, copy=False)
        # Every product is one 2-D matrix product over contiguous rows: numpy runs a stacked product as many small
        # ones, and with them a forward pass over 96 views took 1.7 times as long.
        grid = np.ascontiguousarray(
            obs[:, :_N_PLANE_ENTRIES].reshape(n, len(PLANES), cards.N_SUITS, cards.N_RANKS).transpose(0, 2, 3, 1))
        runs_w, runs_b = self._runs
        runs = _relu(_conv_ranks(grid.reshape(-1, len(PLANES)), runs_w, n * cards.N_SUITS) + runs_b)
        sets_w, sets_b = self._sets
        by_rank = grid.transpose(0, 2, 1, 3).reshape(n * cards.N_RANKS, -1)
        sets = _relu(by_rank @ sets_w + sets_b)  # (n * rank, channel): the same for every suit
        mix_runs, mix_sets, mix_b = self._mix
        per_card = _conv_ranks(runs.reshape(-1, c), mix_runs, n * cards.N_SUITS).reshape(n, cards.N_SUITS, -1, c)
        per_card += _conv_ranks(sets, mix_sets, n)[:, None]
        per_card = _relu(per_card + mix_b).reshape(n, cards.N_CARDS, c)  # (suit, rank) flattened is the card id
        summary_cards, summary_scalars, summary_b = self._summary
        context = _relu(per_card.reshape(n, -1) @ summary_cards + obs[:, _N_PLANE_ENTRIES:] @ summary_scalars
                        + summary_b)
        (card_w, card_b), (context_w, context_b) = self._card, self._context
        hidden = (per_card.reshape(-1, c) @ card_w).reshape(n, cards.N_CARDS, -1)
        hidden = _relu(hidden + (context @ context_w + context_b + card_b)[:, None])
        out_w, out_b = self._card_out
        discard_knock = (hidden.reshape(n * cards.N_CARDS, -1) @ out_w + out_b).reshape(n, cards.N_CARDS, 2)
        free_w, free_b = self._free_out
        logits = [context @ free_w + free_b, discard_knock[:, :, 0], discard_knock[:, :, 1]]
        if self._joker_out is not None:
            logits.append(context @ self._joker_out[0] + self._joker_out[1])
        return np.concatenate(logits, axis=1)

    def __repr__(self) -> str:
        return f"NumpyPolicyAgent({self.path!r}, deterministic={self.deterministic})"


def _taps(weight: np.ndarray) -> tuple[np.ndarray, ...]:
    """A torch (out, in, 1, 3) kernel as three (in, out) matrices, tap k for the rank offset k - 1."""
    return tuple(np.ascontiguousarray(weight[:, :, 0, k].T) for k in range(3))


def _conv_ranks(rows: np.ndarray, taps: tuple[np.ndarray, ...], lines: int) -> np.ndarray:
    """A (1 x 3) convolution along the ranks with zero padding: ``rows`` are ``lines`` runs of ``N_RANKS`` inputs,
    ``(lines * N_RANKS, in)``; returns ``(lines, N_RANKS, out)`` with result[r] = tap0[r - 1] + tap1[r] +
    tap2[r + 1]."""
    before, at, after = (rows @ tap for tap in taps)
    result = at.reshape(lines, cards.N_RANKS, -1)
    result[:, 1:] += before.reshape(lines, cards.N_RANKS, -1)[:, :-1]
    result[:, :-1] += after.reshape(lines, cards.N_RANKS, -1)[:, 1:]
    return result


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


#: The most numbers a weights file may hold, checked from the array headers before any array is read: a compressed
#: file of a few megabytes could otherwise expand into gigabytes. The shipped actors hold about 0.2 million.
MAX_WEIGHTS = 2**25


#: The hidden units of the action head (``agents.networks.CardActionHead``), per card.
HEAD_HIDDEN = 32


def actor_weights(channels: int, global_dim: int, obs_size: int = OBS_SIZE) -> int:
    """The numbers an actor of these widths holds (with :data:`HEAD_HIDDEN` head units): what ``gin-env train``
    checks against :data:`MAX_WEIGHTS` before it builds a network that this loader would refuse."""
    return sum(math.prod(shape) for shape in _expected_shapes(channels, global_dim, HEAD_HIDDEN, obs_size).values())


def check_shapes(shapes: dict[str, tuple], source: str) -> int:
    """``ValueError`` naming ``source`` unless ``shapes`` (by torch name) are those of a complete actor of
    :class:`agents.networks.CardPolicy`: every one of :data:`PARAMETERS`, each of the shape that the widths read
    from the biases (channels, global numbers, hidden units) and the observation it reads (``OBS_SIZE`` entries, or
    ``RECORD_OBS_SIZE`` with the match record) give it, and no more than :data:`MAX_WEIGHTS` in all. Returns that
    observation's number of entries."""
    missing = [key for key in PARAMETERS if key not in shapes]
    if missing:
        raise ValueError(f"{source} lacks the policy weights {', '.join(missing)}")
    jokers = JOKER_PARAMETERS[0] in shapes or JOKER_PARAMETERS[1] in shapes
    missing = [key for key in JOKER_PARAMETERS if jokers and key not in shapes]
    if missing:
        raise ValueError(f"{source} lacks the policy weights {', '.join(missing)}")
    widths = []
    for key in (_FEATURES + "runs.bias", _FEATURES + "summary.0.bias", _HEAD + "card.bias"):
        if len(shapes[key]) != 1 or shapes[key][0] < 1:
            raise ValueError(f"{source} holds weights of another network shape: its {key!r} has shape "
                             f"{tuple(shapes[key])}, not (width,)")
        widths.append(int(shapes[key][0]))
    size = _observation_size(shapes, widths[0], jokers, source)
    expected = _expected_shapes(*widths, size, jokers)
    for key in expected:
        if tuple(shapes[key]) != expected[key]:
            raise ValueError(f"{source} holds weights of another network shape: its {key!r} has shape "
                             f"{tuple(shapes[key])}, not {expected[key]}")
    total = sum(math.prod(shape) for shape in expected.values())
    if total > MAX_WEIGHTS:
        raise ValueError(f"{source} holds a network of {total:,} weights; a policy file holds at most "
                         f"{MAX_WEIGHTS:,}")
    return size


def _observation_size(shapes: dict[str, tuple], channels: int, jokers: bool, source: str) -> int:
    """The entries of the observation the actor reads, from its summary layer's inputs (the card maps, then the
    observation's scalars): one of ``READABLE_SIZES[jokers]``, else ``ValueError`` naming ``source``."""
    summary = tuple(shapes[_FEATURES + "summary.0.weight"])
    size = summary[-1] - channels * cards.N_CARDS + _N_PLANE_ENTRIES if len(summary) == 2 else None
    plain, record = READABLE_SIZES[jokers]
    if size not in (plain, record):
        raise ValueError(f"{source} holds weights of another network shape: its {_FEATURES}summary.0.weight has "
                         f"shape {summary}, which reads no observation of {plain} entries (nor {record}, with the "
                         f"match record){' of a game with jokers' if jokers else ''}")
    return size


def _expected_shapes(channels: int, global_dim: int, hidden: int, obs_size: int = OBS_SIZE,
                     jokers: bool = False) -> dict[str, tuple]:
    """The torch shape of each of :data:`PARAMETERS` (and with ``jokers`` of :data:`JOKER_PARAMETERS`) for an actor
    of these widths reading observations of ``obs_size`` entries (``agents/networks.py``)."""
    c, planes = channels, len(PLANES)
    features = {"runs.weight": (c, planes, 1, 3), "runs.bias": (c,), "sets.weight": (c, planes, cards.N_SUITS, 1),
                "sets.bias": (c,), "mix.weight": (c, 2 * c, 1, 3), "mix.bias": (c,),
                "summary.0.weight": (global_dim, c * cards.N_CARDS + obs_size - _N_PLANE_ENTRIES),
                "summary.0.bias": (global_dim,)}
    head = {"card.weight": (hidden, c, 1), "card.bias": (hidden,), "context.weight": (hidden, global_dim),
            "context.bias": (hidden,), "card_out.weight": (2, hidden, 1), "card_out.bias": (2,),
            "free_out.weight": (DISCARD_BASE, global_dim), "free_out.bias": (DISCARD_BASE,)}
    if jokers:
        head.update({"joker_out.weight": (JOKER_ACTIONS, global_dim), "joker_out.bias": (JOKER_ACTIONS,)})
    return {**{_FEATURES + k: v for k, v in features.items()}, **{_HEAD + k: v for k, v in head.items()}}


def read_weights(path: str) -> dict[str, np.ndarray]:
    """The actor weights saved at ``path`` by :func:`save_weights`, by their torch names (:data:`PARAMETERS`; other
    arrays in the file are not read).

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for a file that is not such weights: not an
    ``.npz``, an array missing, of another shape (:func:`check_shapes`) or not of floating-point numbers, all told
    from the array headers before any array is read."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no policy weights file at {path!r}")
    headers = npz_headers(path, WEIGHTS_FILE, PARAMETERS + JOKER_PARAMETERS)
    check_shapes({key: shape for key, (shape, _) in headers.items()}, repr(path))
    not_float = [key for key, (_, dtype) in headers.items() if dtype.kind != "f"]
    if not_float:
        raise ValueError(f"{path!r} holds weights that are not floating-point numbers: {', '.join(not_float)}")
    return npz_arrays(path, headers, WEIGHTS_FILE)


def load_policy(path: str, deterministic: bool = True) -> NumpyPolicyAgent:
    """The agent of the actor weights saved at ``path`` by :func:`save_weights`. Raises what :func:`read_weights`
    raises, and ``ValueError`` for weights that are not finite numbers."""
    return NumpyPolicyAgent(read_weights(path), path, deterministic)


def save_weights(model_path: str, target: str) -> None:
    """Write the actor weights of the MaskablePPO model at ``model_path`` to ``target`` (``.npz``), for
    :func:`load_policy`. Raises what ``read_model`` raises for a bad model file."""
    policy = read_model(model_path, "exporting a policy's weights").policy
    state = policy.state_dict()
    with atomic_write(target, "wb") as out:
        np.savez_compressed(out, **{key: state[key].cpu().numpy() for key in PARAMETERS + JOKER_PARAMETERS
                                    if key in state})


def shipped(name: str = "ppo") -> NumpyPolicyAgent:
    """A shipped actor by its name in :data:`SHIPPED` ("ppo", the shipped model's: ``agents.load("ppo")``, the
    search agent's ``guide="ppo"``)."""
    if name not in SHIPPED:
        raise ValueError(f"no shipped policy weights named {name!r}; there are {', '.join(SHIPPED)}")
    path = SHIPPED[name]
    if not os.path.isfile(path):
        raise FileNotFoundError(f"the shipped policy weights {path!r} are missing from this installation")
    return load_policy(path)


def shipped_exit() -> NumpyPolicyAgent:
    """Generation 1 of expert iteration (``agents.load("exit")``, docs/iteration.md)."""
    return shipped("exit")


def shipped_jokers() -> NumpyPolicyAgent:
    """``ppo-v5`` fine-tuned under the jokers preset (``agents.load("ppo-jokers")``), the search's guide there; it
    reads the observation of games with jokers only."""
    return shipped("ppo-jokers")


def shipped_expert_tuned() -> NumpyPolicyAgent:
    """The shipped actor fine-tuned mostly against the expert (``agents.load("ppo-expert")``), the search's default
    guide."""
    return shipped("ppo-expert")
