"""Train a MaskablePPO Gin Rummy agent on the batched engine, against a scheduled pool of opponents.

In the spirit of CleanRL: every knob is a field of :class:`.config.Args` (``gin-env train --help``), every random
choice is seeded from ``--seed``, and a run writes everything to ``--run-dir``:

* ``tb/``: TensorBoard logs (per opponent: hand win rate and points per hand; the periodic evaluations; steps/s);
* ``last.zip`` every ``--checkpoint-every`` steps and at the end, ``best.zip`` (best points per hand in the periodic
  duplicate-deal evaluation against ``--eval-opponent``, simple by default), ``history.json`` and
  ``learning_curve.png``;
* ``policy.zip``: ``best.zip`` without its optimizer state, a third of the size, the file to ship (``gin-env
  export`` writes the same from any checkpoint, or averages several: :mod:`.export`).

The opponents: the learner's games are cut into ``--slots`` groups of equal size, each with one opponent at a time.
At the start of every rollout each group is given an opponent drawn from the ``--opponents`` schedule, a list of
phases ``START:name=weight,...`` separated by ``;`` where START is a fraction of ``--total-timesteps``. Names are
agents with a batched form (``random``, ``simple``, ``expert``, a model .zip) or ``self``: a snapshot of the policy
itself, taken every ``--snapshot-every`` steps (the last ``--snapshots`` are kept), playing by sampling from its
distribution. A curriculum from scratch, for instance: ``--imitate-steps 0 --opponents "0:random;
0.02:random=1,simple=3; 0.2:simple=3,self=1"``.

The learner: MaskablePPO with :class:`agents.networks.CardPolicy`, warm-started by behaviour cloning of a teacher
(``--teacher``, the expert by default; ``--imitate-steps`` of its decisions, policy and critic), on rewards with
potential-based deadwood shaping (``--shaping``).

Example: ``gin-env train --rules eaai --run-dir runs/ppo`` (leg 1 of the shipped model's chain, docs/training.md;
``--rules`` defaults to ``standard``, as in every command, and ``--rule KEY=VALUE`` changes one key of the preset,
e.g. ``--rule knock_limit=5``); resume with ``gin-env train --rules eaai --total-timesteps 6000000 --run-dir runs/ppo
--resume runs/ppo/last.zip``. A folder that holds a run is refused unless the run is resumed or ``--overwrite`` is
given; a run resumed in its folder keeps its rules (other ``--rules`` or ``--rule`` are refused); and every file is
written whole (a temporary name, renamed).

The modules: :mod:`.config` (the options), :mod:`.checks` (every option checked before anything happens),
:mod:`.run_files` (the run folder: refusal, history, whole checkpoints), :mod:`.opponents` (the schedule),
:mod:`.pool_env` (the SB3 ``VecEnv`` over several opponents, with the shaping), :mod:`.imitation` (behaviour
cloning), :mod:`.monitor` (the callback that keeps the books during ``learn``), :mod:`.plots`, :mod:`.loop` (the run
and its command line) and :mod:`.export` (``gin-env export``). Importing this package, :mod:`.config`,
:mod:`.checks` or :mod:`.loop` imports nothing heavy; the modules that need torch or stable-baselines3 say so in one
line when missing.
"""
