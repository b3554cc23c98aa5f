"""Suite labels: NLI suites hold only the three NLI labels; other suites keep their own."""

from __future__ import annotations

import json

import pytest

from benchcheck.errors import InputError
from benchcheck.io.diagnostic import NLI_LABELS, read_diagnostic_jsonl, read_glue_diagnostic_tsv


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _pair(i, forward, backward=None):
    return {
        "id": f"p{i}",
        "sentence1": f"a {i}",
        "sentence2": f"b {i}",
        "forward": forward,
        "backward": backward,
        "tags": ["Negation"],
    }


def test_typo_in_an_nli_suite_is_an_error(tmp_path):
    rows = [_pair(0, "entailment"), _pair(1, "neutral", "contradiction"), _pair(2, "entailmnet")]
    with pytest.raises(InputError) as info:
        read_diagnostic_jsonl(_jsonl(tmp_path / "s.jsonl", rows))
    assert info.value.line == 3 and info.value.got == "entailmnet"
    assert "not one of the NLI labels entailment, neutral, contradiction" in info.value.message


def test_suites_of_other_labels_and_nli_suites_read(tmp_path):
    other = read_diagnostic_jsonl(
        _jsonl(tmp_path / "o.jsonl", [_pair(0, "safe"), _pair(1, "unsafe")])
    )
    assert other.label_names == ("safe", "unsafe")
    nli = read_diagnostic_jsonl(_jsonl(tmp_path / "n.jsonl", [_pair(0, "Entailment", "neutral")]))
    assert nli.label_names == NLI_LABELS


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (["entailment"], "'forward' must be one label .*not a list"),
        ({"x": 1}, "not an object"),
        (float("nan"), "missing 'forward'"),  # NaN reads as a missing value, as "nan" does
    ],
)
def test_label_must_be_one_string(tmp_path, bad, message):
    with pytest.raises(InputError, match=message) as info:
        read_diagnostic_jsonl(_jsonl(tmp_path / "s.jsonl", [_pair(0, "neutral"), _pair(1, bad)]))
    assert info.value.line == 2


def test_glue_tsv_typo(tmp_path):
    path = tmp_path / "d.tsv"
    path.write_text(
        "Logic\tDomain\tPremise\tHypothesis\tLabel\n"
        "Negation\tx\tA dog.\tNo dog.\tcontradiction\n"
        "Negation\tx\tA cat.\tA pet.\tentailment\n"
        "Negation\tx\tA cow.\tA bird.\tcontradicton\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as info:
        read_glue_diagnostic_tsv(path)
    assert (info.value.line, info.value.got) == (4, "contradicton")


def test_utf16_suite_is_named(tmp_path):
    path = tmp_path / "d.tsv"
    path.write_bytes("Premise\tHypothesis\tLabel\na\tb\tneutral\n".encode("utf-16"))
    with pytest.raises(InputError, match="encoded as UTF-16"):
        read_glue_diagnostic_tsv(path)
