"""One number rule for every rendering: terminal, Markdown, HTML and SVG charts agree."""

from __future__ import annotations

import io
import math

import pytest
from rich.console import Console

from benchcheck.report import html, markdown, svg, terminal
from benchcheck.report.numbers import num

CASES = [
    (None, "—", "—"),
    (float("nan"), "—", "—"),
    (float("inf"), "—", "—"),
    (float("-inf"), "—", "—"),
    (True, "true", "true"),
    (False, "false", "false"),
    (0, "0", "0"),
    (-7, "-7", "-7"),
    (2**70, "1180591620717411303424", "1180591620717411303424"),
    (0.5, "0.500", "0.5000"),
    (1 / 3, "0.333", "0.3333"),
    (-0.0, "-0.000", "-0.0000"),  # sign kept, as canonical JSON writes -0.0
    (2.0, "2.000", "2.0000"),
    (1e20, "100000000000000000000.000", "100000000000000000000.0000"),
    ("n/a", "n/a", "n/a"),
]


@pytest.mark.parametrize(("value", "three", "four"), CASES)
def test_num_and_the_terminal_agree(value: object, three: str, four: str) -> None:
    assert num(value) == three
    assert num(value, 4) == four
    assert terminal.fmt(value) == four


def test_every_renderer_uses_the_one_function() -> None:
    assert html.num is markdown.num is svg.num is num


def _render(table) -> str:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(table)
    return out.getvalue()


def test_terminal_table_shows_nan_and_bools_as_the_report_does() -> None:
    result = {
        "dataset": "d",
        "task": "classification",
        "dimensions": {
            "kappa": {"dimension": "reliability", "better": "higher"},
            "balanced": {"dimension": "validity", "better": "higher"},
        },
        "metrics": {"kappa": math.nan, "balanced": True},
        "splits": {"test": {"kappa": 0.25, "balanced": False, "n_instances": 12}},
    }
    text = _render(terminal.stats_table(result))
    kappa = next(line for line in text.splitlines() if "kappa" in line)
    balanced = next(line for line in text.splitlines() if "balanced" in line)
    assert "—" in kappa and "0.2500" in kappa and "nan" not in text.lower()
    assert "true" in balanced and "false" in balanced and "True" not in text
    assert markdown.md_num(True) == "true" and markdown.md_num(False) == "false"
    from benchcheck.runs.audit.sections._stats import Stats, markdown_stats

    spec = {"dimension": "reliability", "better": "higher", "title": "kappa", "definition": "d"}
    typed = Stats.from_json(
        {
            "dataset": "d",
            "task": "classification",
            "dimensions": {"kappa": spec},
            "metrics": {"kappa": None},
            "splits": {"test": {"source": "t", "n_instances": 12, "kappa": 0.25}},
        }
    )
    md = "".join(markdown_stats(typed, "t"))
    assert "| reliability | kappa (`kappa`) | ↑ | — | 0.2500 | d |" in md


def _formatted_numbers(path) -> list[str]:  # type: ignore[no-untyped-def]
    """Every f-string field formatting a number (``{x:.3f}``, ``{x:.0%}``, ``{x:g}``, ``{n:,}``,
    ``{n:+d}``) outside ``_f``; a code point's hex digits (``{ord(ch):04X}``) are no number."""
    import ast
    import re

    numeric = re.compile(r"[,_]|[fF%gGeEdn]$")

    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "_f":  # SVG coordinates
            skip |= {id(n) for n in ast.walk(node)}
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.FormattedValue)
        and node.format_spec
        and id(node) not in skip
        and numeric.search(
            "".join(str(v.value) for v in node.format_spec.values if isinstance(v, ast.Constant))
        )
    ]


def test_every_displayed_number_goes_through_the_numbers_module() -> None:
    """No f-string formats a number in report/ or the audit's sections: num, pct, short..."""
    from pathlib import Path

    import benchcheck

    root = Path(benchcheck.__file__).parent
    files = [*(root / "report").rglob("*.py"), *(root / "runs" / "audit").rglob("*.py")]
    found = [hit for path in files if path.name != "numbers.py" for hit in _formatted_numbers(path)]
    assert not found, found


def test_the_number_forms_apply_the_rule() -> None:
    from benchcheck.report.numbers import pct, short, signed, thousands

    assert pct(0.0050000000000000001, 1) == "0.5%" and pct(None) == "—" and pct(1.0) == "100%"
    assert short(0.30000000000000004) == "0.3" and short(float("nan")) == "—"
    assert signed(3) == "+3" and signed(-2) == "-2" and signed(0) == "0"
    assert thousands(1234567) == "1,234,567"
