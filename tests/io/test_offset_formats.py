"""Offset formats (CLUENER, doccano, Label Studio, spaCy): one shared span → token path.

The fixtures in fixtures/offsets were written from each format's published shape and hold
the same annotations as train.conll / test.conll: every reader must give exactly the CoNLL
file's statistics, which in turn equal the plain-Python computation of ``_plain_ner``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from _plain_ner import assert_matches, read_plain
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.errors import InputError, UsageError
from benchcheck.io import _spans
from benchcheck.io.formats import FORMATS, NerOptions, detect_format
from benchcheck.io.load import load
from benchcheck.metrics.compute import compute_stats

OFFSETS = Path(__file__).parent / "fixtures" / "offsets"
PAIRS = {
    "doccano": ("doccano_train.jsonl", "doccano_test.jsonl"),
    "cluener": ("cluener_train.json", "cluener_test.json"),
    "label-studio": ("label_studio_train.json", "label_studio_test.json"),
    "spacy": ("prodigy_train.jsonl", "prodigy_test.jsonl"),
}


def _stats(train: Path, test: Path, **options) -> dict:
    dataset = load(splits={"train": str(train), "test": str(test)}, ner=NerOptions(**options))
    return compute_stats(dataset).to_json()


def _comparable(result: dict) -> dict:
    """The numbers of a stats result (sources and reading details aside)."""
    splits = {
        name: {k: v for k, v in row.items() if k not in ("source", "reading")}
        for name, row in result["splits"].items()
    }
    return {"metrics": result["metrics"], "splits": splits}


@pytest.fixture(scope="module")
def conll_result() -> dict:
    return _stats(OFFSETS / "train.conll", OFFSETS / "test.conll")


def test_the_conll_twin_matches_plain_python(conll_result):
    plain = {
        name: read_plain((OFFSETS / f"{name}.conll").read_text(encoding="utf-8"))
        for name in ("train", "test")
    }
    assert_matches(conll_result, plain)
    # The test split's EVENT and the train split's MISC are seen in one split only.
    assert conll_result["types_only_in"] == {"train": ["MISC"], "test": ["EVENT"]}


@pytest.mark.parametrize("fmt", sorted(PAIRS))
@pytest.mark.parametrize("given_format", [True, False])
def test_each_format_gives_the_conll_numbers(fmt, given_format, conll_result):
    train, test = (OFFSETS / f for f in PAIRS[fmt])
    result = _stats(train, test, format=fmt if given_format else None)
    assert _comparable(result) == _comparable(conll_result)
    reading = result["splits"]["test"]["reading"]
    assert reading["format"] == fmt and reading["n_spans"] == 8
    assert reading["span_alignments"] == reading["overlapping_spans"] == 0
    assert result["types_only_in"] == {"train": ["MISC"], "test": ["EVENT"]}


def test_cjk_surfaces_join_without_a_separator():
    split = load(str(OFFSETS / "doccano_test.jsonl"))["test"]
    surfaces = split.spans.get_column("surface").to_list()
    assert "北京" in surfaces and "奥运会" in surfaces and "Peter Blackburn" in surfaces
    assert split.reading is not None and split.reading.tokenization.startswith("unicode")


def test_docbin_from_spacy_gives_the_conll_numbers(tmp_path, conll_result):
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import Doc, DocBin, Span

    nlp = spacy.blank("xx")
    paths = {}
    for name in ("train", "test"):
        docs = DocBin()
        for tokens, tags in read_plain((OFFSETS / f"{name}.conll").read_text(encoding="utf-8")):
            cjk = any("\u4e00" <= ch <= "\u9fff" for t in tokens for ch in t)
            doc = Doc(nlp.vocab, words=tokens, spaces=[not cjk] * len(tokens))
            ents, k = [], 0
            while k < len(tags):
                if tags[k].startswith("B-"):
                    end = k + 1
                    while end < len(tags) and tags[end] == "I-" + tags[k][2:]:
                        end += 1
                    ents.append(Span(doc, k, end, label=tags[k][2:]))
                    k = end
                else:
                    k += 1
            doc.ents = ents
            docs.add(doc)
        paths[name] = tmp_path / f"{name}.spacy"
        docs.to_disk(paths[name])
    assert detect_format(paths["train"]) == "spacy"
    result = _stats(paths["train"], paths["test"])
    assert _comparable(result) == _comparable(conll_result)
    assert result["splits"]["train"]["reading"]["tokenization"].startswith("spacy")


def test_folder_with_a_format_skips_an_unlabelled_test_split(tmp_path):
    # CLUENER ships test.json without labels: a folder read skips it and says so.
    (tmp_path / "train.json").write_bytes((OFFSETS / "cluener_train.json").read_bytes())
    (tmp_path / "dev.json").write_bytes((OFFSETS / "cluener_test.json").read_bytes())
    (tmp_path / "test.json").write_text('{"id": 0, "text": "无标签的句子"}\n', encoding="utf-8")
    dataset = load(str(tmp_path), ner=NerOptions(format="cluener"))
    assert dataset.split_names == ["train", "dev"]
    assert compute_stats(dataset).to_json()["skipped_splits"] == ["test.json"]
    with pytest.raises(_spans.UnlabelledSplit, match="released without labels"):
        load(str(tmp_path / "test.json"), ner=NerOptions(format="cluener"))


# --------------------------------------------------------------------------- bad input
def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


BAD = [
    # (file, format, text, line, message)
    ("a.jsonl", "doccano", '{"text": "EU", "label": [[0, 5, "ORG"]]}\n', 1, "ends past the end"),
    ("a.jsonl", "doccano", '{"text": "EU", "label": [[1, 1, "ORG"]]}\n', 1, "empty or reversed"),
    (
        "a.jsonl",
        "doccano",
        '{"text": "ab"}\n{"text": "EU", "label": [[0, 1.5, "ORG"]]}\n',
        2,
        "Expected `int`, got `float` - at `$.label[0][1]`",
    ),
    ("a.jsonl", "doccano", '{"text": 5}\n', 1, "Expected `str`, got `int` - at `$.text`"),
    ("a.jsonl", "doccano", '{"text": "EU", "label": ["POS"]}\n', 1, "category names"),
    ("a.jsonl", "doccano", '{"text": "EU"\n', 1, "invalid JSON"),
    ("a.jsonl", "doccano", '{"text": "EUrope", "label": [[0, 2, "ORG"]]}\n', 1, "token bound"),
    (
        "a.jsonl",
        "doccano",
        '{"text": "New York City", "label": [[0, 8, "LOC"], [4, 13, "LOC"]]}\n',
        1,
        "overlapping spans [0, 8) 'LOC' and [4, 13) 'LOC'",
    ),
    ("a.json", "cluener", '{"text": "北京", "label": {"LOC": {"北京": [[0, 2]]}}}\n', 1, "outside"),
    ("a.json", "cluener", '{"text": "北京", "label": {"LOC": {"上海": [[0, 1]]}}}\n', 1, "reads"),
    (
        "a.jsonl",
        "spacy",
        '{"text": "EU", "spans": [{"start": 0, "end": 9, "label": "X"}]}\n',
        1,
        "past the end",
    ),  # noqa: E501
]


@pytest.mark.parametrize(("name", "fmt", "text", "line", "message"), BAD)
def test_bad_input_names_the_file_and_line(tmp_path, name, fmt, text, line, message):
    path = _write(tmp_path, name, text)
    with pytest.raises(InputError) as info:
        load(str(path), ner=NerOptions(format=fmt))
    assert (info.value.path, info.value.line) == (str(path), line)
    assert message in info.value.message
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_label_studio_errors_name_the_task(tmp_path):
    tasks = [
        {"id": 7, "data": {"text": "EU"}, "annotations": []},
        {
            "id": 9,
            "data": {"text": "EU"},
            "annotations": [
                {"result": [{"type": "labels", "value": {"start": 0, "end": 5, "labels": ["ORG"]}}]}
            ],  # noqa: E501
        },
    ]
    path = _write(tmp_path, "export.json", json.dumps(tasks))
    with pytest.raises(InputError, match=r"task 2 \(id 9\): span \[0, 5\) 'ORG' ends past"):
        load(str(path))


def test_unknown_format_and_option_values():
    with pytest.raises(UsageError, match="unknown format 'bogus'"):
        NerOptions(format="bogus")
    with pytest.raises(UsageError, match="align must be one of strict, expand, contract"):
        NerOptions(align="loose")
    with pytest.raises(UsageError, match="overlaps must be one of"):
        NerOptions(overlaps="all")
    with pytest.raises(UsageError, match="type_map must map type names"):
        NerOptions(type_map={"PER.NAM": ""})


def test_detection_by_extension_and_first_record(tmp_path):
    for fmt, (train, _) in PAIRS.items():
        assert detect_format(OFFSETS / train) == fmt
    assert detect_format(OFFSETS / "train.conll") == "conll"
    tokens = _write(tmp_path, "t.jsonl", '{"tokens": ["a"], "tags": ["O"]}\n')
    assert detect_format(tokens) == "jsonl"
    bare = _write(tmp_path, "b.jsonl", '{"text": "no labels here"}\n')
    with pytest.raises(InputError, match="cannot tell the NER format"):
        detect_format(bare)
    assert set(FORMATS) == {
        "conll",
        "jsonl",
        "cluener",
        "doccano",
        "label-studio",
        "spacy",
        "pubtator",
        "brat",
        "medcat",
        "spans-json",
        "hf",
    }


# --------------------------------------------------------------------------- alignment, overlaps
def _records(text: str, spans: list[tuple[int, int, str]]) -> _spans.SpanRecords:
    out = _spans.RecordCollector()
    out.add(text, 1, spans=spans)
    return out.records()


def _entities(split) -> list[tuple[int, int, str, str]]:
    return [
        (s, e, str(t), x)
        for s, e, t, x in split.spans.select("start", "end", "type", "surface").iter_rows()
    ]


def test_align_expand_and_contract_are_counted():
    rec = _records("the EUrope Commission met", [(4, 6, "ORG"), (4, 17, "ORG")])
    with pytest.raises(InputError, match=r"span \[4, 6\) 'ORG' \('EU'\) does not start and end"):
        _spans.spans_to_split(rec, name="x", source="f", format="t")
    expand = _spans.spans_to_split(
        _records("the EUrope Commission met", [(4, 6, "ORG")]),
        name="x",
        source="f",
        format="t",
        options=NerOptions(align="expand"),
    )
    assert _entities(expand) == [(1, 2, "ORG", "EUrope")]
    assert expand.reading.span_alignments == 1 and expand.reading.spans_dropped == 0
    contract = _spans.spans_to_split(
        _records("the EUrope Commission met", [(4, 6, "ORG"), (5, 21, "ORG")]),
        name="x",
        source="f",
        format="t",
        options=NerOptions(align="contract"),
    )
    # [4, 6) holds no whole token: dropped; [5, 21) narrows to "Commission".
    assert _entities(contract) == [(2, 3, "ORG", "Commission")]
    assert contract.reading.span_alignments == 2 and contract.reading.spans_dropped == 1


def test_overlap_policies():
    spans = [(0, 8, "LOC"), (4, 13, "LOC"), (9, 13, "ORG"), (0, 3, "ORG")]
    text = "New York City"
    longest = _spans.spans_to_split(
        _records(text, spans),
        name="x",
        source="f",
        format="t",
        options=NerOptions(overlaps="keep-longest"),
    )
    # Longest first (in tokens): [0, 8) and [4, 13) cover two each, the earlier start wins;
    # [4, 13) and [0, 3) overlap it and are dropped; [9, 13) "City" fits and is kept.
    assert _entities(longest) == [(0, 2, "LOC", "New York"), (2, 3, "ORG", "City")]
    assert longest.reading.overlapping_spans == 2
    first = _spans.spans_to_split(
        _records(text, spans),
        name="x",
        source="f",
        format="t",
        options=NerOptions(overlaps="keep-first"),
    )
    # By start, longer first: [0, 8) then [0, 3) (overlaps), [4, 13) (overlaps), [9, 13).
    assert _entities(first) == [(0, 2, "LOC", "New York"), (2, 3, "ORG", "City")]
    dup = _records("EU rejects", [(0, 2, "ORG"), (0, 2, "ORG")])
    with pytest.raises(InputError, match="overlapping spans"):
        _spans.spans_to_split(dup, name="x", source="f", format="t")


def test_type_map_and_coarse_types_are_recorded(tmp_path):
    path = _write(
        tmp_path,
        "weibo.jsonl",
        '{"text": "张三 和 李四", "label": [[0, 2, "PER.NAM"], [5, 7, "PER.NOM"]]}\n',
    )
    coarse = load(str(path), ner=NerOptions(coarse_types=True))
    assert {str(t) for t in coarse["weibo"].spans["type"]} == {"PER"}
    result = compute_stats(load(str(path), ner=NerOptions(type_map={"PER.NOM": "PER"})))
    payload = result.to_json()
    assert payload["type_map"] == {
        "map": {"PER.NOM": "PER"},
        "coarse_types": False,
        "renamed": {"PER.NOM": "PER"},
    }
    kept = load(str(path))["weibo"]
    assert sorted(str(t) for t in kept.spans["type"]) == ["PER.NAM", "PER.NOM"]


# --------------------------------------------------------------------------- tokeniser
def _plain_tokens(text: str) -> list[str]:
    """The unicode rule by hand: CJK characters alone, \\w runs, single other characters."""
    import regex

    return regex.findall(
        r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}]\p{M}*|[^\W\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}]+(?:\p{M}[^\W\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}]*)*|[^\w\s]\p{M}*",
        text,
    )  # noqa: E501


text_st = st.text(
    st.sampled_from(list("ab1_ 北京東かナไทย,.!é\u0301\t\u3000")), min_size=0, max_size=20
)


@settings(max_examples=200, deadline=None)
@given(st.lists(text_st, min_size=1, max_size=6))
def test_tokenize_matches_a_regex_reading(texts):
    rec, start, end, tokens = _spans.tokenize(pl.Series(texts, dtype=pl.String))
    expected = [(k, t) for k, text in enumerate(texts) for t in _plain_tokens(text)]
    assert list(zip(rec.tolist(), tokens.to_list(), strict=True)) == expected
    for r, s, e, t in zip(
        rec.tolist(), start.tolist(), end.tolist(), tokens.to_list(), strict=True
    ):
        assert texts[r][s:e] == t


def test_chars_tokenizer_is_one_token_per_character():
    _, _, _, tokens = _spans.tokenize(pl.Series(["iPhone 手机", "é\u0301x"]), "chars")
    assert tokens.to_list() == ["i", "P", "h", "o", "n", "e", "手", "机", "é\u0301", "x"]


def test_offsets_formats_bench_scale_smoke(tmp_path):
    # A few thousand records through blocks on two threads equal one block's reading.
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(3000):
        words = [f"w{int(x)}" for x in rng.integers(0, 50, size=12)]
        text = " ".join(words)
        lines.append(json.dumps({"text": text, "label": [[0, len(words[0]), "T"]]}))
    path = _write(tmp_path, "big.jsonl", "\n".join(lines) + "\n")
    whole = load(str(path), keep_tokens=False)["big"]
    old = _spans.BLOCK_CHARS
    try:
        _spans.BLOCK_CHARS = 4096
        parts = load(str(path), keep_tokens=False)["big"]
    finally:
        _spans.BLOCK_CHARS = old
    assert whole.table.equals(parts.table) and whole.spans.equals(parts.spans)


def test_hf_hub_offline_says_why(tmp_path):
    pytest.importorskip("datasets")
    env = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path)}
    code = (
        "from benchcheck.io.load import load\n"
        "try:\n    load('hf:conll2003')\n"
        "except Exception as e:\n    print(type(e).__name__, e)\n"
    )
    import os

    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
        check=True,
    )
    assert (
        "InputError hf:conll2003: cannot load 'conll2003': HuggingFace offline mode" in done.stdout
    )
    assert "save_to_disk" in done.stdout


def test_hf_hub_reads_through_load_dataset(tmp_path):
    # A local data folder goes through the same datasets.load_dataset call, offline.
    pytest.importorskip("datasets")
    folder = tmp_path / "hub"
    folder.mkdir()
    for name in ("train", "test"):
        text = (OFFSETS / f"{name}.conll").read_text(encoding="utf-8")
        rows = [{"tokens": x, "tags": y} for x, y in read_plain(text)]
        (folder / f"{name}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    result = compute_stats(load(f"hf:{folder}")).to_json()
    twin = _stats(OFFSETS / "train.conll", OFFSETS / "test.conll")
    assert result["metrics"] == twin["metrics"]
