"""The layer rules of docs/architecture.md, checked on the import graph (grimp) and the source.

- no import cycles between modules (lazy imports inside functions count);
- ``labels``, ``stats``, ``diagnostics``, ``metrics`` and ``judges`` are pure: they import no
  ``io``, ``runs``, ``cli``, ``report``, ``audit`` or ``engine`` module and no ``rich``, and
  read or write no file (``judges`` keep their models and cache);
- ``stats`` imports nothing from the package but errors;
- ``rich`` only in ``cli`` and ``report``; ``cli`` is imported by nobody below it;
- library messages name parameters, never command-line flags.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grimp
import pytest

import benchcheck

SRC = Path(benchcheck.__file__).parent
PURE = ("labels", "stats", "diagnostics", "metrics", "judges")
ABOVE = ("io", "runs", "cli", "report", "audit", "engine")

#: Violations that stand today, each with the work that removes it; the list only shrinks.
KNOWN: set[tuple[str, str]] = set()
KNOWN_CYCLES: list[set[str]] = []


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("benchcheck", include_external_packages=True)


def _ours(graph: grimp.ImportGraph) -> list[str]:
    return sorted(m for m in graph.modules if m.startswith("benchcheck"))


def _cycles(graph: grimp.ImportGraph) -> list[set[str]]:
    """Strongly connected components of two or more modules (Tarjan)."""
    mods = _ours(graph)
    adj = {m: [i for i in graph.find_modules_directly_imported_by(m) if i in mods] for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for m in mods:
        if m not in index:
            visit(m)
    return out


def test_no_import_cycles(graph):
    cycles = [c for c in _cycles(graph) if c not in KNOWN_CYCLES]
    assert not cycles, f"import cycles: {cycles}"


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_pure_layers_import_nothing_above_them(graph):
    bad = set()
    for m in _ours(graph):
        if _layer(m) not in PURE:
            continue
        for i in graph.find_modules_directly_imported_by(m):
            if _layer(i) in ABOVE and i.startswith("benchcheck.") or i == "rich":
                bad.add((m, i))
            if (
                _layer(m) == "stats"
                and i.startswith("benchcheck.")
                and _layer(i)
                not in (
                    "stats",
                    "errors",
                )
            ):
                bad.add((m, i))
    assert bad - KNOWN == set(), sorted(bad - KNOWN)
    assert KNOWN - bad == set(), f"fixed, remove from KNOWN: {sorted(KNOWN - bad)}"


def test_rich_only_in_cli_and_report(graph):
    users = {m for m in _ours(graph) if "rich" in graph.find_modules_directly_imported_by(m)}
    assert {_layer(m) for m in users} <= {"cli", "report"}, sorted(users)


def test_nothing_below_the_cli_imports_it(graph):
    bad = [
        (m, i)
        for m in _ours(graph)
        if _layer(m) != "cli"
        for i in graph.find_modules_directly_imported_by(m)
        if _layer(i) == "cli"
    ]
    assert not bad, bad


_FILE_CALLS = re.compile(
    r"\b(open|read_text|write_text|read_bytes|write_bytes|read_csv|read_parquet|read_ndjson|"
    r"write_csv|write_parquet|write_ndjson|mkdir|unlink|rmtree|np\.load|np\.save)\("
)


def _pure_files() -> list[Path]:
    out = []
    for layer in ("labels", "stats", "diagnostics", "metrics"):
        out += sorted((SRC / layer).rglob("*.py"))
    return out


def _code_without_strings(path: Path) -> str:
    """The module's source with docstrings and string literals blanked (doctests hold calls)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for k in range(node.lineno - 1, node.end_lineno or node.lineno):
                lines[k] = ""
    return "\n".join(lines)


#: Modules that still touch files, with the work that moves it to io (only shrinks).
FILES_PENDING: set[str] = set()


@pytest.mark.parametrize("path", _pure_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_pure_layers_touch_no_file(path):
    found = _FILE_CALLS.findall(_code_without_strings(path))
    if str(path.relative_to(SRC)) in FILES_PENDING:
        assert found, "no file access left: remove it from FILES_PENDING"
        return
    assert not found, f"{path.relative_to(SRC)} reads or writes files: {found}"


#: Modules whose messages still name flags, with the work that changes them (only shrinks).
FLAGS_PENDING: set[str] = set()


def test_library_messages_name_no_flags():
    """A ``--flag`` inside an error message of a pure layer or judges: name the parameter."""
    flag = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
    bad = []
    for layer in (*PURE,):
        for path in sorted((SRC / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and node.args):
                    continue
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
                if not str(name).endswith("Error"):
                    continue
                for part in ast.walk(node.args[0]):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        if flag.search(part.value):
                            bad.append(f"{path.relative_to(SRC)}:{node.lineno}: {part.value!r}")
    new = [b for b in bad if b.split(":")[0] not in FLAGS_PENDING]
    assert not new, "\n".join(new)
    fixed = FLAGS_PENDING - {b.split(":")[0] for b in bad}
    assert not fixed, f"no flag left in {sorted(fixed)}: remove from FLAGS_PENDING"
