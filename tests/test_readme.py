"""The README and docs/: the README stays a two-minute read, its gym.make loop runs, every link lands,
and nothing points outside the repository."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
MAX_README_BYTES = 15_000


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_readme_is_short_and_its_loop_runs():
    text = _read(README)
    assert len(text.encode()) <= MAX_README_BYTES
    loop = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len(loop.strip().splitlines()) <= 14  # ten lines of loop and its imports
    namespace: dict = {}
    exec(compile(loop, "README.md", "exec"), namespace)
    assert namespace["done"] and namespace["info"]["outcome"]["kind"] in ("knock", "gin", "big_gin", "dead")


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
        if name.endswith((".py", ".md", ".toml", ".txt")):
            assert OUTSIDE not in _read(os.path.join(ROOT, name)), name
