"""The layer order of docs/architecture.md, checked on the import graph (grimp) and the source.

- the order is read from the doc's ``Layer order:`` line: every package of ``benchcheck``
  is in it, and a module imports only from its own package and from packages before its
  own (``a | b`` are one tier: neither imports the other); lazy imports inside functions
  and imports for type checkers count; there is no list of exceptions;
- no import cycles between modules;
- no private module (``_name``) of another package is imported (the root's own helpers,
  ``benchcheck._hashset`` and friends, are shared by the package as a whole);
- ``rich`` only in ``cli`` and ``report``;
- ``labels``, ``stats``, ``diagnostics`` and ``metrics`` read or write no file;
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
DOC = SRC.parents[1] / "docs" / "architecture.md"
PURE = ("labels", "stats", "diagnostics", "metrics", "judges")


def _order() -> list[set[str]]:
    """The tiers of the doc's ``Layer order:`` line, first to last."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"^Layer order: `([^`]+)`", text, re.M)
    assert found, "docs/architecture.md has no 'Layer order: `...`' line"
    return [{p.strip() for p in tier.split("|")} for tier in found.group(1).split("→")]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("benchcheck", include_external_packages=True)


def _ours(graph: grimp.ImportGraph) -> list[str]:
    return sorted(m for m in graph.modules if m.startswith("benchcheck"))


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "benchcheck"


def test_the_order_names_every_package_once() -> None:
    tiers = _order()
    named = [p for tier in tiers for p in tier]
    assert len(named) == len(set(named)), "a package is named twice"
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem for p in SRC.glob("*.py") if p.stem != "__init__"}
    assert set(named) == packages | modules | {"benchcheck"}
    assert tiers[-1] == {"benchcheck"}, "the public API (benchcheck/__init__.py) comes last"


def _crossings(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """(importer, imported) for every import from one package of ours into another."""
    return [
        (m, i)
        for m in _ours(graph)
        for i in graph.find_modules_directly_imported_by(m)
        if i.startswith("benchcheck") and _layer(i) != _layer(m)
    ]


def test_every_import_follows_the_order(graph) -> None:
    rank = {name: k for k, tier in enumerate(_order()) for name in tier}
    bad = [
        f"{m} ({_layer(m)}) imports {i} ({_layer(i)})"
        for m, i in _crossings(graph)
        if rank[_layer(i)] >= rank[_layer(m)]
    ]
    assert not bad, "\n".join(sorted(bad))


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
    cycles = _cycles(graph)
    assert not cycles, f"import cycles: {cycles}"


def test_no_private_module_of_another_package_is_imported(graph) -> None:
    bad = [
        f"{m} imports {i}"
        for m, i in _crossings(graph)
        if any(part.startswith("_") for part in i.split(".")[2:])
    ]
    assert not bad, "\n".join(sorted(bad))


def test_rich_only_in_cli_and_report(graph):
    users = {m for m in _ours(graph) if "rich" in graph.find_modules_directly_imported_by(m)}
    assert {_layer(m) for m in users} <= {"cli", "report"}, sorted(users)


def test_pure_layers_import_no_io_or_rich(graph):
    """The order already says it; said again because it is the rule a newcomer meets first."""
    rank = {name: k for k, tier in enumerate(_order()) for name in tier}
    for layer in PURE:
        assert rank[layer] < rank["io"], layer


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


@pytest.mark.parametrize("path", _pure_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_pure_layers_touch_no_file(path):
    found = _FILE_CALLS.findall(_code_without_strings(path))
    assert not found, f"{path.relative_to(SRC)} reads or writes files: {found}"


#: A command-line flag in a string: ``--name`` (not ``a--b``, not ``---``).
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
#: Library messages allowed to name a flag ("path:text" of the string), each with its reason.
#: Empty: every library message names parameters (``{threshold}``), which the command line
#: renders as its flags (:meth:`benchcheck.errors.BenchcheckError.render`).
FLAG_MESSAGES_ALLOWED: dict[str, str] = {}


def _messages(tree: ast.AST) -> list[ast.Constant]:
    """String constants of messages: in a ``raise``, an ``...Error(...)``/``Skip(...)`` call
    or a ``warnings.warn(...)`` call (f-string parts included), each once."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            roots.append(node.exc)
        elif isinstance(node, ast.Call):
            name = str(getattr(node.func, "id", None) or getattr(node.func, "attr", ""))
            if name.endswith(("Error", "Warning")) or name in ("warn", "Skip"):
                roots += [*node.args, *(k.value for k in node.keywords)]
    found: dict[int, ast.Constant] = {}
    for root in roots:
        for part in ast.walk(root):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                found[id(part)] = part
    return list(found.values())


def library_flag_messages() -> list[str]:
    """``path:line: text`` of every library message (outside ``cli/``) naming a flag."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] == "cli":
            continue
        for part in _messages(ast.parse(path.read_text(encoding="utf-8"))):
            text = str(part.value)
            if FLAG.search(text) and f"{rel}:{text}" not in FLAG_MESSAGES_ALLOWED:
                bad.append(f"{rel}:{part.lineno}: {text!r}")
    return bad


def test_library_messages_name_no_flags():
    """A ``--flag`` in a library message (outside cli/): name the parameter, ``{name}``.

    Python callers read the parameter's name, the command line its flag: one message for
    both. Messages are the strings of ``raise``, ``...Error(...)``, ``Skip(...)`` and
    ``warnings.warn(...)``, in every layer but ``cli``.
    """
    bad = library_flag_messages()
    assert not bad, "\n".join(bad)
    assert all(len(why.split()) >= 5 for why in FLAG_MESSAGES_ALLOWED.values())


def test_the_message_scan_finds_flags():
    """The scan sees a flag in an f-string of a raise, a warning and a Skip, not in code."""
    tree = ast.parse(
        "def f(x):\n"
        "    warnings.warn('use --fast', DataWarning)\n"
        "    if x:\n"
        "        raise Skip(f'needs --corpus {x}')\n"
        "    raise UsageError(f'{x} --no-judge given')\n"
        "    y = '--not-a-message'\n"
    )
    texts = sorted(str(c.value) for c in _messages(tree) if FLAG.search(str(c.value)))
    assert texts == [" --no-judge given", "needs --corpus ", "use --fast"]
