"""Expert iteration, the pipeline that made ``exit-v1``: :mod:`iteration.options` (the options and their checks),
:mod:`iteration.pipeline` (the generations and their stages), :mod:`iteration.curve` (each generation's strength).
``python experiments/iterate.py`` runs it."""
