"""The switch agent: two networks, and the match record to choose between them.

Knocking at once or waiting has opposite answers against the two kinds of player (docs/iteration.md, "Where the
networks differ"): against one that knocks at its first chance, keeping the deadwood low and waiting to undercut
pays; against one that waits for gin, knocking early does. A network that sees one hand cannot tell them apart;
the match record (``gin_env.game.match_record``) can, once a hand of the game has ended. The switch plays
``waiter`` (by default ``ppo-v5``, which undercuts half of simple's knocks) against an opponent that has won more
hands of the game by a plain knock than by gin or by undercutting it, and ``racer`` (by default ``exit-v1``)
otherwise, the first hand of every game included. Both are policy networks (``PolicyAgent``: a shipped name or a
``.npz``/``.zip`` path); each decision is one of theirs, so the switch decides as fast as they do.

``agents.load("switch")`` is ``switch-v1``; ``switch[racer=PATH,waiter=PATH]`` takes other networks. It is the
teacher that ``gin-env train --match-record`` clones into one network that reads the record itself
(docs/training.md, "The match record").
"""

from __future__ import annotations

import numpy as np

from gin_env.batch.observation import BatchView, encode_batch
from gin_env.game.match_record import knocker_opponent, knocker_opponents
from gin_env.game.observation import PlayerView

from .numpy_policy import SWITCH_NETWORKS
from .ppo import PolicyAgent


class SwitchAgent:
    """``waiter`` against opponents that win by plain knocks (:func:`knocker_opponents`), ``racer`` otherwise; the
    parameters name the networks (their defaults: ``numpy_policy.SWITCH_NETWORKS``)."""

    def __init__(self, **params) -> None:
        from gin_env import agents

        unknown = sorted(set(params) - set(SWITCH_NETWORKS))
        if unknown:
            raise TypeError(f"SwitchAgent has no parameter {', '.join(map(repr, unknown))}; its parameters are "
                            f"{', '.join(SWITCH_NETWORKS)}")
        self.networks = {}
        for key, name in {**SWITCH_NETWORKS, **params}.items():
            if not isinstance(name, str):
                raise TypeError(f"switch parameter {key!r} must be an agent name or a model path, got {name!r}")
            network = agents.load(name)
            if not isinstance(network, PolicyAgent) or network.match_record:
                raise ValueError(f"switch parameter {key!r} must be a policy network that reads the plain "
                                 f"observation (a shipped network's name, or a .npz or .zip path), got {name!r}")
            self.networks[key] = network
        self.racer, self.waiter = self.networks["racer"], self.networks["waiter"]

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        return (self.waiter if knocker_opponent(view.record) else self.racer).act(view, rng)

    def act_batch(self, view: BatchView, rng: np.random.Generator) -> np.ndarray:
        waits = knocker_opponents(view.record)
        obs, masks = encode_batch(view), view.legal_mask
        out = np.empty(waits.size, dtype=np.int64)
        for network, rows in ((self.waiter, waits), (self.racer, ~waits)):
            if rows.any():
                out[rows] = network.choose(obs[rows], masks[rows], rng)
        return out

    def __repr__(self) -> str:
        return f"SwitchAgent(racer={self.racer!r}, waiter={self.waiter!r})"
