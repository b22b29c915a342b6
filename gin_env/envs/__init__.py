"""The environments: ``GinRummy-v0`` (``gin_rummy``, and ``format_env`` for three, four players and rooms), the
vector env (``vector``) and PettingZoo's AEC env (``pettingzoo``), each a thin adapter over :mod:`gin_env.table`."""
