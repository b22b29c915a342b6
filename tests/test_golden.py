"""Behaviour pinned by golden trajectories: GinRummy-v0, the vector env and the PettingZoo env return, for fixed seeds
under every preset and both episode kinds, exactly the bytes recorded in tests/data/golden/ (written by ``python -m
tests.golden`` on the code before the table layer was factored out of the three envs, and written again only for the
runs a meant change of behaviour touched: the openspiel preset for R60 and R61, and vector/eaai/match, where the
vector env now reports on the first step a hand that ended before the learner's first decision, as GinRummy-v0 does;
and every eaai run when that preset took the EAAI protocol's dealers, section 10: all but vector/eaai/hand, whose
batched table already drew a cut as a fair coin and never deals a second hand in an episode; and every scalar and
PettingZoo run when the text render learned to say "1 card", its only change; and every GinRummy-v0 and vector run
when their infos gained ``hands_ended`` and ``hand_points``, checked to be their only change by hashing the runs
without those keys against the file before), and ``evaluate.py --matches`` writes
the report recorded then (its floats within a tolerance: ``golden.assert_same_report``)."""

import json
import os

import pytest

from gin_env.evaluation import cli
from tests import golden

pytestmark = pytest.mark.golden

with open(golden.GOLDEN_PATH) as f:
    RECORDED = json.load(f)


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(golden.key(*case) for case in golden.cases())


@pytest.mark.parametrize("case", golden.cases(), ids=lambda case: golden.key(*case))
def test_the_run_returns_the_recorded_bytes(case):
    if case[0] == "pettingzoo":
        pytest.importorskip("pettingzoo")
    assert golden.run_case(*case) == RECORDED[golden.key(*case)]


def test_evaluate_matches_json_is_the_recorded_one(tmp_path):
    """``python evaluate.py random simple expert --matches 2 --seed 0 --workers 1 --json FILE``: the recorded report."""
    out = tmp_path / "report.json"
    assert cli.main(["random", "simple", "expert", "--matches", "2", "--seed", "0", "--workers", "1",
                     "--no-progress", "--json", str(out)]) == 0
    with open(os.path.join(os.path.dirname(golden.GOLDEN_PATH), "evaluate_matches_seed0.json")) as f:
        golden.assert_same_report(json.loads(out.read_text()), json.load(f))
