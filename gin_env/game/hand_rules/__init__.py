"""The hand rules that both engines run, each written once (docs/rules.md R10-R61).

Each module holds the rules of one part of a hand as small functions of plain ints and bools: ``taken_card`` (R16),
``knock`` (R20-R35, R46, R47), ``turn`` (R15, R19, R36-R38, R60, R61), ``phases`` (each phase's legal actions and
the phase each action leads to) and ``between_hands`` (R19a, R41-R44). The scalar engine calls them as written; the
batched engine's numba kernels, and the scalar engine's one compiled helper (``engine.legal``), inline the same
functions, registered with ``numba.extending.register_jitable``. A module that reads ``Rules`` options gives them as
one tuple of ints (``knock.knock_values``, ``turn.turn_values``, which ``Rules`` caches as properties of the same
names) indexed by the module's own constants; the kernels read the same values as the module's row of
``rule_values``. A new option therefore touches ``Rules`` and the one module that reads it.

Numba caches a kernel by its own file only: after editing a module here, delete the ``__pycache__`` folders of
``gin_env/batch`` and ``gin_env/game/engine`` so that the kernels inline the new code.
"""

from __future__ import annotations

import numpy as np

from gin_env.game.hand_rules import knock, turn

#: Rows of ``rule_values``: the values of each module the kernels read, and the solver's joker settings
#: (``Rules.joker_settings``: ``joker_value``, ``joker_min_naturals``, which ``solver.kernels.scratch`` takes).
KNOCK_ROW, TURN_ROW, JOKERS_ROW = range(3)
_VALUES_OF_ROW = (knock.knock_values, turn.turn_values, lambda rules: rules.joker_settings)


def rule_values(rules) -> np.ndarray:
    """The values the rule modules read from ``rules``, as int64 rows by the ``_ROW`` constants (the shorter rows
    padded with zeros): what the compiled kernels take in place of ``Rules``."""
    rows = [values(rules) for values in _VALUES_OF_ROW]
    table = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
    for i, row in enumerate(rows):
        table[i, :len(row)] = [int(v) for v in row]
    return table
