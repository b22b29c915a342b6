"""Files from strangers run nothing (issue 49): no pickle in a model file is ever loaded, and every archive read is
bounded before anything in it is decompressed. The pickles are the corpus of tests/data/hostile/models/ (its
README lists each file and what it attacks; make_models.py remakes them); the archive bombs are built here, where
they cost nothing. Each is tried through what a user runs: ``agents.load``, ``gin-env evaluate``, ``export`` and
``train --resume``."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import os
import pickle
import re
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

from gin_env import agents, cli, files
from gin_env.agents import model_archive, numpy_policy
from gin_env.belief.network import SHIPPED as SHIPPED_BELIEF
from gin_env.belief.network import NetworkModel
from tests.refusals import assert_refused, snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "data", "hostile", "models")
BASE = os.path.join(CORPUS, "base.zip")
_spec = importlib.util.spec_from_file_location("make_models", os.path.join(CORPUS, "make_models.py"))
make_models = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_models)

#: The most memory a refusal of the bombs here may take: each file is under 2 MB, and what it expands to far more.
REFUSAL_MEMORY_BYTES = 32 * 2**20
#: The size declared by the bombs that lie about it: 2 GiB.
DECLARED_BOMB_BYTES = 2**31
#: A central directory record's signature, and the offsets in it of the expanded size and the name's length.
_DIRECTORY_RECORD, _EXPANDED_SIZE_AT, _NAME_LENGTH_AT, _NAME_AT = b"PK\x01\x02", 24, 28, 46


@pytest.fixture
def marker(tmp_path, monkeypatch):
    """The file the payload writes when it runs, named in its environment variable; none may exist after the test."""
    path = tmp_path / "payload-ran"
    monkeypatch.setenv(make_models.MARKER_VARIABLE, str(path))
    yield path
    assert not path.exists(), "a pickle from a model file ran"


def _entries(path: str) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _archive(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return out.getvalue()


def _declaring(raw: bytes, entry: str, size: int) -> bytes:
    """The archive ``raw`` with its list of entries declaring ``size`` expanded bytes for ``entry``."""
    out = bytearray(raw)
    at = raw.find(_DIRECTORY_RECORD)
    while at >= 0:
        length = struct.unpack_from("<H", raw, at + _NAME_LENGTH_AT)[0]
        if raw[at + _NAME_AT:at + _NAME_AT + length] == entry.encode():
            struct.pack_into("<I", out, at + _EXPANDED_SIZE_AT, size)
            return bytes(out)
        at = raw.find(_DIRECTORY_RECORD, at + 1)
    raise AssertionError(f"no entry {entry}")


def _serialized(path: str) -> set[str]:
    data = json.loads(_entries(path)["data"])
    return {key for key, value in data.items() if isinstance(value, dict) and ":serialized:" in value}


def test_the_corpus_is_live_and_covers_every_entry_a_model_pickles(tmp_path, monkeypatch):
    """The payload runs when unpickled, as SB3's own load would; every entry the corpus's checkpoint pickles has
    its file, and gin-env rebuilds every entry the shipped model pickles."""
    ran = tmp_path / "ran"
    monkeypatch.setenv(make_models.MARKER_VARIABLE, str(ran))
    data = json.loads(_entries(os.path.join(CORPUS, "pickle-in-lr_schedule.zip"))["data"])
    pickle.loads(base64.b64decode(data["lr_schedule"][":serialized:"]))  # noqa: S301 - the point of the test
    assert ran.read_text() == "the pickle ran\n"
    assert _serialized(BASE) == set(make_models.REBUILT)
    assert _serialized(os.path.join(ROOT, "agents", "models", "ppo_gin.zip")) <= set(model_archive.REBUILDERS)


def _views(count: int) -> list:
    from gin_env.envs.gin_rummy import GinRummyEnv
    from gin_env.game.observation import view

    env, rng, views = GinRummyEnv(opponent="random"), np.random.default_rng(0), []
    env.reset(seed=0)
    while len(views) < count:
        views.append(view(env.state, env.learner))
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            env.reset(seed=len(views))
    return views


@pytest.mark.parametrize("key", make_models.REBUILT)
def test_a_pickle_gin_env_rebuilds_never_runs_and_the_model_loads_as_it_was(key, marker):
    pytest.importorskip("sb3_contrib")
    from gin_env.game.observation import OBS_SIZE, encode

    agent = agents.load(os.path.join(CORPUS, f"pickle-in-{key}.zip"))
    base = agents.load(BASE)
    views = _views(24)
    obs, masks = np.stack([encode(view) for view in views]), np.stack([view.legal_mask for view in views])
    assert agent.policy.observation_space.shape == (OBS_SIZE,)
    np.testing.assert_allclose(agent.logits(obs, masks), base.logits(obs, masks), rtol=1e-6)


@pytest.mark.parametrize("name, message", [
    ("pickle-in-policy_kwargs.zip", "holds 'policy_kwargs' as a pickle, and gin-env does not know how to rebuild"),
    ("pickle-in-learning_rate.zip", "holds 'learning_rate' as a pickle"),
    ("pickle-in-an-entry-sb3-never-writes.zip", "holds 'callback' as a pickle"),
    ("foreign-policy-class.zip", "holds 'policy_class' as a pickle, and it names the class evil.policies.EvilPolicy"),
    ("linear-schedule.zip", "holds 'clip_range' as a pickle, and it is not a constant schedule"),
    ("env-entry.zip", "holds 'env', which model.save never writes"),
])
def test_a_model_gin_env_cannot_load_without_its_pickles_is_refused_by_name(name, message, marker):
    pytest.importorskip("sb3_contrib")
    assert name in make_models.REFUSED
    with pytest.raises(ValueError, match=re.escape(f"{name}' is refused: its 'data' {message}")):
        agents.load(os.path.join(CORPUS, name))


def _bomb(kind: str) -> bytes:
    """A model archive past one bound of :func:`gin_env.files.bounded_archive` or :data:`model_archive.DATA_BYTES`,
    built from the corpus's base model."""
    entries, raw = _entries(BASE), open(BASE, "rb").read()
    if kind == "declares gigabytes":
        return _declaring(raw, "data", DECLARED_BOMB_BYTES)
    if kind == "data past its bound":  # a true bomb: zeros compress a thousandfold
        return _archive({**entries, "data": bytes(model_archive.DATA_BYTES + 1)})
    if kind == "expands past what it declares":
        return _declaring(raw, "data", len(entries["data"]) // 2)
    if kind == "too many entries":
        return _archive({**entries, **{f"extra/{i}": b"" for i in range(files.ARCHIVE_ENTRIES)}})
    if kind == "a list of entries too long to read":
        long_name = "n" * (2 * files.DIRECTORY_BYTES_PER_ENTRY)
        return _archive({**entries, **{f"{long_name}{i}": b"" for i in range(files.ARCHIVE_ENTRIES // 2)}})
    if kind == "a network past its bound":  # plain JSON, but SB3 would build the network before reading a weight
        data = json.loads(entries["data"])
        data["policy_kwargs"]["features_extractor_kwargs"]["channels"] = model_archive.MAX_LAYER_WIDTH + 1
        return _archive({**entries, "data": json.dumps(data).encode()})
    assert kind == "a torch entry declaring gigabytes"
    return _archive({**entries, "policy.pth": _declaring(entries["policy.pth"], "archive/data/0",
                                                         DECLARED_BOMB_BYTES)})


BOMBS = {
    "declares gigabytes": "its entry 'data' expands to 2,147,483,648 bytes; an entry read here expands to at most",
    "data past its bound": "its entry 'data' expands to 67,108,865 bytes; at most 67,108,864 here",
    "expands past what it declares": "its entry 'data' is damaged",
    "too many entries": "holds 1,006 entries; an archive read here holds at most 1,000",
    "a list of entries too long to read": "its list of entries takes",
    "a torch entry declaring gigabytes": "its entry 'policy.pth': its entry 'archive/data/0' expands to 2,147,483,648",
    "a network past its bound": "its policy_kwargs.features_extractor_kwargs.channels is 1,025; a layer of a model is "
                                "at most 1,024 wide",
}


@pytest.mark.parametrize("kind", BOMBS)
def test_a_model_archive_past_a_bound_is_refused_before_it_is_expanded(kind, tmp_path):
    """Refused from the sizes the archive declares, or a chunk past them, in little memory (no sb3 needed)."""
    path = tmp_path / "bomb.zip"
    path.write_bytes(_bomb(kind))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=re.escape(BOMBS[kind])):
            agents.load(str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < REFUSAL_MEMORY_BYTES


def _npz_bomb(source: str, kind: str) -> bytes:
    entries, raw = _entries(source), open(source, "rb").read()
    if kind == "an array declaring gigabytes":
        return _declaring(raw, next(iter(entries)), DECLARED_BOMB_BYTES)
    return _archive({**entries, **{f"extra{i}.npy": b"" for i in range(files.ARCHIVE_ENTRIES)}})


@pytest.mark.parametrize("kind, message", [
    ("an array declaring gigabytes", "expands to 2,147,483,648 bytes; an entry read here expands to at most"),
    ("too many entries", "entries; an archive read here holds at most 1,000"),
])
@pytest.mark.parametrize("reader", ["policy weights", "belief weights", "torch policy"])
def test_a_weights_archive_past_a_bound_is_refused_by_each_reader(reader, kind, message, tmp_path):
    if reader == "torch policy":
        pytest.importorskip("torch")
    source, load, name = {"policy weights": (numpy_policy.SHIPPED["ppo"], agents.load, "bomb.npz"),
                          "belief weights": (SHIPPED_BELIEF["belief-v1"], NetworkModel, "bomb.npz"),
                          "torch policy": (numpy_policy.SHIPPED["ppo"], agents.load, "bomb.pt")}[reader]
    path = tmp_path / name
    path.write_bytes(_npz_bomb(source, kind))
    with pytest.raises(ValueError, match=f"{name}' is not .*{re.escape(message)}"):
        load(str(path))


@pytest.mark.parametrize("hostile", ["pickle-in-policy_kwargs.zip", "declares gigabytes"])
@pytest.mark.parametrize("command", [
    ["evaluate", "MODEL", "random", "--deals", "2", "--workers", "1", "--no-progress"],
    ["export", "MODEL", "--out", "exported.zip", "--numpy", "exported.npz"],
    ["train", "--resume", "MODEL", "--run-dir", "run", "--total-timesteps", "64", "--no-progress"],
])
def test_every_command_refuses_a_hostile_model_in_one_line_and_writes_nothing(command, hostile, marker, tmp_path,
                                                                              monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    folder = tmp_path / "work"
    folder.mkdir()
    content = open(os.path.join(CORPUS, hostile), "rb").read() if hostile.endswith(".zip") else _bomb(hostile)
    (folder / "model.zip").write_bytes(content)
    monkeypatch.chdir(folder)
    before = snapshot(folder)
    try:
        code = cli.main([("model.zip" if arg == "MODEL" else arg) for arg in command])
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    assert_refused(code, capsys.readouterr().err, f"gin-env {command[0]}", "model.zip")
    assert snapshot(folder) == before


def test_only_the_model_archive_loads_a_model_and_only_files_opens_an_archive():
    """One module owns each: a new reader that bypasses them would read a file unchecked."""
    owners = {r"MaskablePPO\.load|maskable_ppo\.load|load_from_zip_file": {"agents/model_archive.py"},
              r"zipfile\.ZipFile\(|np\.load\(|numpy\.load\(": {"gin_env/files.py"}}
    sources = [os.path.join(folder, name) for top in ("agents", "gin_env") for folder, _, names
               in os.walk(os.path.join(ROOT, top)) for name in names if name.endswith(".py")]
    for pattern, owner in owners.items():
        found = set()
        for source in sources:
            with open(source, encoding="utf-8") as f:
                if re.search(pattern, f.read()):
                    found.add(os.path.relpath(source, ROOT).replace(os.sep, "/"))
        assert found == owner, pattern
