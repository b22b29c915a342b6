"""The house of docs/development.md, read from the source: the layers import one way, no module imports itself back
through others, the game never imports gymnasium, and modules and functions stay small."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent

#: The layers, lowest first: a module may import its own layer and the ones before it, never one after it.
#: ``base`` is the top-level helpers every layer may use (``files``, ``optional``, ``arguments``, ``text``,
#: ``locks``); ``cli`` the ``gin-env`` command over every job.
LAYERS = ("base", "game", "batch", "belief", "agents", "table", "replay", "ui", "web", "envs", "interop", "evaluation",
          "datasets", "training", "cli")
BASE = ("files", "optional", "arguments", "text", "locks")
MAX_TOP_LEVEL_MODULES = 8
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def source_files() -> dict[str, pathlib.Path]:
    """Every module of the installed package by its full name (``agents/`` installs as ``gin_env.agents``)."""
    modules = {}
    for top, prefix in (("gin_env", "gin_env"), ("agents", "gin_env.agents")):
        for path in sorted((REPO / top).rglob("*.py")):
            parts = path.relative_to(REPO / top).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((prefix, *parts))] = path
    return modules


MODULES = source_files()


def imports_of(name: str, path: pathlib.Path) -> set[str]:
    """The gin_env modules that ``name`` imports (``from gin_env.game import cards`` counts as
    ``gin_env.game.cards``, ``from gin_env.game.cards import RANKS`` as the same), anywhere in the file, function
    bodies included."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            submodules = {f"{module}.{alias.name}" for alias in node.names} & MODULES.keys()
            # ``from package import module`` depends on the module; the package's __init__ runs first either way.
            found.update(submodules or {module})
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def layer(name: str) -> str | None:
    """The layer of a module by its full name; None for the package itself."""
    parts = name.split(".")
    if len(parts) == 1:
        return None
    return "base" if parts[1] in BASE else parts[1]


def test_every_module_belongs_to_a_layer():
    strays = sorted(name for name in MODULES if layer(name) not in (None, *LAYERS))
    assert not strays, f"modules outside the layers of docs/development.md: {strays}"


def test_the_house_of_docs_development_names_every_module():
    """The map of docs/development.md is the house as it is: every module is named on its layer's line."""
    text = (REPO / "docs" / "development.md").read_text()
    house = text[text.index("```\ncli"):]
    house = house[:house.index("\n```")]
    lines, current = {}, None
    for row in house.splitlines()[1:]:
        if not row.startswith(" "):
            current = row.split()[0]
        lines[current] = lines.get(current, "") + " " + row
    unnamed = sorted(name for name in MODULES if layer(name) is not None and name.split(".")[-1] != layer(name)
                     and not re.search(rf"\b{name.split('.')[-1]}\b", lines.get(layer(name), "")))
    assert not unnamed, f"modules docs/development.md does not name on their layer's line: {unnamed}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if layer(n) is not None))
def test_imports_go_down_the_layers(name):
    own = LAYERS.index(layer(name))
    upward = sorted(m for m in GRAPH[name] if layer(m) is not None and LAYERS.index(layer(m)) > own)
    assert not upward, f"{name} ({layer(name)}) imports a higher layer: {upward}"


def test_no_import_cycles():
    """Tarjan's strongly connected components over the module graph: each must be a single module. A package's
    ``__init__`` that re-exports its modules is an edge like any other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in sorted(GRAPH):
        if name not in index:
            visit(name)
    assert not cycles, f"import cycles: {cycles}"


def test_the_game_never_imports_gymnasium():
    for name, path in MODULES.items():
        if layer(name) == "game":
            tops = {m.split(".")[0] for m in _all_imports(path)}
            assert "gymnasium" not in tops, name


def _all_imports(path: pathlib.Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_few_modules_lie_directly_in_the_package():
    top = sorted(p.name for p in (REPO / "gin_env").glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_and_functions_stay_small(name):
    path = MODULES[name]
    text = path.read_text()
    assert len(text.splitlines()) <= MAX_MODULE_LINES, f"{path}: {len(text.splitlines())} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            assert length <= MAX_FUNCTION_LINES, f"{path}:{node.lineno} {node.name} has {length} lines"


#: The module that owns the card geometry (``cards.Deck``): every card count is defined there and derived elsewhere.
CARD_OWNER = "gin_env.game.cards"
#: The deck's geometry: outside ``cards`` these names may only be imported or aliased (``SUIT_BITS = N_RANKS``).
GEOMETRY_NAMES = {"N_CARDS", "N_SUITS", "N_RANKS", "N_NATURALS", "SUIT_BITS", "HAND_SIZE", "DEALT",
                  "STOCK_AFTER_DEAL", "KNOCKER_CARDS", "FULL_DECK"}
#: Sizes and scales derived from the deck by the module that lays them out: never a bare number.
DERIVED_NAMES = {"N_ACTIONS", "KNOCK_BASE", "OBS_SIZE", "RECORD_OBS_SIZE", "PRIVILEGED_SIZE", "DEADWOOD_SCALE",
                 "STOCK_SCALE"}
#: Numbers that only a card count gives: the deck (52 and its last id), a suit (13), the standard stock after the deal
#: (31), the actions (108) and the observation (375) of the standard deck.
CARD_COUNT_LITERALS = {13, 31, 51, 52, 108, 375}


def _card_count_definitions(path: pathlib.Path) -> list[str]:
    """Where ``path`` defines a card count: binds a geometry name to anything but another name, a derived size to a
    bare number, or writes a card-count number in its code. Strings and docstrings aside; a power (``2**31``) and a
    keyword argument's value (``big_gin_bonus=31``, named by its keyword) are not card counts."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    named = {id(node.right) for node in ast.walk(tree) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)}
    named |= {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.keyword)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if names & GEOMETRY_NAMES and not isinstance(node.value, (ast.Name, ast.Attribute)):
                found.append(f"line {node.lineno}: {', '.join(sorted(names & GEOMETRY_NAMES))} defined here")
            if names & DERIVED_NAMES and isinstance(node.value, ast.Constant):
                found.append(f"line {node.lineno}: {', '.join(sorted(names & DERIVED_NAMES))} = a number")
        if (isinstance(node, ast.Constant) and type(node.value) is int and node.value in CARD_COUNT_LITERALS
                and id(node) not in named):
            found.append(f"line {node.lineno}: the number {node.value}")
    return found


@pytest.mark.parametrize("name", sorted(set(MODULES) - {CARD_OWNER}))
def test_no_module_but_cards_defines_a_card_count(name):
    """One deck spec: every card count, id range, layout size and card-derived bound comes from ``cards.Deck``
    (``cards.STANDARD_DECK`` or a ``Rules``' deck), so a deck with jokers changes them in one place."""
    found = _card_count_definitions(MODULES[name])
    assert not found, f"{name} defines a card count of its own: {'; '.join(found)}"


def test_the_card_count_check_finds_a_copied_count(tmp_path):
    copied = tmp_path / "copied.py"
    copied.write_text("N_CARDS = 52\nDEALT = 2 * HAND_SIZE\nOBS_SIZE = 375\nSTOCK = 31\nBIG = 2**31 - 1\n"
                      "SUIT_BITS = N_RANKS\nRules(big_gin_bonus=31)\n")
    assert sorted(_card_count_definitions(copied)) == [
        "line 1: N_CARDS defined here", "line 1: the number 52", "line 2: DEALT defined here",
        "line 3: OBS_SIZE = a number", "line 3: the number 375", "line 4: the number 31"]
