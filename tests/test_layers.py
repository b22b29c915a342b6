"""The import layers of docs/development.md, read from the source: the envs share ``table`` and never each other,
and the rules core never imports gymnasium."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "gin_env"


def imported_modules(path: pathlib.Path) -> set[str]:
    """Every module a file imports, by full name (``from gin_env import env`` counts as ``gin_env.env``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def module_files(name: str) -> list[pathlib.Path]:
    path = ROOT / name
    return sorted(path.glob("*.py")) if path.is_dir() else [path.with_suffix(".py")]


@pytest.mark.parametrize("name", ["vector", "pettingzoo", "sb3", "rllib", "table", "batch_table", "format_table"])
def test_the_adapters_and_the_table_import_nothing_from_env(name):
    for path in module_files(name):
        assert "gin_env.env" not in imported_modules(path), path


@pytest.mark.parametrize("name", ["cards", "rules", "meld_partners", "solver", "engine", "match", "three_players",
                                  "four_players", "room"])
def test_the_rules_core_never_imports_gymnasium(name):
    for path in module_files(name):
        assert not any(m.split(".")[0] == "gymnasium" for m in imported_modules(path)), path
