"""The opponents of a run: the ``--opponents`` schedule, its mixture at a point of the run, one opponent per
slot, and agents loaded for batched play."""

from __future__ import annotations

import numpy as np

from gin_env import agents

#: The schedule name that stands for snapshots of the policy being trained.
SELF = "self"


def parse_schedule(text: str) -> list[tuple[float, dict[str, float]]]:
    """``"0:random; 0.1:random=1,simple=3"`` -> ``[(0.0, {"random": 1.0}), (0.1, {"random": 1.0, "simple": 3.0})]``,
    sorted by start; the first phase must start at 0."""
    phases = []
    for part in text.split(";"):
        start, _, mix = part.strip().partition(":")
        weights = {}
        for item in mix.split(","):
            name, _, weight = item.strip().partition("=")
            weights[name.strip()] = float(weight) if weight else 1.0
        if not mix.strip() or any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise ValueError(f"bad schedule phase {part.strip()!r}: expected START:name=weight,... with weights >= 0")
        phases.append((float(start), weights))
    phases.sort(key=lambda phase: phase[0])
    if phases[0][0] != 0:
        raise ValueError(f"the opponent schedule must start at 0, got {text!r}")
    return phases


def weights_at(schedule: list[tuple[float, dict[str, float]]], progress: float) -> dict[str, float]:
    """The mixture of the last phase that has started at ``progress`` (a fraction of the run)."""
    return [weights for start, weights in schedule if start <= progress][-1]


def allocate(weights: dict[str, float], slots: int) -> list[str]:
    """One opponent name per slot, in proportion to ``weights`` (largest remainders), so a mixture is met exactly
    as far as whole slots allow, rollout after rollout, rather than only on average."""
    names = sorted(weights)
    total = sum(weights.values())
    quotas = np.array([weights[n] * slots / total for n in names])
    counts = np.floor(quotas).astype(int)
    for i in np.argsort(-(quotas - counts), kind="stable")[:slots - counts.sum()]:
        counts[i] += 1
    return [name for name, count in zip(names, counts) for _ in range(count)]


def batched_agent(name: str):
    """An agent by name, for batched play (a pool opponent, the teacher and its opponent); it needs ``act_batch``."""
    agent = agents.load(name)
    if not callable(getattr(agent, "act_batch", None)):
        raise ValueError(f"agent {name!r} has no batched form act_batch(view, rng), which training needs")
    return agent
