"""agents.load on every machine and every mistake: the shipped networks play on a core install (no torch), a plug-in
that fails in any way is one ValueError naming its spec, and a policy file that is damaged or of another shape is
refused, naming the file, before any layer is built."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from gin_env import agents
from gin_env.agents import numpy_policy, ppo
from gin_env.evaluation import duel
from gin_env.game.actions import N_ACTIONS
from gin_env.game.observation import OBS_SIZE, encode
from gin_env.game.rules import Rules

# -- the shipped networks ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ppo", "ppo-expert"])
def test_the_shipped_networks_load_by_name_as_numpy_agents(name):
    agent = agents.load(name)
    assert isinstance(agent, numpy_policy.NumpyPolicyAgent) and agent.path == numpy_policy.SHIPPED[name]
    assert agent.deterministic
    assert "ppo-expert" in agents.names()


def test_the_shipped_agents_play_without_torch_or_sb3():
    """A core install has numpy, gymnasium and numba only: blocking torch and the SB3 packages, as if missing,
    ``ppo``, ``ppo-expert`` and ``search`` still load and play whole hands (the engine raises on an illegal
    action), and none of the blocked packages is imported."""
    code = """
import sys
for blocked in ("torch", "stable_baselines3", "sb3_contrib"):
    sys.modules[blocked] = None
from gin_env import agents
from gin_env.evaluation import duel
from gin_env.game.rules import Rules
rules = Rules.preset("eaai", target=None)
for name in ("ppo", "ppo-expert", "search"):
    agent = agents.load(name)
    for game in range(2):
        duel.play_duplicate(rules, agent, agents.load("simple"), seed=3, game=game)
    print(name, type(agent).__name__)
print(sorted(m for m in ("torch", "stable_baselines3", "sb3_contrib") if sys.modules.get(m) is not None))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:4] == ["ppo NumpyPolicyAgent", "ppo-expert NumpyPolicyAgent",
                                             "search SearchAgent", "[]"]


def _views(games: int) -> list:
    """The views of both seats in ``games`` single hands of expert against simple under the eaai rules."""
    out = []

    def record(agent):
        def act(v, rng):
            out.append(v)
            return agent.act(v, rng)
        return agents.CallableAgent(act)

    rules = Rules.preset("eaai", target=None)
    for game in range(games):
        duel.play_game(rules, (record(agents.load("expert")), record(agents.load("simple"))), 21, game)
    return out


def test_the_numpy_actor_picks_the_shipped_models_action():
    """``load("ppo")`` plays the shipped ``.zip``'s actor in numpy: the same greedy action on every view (over
    14,571 views of 432 games the two agreed on all but two, exact ties that the tie rule now settles alike)."""
    pytest.importorskip("sb3_contrib")
    model, copy = ppo.load_model(ppo.SHIPPED_MODEL), agents.load("ppo")
    views = _views(24)
    assert len(views) > 400
    obs, masks = np.stack([encode(v) for v in views]), np.stack([v.legal_mask for v in views])
    rng = np.random.default_rng(0)
    assert (copy.choose(obs, masks, rng) == model.choose(obs, masks, rng)).all()


def test_greedy_ties_within_float_noise_go_to_the_lowest_action_id():
    masks = np.ones((3, 4), dtype=bool)
    masks[2, 1] = False
    logits = np.array([[1.0, 23.0, np.nextafter(np.float32(23.0), np.float32(24.0)), 0.0],
                       [1.0, 23.0, 23.01, 0.0],  # a real preference stands
                       [0.0, 50.0, 3.0, 3.0]], dtype=np.float32)  # an illegal best never counts
    assert ppo.pick_actions(logits, masks, np.random.default_rng(0), True).tolist() == [1, 2, 2]


# -- module:attr plug-ins ---------------------------------------------------------------------------------------

PLUGINS = {
    "syntax": "def broken(:\n",
    "raises_on_import": "raise RuntimeError('no licence server')\n",
    "constructors": """
class Crashes:
    def __init__(self):
        raise RuntimeError('weights missing')
    def act(self, view, rng):
        return 0

class BadType:
    def __init__(self):
        int(None)
    def act(self, view, rng):
        return 0

class NeedsArgs:
    def __init__(self, depth):
        pass
    def act(self, view, rng):
        return 0

class NoAct:
    pass

class Interrupted:
    def __init__(self):
        raise KeyboardInterrupt
    def act(self, view, rng):
        return 0

def one_argument(view):
    return 0

NUMBER = 3
""",
    "lazy": "def __getattr__(name):\n    raise OSError('lazy attribute ' + name + ' failed')\n",
    "exits": "raise SystemExit(3)\n",
}


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """The modules of :data:`PLUGINS` importable as ``plugin_<name>`` (fresh in every test)."""
    for name, source in PLUGINS.items():
        (tmp_path / f"plugin_{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in PLUGINS:
        monkeypatch.delitem(sys.modules, f"plugin_{name}", raising=False)


@pytest.mark.parametrize(("spec", "message"), [
    ("plugin_syntax:Agent", r"cannot import 'plugin_syntax': SyntaxError: .*plugin_syntax\.py, line 1"),
    ("plugin_raises_on_import:Agent", "cannot import 'plugin_raises_on_import': RuntimeError: no licence server"),
    ("plugin_constructors:Crashes", r"making Crashes\(\) raised RuntimeError: weights missing"),
    ("plugin_constructors:BadType", r"making BadType\(\) raised TypeError: int\(\) argument"),
    ("plugin_constructors:NeedsArgs", "class NeedsArgs must be made with no arguments"),
    ("plugin_constructors:NoAct", r"class NoAct has no act\(view, rng\) method"),
    ("plugin_constructors:one_argument", r"function 'one_argument' must take \(view, rng\)"),
    ("plugin_constructors:NUMBER", "must be an agent name, an Agent or a callable"),
    ("plugin_constructors:Missing", "module 'plugin_constructors' has no attribute 'Missing'"),
    ("plugin_lazy:Agent", "reading 'Agent' raised OSError: lazy attribute Agent failed"),
])
def test_every_plugin_failure_is_a_value_error_naming_the_spec(plugins, spec, message):
    with pytest.raises(ValueError, match=rf"^agent '{spec}':? {message}"):
        agents.load(spec)


def test_interrupts_and_exits_from_a_plugin_go_through(plugins):
    with pytest.raises(KeyboardInterrupt):
        agents.load("plugin_constructors:Interrupted")
    with pytest.raises(SystemExit):
        agents.load("plugin_exits:Agent")


# -- built-in agents with parameters ---------------------------------------------------------------------------------


def test_a_built_in_agent_takes_parameters_in_brackets():
    search = agents.load(f"search[samples=8,trust=none,guide={numpy_policy.SHIPPED['ppo']}]")
    assert (search.params.samples, search.params.trust, search.params.guide) == (8, None, numpy_policy.SHIPPED["ppo"])
    assert search.name == f"search-v2[samples=8,trust=None,guide={numpy_policy.SHIPPED['ppo']}]"
    assert not agents.is_path(f"search[guide={numpy_policy.SHIPPED['ppo']}]")
    assert agents.versioned("search[samples=8]") == "search-v2[samples=8]"
    result = duel.play_duplicate(Rules.preset("eaai").replace(target=None), agents.load("search[samples=4]"),
                                 agents.load("simple"), seed=1, game=0)
    assert result is not None


@pytest.mark.parametrize(("spec", "message"), [
    ("expert[take_margin=2]", "agent expert-v2 takes no parameters"),
    ("search[samples=0]", "agent search-v2: search parameter 'samples' must lie in"),
    ("search[sample=8]", "agent search-v2: SearchAgent has no parameter 'sample'"),
    ("search[samples]", "parameters are key=value separated by commas, got 'samples'"),
    ("search[samples=8,samples=9]", "parameter 'samples' is given twice"),
    ("serch[samples=8]", "unknown agent 'serch'"),
])
def test_a_bad_parameter_is_a_value_error_naming_the_agent(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        agents.load(spec)


# -- policy files -----------------------------------------------------------------------------------------------


def _shipped_weights() -> dict:
    with np.load(numpy_policy.SHIPPED_WEIGHTS) as archive:
        return {key: archive[key] for key in archive.files}


def _write_headers_only(path, shapes: dict) -> None:
    """An .npz whose members hold only a .npy header declaring each shape: what a tiny compressed file of zeros
    looks like to a reader that trusts the header."""
    with zipfile.ZipFile(path, "w") as archive:
        for key, shape in shapes.items():
            with archive.open(key + ".npy", "w") as member:
                np.lib.format.write_array_header_1_0(
                    member, {"descr": "<f4", "fortran_order": False, "shape": shape})


def test_weights_of_absurd_size_are_refused_from_their_headers(tmp_path):
    path = tmp_path / "huge.npz"
    _write_headers_only(path, numpy_policy._expected_shapes(100_000, 128, 32))
    with pytest.raises(ValueError, match=r"huge.npz' holds a network of [\d,]+ weights; a policy file holds at most"):
        numpy_policy.load_policy(str(path))


@pytest.mark.parametrize(("change", "message"), [
    (lambda w: w.pop("action_net.card.bias"), "lacks the policy weights action_net.card.bias"),
    (lambda w: w.update({"action_net.card.weight": w["action_net.card.weight"][:-1]}),
     r"another network shape: its 'action_net.card.weight' has shape \(31, 32, 1\), not \(32, 32, 1\)"),
    (lambda w: w.update({"pi_features_extractor.runs.bias": np.zeros((2, 2), np.float32)}),
     r"its 'pi_features_extractor.runs.bias' has shape \(2, 2\), not \(width,\)"),
    (lambda w: w.update({"action_net.free_out.bias": np.zeros(4, np.int64)}), "not floating-point numbers"),
    (lambda w: w["action_net.context.weight"].__setitem__((0, 0), np.nan), "not finite numbers: action_net.context"),
])
def test_a_damaged_weights_file_is_refused_by_name(tmp_path, change, message):
    weights = _shipped_weights()
    change(weights)
    path = tmp_path / "damaged.npz"
    np.savez(path, **weights)
    with pytest.raises(ValueError, match=f"damaged.npz.*{message}"):
        numpy_policy.load_policy(str(path))


def test_weights_in_memory_are_checked_and_a_weights_file_loads_by_path(tmp_path):
    weights = _shipped_weights()
    with pytest.raises(ValueError, match="the policy weights lacks the policy weights pi_features_extractor.mix"):
        numpy_policy.NumpyPolicyAgent({k: v for k, v in weights.items() if "mix." not in k})
    with pytest.raises(TypeError, match="'deterministic' must be True or False"):
        numpy_policy.NumpyPolicyAgent(weights, deterministic="yes")
    np.savez(tmp_path / "extra.npz", **weights, notes=np.array(["not a weight"]))
    agent = agents.load(str(tmp_path / "extra.npz"))  # a path to actor weights is an agent on a core install
    assert isinstance(agent, numpy_policy.NumpyPolicyAgent)
    assert agent.logits(np.zeros((1, OBS_SIZE))).shape == (1, N_ACTIONS)


def _pt(tmp_path, name: str, saved: dict) -> str:
    torch = pytest.importorskip("torch")
    path = str(tmp_path / name)
    torch.save(saved, path)
    return path


def _good_policy() -> dict:
    torch = pytest.importorskip("torch")
    from gin_env.agents.torch_policy import FORMAT

    return {"format": FORMAT, "layers": [["linear", OBS_SIZE, 8], ["tanh"], ["linear", 8, N_ACTIONS]],
            "state_dict": {"0.weight": torch.zeros(8, OBS_SIZE), "0.bias": torch.zeros(8),
                           "2.weight": torch.zeros(N_ACTIONS, 8), "2.bias": torch.zeros(N_ACTIONS)},
            "meta": {"by": "the test"}}


def _edited(edit) -> dict:
    saved = _good_policy()
    edit(saved)
    return saved


@pytest.mark.parametrize(("edit", "message"), [
    (lambda s: s.pop("state_dict"), "damaged policy file: it lacks state_dict"),
    (lambda s: s.update(meta=[1]), "its meta is a list, not a dict"),
    (lambda s: s.update(layers="linear"), "its layers are 'linear', not a list of layers"),
    (lambda s: s["state_dict"].pop("2.bias"), "do not match its layers: missing 2.bias"),
    (lambda s: s["state_dict"].update({"9.weight": s["state_dict"]["0.bias"]}), "unexpected 9.weight"),
    (lambda s: s.update(layers=[["linear", OBS_SIZE, 10**12], ["tanh"], ["linear", 10**12, N_ACTIONS]]),
     r"weight 0.weight has shape \(8, 375\); its layer needs \(1000000000000, 375\)"),
    (lambda s: s["layers"].__setitem__(0, ["linear", OBS_SIZE, True]), r"layer 0 is \['linear', 375, True\]"),
    (lambda s: s["layers"].__setitem__(1, ["gelu"]), r"layer 1 is \['gelu'\]; a layer is \['linear'"),
    (lambda s: s["layers"].__setitem__(2, ["linear", 9, N_ACTIONS]), "layer 2 takes 9 inputs where the layers"),
    (lambda s: s["layers"].__setitem__(0, ["linear", 100, 8]), "layer 0 takes 100 inputs where the observation"),
    (lambda s: s["layers"].__setitem__(2, ["linear", 8, 7]), "policy for another env: it gives 7 outputs"),
    (lambda s: s["state_dict"]["0.bias"].__setitem__(0, float("inf")), "weight 0.bias holds numbers that are not"),
    (lambda s: s["state_dict"].update({"0.bias": s["state_dict"]["0.bias"].long()}), "not a tensor of floating"),
])
def test_a_damaged_torch_policy_file_is_refused_before_any_layer_is_built(tmp_path, monkeypatch, edit, message):
    from gin_env.agents import torch_policy

    path = _pt(tmp_path, "policy.pt", _edited(edit))
    monkeypatch.setattr(torch_policy, "_network", lambda spec: pytest.fail("built a network from a bad file"))
    with pytest.raises(ValueError, match=f"policy.pt'.*{message}"):
        agents.load(path)


def test_a_good_torch_policy_file_loads_and_its_writer_leaves_no_half_file(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    from gin_env.agents import torch_policy

    agent = agents.load(_pt(tmp_path, "good.pt", _good_policy()))
    assert agent.meta == {"by": "the test"}
    target = tmp_path / "saved.pt"
    target.write_bytes(b"the old file")

    def dies_midway(obj, f):
        f.write(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(torch_policy.torch, "save", dies_midway)
    with pytest.raises(OSError, match="disk full"):
        torch_policy.save_policy([torch.nn.Linear(OBS_SIZE, N_ACTIONS)], str(target), {})
    assert target.read_bytes() == b"the old file" and sorted(p.name for p in tmp_path.iterdir()) == [
        "good.pt", "saved.pt"]


def test_a_zip_of_another_env_is_refused_before_sb3_builds_it(tmp_path):
    """The archive's plain-JSON description of its spaces is read first: a model of another env is named as such
    even where SB3 could not read the rest (here there is no rest)."""
    path = tmp_path / "cartpole.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"observation_space": {"_shape": [4]}, "action_space": {"n": "2"}}))
    with pytest.raises(ValueError, match=r"cartpole.zip' is a MaskablePPO model for another env: .*\(4,\) and 2"):
        agents.load(str(path))


def test_a_plain_ppo_zip_is_no_maskable_model(tmp_path):
    pytest.importorskip("sb3_contrib")
    from stable_baselines3 import PPO

    from gin_env.envs.gin_rummy import GinRummyEnv

    PPO("MlpPolicy", GinRummyEnv(), seed=0, device="cpu", policy_kwargs={"net_arch": [8]}).save(tmp_path / "p.zip")
    with pytest.raises(ValueError, match="p.zip' could not be loaded as a MaskablePPO model: Policy must subclass"):
        agents.load(str(tmp_path / "p.zip"))
