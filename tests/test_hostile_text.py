"""Files from strangers: text read from a file or the command line is shown as text in every UI (the replay viewer,
the terminal game, the evaluation's scoreboard and plot), only regular files are read, and every field a replay or a
dataset's env spec gives is checked by type and range before any work. The corpus is tests/data/hostile/ (its
README.md says what each file attacks); the variants of each field are made here from its one good replay."""

from __future__ import annotations

import io
import json
import math
import os
import pathlib
import subprocess
import sys
from types import SimpleNamespace

import pytest

from gin_env import files
from gin_env.replay import replay_file
from gin_env.replay.replay_file import ReplayError
from gin_env.text import CONTROLS, PLACEHOLDER, printable

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "data" / "hostile" / "replays"
GOOD = json.loads((CORPUS / "good.json").read_text())
#: Every attack on a terminal or a renderer in one name: rich markup that fails to parse and a live link, the
#: mathtext of matplotlib, an OSC that sets the window title, CSI sequences that clear the screen and move the
#: cursor (by ESC and by the C1 byte), DEL, backspace, carriage return and a right-to-left override.
HOSTILE = "[/bad] [link=http://x]click[/link] $\\alpha$ \x1b]0;owned\x07\x1b[2J\x1b[H\x9b31m\x7f\x08\r\u202eend"
#: What a reader must see of :data:`HOSTILE`: the markup and the dollars as they are.
LITERALS = ("[/bad]", "[link=http://x]click[/link]", "$\\alpha$")
#: Seconds a command given a FIFO may take before the test calls it blocked.
FIFO_TIMEOUT = 60


def leaves(data, path=()):
    """(path, value) of every value of a JSON document that is not a list or an object."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from leaves(value, (*path, i))
    else:
        yield path, data


def replaced(path, value) -> dict:
    """The good replay with the value at ``path`` replaced."""
    data = json.loads(json.dumps(GOOD))
    inner = data
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = value
    return data


def assert_no_controls(text: str) -> None:
    """Nothing in ``text`` that a terminal acts on, but the line breaks between lines."""
    found = sorted({hex(ord(c)) for c in CONTROLS.findall(text.replace("\n", ""))})
    assert not found, f"control characters reach the output: {found}"


TEXT_FIELDS = [path for path, value in leaves(GOOD) if isinstance(value, str)]
#: The text fields a valid replay may fill freely: names, shown by the viewer.
NAME_FIELDS = {("players", 0), ("players", 1), ("rules", "name")}
INT_FIELDS = [path for path, value in leaves(GOOD) if type(value) is int]
BOOL_FIELDS = [path for path, value in leaves(GOOD) if type(value) is bool]


def test_printable_replaces_every_control_character_and_keeps_the_rest():
    controls = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), 0x61C, 0x200E, 0x200F, *range(0x2028, 0x202F),
                                 *range(0x2066, 0x206A))]
    assert printable("".join(controls)) == PLACEHOLDER * len(controls)
    text = "ann [/b] $x$ é 漢字 🂡 tab-free"
    assert printable(text) == text


@pytest.fixture
def viewer_console(monkeypatch):
    """The viewer's console, but one that reads rich markup in plain strings (rich's default), without colours: a
    name that reached rich as markup would fail or vanish here."""
    pytest.importorskip("rich")
    from rich.console import Console

    from gin_env.ui import render

    monkeypatch.setattr(render, "console", lambda: Console(color_system=None, width=200, highlight=False))


@pytest.mark.parametrize("path", TEXT_FIELDS, ids=lambda path: ".".join(map(str, path)))
def test_hostile_text_in_any_field_is_shown_as_text_or_refused_in_one_line(path, tmp_path, capsys, viewer_console):
    from gin_env.ui import viewer

    file = tmp_path / "hostile.json"
    file.write_text(json.dumps(replaced(path, HOSTILE)))
    code = viewer.main([str(file)])
    out, err = capsys.readouterr()
    assert_no_controls(out + err)
    if path in NAME_FIELDS:
        assert code == 0 and not err
        assert all(literal in out for literal in LITERALS)
    else:
        assert code == 2 and not out and err.count("\n") == 1 and str(file) in err


@pytest.mark.parametrize("name", ["markup_names.json", "control_names.json"])
def test_the_corpus_names_are_shown_literally(name, capsys, viewer_console):
    from gin_env.ui import viewer

    assert viewer.main([str(CORPUS / name)]) == 0
    out = capsys.readouterr().out
    assert_no_controls(out)
    for player in json.loads((CORPUS / name).read_text())["players"]:
        assert printable(player) in out


def numeric_variants(value):
    """What a hostile file puts where an integer belongs: a bool, the same number as a float, NaN, infinities, a
    number of 4,000 digits."""
    return {"true": True, "float": float(value) + 0.0, "NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf,
            "4000 digits": 10**3999, "1e400": "1e400"}


@pytest.mark.parametrize("path", INT_FIELDS + BOOL_FIELDS, ids=lambda path: ".".join(map(str, path)))
def test_every_number_and_flag_is_checked_by_type_and_range(path, tmp_path):
    value = GOOD
    for key in path:
        value = value[key]
    variants = numeric_variants(value) if type(value) is int else \
        {"1": int(value), "0.0": float(value), "NaN": math.nan}
    for kind, bad in variants.items():
        text = json.dumps(replaced(path, "@@")).replace('"@@"', str(bad) if kind == "1e400" else json.dumps(bad))
        file = tmp_path / "bad.json"
        file.write_text(text)
        with pytest.raises(ReplayError) as refused:
            replay_file.load(file)
        message = str(refused.value)
        assert "\n" not in message and len(message) < 400, (kind, message)


def test_the_good_replay_of_the_corpus_loads():
    assert replay_file.load(CORPUS / "good.json").players == ("ann", "bob")


# ---------------------------------------------------------------------------------------------------------------
# Only regular files are read
# ---------------------------------------------------------------------------------------------------------------

#: Python run in a subprocess on a path (``sys.argv[1]``): the readers of user files, each expected to refuse a
#: FIFO with a ValueError (exit code 3, its message printed) rather than wait for a writer.
READERS = {
    "replay": "from gin_env.replay.replay_file import load as read",
    "history.json": "from gin_env.training.run_files import read_history as read",
    "text": "from gin_env.files import read_text\ndef read(path): read_text(path, 100, 'report')",
    "report": f"import sys\nsys.path.append({str(REPO / 'experiments')!r})\n"
              "from iteration.curve import curve_rows\nimport os, types\n"
              "def read(path):\n    os.makedirs('gen-0', exist_ok=True)\n    os.symlink(path, 'gen-0/measure.json')\n"
              "    curve_rows(types.SimpleNamespace(run_dir='.', measure_against='simple'))",
}


def run_reader(reader: str, path: pathlib.Path, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    code = f"{READERS[reader]}\nimport sys\ntry:\n    read(sys.argv[1])\nexcept ValueError as err:\n" \
           "    print(err)\n    sys.exit(3)\n"
    return subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=cwd,
                          timeout=FIFO_TIMEOUT, env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("link", [False, True], ids=["fifo", "symlink-to-fifo"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_fifo_is_refused_by_every_reader_without_blocking(reader, link, tmp_path):
    fifo = tmp_path / "input.json"
    os.mkfifo(fifo)
    path = fifo
    if link:
        path = tmp_path / "link.json"
        path.symlink_to(fifo)
    result = run_reader(reader, path, tmp_path)
    assert result.returncode == 3, result.stderr
    named = "measure.json" if reader == "report" else path.name
    assert "is a FIFO, not a regular file" in result.stdout and named in result.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_the_replay_command_refuses_a_fifo_in_one_line(tmp_path):
    pytest.importorskip("rich")
    os.mkfifo(tmp_path / "hand.json")
    result = subprocess.run([sys.executable, "-m", "gin_env.cli", "replay", "hand.json"], capture_output=True,
                            text=True, cwd=tmp_path, timeout=FIFO_TIMEOUT, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "hand.json: is a FIFO" in result.stderr


def test_check_input_file_names_the_kind_of_a_special_file(tmp_path):
    if os.path.exists("/dev/null"):
        with pytest.raises(files.NotRegularFile, match="--resume /dev/null: is a character device"):
            files.check_input_file("/dev/null", "--resume")
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    files.check_input_file(tmp_path / "link.json")  # a link to a regular file is one


# ---------------------------------------------------------------------------------------------------------------
# The terminal game and the evaluation's report
# ---------------------------------------------------------------------------------------------------------------

def recording_console():
    from rich.console import Console

    return Console(file=io.StringIO(), record=True, width=200, color_system=None, highlight=False)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_terminal_game_shows_a_hostile_name_as_text(players):
    pytest.importorskip("rich")
    from gin_env.game.rules import Rules
    from gin_env.ui import terminal

    console = recording_console()
    typed = iter(["d", "q"] if players == 2 else ["q"])
    terminal.play("random", Rules(target=None), lambda prompt: next(typed), console, seed=3, name=HOSTILE,
                  players=players)
    out = console.export_text()
    assert_no_controls(out)
    assert all(literal in out for literal in LITERALS)


def hostile_report() -> dict:
    """A real report of two agents, with one agent's name made :data:`HOSTILE` everywhere it appears."""
    from gin_env.evaluation import tournament
    from gin_env.game.rules import Rules

    result = tournament.evaluate(["simple", "random"], Rules.preset("standard"), "deals", 2, 0, 1, False)
    return json.loads(json.dumps(result).replace('"simple"', json.dumps(HOSTILE)))


def test_the_scoreboard_and_the_plot_show_a_hostile_agent_name_as_text(tmp_path, monkeypatch):
    from gin_env.evaluation import plot, report

    result = hostile_report()
    board = report.scoreboard(result)
    assert_no_controls(board)
    assert all(literal in board for literal in LITERALS)
    pytest.importorskip("matplotlib")
    drawn = []
    save = plot.save_figure

    def keep(fig, path):
        fig.canvas.draw()
        drawn.extend(t for t in fig.findobj(lambda a: hasattr(a, "get_parse_math")) if "alpha" in t.get_text())
        save(fig, path)

    monkeypatch.setattr(plot, "save_figure", keep)
    plot.plot(result, str(tmp_path / "plot.png"))
    assert drawn and (tmp_path / "plot.png").is_file()
    label = report.short_names(result["agents"])[HOSTILE]  # the name as a path's last part: it holds a "/"
    assert "$\\alpha$" in label
    for text in drawn:
        assert label in text.get_text() and not text.get_parse_math()


# ---------------------------------------------------------------------------------------------------------------
# A dataset's env spec
# ---------------------------------------------------------------------------------------------------------------

SPEC_NUMBERS = {"reward_scale": 100.0, "players": 2, "learner_seat": 0, "max_steps": 1000}


@pytest.mark.parametrize("key", sorted(SPEC_NUMBERS))
@pytest.mark.parametrize("bad", ["nan", math.nan, math.inf, True, 10**3999, [1]],
                         ids=["string", "NaN", "Infinity", "true", "4000-digits", "list"])
def test_a_dataset_env_spec_with_a_bad_number_is_refused_naming_the_field(key, bad):
    pytest.importorskip("minari")
    from gin_env.datasets import decisions

    spec = SimpleNamespace(id="GinRummy-v0", kwargs={"rules": "standard", **SPEC_NUMBERS, key: bad})
    with pytest.raises(ValueError, match=f"--from-dataset: the dataset's env spec gives {key}="):
        decisions.env_kwargs(SimpleNamespace(spec=SimpleNamespace(env_spec=spec)))


def test_a_dataset_env_spec_with_a_float_where_an_integer_belongs_is_refused():
    pytest.importorskip("minari")
    from gin_env.datasets import decisions

    for key in ("players", "learner_seat", "max_steps"):
        with pytest.raises(ValueError, match=key):
            decisions.check_spec_kwargs({**SPEC_NUMBERS, key: float(SPEC_NUMBERS[key])})
    decisions.check_spec_kwargs({"rules": "standard", **SPEC_NUMBERS})
