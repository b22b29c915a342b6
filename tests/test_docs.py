"""The docs cite only what the repository holds: every relative link and anchor resolves, every ``gin_env.x.y`` name
is a module or one of its top-level names, every cited path exists, and no page cites a file the repository lacks
or a tracker's issue, pull request or commit.

Names resolve against the source files (their top-level definitions and imports), so no optional extra is needed."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: Where each import name of the distribution lives: ``gin_env.agents`` installs from the top-level ``agents/``.
PACKAGES = {"gin_env.agents": ROOT / "agents", "gin_env": ROOT / "gin_env"}

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
DOTTED = re.compile(r"(?<![\w.])gin_env(?:\.\w+)+")
#: Paths under the repository's own folders, as pages cite them (``agents/expert.py``, ``tests/data/``).
PATH = re.compile(r"(?<![\w./-])((?:gin_env|agents|benchmarks|experiments|tests|docs|\.ci)/[\w./-]*\w)")
FORBIDDEN = {
    "a shared folder outside the repository": re.compile(r"\.\./shared"),
    "an issue or pull request number": re.compile(r"\b(?:issues?|PRs?|pull requests?)\s+#?\d+|(?<![\w&/#])#\d+\b",
                                                   re.IGNORECASE),
    "a commit id": re.compile(r"\bcommits?\s+[0-9a-f]{7,40}\b|(?<![\w.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])"
                              r"[0-9a-f]{7,40}(?![\w-])"),
}


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@functools.cache
def _anchors(page: Path) -> set[str]:
    anchors, seen = set(), {}
    in_code = False
    for line in _text(page).splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            slug = _slug(line.lstrip("#"))
            count = seen.get(slug, 0)
            anchors.add(slug if count == 0 else f"{slug}-{count}")
            seen[slug] = count + 1
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_relative_link_resolves(page):
    broken = []
    for target in LINK.findall(_text(page)):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {_name(file)}")
    assert not broken, f"{_name(page)}: " + "; ".join(broken)


def _source(module: str) -> Path | None:
    """The file or package folder of a dotted module name, or None."""
    for prefix, folder in PACKAGES.items():
        if module == prefix or module.startswith(prefix + "."):
            base = folder.joinpath(*module[len(prefix) + 1:].split(".")) if module != prefix else folder
            if base.with_suffix(".py").is_file():
                return base.with_suffix(".py")
            if (base / "__init__.py").is_file():
                return base
            return None
    return None


@functools.cache
def _top_level(file: Path) -> dict[str, ast.AST]:
    """The names a module's source defines or imports at its top level (with the node that binds each)."""
    tree = ast.parse(file.read_text(encoding="utf-8"))
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names[leaf.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
    return names


def _class_members(node: ast.ClassDef) -> set[str]:
    members = set()
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            members.add(item.name)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            members.add(item.target.id)
        elif isinstance(item, ast.Assign):
            members.update(t.id for t in item.targets if isinstance(t, ast.Name))
    return members


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` names a module of the repository, or a top-level name of one (and, for a class, one of
    its members); what lies past a name that is no class is not checked."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        source = _source(".".join(parts[:cut]))
        if source is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        names = _top_level(source / "__init__.py" if source.is_dir() else source)
        node = names.get(rest[0])
        if node is None:
            return False
        if isinstance(node, ast.ClassDef) and len(rest) > 1:
            return rest[1] in _class_members(node)
        return True
    return False


#: The changelog names what moved from where, so it cites names and paths that are gone on purpose.
CURRENT = [page for page in PAGES if page.name != "changelog.md"]
#: Another project's tracker, cited by its owner/name ("Farama-Foundation/Gymnasium pull request 1624").
UPSTREAM = re.compile(r"[\w.-]+/[\w.-]+\s+$")
#: A markdown file named on a page, with or without its folder.
MARKDOWN = re.compile(r"(?<![\w.-])[\w./-]*\w\.md\b")
#: A line that cites another project's files: ``owner/repo `path` ...``.
UPSTREAM_LINE = re.compile(r"\b[\w.-]+/[\w.-]+ `")
#: The markdown files of the repository, by name: a page may cite one by its name alone.
REPOSITORY_MARKDOWN = {path.name for folder in (ROOT / "docs", ROOT / "tests") for path in folder.rglob("*.md")} | {
    path.name for path in ROOT.glob("*.md")}


def missing_markdown(text: str) -> list[str]:
    """The markdown files ``text`` names that the repository does not hold (another project's, on a line that says
    whose, excepted)."""
    return sorted({name for line in text.splitlines() if not UPSTREAM_LINE.search(line)
                   for name in MARKDOWN.findall(line) if name.rsplit("/", 1)[-1] not in REPOSITORY_MARKDOWN})


@pytest.mark.parametrize("page", CURRENT, ids=_name)
def test_every_gin_env_name_is_a_module_or_one_of_its_names(page):
    missing = sorted({name for name in DOTTED.findall(_text(page)) if not resolves(name)})
    assert not missing, f"{_name(page)} cites names that do not exist: {', '.join(missing)}"


@pytest.mark.parametrize("page", CURRENT, ids=_name)
def test_every_cited_path_exists(page):
    missing = sorted({path for path in PATH.findall(_text(page)) if not (ROOT / path).exists()})
    assert not missing, f"{_name(page)} cites paths the repository does not hold: {', '.join(missing)}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_page_cites_what_the_repository_lacks(page):
    text = _text(page)
    found = [f"{what}: {match.group(0)!r}" for what, pattern in FORBIDDEN.items()
             for match in pattern.finditer(text) if not UPSTREAM.search(text[max(0, match.start() - 80):match.start()])]
    assert not found, f"{_name(page)} cites " + "; ".join(found)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_markdown_file_a_page_names_is_in_the_repository(page):
    missing = missing_markdown(_text(page))
    assert not missing, f"{_name(page)} cites markdown files the repository does not hold (cite docs/): {missing}"


def test_missing_markdown_tells_files_apart():
    assert missing_markdown("the rules: docs/rules.md, then formats.md") == []
    assert missing_markdown("see ../elsewhere/NOTES.md and plans.md") == ["../elsewhere/NOTES.md", "plans.md"]
    assert missing_markdown("- **RLCard:** datamllab/rlcard `game.py`, `guidelines.md`.") == []


def test_the_resolver_tells_names_apart():
    assert resolves("gin_env.game.rules") and resolves("gin_env.game.rules.Rules.preset")
    assert resolves("gin_env.agents.search.SearchAgent") and resolves("gin_env.game.engine.HandState")
    assert not resolves("gin_env.game.nowhere") and not resolves("gin_env.game.rules.Nothing")
    assert not resolves("gin_env.game.rules.Rules.no_such_method")
    assert _slug("Strength under the `eaai` rules") == "strength-under-the-eaai-rules"
    assert FORBIDDEN["an issue or pull request number"].search("as issue 15 asks")
    assert FORBIDDEN["an issue or pull request number"].search("fixed in #12.")
    assert not FORBIDDEN["an issue or pull request number"].search("see [the race](expert.md#the-race-for-gin)")
    assert UPSTREAM.search("The fix is upstream (Farama-Foundation/Gymnasium ")
    assert FORBIDDEN["a commit id"].search("on the code before (3d0780f)")
    assert not FORBIDDEN["a commit id"].search("`000_e81170407beb59a2.txt`")
