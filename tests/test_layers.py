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
LAYERS = ("base", "game", "batch", "belief", "agents", "table", "replay", "ui", "envs", "interop", "evaluation",
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
