"""The glossary where users meet its words (issue 33, item 7).

One source (:mod:`benchcheck.report.glossary`) for docs/glossary.md, the report's footer and
the terminal's footer line and ``benchcheck glossary``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchcheck.cli import main
from benchcheck.report import glossary
from benchcheck.report.html import render_page, show_text

sys.path.insert(0, str(Path(__file__).parents[1] / "report"))
from _glossary_page import read_page, used_words  # noqa: E402

GLOSSARY = Path(__file__).parents[2] / "docs" / "glossary.md"
#: The words issue 33 found unexplained in the terminal and the report.
TERMS = ("MOVER", "mid-p", "bayes-platt", "poisson-binomial", "noisy-or", "AP", "P@k", "ECE")


def test_every_term_has_an_entry():
    rows = [
        line
        for line in GLOSSARY.read_text(encoding="utf-8").splitlines()
        if line.startswith("| **")
    ]
    entries = {row.split("**")[1] for row in rows}
    assert set(TERMS) <= entries
    assert all(len(row.split("|")[2].split()) >= 8 for row in rows)  # an explanation, not a word


def test_the_docs_page_is_generated_from_the_package():
    assert GLOSSARY.read_text(encoding="utf-8") == glossary.markdown(), (
        "docs/glossary.md is stale: python -m benchcheck.report.glossary docs/glossary.md"
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("interval: mid-p (MOVER over 2 strata)", ["mid-p", "MOVER", "stratum"]),
        ("--posterior bayes-platt; Poisson-binomial interval", ["bayes-platt", "poisson-binomial"]),
        ("AP 0.41, P@10 0.3, ECE 0.05", ["AP", "P@k", "ECE"]),
        ("Eq. 5 as written ↓", ["Eq. N", "↑ / ↓"]),
        # whole words only: MAP, APT, midpoint, remover, Eq.5x are none of them
        ("MAP APT midpoint remover noisy", []),
    ],
)
def test_terms_in_finds_whole_words(text, words):
    assert [e.term for e in glossary.terms_in(text)] == words


def test_footer_lists_exactly_the_words_the_page_uses():
    body = (
        "<p>The error rate's interval is mid-p; MOVER joins the strata.</p>"
        "<table><tr><th>AP</th></tr><tr><td>0.5</td></tr></table>"
        "<p>AP again, then the data:</p>" + show_text("AP reported ECE")  # the data's words
    )
    page = render_page("t", "1.0", [("s", "Section", body)])
    parsed = read_page(page)
    # the header's ↑ / ↓; the section's words; the data's "ECE" is no use of the word
    assert parsed.footer_terms == ["↑ / ↓", "mid-p", "MOVER", "stratum", "AP"]
    assert used_words(parsed) == set(parsed.footer_terms)
    # each word linked once, at its first use outside a table heading, to its entry
    assert parsed.links == [
        ("#g-arrows", "↑"),
        ("#g-mid-p", "mid-p"),
        ("#g-mover", "MOVER"),
        ("#g-stratum", "strata"),
        ("#g-ap", "AP"),
    ]
    assert page.count('href="#g-ap"') == 1 and "<th>AP</th>" in page
    # the footer's text is the package's one-line meaning
    assert "Zou &amp; Donner 2008" in page and "<code>benchcheck.stats.stratified</code>" in page


def test_terminal_output_names_its_words(tmp_path, monkeypatch, capsys):
    """One footer line naming the words printed (error-rate's: tests/docs/test_doc_commands)."""
    from benchcheck.sample_data import NER_SAMPLE

    monkeypatch.chdir(tmp_path)
    assert main(["stats", str(NER_SAMPLE)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "terms: ↑ / ↓ — benchcheck glossary TERM explains each"
    assert sum(line.startswith("terms:") for line in out) == 1
    # no word, no line; the JSON on standard output gets none
    assert main(["error-rate", "--errors", "12", "--sample", "200"]) == 0
    assert "terms:" not in capsys.readouterr().out
    assert main(["stats", str(NER_SAMPLE), "--json", "-"]) == 0
    assert "terms:" not in capsys.readouterr().out


def test_glossary_command(capsys):
    assert main(["glossary", "mover", "P@k"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('MOVER: "Method of variance estimates recovery"')
    assert "P@k: Precision at k" in out and "`" not in out and "terms:" not in out
    assert main(["glossary", "nonsense"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no glossary entry for 'nonsense'" in err[0]


def test_glossary_command_json(tmp_path):
    """``--json FILE`` holds the package's entries (code marks removed), one per term asked."""
    import json

    out = tmp_path / "g.json"
    assert main(["glossary", "ap", "ECE", "--json", str(out)]) == 0
    entries = json.loads(out.read_text(encoding="utf-8"))["entries"]
    expected = [glossary.find(t) for t in ("AP", "ECE")]
    assert entries == [{"term": e.term, "meaning": glossary.plain(e.meaning)} for e in expected]
    assert main(["glossary", "AP", "--json", str(out)]) == 2  # exists: replaced only with --force
    assert main(["glossary", "AP", "--json", str(out), "--force"]) == 0
