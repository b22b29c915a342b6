"""``SB3VecEnv``: a stable-baselines3 ``VecEnv`` over one ``GinRummyVectorEnv``, or over several side by side (a
pool, each with its own opponent), so MaskablePPO trains on the batched games without a Python env per game.

The class (:class:`gin_env.interop.sb3_vec_env.GinRummySB3VecEnv`) is imported on first use, since its base class
comes from stable-baselines3, which ``import gin_env`` never imports.
"""

from __future__ import annotations

from collections.abc import Sequence

from gin_env.envs.vector import GinRummyVectorEnv


def SB3VecEnv(venvs: GinRummyVectorEnv | Sequence[GinRummyVectorEnv]):  # noqa: N802 - a factory that reads as the class it builds
    """A stable-baselines3 ``VecEnv`` over a ``GinRummyVectorEnv``, or over a sequence of them whose games are
    concatenated in order: same games, SB3's step/reset conventions, and ``env_method("action_masks")`` answered
    from the batches, which is how sb3-contrib's MaskablePPO reads masks.

    Seeding (``seed(s)`` then ``reset()``): one vector env is reset with ``s`` itself; each env of a sequence with
    its own stream ``SeedSequence([s, i])``, so a pool of one is seeded as a pool."""
    from gin_env.interop.sb3_vec_env import GinRummySB3VecEnv

    return GinRummySB3VecEnv(venvs)
