"""Every ```python block of README.md and docs/*.md runs as a user would paste it into a script, and prints what
the page shows after it.

A block's output is the ```text block that follows it after one paragraph ending in a colon ("It prints:"); a
block with none must print nothing. Each block runs in a fresh interpreter whose working folder is a temporary one
(files it writes land there, Minari's datasets too), and its stdout must equal that output, after one
normalisation, which the pages say varies: the progress bar of Stable-Baselines3 (rich) keeps its step counts, and
loses its width, elapsed time and speed.

A block that needs an optional extra skips, naming the module, where it is missing. A block that reads a file gets
it first: ``trusted.zip`` is the shipped ``agents/models/ppo_gin.zip``, and the dataset that docs/datasets.md loads
is written by the page's own ``gin-env dataset`` command with ``--hands 10`` for 1000 (its first episode, the one
the block prints, is the same). Training blocks are marked ``slow``. The MaskablePPO block of docs/env.md runs in
full (about 20 s); the SB3VecEnv block of docs/vector.md, about 2 minutes, runs with ``learn(1_000`` for
``learn(100_000``: one rollout of 256 games x 64 steps instead of seven, so its bar must end at 16,384/1,000 where
the page's ends at 114,688/100,000, which still shows the rounding up to whole rollouts."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
PAGES = ["README.md"] + [os.path.join("docs", name) for name in sorted(os.listdir(DOCS)) if name.endswith(".md")]

BLOCK = re.compile(r"^```python\n(.*?)^```\n", re.S | re.M)
#: What may follow a block: a blank line, one paragraph whose last line ends in a colon, a blank line, the output.
OUTPUT = re.compile(r"\n(?:(?!```)[^\n]+\n)*?[^\n]*:\n\n```text\n(.*?)^```\n", re.S | re.M)
#: SB3's rich progress bar: its width, elapsed time, time left and speed depend on the terminal and the machine.
PROGRESS_BAR = re.compile(r"^ *(\d+%) [━╸╺ ]+ ([\d,]+/[\d,]+) +\[ [\d:]+ < [\d:]+ , (?:[\d.,]+|\?) it/s \]$", re.M)
#: A guard against a hung interpreter, far above any block's time; no test reads the time a block takes.
HUNG_SECONDS = 1800

#: The module each optional dependency of a block brings, found by a string in the block.
EXTRAS = {"sb3_contrib": "sb3_contrib", "minari": "minari", "create_dataset": "jax", "pyspiel": "pyspiel",
          "gin_env.envs.pettingzoo": "pettingzoo", "RecordVideo": "moviepy", "gin_env.interop.sb3": "stable_baselines3"}


@dataclasses.dataclass(frozen=True)
class Adjustment:
    """How the test runs one block: ``scale`` pairs replace text in the block and in its output alike, ``files``
    copies repository files into the working folder, ``setup`` runs a command of the page there first."""

    slow: bool = False
    scale: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    setup: tuple[str, ...] = ()


#: Keyed by the page and a string only that block of the page holds.
ADJUSTMENTS = {
    ("docs/env.md", "MaskablePPO(\"MlpPolicy\", env"): Adjustment(slow=True),
    ("docs/vector.md", "SB3VecEnv(GinRummyVectorEnv"): Adjustment(
        slow=True, scale=(("learn(100_000", "learn(1_000"), ("114,688/100,000", "16,384/1,000"))),
    ("docs/files.md", "trusted.zip"): Adjustment(files=(("agents/models/ppo_gin.zip", "trusted.zip"),)),
    ("docs/datasets.md", "minari.load_dataset("): Adjustment(
        setup=("gin-env dataset expert simple --hands 1000", "--hands 1000", "--hands 10 --no-progress")),
}



@dataclasses.dataclass(frozen=True)
class Snippet:
    page: str
    line: int
    source: str
    output: str

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def _snippets() -> list[Snippet]:
    found = []
    for page in PAGES:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            text = f.read()
        for block in BLOCK.finditer(text):
            shown = OUTPUT.match(text, block.end())
            found.append(Snippet(page, text.count("\n", 0, block.start()) + 1, block.group(1),
                                 shown.group(1) if shown else ""))
    return found


def _keyed(table: dict, snippet: Snippet):
    matches = [value for (page, key), value in table.items() if page == snippet.page and key in snippet.source]
    assert len(matches) <= 1, f"{snippet.name}: more than one entry of the table matches it"
    return matches[0] if matches else None


def _param(snippet: Snippet):
    adjustment = _keyed(ADJUSTMENTS, snippet) or Adjustment()
    marks = [pytest.mark.slow] if adjustment.slow else []
    return pytest.param(snippet, adjustment, marks=marks, id=snippet.name)


SNIPPETS = _snippets()


def _normalised(printed: str) -> str:
    return PROGRESS_BAR.sub(r"\1 [bar] \2", printed)


def _scaled(snippet: Snippet, adjustment: Adjustment) -> tuple[str, str]:
    """The block and its output with the adjustment's replacements, each of which must find its text."""
    source, output = snippet.source, snippet.output
    for old, new in adjustment.scale:
        assert old in source + output, f"{snippet.name}: the test scales {old!r}, which the page no longer shows"
        source, output = source.replace(old, new), output.replace(old, new)
    return source, output


def _run(command: list[str], cwd, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=HUNG_SECONDS)


def _prepare(snippet: Snippet, adjustment: Adjustment, folder, env: dict) -> None:
    for source, name in adjustment.files:
        shutil.copyfile(os.path.join(ROOT, source), os.path.join(folder, name))
    if adjustment.setup:
        command, old, new = adjustment.setup
        with open(os.path.join(ROOT, snippet.page), encoding="utf-8") as f:
            assert command in f.read(), f"{snippet.page} no longer shows {command!r}"
        argv = command.replace(old, new).split()
        done = _run([sys.executable, "-m", "gin_env.cli", *argv[1:]], folder, env)  # argv[0] is gin-env
        assert done.returncode == 0, done.stderr


def test_every_page_with_a_python_block_is_found():
    pages = {snippet.page for snippet in SNIPPETS}
    assert {"README.md", "docs/env.md", "docs/vector.md", "docs/datasets.md"} <= pages
    for (page, key) in ADJUSTMENTS:
        assert any(s.page == page and key in s.source for s in SNIPPETS), f"no block of {page} holds {key!r}"


def test_an_output_block_is_read_after_its_paragraph_and_only_there():
    page = "```python\nprint(1)\n```\n\nIt prints (in a second):\n\n```text\n1\n```\n"
    assert OUTPUT.match(page, BLOCK.search(page).end()).group(1) == "1\n"
    unrelated = "```python\nx = 1\n```\n\nThe table:\n\n| a |\n\n```text\n1\n```\n"
    assert OUTPUT.match(unrelated, BLOCK.search(unrelated).end()) is None


def test_the_progress_bar_keeps_its_counts_only():
    bar = " 100% ━━━━━━━━━━━━━━━━━━━━━╸ 4,096/4,096  [ 0:00:50 < 0:00:00 , 133 it/s ]\nthe policy plays PASS\n"
    wide = bar.replace("━", "━━").replace("0:00:50", "0:01:07").replace("133", "61")
    unknown_speed, fast = bar.replace("133", "?"), bar.replace("133", "1,087")
    assert _normalised(bar) == _normalised(wide) == _normalised(unknown_speed) == _normalised(fast) == \
        "100% [bar] 4,096/4,096\nthe policy plays PASS\n"
    assert _normalised(bar) != _normalised(bar.replace("4,096/4,096", "4,096/4,095"))


@pytest.mark.parametrize(("snippet", "adjustment"), [_param(snippet) for snippet in SNIPPETS])
def test_the_block_prints_what_the_page_shows(snippet, adjustment, tmp_path):
    for key, module in EXTRAS.items():
        if key in snippet.source:
            pytest.importorskip(module, reason=f"{snippet.name} needs {module}")
    env = {**os.environ, "MINARI_DATASETS_PATH": str(tmp_path / "minari")}
    _prepare(snippet, adjustment, tmp_path, env)
    source, output = _scaled(snippet, adjustment)
    script = tmp_path / "snippet.py"
    script.write_text(source, encoding="utf-8")
    done = _run([sys.executable, str(script)], tmp_path, env)
    assert done.returncode == 0, f"{snippet.name} failed:\n{done.stderr[-3000:]}"
    assert _normalised(done.stdout) == _normalised(output), snippet.name
