"""gin-env: a Gymnasium environment for two-player Gin Rummy.

Importing the package registers ``GinRummy-v0`` with Gymnasium. The environment module itself is imported only when
an env is made, so ``import gin_env`` stays light (numpy and gymnasium's registry; no numba kernels, PettingZoo, SB3
or torch).
"""

from gymnasium.envs.registration import register, registry

ENV_ID = "GinRummy-v0"

# Re-importing the package (e.g. after importlib.reload) must not register the id twice.
if ENV_ID not in registry:
    register(id=ENV_ID, entry_point="gin_env.env:GinRummyEnv", vector_entry_point="gin_env.vector:GinRummyVectorEnv")
