"""The ``ner label errors`` section shows how good its detector measured (issue 25, item 4).

The audit of the bundled NER sample carries the package's benchmark numbers
(``labels/ner_detector_quality.json``) in ``results.json`` and shows them, below the flags,
as the same table in the HTML, the Markdown and the terminal.
"""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("sklearn_crfsuite")

from benchcheck.io.ner_detector_quality import (  # noqa: E402
    load_ner_detector_quality,
    ner_detector_note,
)
from benchcheck.runs.audit.sections.ner_label_errors import NerLabelErrorsSection  # noqa: E402

TITLE = "How good is this detector?"
KINDS = ("type", "boundary", "missing", "spurious")


def _two(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _expected_rows() -> list[list[str]]:
    rows = []
    for name, q in load_ner_detector_quality()["corpora"].items():
        rows.append(
            [
                name,
                f"{q['sentences']:,}",
                f"{_two(q['ap'])} ({_two(q['ap_random'])})",
                " / ".join(_two(q["ap_by_kind"][k]) for k in KINDS),
                f"{_two(q['flag_precision'])} / {_two(q['flag_recall'])}",
            ]
        )
    return rows


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> tuple[dict, str, str]:
    from benchcheck.cli import main
    from benchcheck.sample_data import NER_SAMPLE

    out = tmp_path_factory.mktemp("ner") / "report"
    assert main(["audit", str(NER_SAMPLE), "--no-judge", "-o", str(out)]) == 0
    return (
        json.loads((out / "results.json").read_text(encoding="utf-8")),
        (out / "report.md").read_text(encoding="utf-8"),
        (out / "report.html").read_text(encoding="utf-8"),
    )


def test_results_carry_the_package_numbers(audited) -> None:
    results, _, _ = audited
    le = results["ner_label_errors"]
    assert le["detector_quality"] == ner_detector_note()
    # 1.2 added detector_quality; 1.3 (issue 36) each flag's error_logit; 1.4 the flags
    # file, the expected wrong sentences, each flag's line and document
    assert NerLabelErrorsSection.version == "1.4"
    assert all(isinstance(e["error_logit"], float) for e in le["examples"])


def test_markdown_and_html_show_the_table_below_the_flags(audited) -> None:
    results, md, page = audited
    expected = _expected_rows()
    assert len(expected) >= 5
    section = md.split("## NER label errors", 1)[1]
    assert section.index("Flagged spans") < section.index(f"### {TITLE}")
    table = section.split(f"### {TITLE}", 1)[1]
    rows = [
        [re.sub(r"\\(.)", r"\1", c.strip()) for c in line.strip().strip("|").split("|")]
        for line in table.splitlines()
        if line.startswith("| ") and not line.startswith(("| corpus", "| ---"))
    ]
    assert rows[: len(expected)] == expected
    plain = re.sub(r"\\(.)", r"\1", table)
    assert "only planted errors as true, so it is a lower bound" in plain
    assert "docs/labels.md" in plain
    measured = load_ner_detector_quality()["settings"]["min_error_score"]
    assert f"flags ≥ {measured:g}: precision ↑ / recall ↑" in table

    body = page.split('id="ner-detector-quality"', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r"<td>(.*?)</td>", body)
    assert cells == [c for row in expected for c in row]
    assert page.index("Flagged spans") < page.index('id="ner-detector-quality"')
    assert "lower bound" in page.split('id="ner-detector-quality"', 1)[1]


def test_terminal_shows_the_table(audited) -> None:
    from rich.console import Console

    results, _, _ = audited
    sec = NerLabelErrorsSection()
    read = sec.read(results)
    assert read is not None
    console = Console(file=io.StringIO(), width=200, color_system=None)
    for r in sec.terminal(read):
        console.print(r)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert TITLE in text and "lower bound" in text
    for row in _expected_rows():
        assert re.search(r"\s+│\s+".join(re.escape(c) for c in row), text), row


def test_a_threshold_unlike_the_benchmarks_is_said(audited) -> None:
    results, _, _ = audited
    sec = NerLabelErrorsSection()
    section = copy.deepcopy(results["ner_label_errors"])
    measured = section["detector_quality"]["settings"]["min_error_score"]
    for run_threshold, said in ((measured, False), (measured + 0.001, True)):
        section["min_error_score"] = run_threshold
        read = sec.read({"ner_label_errors": section}, strict=True)
        assert read is not None
        md = "\n".join(sec.markdown(read))
        line = f"The benchmark flagged from error score {measured:g}, this run from"
        assert (line in re.sub(r"\\(.)", r"\1", md)) is said
        assert (line in sec.html(read)) is said


def test_a_version_1_1_section_renders_without_the_table(audited, tmp_path: Path) -> None:
    results, _, _ = audited
    later = ("detector_quality", "flags_file", "expected_errors")  # keys since 1.2 and 1.4
    old = {k: v for k, v in results["ner_label_errors"].items() if k not in later}
    sec = NerLabelErrorsSection()
    read = sec.read({"ner_label_errors": old}, strict=True)
    assert read is not None
    assert TITLE not in "\n".join(sec.markdown(read))
    assert TITLE not in sec.html(read) and sec.terminal(read) == []
