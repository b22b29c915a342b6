"""The environments: ``GinRummy-v0`` (``gin_rummy``, every format; ``roles`` its role arguments), the vector env
(``vector``) and PettingZoo's AEC env (``pettingzoo``), each a thin adapter over :mod:`gin_env.table`."""
