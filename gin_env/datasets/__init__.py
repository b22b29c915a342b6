"""Offline datasets of Gin Rummy in Minari's format: episodes of ``GinRummy-v0`` played by any line-up, in any preset
(``--rules``, with any key changed by ``--rule KEY=VALUE``) and format, with each step's action mask and outcome in
the infos and the agents, the rules in full and the seeds in the metadata.

``gin-env dataset PLAYER OTHER... --hands N`` writes one (:mod:`.cli`); ``minari.load_dataset`` reads it without
gin-env; ``minari.DataCollector`` records ``GinRummy-v0`` with :class:`.minari_files.GinRummyStepData`;
``gin-env train --from-dataset`` clones the recorded agent (:mod:`.decisions`). docs/datasets.md is the reference.
Writing needs the ``datasets`` extra (``pip install 'gin-env[datasets]'``).
"""
