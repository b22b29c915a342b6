"""gin-env: a Gymnasium environment for Gin Rummy (two players; three, four and rooms around two-player hands).

Importing the package registers ``GinRummy-v0`` with Gymnasium (``gin_env.envs.gin_rummy.GinRummyEnv``, one class
for every format). The environment module itself is imported only when an env is made, so ``import gin_env`` stays
light (numpy and gymnasium's registry; no numba kernels, PettingZoo, SB3 or torch).
"""

from gymnasium.envs.registration import register, registry

#: The package's version (pyproject.toml reads it from here); docs/changelog.md says what each version changed.
__version__ = "0.11.3"

ENV_ID = "GinRummy-v0"

# Re-importing the package (e.g. after importlib.reload) must not register the id twice.
if ENV_ID not in registry:
    register(id=ENV_ID, entry_point="gin_env.envs.gin_rummy:GinRummyEnv",
             vector_entry_point="gin_env.envs.vector:GinRummyVectorEnv")
