"""Very long flagged texts: a preview, an expander, a cap; the page stays small."""

from __future__ import annotations

import sys
from pathlib import Path

from benchcheck.report.html import MAX_TEXT_CHARS, PREVIEW_CHARS, long_text
from benchcheck.runs.audit import render_results

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from report_long_texts_bench import results  # noqa: E402


def test_long_text_parts():
    assert long_text("a" * PREVIEW_CHARS) == "<bdi>" + "a" * PREVIEW_CHARS + "</bdi>"
    text = "".join(chr(97 + i % 26) for i in range(25_000))
    html = long_text(text)
    head, rest = html.split("<details>", 1)
    assert head == "<bdi>" + text[:PREVIEW_CHARS] + "</bdi>"
    assert f"show more ({25_000 - PREVIEW_CHARS:,} characters)" in rest
    assert text[PREVIEW_CHARS:MAX_TEXT_CHARS] in rest and text[MAX_TEXT_CHARS:] not in html
    assert f"{25_000 - MAX_TEXT_CHARS:,} more characters" in rest
    # untrusted text stays escaped in every part
    evil = "<script>x</script>" * 2000
    assert "<script>" not in long_text(evil)


def test_forty_pairs_of_100k_characters_make_a_small_page():
    page = render_results(results(40, 100_000))[0]
    size = len(page.encode("utf-8"))
    # 80 texts of at most 10,000 characters (a few escaped as &lt;...&gt;, marks for U+200B)
    assert size < 1.5 * 2**20, size
    assert page.count("<details>") == 80
