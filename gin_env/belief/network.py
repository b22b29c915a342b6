"""The learned opponent model of :mod:`gin_env.belief`: a small network reads the view and gives each unseen card
the chance that the opponent holds it; the draw weighs each card by those odds.

:class:`NetworkModel` is a drop-in for :class:`~gin_env.belief.OpponentModel` (the same ``card_weights`` and
``replay``, the same draw); :data:`SHIPPED` names the networks that ship. A weights file (``.npz``) holds a
multilayer perceptron as ``w0, b0, w1, b1, ...``: ``w{i}`` of shape ``(inputs, outputs)``, rectified between
layers, :data:`INPUTS` inputs (the view's encoding, ``observation.encode``, up to the match scores) and one output
per card, the logit that the opponent holds it. ``gin-env train-belief`` writes one (``gin_env.training.belief``);
the file is checked whole from its array headers before any array is read."""

from __future__ import annotations

import functools
import math
import numbers
import os
from dataclasses import dataclass

import numpy as np

from gin_env.files import npz_arrays, npz_headers
from gin_env.game import cards
from gin_env.game.observation import OBS_LAYOUT, PlayerView, encode
from gin_env.game.rules import Rules

#: The entries of the encoding the network reads: all but the match scores, which say nothing of the hidden cards.
INPUTS = OBS_LAYOUT["scores"].start
#: The most weights a belief file may hold (the shipped one holds about 170,000).
MAX_WEIGHTS = 4_000_000
#: The chance a card's weight is read from is kept this far from 0 and 1, so every unseen card keeps a finite,
#: positive weight (odds ``p / (1 - p)``).
CLIP = 1e-4

#: What a belief weights file is, in the errors that refuse one.
WEIGHTS_FILE = "a belief weights file (.npz written by gin-env train-belief)"

_MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
#: The shipped belief networks by name (docs/belief.md tells how each was trained and what it measured).
SHIPPED = {"belief-v1": os.path.join(_MODELS, "belief_v1.npz")}


@dataclass(frozen=True)
class NetworkModel:
    """Draw the opponent's hidden cards by a network's odds: ``network`` is a shipped name (:data:`SHIPPED`) or a
    path to a weights file; ``replay`` draw-and-shed steps per card the opponent discarded follow the weighted draw,
    as in :class:`~gin_env.belief.OpponentModel`."""

    network: str = "belief-v1"
    replay: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.network, (str, os.PathLike)):
            raise TypeError(f"NetworkModel.network must be a name or a path, got {self.network!r}")
        if not isinstance(self.replay, numbers.Real) or isinstance(self.replay, bool) or not self.replay >= 0:
            raise ValueError(f"NetworkModel.replay must be a number >= 0, got {self.replay!r}")
        self.layers  # noqa: B018 -- loads and checks the weights now, not at the first draw

    @functools.cached_property
    def layers(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """The network's layers ``(w, b)``, read once (:func:`load_layers`)."""
        return load_layers(resolve(self.network))

    def probabilities(self, view: PlayerView) -> np.ndarray:
        """(52,) the network's chance that the opponent holds each card among its hidden ones: 0 off
        ``view.unseen``. A view of a game with jokers is refused (:func:`check_rules`)."""
        # The chances first: they refuse a view with jokers before its joker ids index a natural-card array.
        chances = self._chances(view)
        return np.where(cards.to_array(view.unseen), chances, 0.0)

    def card_weights(self, view: PlayerView) -> np.ndarray:
        """(52,) the odds ``p / (1 - p)`` of each unseen card (``p`` from :meth:`probabilities`, kept within
        :data:`CLIP` of 0 and 1, so every unseen card weighs more than 0); 0 off ``view.unseen``. A view of a game
        with jokers is refused (:func:`check_rules`)."""
        p = np.clip(self._chances(view), CLIP, 1.0 - CLIP)
        return np.where(cards.to_array(view.unseen), p / (1.0 - p), 0.0)

    def _chances(self, view: PlayerView) -> np.ndarray:
        """(52,) the network's chance for every card, the seen ones included."""
        check_rules(view.rules)
        # The logistic function as tanh: no overflow for any logit.
        return 0.5 * (1.0 + np.tanh(0.5 * logits(self.layers, encode(view)[:INPUTS]).astype(np.float64)))


def check_rules(rules: Rules) -> None:
    """``ValueError``, one line naming ``rules``, unless a belief network can read views of their game: a network
    reads the encoding of the natural cards and gives one chance per natural card, so it has no input or output
    for a joker (R62, R72) and a game with jokers is refused."""
    if rules.jokers:
        raise ValueError(f"a belief network reads views of the {cards.N_CARDS}-card deck only, and "
                         f"{rules.describe()} deals {rules.deck.n_cards} cards with jokers (R62, R72): draw its "
                         "worlds with gin_env.belief.OpponentModel")


def logits(layers, x: np.ndarray) -> np.ndarray:
    """The network of ``layers`` (``(w, b)`` pairs) on inputs ``x`` (``(..., INPUTS)``): ``(..., 52)`` logits,
    rectified between layers."""
    for i, (w, b) in enumerate(layers):
        x = x @ w + b
        if i < len(layers) - 1:
            x = np.maximum(x, 0.0)
    return x


def resolve(network: str | os.PathLike) -> str:
    """The path of ``network``: a shipped name's file, else ``network`` itself, which must be a ``.npz`` file."""
    if network in SHIPPED:
        return SHIPPED[network]
    path = os.fspath(network)
    if not path.endswith(".npz"):
        raise ValueError(f"a belief network is one of {', '.join(SHIPPED)} or a path to weights (.npz), got "
                         f"{network!r}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no belief network weights at {path!r}")
    return path


@functools.lru_cache(maxsize=8)
def load_layers(path: str) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The layers ``(w, b)`` of the weights file at ``path``, as float32: checked whole (:func:`check_shapes`,
    floating-point arrays) from the array headers before any array is read; ``ValueError`` naming the file."""
    headers = npz_headers(path, WEIGHTS_FILE)
    check_shapes({name: shape for name, (shape, _) in headers.items()}, repr(path))
    not_float = [name for name, (_, dtype) in headers.items() if dtype.kind != "f"]
    if not_float:
        raise ValueError(f"{path!r} holds weights that are not floating-point numbers: {', '.join(not_float)}")
    arrays = npz_arrays(path, headers, WEIGHTS_FILE)
    layers = layers_of(arrays)
    if not all(np.isfinite(w).all() and np.isfinite(b).all() for w, b in layers):
        raise ValueError(f"{path!r} holds belief weights that are not finite numbers")
    return layers


def layers_of(arrays) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The layers ``(w, b)``, as float32, of a network's arrays ``w0, b0, w1, b1, ...`` (by name)."""
    return tuple((np.asarray(arrays[f"w{i}"], dtype=np.float32), np.asarray(arrays[f"b{i}"], dtype=np.float32))
                 for i in range(len(arrays) // 2))


def check_hidden_widths(widths: tuple[int, ...], source: str) -> None:
    """``ValueError`` naming ``source`` when a network of hidden layers of ``widths`` units (first to last) is one
    that :func:`load_layers` would refuse (:func:`check_shapes`), so that a trainer refuses it before training."""
    units = (INPUTS, *widths, cards.N_CARDS)
    shapes = {}
    for i, (inputs, outputs) in enumerate(zip(units, units[1:])):
        shapes[f"w{i}"], shapes[f"b{i}"] = (inputs, outputs), (outputs,)
    check_shapes(shapes, source)


def check_shapes(shapes: dict[str, tuple], source: str) -> None:
    """``ValueError`` naming ``source`` unless ``shapes`` (array name -> shape) are those of a belief network:
    ``w0, b0, ..., w{k-1}, b{k-1}`` and nothing else, chained from :data:`INPUTS` inputs to one output per card,
    at most :data:`MAX_WEIGHTS` in all."""
    depth = len(shapes) // 2
    expected = {f"{kind}{i}" for i in range(depth) for kind in "wb"}
    if depth < 1 or set(shapes) != expected:
        raise ValueError(f"{source} is not a belief network: it holds the arrays {', '.join(sorted(shapes))}, not "
                         "w0, b0, w1, b1, ... (one pair per layer)")
    width = INPUTS
    for i in range(depth):
        w, b = tuple(shapes[f"w{i}"]), tuple(shapes[f"b{i}"])
        if len(w) != 2 or w[0] != width or b != (w[1],):
            raise ValueError(f"{source} holds a layer {i} of shapes w {w}, b {b}; it must read {width} inputs: "
                             f"w ({width}, n), b (n,)")
        width = w[1]
    if width != cards.N_CARDS:
        raise ValueError(f"{source} gives {width} outputs; a belief network gives one per card ({cards.N_CARDS})")
    total = sum(math.prod(shape) for shape in shapes.values())
    if total > MAX_WEIGHTS:
        raise ValueError(f"{source} holds {total:,} weights; a belief file holds at most {MAX_WEIGHTS:,}")
