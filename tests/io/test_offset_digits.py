"""One rule for a mention offset: ASCII digits, on every reading path (issue 37, item 9).

PubTator is read by a vectorised path (a well-formed file, documents after blank lines)
and a line-by-line one (every other layout). Python's ``int()`` takes Arabic-Indic and
full-width digits and ``2_9``; polars' cast does not: the two paths read such an offset
as an offset and as a relation, so the same two documents gave 2 or 3 entities depending
on a blank line. Now both take ASCII digits only and refuse a look-alike number with the
file and line; BRAT's offsets follow the same rule.
"""

from __future__ import annotations

import pytest

from benchcheck.errors import InputError
from benchcheck.io import brat, pubtator

_DOC_A = "1|t|Aspirin helps here.\n1\t0\t7\tAspirin\tChemical\n1\t{s}\t{e}\thelps\tChemical\n"
_DOC_B = "2|t|Ibuprofen too.\n2\t0\t9\tIbuprofen\tChemical\n2\tCID\tD1\tD2\n"
_LOOK_ALIKES = [
    ("\u0668", "\u0661\u0663"),  # Arabic-Indic 8, 13
    ("\u06f8", "\u06f1\u06f3"),  # extended Arabic-Indic
    ("\uff18", "\uff11\uff13"),  # full-width
    ("8", "1_3"),
    ("+8", "13"),
    (" 8", "13"),
    ("8", "13 "),
    ("\u0968", "13"),  # Devanagari 8
]


def _read(tmp_path, start: str, end: str, blank: bool):
    path = tmp_path / "p.txt"
    path.write_text(_DOC_A.format(s=start, e=end) + ("\n" if blank else "") + _DOC_B)
    return pubtator.records(path)


@pytest.mark.parametrize("blank", [True, False], ids=["vectorised", "line-by-line"])
def test_ascii_offsets_same_entities_with_or_without_a_blank_line(tmp_path, blank):
    read = _read(tmp_path, "8", "13", blank)
    assert read.span_start.tolist() == [0, 8, 0]
    assert read.span_end.tolist() == [7, 13, 9]
    assert read.document is not None and dict(read.document.skipped) == {"relation": 1}


@pytest.mark.parametrize(("start", "end"), _LOOK_ALIKES)
@pytest.mark.parametrize("blank", [True, False], ids=["vectorised", "line-by-line"])
def test_look_alike_numbers_refused_on_both_paths(tmp_path, start, end, blank):
    with pytest.raises(InputError) as info:
        _read(tmp_path, start, end, blank)
    bad = end if pubtator.OFFSET.fullmatch(start) else start
    assert str(info.value) == (
        f"{tmp_path / 'p.txt'}:3: offset {bad!r} is not written in ASCII digits 0-9 "
        "(expected PMID, start, end, mention and type; a relation's 2nd field is a word)"
    )


@pytest.mark.parametrize("field", ["CID", "Association", "D008750", "-", "x1"])
def test_words_in_the_second_field_are_still_relations(tmp_path, field):
    path = tmp_path / "p.txt"
    path.write_text(f"1|t|Aspirin helps.\n1\t0\t7\tAspirin\tChemical\n1\t{field}\tD1\tD2\n")
    read = pubtator.records(path)
    assert read.document is not None and dict(read.document.skipped) == {"relation": 1}


@pytest.mark.parametrize("offset", ["\u0660", "\uff10", "0_0", "+0"])
def test_brat_offsets_follow_the_same_rule(tmp_path, offset):
    (tmp_path / "d.txt").write_text("Aspirin helps.")
    (tmp_path / "d.ann").write_text(f"T1\tChemical {offset} 7\tAspirin\n")
    with pytest.raises(InputError) as info:
        brat.records(tmp_path)
    assert "d.ann:1" in str(info.value) and "expected 'Type start end'" in str(info.value)


def test_brat_ascii_offsets_read(tmp_path):
    (tmp_path / "d.txt").write_text("Aspirin helps.")
    (tmp_path / "d.ann").write_text("T1\tChemical 0 7\tAspirin\n")
    read = brat.records(tmp_path)
    assert (read.span_start.tolist(), read.span_end.tolist()) == ([0], [7])
