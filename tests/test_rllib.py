"""The RLlib adapter (issue 14), without a running Ray: the league env's episodes, seats, rewards and seeding, the
masking module (an illegal action gets logit -inf and is never sampled), and the policy file it exports, which
plays through ``agents.load`` exactly as the module's policy."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import gymnasium as gym  # noqa: E402
import ray  # noqa: E402
import torch  # noqa: E402

from gin_env import agents
from gin_env.agents.torch_policy import TorchPolicyAgent, load_policy  # noqa: E402
from gin_env.game.actions import N_ACTIONS  # noqa: E402
from gin_env.game.engine import IllegalActionError  # noqa: E402
from gin_env.game.observation import OBS_SIZE, RECORD_OBS_LAYOUT, RECORD_OBS_SIZE  # noqa: E402
from gin_env.interop import rllib

Columns = rllib.Columns


def _play(env: rllib.GinRummyLeagueEnv, seed: int, rng: np.random.Generator) -> list:
    """Random legal play of one episode; the trace of (acting agent, action, rewards, terminated, infos)."""
    obs, _ = env.reset(seed=seed)
    trace = []
    while True:
        (agent, mine), = obs.items()
        action = int(rng.choice(np.flatnonzero(mine["action_mask"])))
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        trace.append((agent, action, rewards, terminated, infos))
        if terminated["__all__"]:
            return trace


def test_a_fixed_opponent_is_played_inside_the_env():
    env = rllib.GinRummyLeagueEnv({"opponents": {"simple": 1.0}, "rules": "eaai", "reward_scale": 50.0})
    rng = np.random.default_rng(3)
    for seed in range(6):
        trace = _play(env, seed, rng)
        assert {agent for agent, *_ in trace} == {rllib.LEARNER}
        *_, (_, _, rewards, terminated, infos) = trace
        assert set(rewards) == {rllib.LEARNER} and terminated == {rllib.LEARNER: True, "__all__": True}
        assert infos[rllib.LEARNER]["opponent"] == "simple"
        assert rewards[rllib.LEARNER] * 50.0 == infos[rllib.LEARNER]["points"]
        assert all(not any(r.values()) for _, _, r, _, _ in trace[:-1])  # one hand: paid on its last step


def test_a_hand_the_opponent_ends_before_the_learner_moves_is_dealt_again():
    """Simple knocks as soon as it may (R20), so it sometimes ends a hand on its first turn, before the learner,
    as dealer, has decided anything: that episode is dealt again, and every episode starts with the learner."""
    env = rllib.GinRummyLeagueEnv({"opponents": {"simple": 1.0}})
    env.reset(seed=11)
    for _ in range(3000):  # about 3 in 1,000 deals
        obs, _ = env.reset()
        assert list(obs) == [rllib.LEARNER] and obs[rllib.LEARNER]["action_mask"].any()
        if env.redeals:
            break
    assert env.redeals == 1


def _play_out(env: rllib.GinRummyLeagueEnv, obs: dict, rng: np.random.Generator) -> tuple[list, dict]:
    """Random legal play from ``obs`` to the end of the episode: the learner's rewards, and the last infos."""
    rewards_seen = []
    while True:
        (agent, mine), = obs.items()
        obs, rewards, terminated, _, infos = env.step({agent: int(rng.choice(np.flatnonzero(mine["action_mask"])))})
        rewards_seen.append(rewards.get(rllib.LEARNER, 0.0))
        if terminated["__all__"]:
            return rewards_seen, infos


def test_in_a_match_the_learner_is_paid_every_hand_including_those_ended_before_its_move():
    env = rllib.GinRummyLeagueEnv({"opponents": {"simple": 1.0}, "episode": "match", "rules": "eaai"})
    rng = np.random.default_rng(12)
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        rewards, infos = _play_out(env, obs, rng)
        assert sum(rewards) * 100.0 == pytest.approx(infos[rllib.LEARNER]["points"])
    # A match whose first hand simple ended before the learner's first decision: paid with that decision.
    seed = next(s for s in range(5000) if env.reset(seed=s) and any(env._pending.values()))
    obs, _ = env.reset(seed=seed)
    owed = env._pending[rllib.LEARNER]
    rewards, infos = _play_out(env, obs, rng)
    assert owed != 0 and rewards[0] == owed
    assert sum(rewards) * 100.0 == pytest.approx(infos[rllib.LEARNER]["points"])


def test_self_play_seats_one_snapshot_and_pays_both_zero_sum():
    env = rllib.GinRummyLeagueEnv({"opponents": {"self": 1.0}, "snapshots": 3})
    rng = np.random.default_rng(4)
    seen = set()
    for seed in range(12):
        trace = _play(env, seed, rng)
        agents_in = {agent for agent, *_ in trace}
        snapshot = (agents_in - {rllib.LEARNER}).pop()
        assert agents_in == {rllib.LEARNER, snapshot} and snapshot in env.possible_agents[1:]
        seen.add(snapshot)
        *_, (_, _, rewards, terminated, infos) = trace
        assert set(terminated) == {rllib.LEARNER, snapshot, "__all__"}
        assert rewards[rllib.LEARNER] == -rewards[snapshot]
        assert infos[rllib.LEARNER] == {"opponent": "self", "points": rewards[rllib.LEARNER] * 100.0}
    assert seen == {"snapshot_0", "snapshot_1", "snapshot_2"}
    assert rllib.module_for("snapshot_2") == "snapshot_2" and rllib.module_for(rllib.LEARNER) == rllib.LEARNER


def test_the_same_seed_plays_the_same_episodes_and_the_learner_sits_in_both_seats():
    config = {"opponents": {"simple": 1.0, "random": 1.0, "self": 1.0}}
    one = [_play(rllib.GinRummyLeagueEnv(config), 7, np.random.default_rng(1)) for _ in range(2)]
    assert repr(one[0]) == repr(one[1])
    env = rllib.GinRummyLeagueEnv(config)
    env.reset(seed=8)
    seats, names = set(), set()
    for _ in range(30):
        env.reset()
        seats.add(env._seats[rllib.LEARNER])
        names.add(env.opponent)
    assert seats == {0, 1} and names == {"simple", "random", "self"}


def test_an_illegal_action_raises_and_bad_configs_are_refused():
    env = rllib.GinRummyLeagueEnv({"opponents": {"self": 1.0}})
    obs, _ = env.reset(seed=0)
    (agent, mine), = obs.items()
    with pytest.raises(IllegalActionError):
        env.step({agent: int(np.flatnonzero(mine["action_mask"] == 0)[0])})
    with pytest.raises(ValueError, match="weights"):
        rllib.GinRummyLeagueEnv({"opponents": {"simple": 0.0}})
    with pytest.raises(ValueError, match="snapshots"):
        rllib.GinRummyLeagueEnv({"snapshots": 0})
    with pytest.raises(ValueError, match="unknown agent"):
        rllib.GinRummyLeagueEnv({"opponents": {"grandmaster": 1.0}})
    with pytest.raises(ValueError, match="seats two players"):
        rllib.GinRummyLeagueEnv({"players": 3})


def _module(env: rllib.GinRummyLeagueEnv, seed: int) -> rllib.MaskedPPOModule:
    torch.manual_seed(seed)
    return rllib.MaskedPPOModule(observation_space=env.observation_spaces[rllib.LEARNER],
                                 action_space=env.action_spaces[rllib.LEARNER],
                                 model_config={"fcnet_hiddens": [64, 32], "vf_share_layers": True})


def _observations(env: rllib.GinRummyLeagueEnv, n: int, seed: int) -> dict[str, np.ndarray]:
    """``n`` observations of real positions, from random legal play."""
    rng = np.random.default_rng(seed)
    rows = []
    obs, _ = env.reset(seed=seed)
    while len(rows) < n:
        (agent, mine), = obs.items()
        rows.append(mine)
        obs, _, terminated, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(mine["action_mask"])))})
        if terminated["__all__"]:
            obs, _ = env.reset()
    return {key: np.stack([row[key] for row in rows]) for key in rows[0]}


def test_the_module_gives_illegal_actions_minus_infinity_and_never_samples_one():
    env = rllib.GinRummyLeagueEnv({"opponents": {"self": 1.0}})
    module = _module(env, 5)
    obs = _observations(env, 200, 5)
    legal = torch.as_tensor(obs["action_mask"]).bool()
    batch = {Columns.OBS: {key: torch.as_tensor(value) for key, value in obs.items()}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward({Columns.OBS: dict(batch[Columns.OBS])})[Columns.ACTION_DIST_INPUTS]
        assert torch.isneginf(logits[~legal]).all() and torch.isfinite(logits[legal]).all()
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    distribution = module.get_exploration_action_dist_cls().from_logits(logits)
    torch.manual_seed(6)
    for _ in range(50):
        sampled = distribution.sample()
        assert legal[torch.arange(len(sampled)), sampled].all()
    assert torch.isfinite(distribution.entropy()).all()
    values = module.compute_values({Columns.OBS: dict(batch[Columns.OBS])})
    assert values.shape == (200,) and torch.isfinite(values).all()


def test_a_module_without_the_observation_dict_is_refused():
    with pytest.raises(ValueError, match="'observation' and 'action_mask'"):
        rllib.MaskedPPOModule(observation_space=gym.spaces.Box(0, 1, (OBS_SIZE,)),
                              action_space=gym.spaces.Discrete(N_ACTIONS), model_config={})


@pytest.mark.parametrize("share", [True, False])
def test_the_exported_policy_file_plays_as_the_module(share, tmp_path):
    env = rllib.GinRummyLeagueEnv({"opponents": {"self": 1.0}})
    torch.manual_seed(9)
    module = rllib.MaskedPPOModule(observation_space=env.observation_spaces[rllib.LEARNER],
                                   action_space=env.action_spaces[rllib.LEARNER],
                                   model_config={"fcnet_hiddens": [48, 24], "vf_share_layers": share})
    path = str(tmp_path / "policy.pt")
    rllib.export_policy(module, path, {"trainer": "test"})
    agent = agents.load(path)
    assert isinstance(agent, TorchPolicyAgent) and agent.meta == {"trainer": "test"}
    obs = _observations(env, 100, 9)
    batch = {Columns.OBS: {key: torch.as_tensor(value) for key, value in obs.items()}}
    with torch.no_grad():
        masked = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    plain = agent.logits(obs["observation"])
    legal = obs["action_mask"].astype(bool)
    np.testing.assert_allclose(plain[legal], masked[legal], rtol=1e-5, atol=1e-6)
    # Greedy play is the module's greedy choice; and GinRummy-v0 seats the file as its opponent for whole hands.
    assert (agent.choose(obs["observation"], legal, np.random.default_rng(0)) == masked.argmax(axis=1)).all()
    game = gym.make("GinRummy-v0", opponent=path, illegal_action="raise")
    rng = np.random.default_rng(2)
    for seed in range(3):
        _, info = game.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, info = game.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = terminated or truncated
        assert "outcome" in info


def test_a_file_that_is_no_policy_is_refused(tmp_path):
    bad = tmp_path / "bad.pt"
    torch.save({"weights": torch.zeros(3)}, bad)
    with pytest.raises(ValueError, match="not a gin-env policy file"):
        load_policy(str(bad))
    (tmp_path / "text.pt").write_text("not torch")
    with pytest.raises(ValueError, match="is not a torch policy file: not a zip archive"):
        agents.load(str(tmp_path / "text.pt"))
    with pytest.raises(FileNotFoundError, match="no policy file"):
        agents.load(str(tmp_path / "missing.pt"))


def test_the_terminal_game_takes_the_policy_file_as_its_opponent(tmp_path, monkeypatch, capsys):
    import io
    import sys

    from gin_env.ui import play

    env = rllib.GinRummyLeagueEnv({"opponents": {"self": 1.0}})
    path = str(tmp_path / "policy.pt")
    rllib.export_policy(_module(env, 1), path, {"trainer": "test"})
    monkeypatch.setattr(sys, "stdin", io.StringIO("d\nq\n"))
    assert play.main(["--opponent", path, "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "you against policy, a game to 100" in out and "You left the game." in out


@pytest.mark.parametrize("argv, message", [
    (["--opponents", "grandmaster=1"], "unknown agent 'grandmaster'"),
    (["--opponents", "simple=-1"], "--opponents must be name=weight,... with weights >= 0"),
    (["--opponents", "simple=x"], "--opponents must be name=weight"),
    (["--hidden", "256,x"], "--hidden must be positive integers"),
    (["--num-env-runners", "-1"], "--num-env-runners must be at least 0"),
    (["--snapshots", "0"], "--snapshots must be at least 1"),
    (["--resume"], "--resume: no checkpoint of a run"),
])
def test_train_rllib_refuses_bad_options_in_one_line_before_ray_starts(argv, message, tmp_path, capsys):
    from gin_env.training import rllib_loop

    assert rllib_loop.main([*argv, "--run-dir", str(tmp_path / "run"), "--no-progress"], "train_rllib.py") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and err.startswith("train_rllib.py: error:")
    assert not ray.is_initialized() and not (tmp_path / "run").exists()


def test_a_module_with_a_layer_the_policy_file_cannot_hold_is_refused(tmp_path):
    env = rllib.GinRummyLeagueEnv({"opponents": {"self": 1.0}})
    module = rllib.MaskedPPOModule(observation_space=env.observation_spaces[rllib.LEARNER],
                                   action_space=env.action_spaces[rllib.LEARNER],
                                   model_config={"fcnet_hiddens": [32], "fcnet_use_layernorm": True})
    with pytest.raises(ValueError, match="only linear layers and .*LayerNorm"):
        rllib.export_policy(module, str(tmp_path / "policy.pt"), {})
    assert not (tmp_path / "policy.pt").exists()


def test_the_league_table_skips_an_opponent_that_ended_no_hand_in_the_iteration():
    """RLlib reports the emptied sums of an opponent with no finished hand as NaN; such an opponent has no row
    (seen on a fresh install: one iteration of 600 steps ended no hand against one snapshot)."""
    from gin_env.training import rllib_loop

    nan = float("nan")
    result = {"env_runners": {"league": {"simple": {"hands": 4.0, "wins": 3.0, "points": 40.0},
                                         "snapshot_1": {"hands": nan, "wins": nan, "points": nan},
                                         "expert": {"hands": 0.0, "wins": 0.0, "points": 0.0}}}}
    assert rllib_loop.league_row(result) == {"simple": {"hands": 4, "hand_win_rate": 0.75, "points_per_hand": 10.0}}


def test_with_the_match_record_the_league_plays_games_and_the_policy_file_reads_the_record(tmp_path):
    """``train_rllib.py --match-record``'s env: games to the target with the record in every observation (381
    entries); the exported policy file takes 381 inputs, says so (``match_record``), and plays as the module does,
    as GinRummy-v0's opponent too."""
    env = rllib.GinRummyLeagueEnv({"opponents": {"simple": 1.0}, "rules": "eaai", "episode": "match",
                                   "match_record": True})
    assert env.observation_spaces[rllib.LEARNER]["observation"].shape == (RECORD_OBS_SIZE,)
    obs = _observations(env, 300, 3)
    assert obs["observation"][:, RECORD_OBS_LAYOUT["record"]].any(), "no record seen: the test tells nothing"
    module = _module(env, 3)
    path = str(tmp_path / "policy.pt")
    rllib.export_policy(module, path, {"trainer": "test"})
    agent = agents.load(path)
    assert agent.match_record
    with torch.no_grad():
        masked = module.forward_inference({Columns.OBS: {key: torch.as_tensor(value) for key, value in
                                                         obs.items()}})[Columns.ACTION_DIST_INPUTS].numpy()
    legal = obs["action_mask"].astype(bool)
    np.testing.assert_allclose(agent.logits(obs["observation"])[legal], masked[legal], rtol=1e-5, atol=1e-6)
    game = gym.make("GinRummy-v0", rules="eaai", opponent=path, episode="match")
    _, info = game.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, info = game.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    assert "match" in info
