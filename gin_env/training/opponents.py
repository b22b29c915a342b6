"""The opponents of a run: the ``--opponents`` schedule, its mixture at a point of the run, one opponent per
slot, and agents loaded for batched play."""

from __future__ import annotations

import math

import numpy as np

from gin_env import agents

#: The schedule name that stands for snapshots of the policy being trained.
SELF = "self"


def parse_schedule(text: str) -> list[tuple[float, dict[str, float]]]:
    """``"0:random; 0.1:random=1,simple=3"`` -> ``[(0.0, {"random": 1.0}), (0.1, {"random": 1.0, "simple": 3.0})]``,
    sorted by start; ``ValueError`` saying what is wrong unless the first phase starts at 0, every start is a
    fraction below 1, and every phase names each opponent once with a finite weight >= 0, not all 0."""
    phases = []
    for part in text.split(";"):
        start, _, mix = (piece.strip() for piece in part.partition(":"))
        where = f"phase {part.strip()!r}"
        if not mix:
            raise ValueError(f"{where}: expected START:name=weight,...")
        weights = {}
        for item in mix.split(","):
            name, _, weight = (piece.strip() for piece in item.partition("="))
            if not name or name in weights:
                raise ValueError(f"{where}: {'a name is empty' if not name else f'names {name} twice'}")
            weights[name] = _number(weight, where) if weight else 1.0
            if weights[name] < 0:
                raise ValueError(f"{where}: the weight of {name} is below 0")
        if sum(weights.values()) <= 0:
            raise ValueError(f"{where}: the weights are all 0")
        phases.append((_number(start, where), weights))
        if not 0 <= phases[-1][0] < 1:
            raise ValueError(f"{where}: START is a fraction of the run, at least 0 and below 1")
    phases.sort(key=lambda phase: phase[0])
    if phases[0][0] != 0:
        raise ValueError("the first phase must start at 0")
    return phases


def _number(text: str, where: str) -> float:
    """``text`` as a finite number, or ``ValueError`` naming ``where`` it stands."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(f"{where}: {text!r} is not a number")
    return value


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


def listed(text: str) -> list[str]:
    """The names of a list separated by commas (``--imitate-opponent``), in order, blanks dropped."""
    return [name.strip() for name in text.split(",") if name.strip()]


def batched_agent(name: str):
    """An agent by name, for batched play (a pool opponent, the teacher and its opponent); it needs ``act_batch``."""
    agent = agents.load(name)
    if not callable(getattr(agent, "act_batch", None)):
        raise ValueError(f"agent {name!r} has no batched form act_batch(view, rng), and training plays its opponents "
                         "and its teacher batch by batch")
    return agent
