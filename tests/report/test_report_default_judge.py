"""The report says what the embedded default judge is and how well it measured (issue 12, §6).

The audit of the bundled pair sample runs with a stub judge (no model) that carries either
the embedded default judge's identity or an OpenAI judge's; the section, its numbers (equal
to the package's ``judges/quality.json``) and the strong-judge command appear in the HTML,
the Markdown and the terminal line for the first only.
"""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import pytest

from benchcheck.data.columns import Columns
from benchcheck.io.canonical import dumps
from benchcheck.io.judge_quality import STRONG_JUDGE, load_judge_quality
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore
from benchcheck.judges.resolve import DEFAULT_MODEL
from benchcheck.runs.audit import AuditInputs, AuditReport, TableInput, render_results, run_audit
from benchcheck.runs.audit import terminal_summary as audit_summary
from benchcheck.sample_data import PAIR_SAMPLE

PAIR = TableInput(str(PAIR_SAMPLE), Columns(text_a="grounding", text_b="generated_text"))
TITLE = "How good is this judge?"


def _stub(identity: JudgeIdentity) -> Judge:
    class Stub(Judge):
        def score(self, requests, *, on_result=None):
            out = []
            for i, req in enumerate(requests):
                p = 0.3 + 0.4 * (len(str(req)) % 2)  # deterministic, not constant
                s = JudgeScore.from_logprobs(("0", "1"), (math.log(1 - p), math.log(p)), 1, 0.0)
                if on_result:
                    on_result(i, s)
                out.append(s)
            return out

    Stub.identity = identity
    return Stub()


def _report(identity: JudgeIdentity, tmp_path: Path, monkeypatch) -> AuditReport:
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod

    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: _stub(identity))
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")
    return run_audit(AuditInputs(table=PAIR))


def _audit(identity: JudgeIdentity, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    return json.loads(dumps(_report(identity, tmp_path, monkeypatch).results))


def render_markdown(results: dict) -> str:
    return render_results(results)[1]


def render_html(results: dict) -> str:
    return render_results(results)[0]


def _two(x: float) -> str:
    return f"{x:.2f}"


def _expected_rows() -> list[list[str]]:
    rows = []
    for name, q in load_judge_quality()["datasets"].items():
        rows.append(
            [
                name,
                str(q["n"]),
                _two(q["auc"]),
                f"{_two(q['ap'])} [{_two(q['ap_p10'])}–{_two(q['ap_p90'])}]",
                _two(q["p_at_k"]),
                " / ".join(_two(q[k]) for k in ("flag_rate", "flag_precision", "flag_recall")),
            ]
        )
    return rows


def test_default_judge_report_shows_its_measured_quality(tmp_path, monkeypatch) -> None:
    results = _audit(JudgeIdentity("llama-cpp", DEFAULT_MODEL, "f" * 64), tmp_path, monkeypatch)
    note = results["label_errors"]["default_judge"]
    quality = load_judge_quality()
    assert note["datasets"] == quality["datasets"]
    assert note["judge"]["parameters"] == "1.5B" and note["judge"]["device"].startswith("CPU")
    assert note["strong_judge"] == STRONG_JUDGE
    expected = _expected_rows()
    # every benchmark dataset: a row, or named as not re-measured with these defaults
    assert len(expected) + len(note["not_quoted"]) >= 5
    assert note["not_quoted"] == sorted(quality.get("not_quoted", {}))

    md = render_markdown(results)
    assert f"### {TITLE}" in md
    # the quality table's data rows, parsed back from the Markdown
    table = md.split(f"### {TITLE}", 1)[1].split("```sh", 1)[0]
    rows = [
        [re.sub(r"\\(.)", r"\1", c.strip()) for c in line.strip().strip("|").split("|")]
        for line in table.splitlines()
        if line.startswith("| ") and not line.startswith(("| dataset", "| ---"))
    ]
    assert rows == expected
    for cmd in STRONG_JUDGE.values():
        assert cmd in md
    plain = re.sub(r"\\(.)", r"\1", md)
    assert "1.5B parameters, Q4_K_M (GGUF), on CPU (llama.cpp)" in plain
    if note["not_quoted"]:
        assert f"so not shown: {', '.join(note['not_quoted'])}." in plain

    page = render_html(results)
    assert TITLE in page
    body = page.split('id="judge-quality"', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r"<td>(.*?)</td>", body)
    assert cells == [c.replace("&", "&amp;") for row in expected for c in row]
    assert STRONG_JUDGE["audit"].replace("&", "&amp;") in page

    # terminal: the audit's one-line summary of the analysis, and the rich renderables
    line = next(a["detail"] for a in results["analyses"] if a["name"] == "label errors")
    aps = [q["ap"] for q in quality["datasets"].values()]
    assert f"AP {_two(min(aps))}–{_two(max(aps))}" in line
    assert STRONG_JUDGE["audit"] in line
    from rich.console import Console

    from benchcheck.report.terminal import default_judge_renderables

    out = io.StringIO()
    console = Console(file=out, width=250, color_system=None)
    for r in default_judge_renderables(note):
        console.print(r)
    text = out.getvalue()
    for row in expected:
        assert all(c in text for c in row), row
    assert STRONG_JUDGE["judge"] in text
    # ... and `benchcheck audit` prints them after its one line per analysis.
    report = _report(JudgeIdentity("llama-cpp", DEFAULT_MODEL, "f" * 64), tmp_path, monkeypatch)
    shown = audit_summary(report)
    assert any(
        getattr(r, "title", None) == "How good is this judge? (benchmark, planted label errors)"
        for r in shown
    )


def test_no_default_judge_section_for_an_openai_judge(tmp_path, monkeypatch) -> None:
    ident = JudgeIdentity("openai", "gpt-4o-mini", "", (("base_url", "http://x/v1"),))
    results = _audit(ident, tmp_path, monkeypatch)
    assert "label_errors" in results
    assert "default_judge" not in results["label_errors"]
    assert TITLE not in render_markdown(results)
    assert TITLE not in render_html(results)
    line = next(a["detail"] for a in results["analyses"] if a["name"] == "label errors")
    assert "default judge" not in line and "openai:gpt-4o-mini" in line
    report = _report(ident, tmp_path, monkeypatch)
    titles = [getattr(r, "title", None) for r in audit_summary(report)]
    assert not any(t and "How good is this judge" in str(t) for t in titles)
