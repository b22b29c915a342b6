"""The README and docs/: the README stays a two-minute read (under 8 KB) with a loop of ten lines, docs/env.md's
player's view example reads the learner's view alone, the README's two commands are the ones CI runs, every link
lands, and nothing points outside the repository. That every snippet runs and prints what its page shows is
tests/test_doc_snippets.py's."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
MAX_README_BYTES = 8_191

#: The README's two commands, byte for byte: the guide and CI rely on them.
MAIN_JOB = ('python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[evaluate,play]" -c constraints.txt && '
            "gin-env evaluate ppo expert simple random --rules eaai --matches 200 --seed 0 --plot results.png")
TEST_SUITE = ('python3 -m venv .venv-test && . .venv-test/bin/activate && pip install -e ".[test]" -c constraints.txt '
              "&& python -m pytest -q")
CPU_TORCH = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_readme_is_short_and_its_loop_is_ten_lines():
    """What the loop prints is tests/test_doc_snippets.py's to check."""
    text = _read(README)
    assert len(text.encode()) <= MAX_README_BYTES
    loop = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len(loop.strip().splitlines()) <= 14  # ten lines of loop and its imports


def test_the_player_view_example_of_env_md_reads_the_learners_view_only():
    """docs/env.md, "The player's view": the learner's ``PlayerView`` of a running ``GinRummy-v0`` and worlds drawn
    from it, through ``env.unwrapped``. The snippet reads one view, the learner's, and never the real hand (what it
    prints is tests/test_doc_snippets.py's to check)."""
    page = _read(os.path.join(ROOT, "docs", "env.md"))
    section = page.split("## The player's view\n", 1)[1].split("\n## ", 1)[0]
    snippet = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert ".state" not in snippet and snippet.count("agent_view(game.learner)") == snippet.count("agent_view(") == 1


def _bash_lines(text: str) -> list[str]:
    return [line for block in re.findall(r"```bash\n(.*?)```", text, re.S) for line in block.splitlines()]


def test_the_two_commands_are_there_and_ci_runs_the_tests_one():
    lines = _bash_lines(_read(README))
    assert MAIN_JOB in lines and TEST_SUITE in lines and CPU_TORCH in lines
    ci = [line.strip() for line in _read(os.path.join(ROOT, ".ci", "run")).splitlines()]
    for step in TEST_SUITE.split(" && "):
        assert step in ci or step.replace("pip install ", "pip install -q ") in ci, step


def test_the_torch_the_readme_installs_is_the_one_constraints_pin():
    pins = [line for line in _read(os.path.join(ROOT, "constraints.txt")).splitlines() if line.startswith("torch==")]
    assert pins == [CPU_TORCH.split()[2]]


def _markdown_files() -> list[str]:
    docs = os.path.join(ROOT, "docs")
    return [README] + [os.path.join(docs, name) for name in sorted(os.listdir(docs)) if name.endswith(".md")]


@pytest.mark.parametrize("path", _markdown_files(), ids=os.path.basename)
def test_every_relative_link_lands(path):
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", _read(path)):
        assert os.path.exists(os.path.join(os.path.dirname(path), target)), f"{path}: {target}"


#: The folder beside the repository that the project's sources came from; a user's clone has no such folder.
OUTSIDE = os.path.join(os.pardir, "shared")


def test_nothing_points_outside_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        path = os.path.join(ROOT, name)
        if name.endswith((".py", ".md", ".toml", ".txt")) and os.path.exists(path):  # not deleted before a commit
            assert OUTSIDE not in _read(path), name
