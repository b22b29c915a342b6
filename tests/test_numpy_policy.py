"""The numpy copy of the PPO policy (agents/numpy_policy.py), the search agent's guide: the shipped weights load and
play legal actions on a core install, and a bad weights file is refused with a message naming it. That numpy and
torch agree is tested in test_train.py, where torch is at hand."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env import agents
from gin_env.agents import numpy_policy
from gin_env.evaluation import duel
from gin_env.game.rules import Rules


@pytest.mark.parametrize("name", ["ppo", "ppo-expert"])
def test_the_shipped_weights_load_and_play_legal_actions(name):
    policy = numpy_policy.shipped(name)
    assert policy.path == numpy_policy.SHIPPED[name] and policy.deterministic
    for game in range(2):  # the engine raises on an illegal action
        duel.play_duplicate(Rules.preset("eaai"), policy, agents.load("simple"), seed=4, game=game)


def test_the_two_shipped_networks_differ_and_unknown_names_are_refused():
    views = np.random.default_rng(0).random((64, numpy_policy.OBS_SIZE)).astype(np.float32)
    assert not np.allclose(numpy_policy.shipped("ppo").logits(views), numpy_policy.shipped("ppo-expert").logits(views))
    with pytest.raises(ValueError, match="no shipped policy weights named 'ppo2'; there are ppo, ppo-expert"):
        numpy_policy.shipped("ppo2")


def _shipped_weights() -> dict:
    with np.load(numpy_policy.SHIPPED_WEIGHTS) as archive:
        return {key: archive[key] for key in archive.files}


def test_a_bad_weights_file_is_refused_by_name(tmp_path):
    with pytest.raises(FileNotFoundError, match="no policy weights file at"):
        numpy_policy.load_policy(str(tmp_path / "missing.npz"))
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"not an archive")
    with pytest.raises(ValueError, match="corrupt.npz.*is not a policy weights file"):
        numpy_policy.load_policy(str(corrupt))
    weights = _shipped_weights()
    partial = tmp_path / "partial.npz"
    np.savez(partial, **{k: v for k, v in weights.items() if k != "action_net.free_out.bias"})
    with pytest.raises(ValueError, match="lacks the policy weights action_net.free_out.bias"):
        numpy_policy.load_policy(str(partial))
    narrow = tmp_path / "narrow.npz"
    np.savez(narrow, **{**weights, "pi_features_extractor.summary.0.weight":
                        weights["pi_features_extractor.summary.0.weight"][:, :-3]})
    with pytest.raises(ValueError, match="narrow.npz.*another network shape"):
        numpy_policy.load_policy(str(narrow))

