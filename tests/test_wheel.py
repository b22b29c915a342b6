"""The built wheel (issue 12): it claims no top-level import name but ``gin_env``, ships the agents and the model,
installs beside another package that imports as ``agents`` without touching it, and its ``gin-env`` command runs
with no repository checkout. Slow (a wheel build and a fresh venv: about 7 s on 2 cores), kept in the suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE_AGENTS = 'WHO = "another package that imports as agents"\n'


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: an in-tree build would write build/ into the checkout and could pick up stale files there.
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info",
                                                                 "__pycache__", ".*_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out)], check=True, capture_output=True, text=True, timeout=300)
    (path,) = out.glob("gin_env-*.whl")
    return str(path)


@pytest.mark.slow
def test_the_wheel_holds_gin_env_only_with_the_agents_and_the_model(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"gin_env"}
    for needed in ("gin_env/agents/__init__.py", "gin_env/agents/expert.py",
                   "gin_env/agents/models/ppo_gin_policy.npz", "gin_env/agents/models/ppo_expert_policy.npz",
                   "gin_env/evaluation/cli.py", "gin_env/py.typed",
                   "gin_env/training/loop.py", "gin_env/ui/frame.py", "gin_env/cli.py", "gin_env/ui/viewer.py",
                   "gin_env/web/static/index.html", "gin_env/web/static/app.js", "gin_env/web/static/style.css"):
        assert needed in names, needed
    # Each network once, as the actor that plays: the MaskablePPO checkpoint holds the same actor again; and the
    # belief network that the search may draw its worlds by.
    assert sorted(n for n in names if "/models/" in n) == sorted(["gin_env/agents/models/ppo_gin_policy.npz",
                                                                  "gin_env/agents/models/ppo_expert_policy.npz",
                                                                  "gin_env/agents/models/exit_v1_policy.npz",
                                                                  "gin_env/agents/models/ppo_jokers_policy.npz",
                                                                  "gin_env/belief/models/belief_v1.npz"])
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "gin-env = gin_env.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


@pytest.mark.slow
def test_the_wheel_installs_beside_a_package_named_agents(wheel, tmp_path):
    home = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(home)
    python = str(home / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # The other package, installed first, as pip would lay it out.
    os.makedirs(os.path.join(site, "agents"))
    with open(os.path.join(site, "agents", "__init__.py"), "w") as f:
        f.write(FAKE_AGENTS)
    # The core dependencies (numpy, gymnasium, numba) from this interpreter (no index needed); gin_env itself only
    # from the wheel.
    with open(os.path.join(site, "deps.pth"), "w") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel], check=True,
                   capture_output=True, text=True, timeout=300)
    with open(os.path.join(site, "agents", "__init__.py")) as f:
        assert f.read() == FAKE_AGENTS
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = ("import agents, gin_env, gin_env.agents as ours\n"
            f"print(agents.WHO); print(gin_env.__file__.startswith({site!r}))\n"
            "print(type(ours.load('search')).__name__)")
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["another package that imports as agents", "True", "SearchAgent"]
    command = subprocess.run([str(home / "bin" / "gin-env"), "evaluate", "simple", "random", "--deals", "2",
                              "--workers", "1", "--no-progress"], capture_output=True, text=True, cwd=tmp_path,
                             env=env, timeout=120)
    assert command.returncode == 0, command.stderr
    assert "Elo:" in command.stdout


@pytest.mark.slow
def test_the_sdist_and_the_wheel_are_ready_to_publish(tmp_path):
    """``python -m build`` makes both, ``twine check`` passes them (metadata, README rendering), and the sdist holds
    the LICENSE that pyproject.toml names."""
    pytest.importorskip("build")
    pytest.importorskip("twine")
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info",
                                                                 "__pycache__", ".*_cache", "runs"))
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(out),
                    str(source)], check=True, capture_output=True, text=True, timeout=300)
    built = sorted(str(path) for path in out.iterdir())
    assert [os.path.basename(path).split("-")[0] for path in built] == ["gin_env", "gin_env"]
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *built], capture_output=True,
                           text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    (sdist,) = (path for path in built if path.endswith(".tar.gz"))
    with tarfile.open(sdist) as archive:
        assert any(name.endswith("/LICENSE") for name in archive.getnames())
