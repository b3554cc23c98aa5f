"""Document formats (PubTator, BRAT, MedCAT, span JSON) on fixtures written from their specs.

fixtures/documents holds one corpus of three documents (train: 1001, 1002; test: 1003) in
every format: nested mentions, a sentence-splitter cut inside a mention ("Vit. D"), a
relation line, BRAT attributes, notes and relations, MedCAT reviewer verdicts. Every
reader must give the statistics of the plain-Python reading of ``DOCS`` (``_plain_docs``
+ ``_plain_ner``), by documents and by sentences. Edge cases and bad input follow.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _plain_docs import cut_sentences, dropped_overlaps, sentences
from _plain_ner import assert_matches
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.cli import main
from benchcheck.errors import InputError, UsageError
from benchcheck.io import _sentences, _spans
from benchcheck.io.formats import NerOptions, detect_format
from benchcheck.io.load import load
from benchcheck.metrics.compute import compute_stats

DOCS_DIR = Path(__file__).parent / "fixtures" / "documents"
# The corpus as the fixtures were written from it: PMID → (title, abstract, mentions).
DOCS = {
    "1001": (
        "Aspirin and acute kidney failure in adults.",
        "Aspirin was given to 12 adults. Two developed acute kidney failure after Vit. D doses.",
        [
            (0, 7, "Chemical"),
            (12, 32, "Disease"),
            (18, 32, "Disease"),
            (44, 51, "Chemical"),
            (90, 110, "Disease"),
            (96, 110, "Disease"),
            (117, 123, "Chemical"),
        ],
    ),
    "1002": (
        "Lesch-Nyhan syndrome in two brothers.",
        "Both brothers had gout. Allopurinol reduced gout.",
        [(0, 20, "Disease"), (56, 60, "Disease"), (62, 73, "Chemical"), (82, 86, "Disease")],
    ),
    "1003": (
        "Gout treated with allopurinol.",
        "No adverse events were seen.",
        [(0, 4, "Disease"), (18, 29, "Chemical")],
    ),
}
SPLITS = {"train": ["1001", "1002"], "test": ["1003"]}
SPAN_FIELDS = (
    "text=full_text,spans=entities,start=start_position,end=end_position,type=entity_type,"
    "mention=entity_value,id=doc_id"
)


def _docs(ids: list[str]) -> list[tuple[str, list[tuple[int, int, str]]]]:
    return [(f"{DOCS[i][0]} {DOCS[i][1]}", DOCS[i][2]) for i in ids]


def _plain(split: bool) -> dict:
    return {name: sentences(_docs(ids), split=split) for name, ids in SPLITS.items()}


LISTS = {"train": str(DOCS_DIR / "train_ids.txt"), "test": str(DOCS_DIR / "test_ids.txt")}
# Each format: (source, options) giving the train/test splits.
READS = {
    "pubtator": (str(DOCS_DIR / "corpus.pubtator"), {"split_lists": LISTS}),
    "brat": (str(DOCS_DIR / "brat"), {}),
    "medcat": (
        str(DOCS_DIR / "medcat.json"),
        {"split_lists": LISTS, "span_fields": {"type": "type_id"}},
    ),
    "spans-json": (
        str(DOCS_DIR / "spans.jsonl"),
        {
            "split_lists": LISTS,
            "span_fields": dict(kv.split("=") for kv in SPAN_FIELDS.split(",")),
        },
    ),
    "spans-json inclusive": (
        str(DOCS_DIR / "spans_inclusive.json"),
        {
            "format": "spans-json",
            "split_lists": LISTS,
            "inclusive_end": True,
            "span_fields": {
                "text": "data.text",
                "spans": "label",
                "type": "type",
                "start": "pos.0",
                "end": "pos.1",
                "mention": "ent",
                "id": "meta.pmid",
            },
        },
    ),
}


def _stats(source: str, instances: str, **options) -> dict:
    dataset = load(source, ner=NerOptions(overlaps="keep-longest", instances=instances, **options))
    return compute_stats(dataset).to_json()


@pytest.mark.parametrize("instances", ["document", "sentence"])
@pytest.mark.parametrize("fmt", sorted(READS))
def test_every_format_gives_the_plain_reading(fmt, instances):
    source, options = READS[fmt]
    result = _stats(source, instances, **options)
    assert list(result["splits"]) == ["train", "test"]
    assert_matches(result, _plain(instances == "sentence"))
    reading = result["splits"]["train"]["reading"]
    assert reading["format"] == fmt.split()[0]
    assert reading["instances"] == instances and reading["n_documents"] == 2
    dropped = dropped_overlaps(_docs(SPLITS["train"]), split=instances == "sentence")
    assert reading["overlapping_spans"] == dropped == 2  # the two nested "kidney failure"


def test_sentences_move_a_cut_out_of_a_mention():
    # sentencex cuts "... after Vit. | D doses."; the cut moves to the end of "Vit. D".
    text = f"{DOCS['1001'][0]} {DOCS['1001'][1]}"
    raw = _sentences.sentence_starts(text)
    assert text.index("D doses") in raw
    assert text.index(" doses") not in raw
    assert cut_sentences(text, DOCS["1001"][2]) == [0, 44, 76, 123]
    result = _stats(*READS["pubtator"][:1], "sentence", split_lists=LISTS)
    reading = result["splits"]["train"]["reading"]
    assert reading["splits_moved"] == 1
    assert reading["n_sentences"] == result["splits"]["train"]["n_instances"] == 7
    assert reading["splitter"].startswith("sentencex ") and reading["splitter"].endswith("(en)")


def test_reading_records_what_each_format_skipped_and_checked():
    pub = _stats(*READS["pubtator"][:1], "sentence", split_lists=LISTS)["splits"]["train"]
    assert pub["reading"]["skipped"] == {"relation": 1}
    assert pub["reading"]["offset_check"] == "error" and pub["reading"]["multi_type"] == "first"
    assert pub["reading"]["discontinuous"] is None  # PubTator has no discontinuous spans
    brat = _stats(READS["brat"][0], "document")["splits"]["train"]["reading"]
    assert brat["skipped"] == {"attribute": 2, "note": 2, "relation": 2}
    assert brat["discontinuous"] == "error"
    medcat = _stats(READS["medcat"][0], "document", **READS["medcat"][1])["splits"]
    assert medcat["test"]["reading"]["skipped"] == {"deleted": 1}
    rejected = medcat["train"]["reading"]["rejected"]
    assert [(r["document"], r["value"], r["reason"], r["kept"]) for r in rejected] == [
        ("1001", "Aspirin", "killed", True),
        ("1002", "gout", "incorrect", True),
    ]
    assert medcat["train"]["reading"]["medcat_keep"] == "all"


def test_medcat_keep_correct_leaves_out_the_rejected():
    options = {**READS["medcat"][1], "medcat_keep": "correct"}
    result = _stats(READS["medcat"][0], "document", **options)
    docs = _docs(SPLITS["train"])
    docs[0] = (docs[0][0], docs[0][1][1:])  # 1001's killed "Aspirin" [0, 7)
    docs[1] = (docs[1][0], [m for m in docs[1][1] if m[0] != 56])  # 1002's incorrect "gout"
    assert_matches(result, {"train": sentences(docs, split=False)})
    rejected = result["splits"]["train"]["reading"]["rejected"]
    assert [r["kept"] for r in rejected] == [False, False]


def test_split_lists_equal_separate_files(tmp_path):
    # The PubTator corpus cut by hand into train and test files reads the same.
    blocks = (DOCS_DIR / "corpus.pubtator").read_text(encoding="utf-8").strip().split("\n\n")
    (tmp_path / "train.pubtator").write_text("\n\n".join(blocks[:2]) + "\n", encoding="utf-8")
    (tmp_path / "test.pubtator").write_text(blocks[2] + "\n", encoding="utf-8")
    by_files = compute_stats(load(str(tmp_path), ner=NerOptions(overlaps="keep-longest"))).to_json()
    by_lists = _stats(*READS["pubtator"][:1], "sentence", split_lists=LISTS)
    assert by_files["metrics"] == by_lists["metrics"]
    assert by_lists["split_lists"] == {"lists": LISTS, "unassigned_documents": 0}
    only_train = _stats(*READS["pubtator"][:1], "sentence", split_lists={"train": LISTS["train"]})
    assert only_train["split_lists"]["unassigned_documents"] == 1
    assert "1 documents are in no split list" in " ".join(only_train["notes"])


def test_detection_by_extension_and_content(tmp_path):
    assert detect_format(DOCS_DIR / "corpus.pubtator") == "pubtator"
    txt = tmp_path / "CDR_TrainingSet.PubTator.txt"
    txt.write_bytes((DOCS_DIR / "corpus.pubtator").read_bytes())
    assert detect_format(txt) == "pubtator"
    assert detect_format(DOCS_DIR / "brat") == "brat"
    assert detect_format(DOCS_DIR / "brat" / "test" / "1003.ann") == "brat"
    assert detect_format(DOCS_DIR / "medcat.json") == "medcat"
    assert detect_format(DOCS_DIR / "medcat.json", span_fields=True) == "medcat"
    assert detect_format(DOCS_DIR / "spans.jsonl", span_fields=True) == "spans-json"
    pii = _write(tmp_path, "pii.jsonl", '{"full_text": "x", "pii": []}\n')
    with pytest.raises(InputError, match="or name span fields with span_fields"):
        detect_format(pii)
    # One .ann beside its .txt is one document, one split named after the file.
    single = load(
        str(DOCS_DIR / "brat" / "test" / "1003.ann"), ner=NerOptions(instances="document")
    )
    assert single.split_names == ["1003"] and single["1003"].table.height == 1


# --------------------------------------------------------------------------- edge cases
def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


PUB_MULTI = "7|t|Fever and rash.\n7|a|\n7\t0\t5\tFever\tT184,T033\tC1\n7\t10\t14\trash\tT047\tC2\n"


def _split(path: Path, **options):
    dataset = load(str(path), ner=NerOptions(instances="document", **options))
    return dataset[dataset.split_names[0]]


def _entities(split) -> list[tuple[str, str]]:
    return [(str(t), x) for t, x in split.spans.select("type", "surface").iter_rows()]


def test_multi_type_first_all_error(tmp_path):
    path = _write(tmp_path, "m.pubtator", PUB_MULTI)
    first = _split(path)
    assert _entities(first) == [("T184", "Fever"), ("T047", "rash")]
    assert first.reading.document.multi_type_mentions == 1
    both = _split(path, multi_type="all", overlaps="keep-first")
    # The copies overlap exactly: keep-first keeps one (the types sort T033 < T184).
    assert both.reading.overlapping_spans == 1 and both.reading.n_spans == 3
    with pytest.raises(InputError, match=r"has 2 types \(T184,T033\); expected one") as info:
        _split(path, multi_type="error")
    assert info.value.line == 3 and "document 7: mention [0 5] 'Fever'" in info.value.message


BRAT_DISC = "T1\tDisease 0 4;15 21\tlung cancer\nT2\tOrgan 9 14\tliver\n"


def test_discontinuous_error_merge_drop(tmp_path):
    _write(tmp_path / "c", "d.txt", "lung and liver cancer")
    ann = _write(tmp_path / "c", "d.ann", BRAT_DISC)
    with pytest.raises(InputError, match="is discontinuous; expected one span") as info:
        _split(ann)
    assert (info.value.path, info.value.line) == (str(ann), 1)
    merged = _split(ann, discontinuous="merge", overlaps="keep-longest")
    assert _entities(merged) == [("Disease", "lung and liver cancer")]
    assert merged.reading.overlapping_spans == 1  # "liver" lies inside the merged span
    dropped = _split(ann, discontinuous="drop")
    assert _entities(dropped) == [("Organ", "liver")]
    assert dropped.reading.document.discontinuous_spans == 1


def test_offset_check_error_warn_trim(tmp_path):
    text = "7|t|Severe  fever today.\n7\t6\t13\tfever\tSign\tC1\n7\t0\t6\tSevers\tSign\tC2\n"
    path = _write(tmp_path, "o.pubtator", text)
    with pytest.raises(InputError, match=r"reads '  fever' at those offsets") as info:
        _split(path)
    assert info.value.line == 2
    warned = _split(path, offset_check="warn", align="expand")
    assert warned.reading.document.offset_mismatches == 2
    trimmed = _split(path, offset_check="trim")
    assert _entities(trimmed) == [("Sign", "Severe"), ("Sign", "fever")]
    assert trimmed.reading.document.offsets_trimmed == 1
    assert trimmed.reading.document.offset_mismatches == 1  # "Severs" is no whitespace slip


def test_brat_triggers_and_other_kinds_are_skipped(tmp_path):
    _write(tmp_path / "c", "d.txt", "IL-2 is phosphorylated.")
    ann = _write(
        tmp_path / "c",
        "d.ann",
        "T1\tProtein 0 4\tIL-2\nT2\tPhosphorylation 8 22\tphosphorylated\n"
        "E1\tPhosphorylation:T2 Theme:T1\nM1\tNegation E1\nN1\tReference T1 UniProt:P60568\tIL2\n"
        "*\tEquiv T1 T1\n",
    )
    split = _split(ann)
    assert _entities(split) == [("Protein", "IL - 2")]  # surfaces join tokens by a space
    skipped = split.reading.document.skipped
    assert skipped == {
        "event": 1,
        "trigger": 1,
        "attribute": 1,
        "normalization": 1,
        "equivalence": 1,
    }


def test_spans_json_array_and_lines_with_missing_fields(tmp_path):
    path = _write(tmp_path, "s.jsonl", '{"t": "EU rejects", "s": [{"a": 0, "b": 2, "k": "ORG"}]}\n')
    split = _split(
        path, span_fields={"text": "t", "spans": "s", "start": "a", "end": "b", "type": "k"}
    )
    assert _entities(split) == [("ORG", "EU")]
    with pytest.raises(InputError, match=r"no field 'full_text' for text \(span_fields text="):
        _split(path, span_fields={"text": "full_text"})


def test_sentence_split_keeps_ids_and_document_offsets_in_errors(tmp_path):
    # A strict-alignment error in the second sentence names the document and its offsets.
    text = "9|t|A first sentence.\n9|a|Then EUrope came.\n9\t23\t25\tEU\tORG\tX\n"
    path = _write(tmp_path, "a.pubtator", text)
    with pytest.raises(InputError) as info:
        load(str(path))
    assert "document 9: span [23, 25) 'ORG' ('EU') does not start and end" in info.value.message
    assert info.value.line == 1


def test_unknown_option_values():
    with pytest.raises(UsageError, match="multi_type must be one of first, all, error"):
        NerOptions(multi_type="some")
    with pytest.raises(UsageError, match="instances must be one of document, sentence"):
        NerOptions(instances="paragraph")
    with pytest.raises(UsageError, match="span_fields names unknown field 'txt'"):
        NerOptions(span_fields={"txt": "text"})


# --------------------------------------------------------------------------- bad input, CLI
BAD = [
    # (files, extra args, where the error points (file, line), message)
    (
        {"a.pubtator": "1|t|Fever.\n\n2\t0\t5\tFever\tSign\tC1\n"},
        [],
        ("a.pubtator", 3),
        "mention of document 2, whose title and abstract lines have not come before it",
    ),
    (
        {"a.pubtator": "1|t|Fever.\n1|a|Hot.\n1\t8\t30\tHot\tSign\tC1\n"},
        [],
        ("a.pubtator", 3),
        "lies outside the document's text (11 characters)",
    ),
    (
        {"a.pubtator": "1|t|Fever.\n1\t0\t5\tFever\t\tC1\n"},
        [],
        ("a.pubtator", 2),
        "has an empty type",
    ),
    (
        {"a.pubtator": "1|t|Fever.\n1\t0\t5\tFever\n"},
        [],
        ("a.pubtator", 2),
        "expected PMID, start, end, mention and type",
    ),
    (
        {"c/d.ann": "T1\tSign 0 5\tFever\n"},
        [],
        ("c/d.ann", None),
        "d.ann has no d.txt beside it",
    ),
    (
        {"c/d.ann": "T1\t 0 5\tFever\n", "c/d.txt": "Fever."},
        [],
        ("c/d.ann", 1),
        "has an empty type",
    ),
    (
        {"c/d.ann": "X1\tSign 0 5\tFever\n", "c/d.txt": "Fever."},
        [],
        ("c/d.ann", 1),
        "unknown annotation kind",
    ),
    (
        {"s.jsonl": '{"text": "Fever.", "spans": [{"start": 0, "end": 5, "label": "S"}]}\n'},
        ["--span-fields", "text=full_text"],
        ("s.jsonl", 1),
        "no field 'full_text' for text (--span-fields text=full_text)",
    ),
    (
        {
            "m.json": '{"projects": [{"documents": [{"text": "Fever.", "annotations": '
            '[{"start": 0, "end": 5, "value": "Fever"}]}]}]}'
        },
        [],
        ("m.json", None),
        'annotation 1 has no "cui" to take as its type (choose another with --span-fields',
    ),
    (
        {"a.pubtator": "1|t|Fever.\n1\t0\t5\tFever\tSign\tC1\n", "ids.txt": "1\n3\n"},
        ["--split-by-list", "train=IDS"],
        ("ids.txt", 2),
        "document 3 is not in",
    ),
]


@pytest.mark.parametrize(("files", "args", "where", "message"), BAD)
def test_bad_input_is_one_line_exit_2_nothing_written(
    tmp_path, capsys, files, args, where, message
):
    for name, text in files.items():
        _write(tmp_path, name, text)
    data = tmp_path / next(iter(files))
    if data.suffix == ".ann" and len(files) == 1:
        data = data.parent
    out = tmp_path / "out.json"
    argv = [a.replace("IDS", str(tmp_path / "ids.txt")) for a in args]
    rc = main(["stats", str(data), *argv, "--json", str(out)])
    _, err = capsys.readouterr()
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    file, line = where
    expected_at = f"{tmp_path / file}:{line}: " if line else f"{tmp_path / file}: "
    assert lines[0].startswith("error: " + expected_at), lines[0]
    assert message in " ".join(lines[0].split())
    assert not out.exists()


def test_help_shows_the_document_options(capsys):
    assert main(["stats", "--help"]) == 0
    flat = " ".join(capsys.readouterr().out.split())
    for flag in (
        "--instances",
        "--multi-type",
        "--discontinuous",
        "--offset-check",
        "--span-fields",
        "--inclusive-end",
        "--medcat-keep",
        "--split-by-list",
        "--sentence-language",
    ):
        assert flag in flat
    assert "pubtator: PubTator documents" in flat and "brat: BRAT standoff" in flat


def test_cli_reads_a_brat_corpus_of_split_folders(tmp_path, capsys):
    out = tmp_path / "out.json"
    rc = main(["stats", str(DOCS_DIR / "brat"), "--overlaps", "keep-longest", "--json", str(out)])
    assert rc == 0, capsys.readouterr().err
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert list(payload["splits"]) == ["train", "test"]
    assert payload["splits"]["test"]["reading"]["n_documents"] == 1


def _greedy_by_hand(start, end, policy):
    """The overlap rule written the slow way: in preference order, keep what fits."""
    spans = sorted(range(len(start)), key=lambda k: (start[k], -(end[k] - start[k])))
    if policy == "keep-longest":
        spans = sorted(spans, key=lambda k: (-(end[k] - start[k]), start[k]))
    kept = []
    for k in spans:
        if all(end[k] <= start[j] or start[k] >= end[j] for j in kept):
            kept.append(k)
    return sorted(kept)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(1, 6)), min_size=1, max_size=25),
    st.sampled_from(["keep-longest", "keep-first"]),
)
def test_overlap_resolution_matches_the_rule_by_hand(spans, policy):
    # _greedy takes spans sorted by start, longer first (as _resolve_overlaps hands them).
    ordered = sorted([(a, a + n) for a, n in spans], key=lambda x: (x[0], -(x[1] - x[0])))
    start = np.array([a for a, _ in ordered])
    end = np.array([b for _, b in ordered])
    got = _spans._greedy(start, end, policy).tolist()
    assert got == _greedy_by_hand(start.tolist(), end.tolist(), policy)


def _same_records(a, b) -> None:
    assert a.texts.equals(b.texts) and a.span_type.equals(b.span_type)
    for name in ("line", "span_record", "span_start", "span_end"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert tuple(a.ids) == tuple(b.ids) and a.document == b.document


FAST_CASES = {
    "fixture": (DOCS_DIR / "corpus.pubtator").read_text(encoding="utf-8"),
    "crlf, no abstract, multi types": "5|t|Fever and rash.\r\n5\t0\t5\tFever\tA, B\tC\r\n\r\n"
    "6|t|Rash.\r\n6|a|Itchy rash.\r\n6\t12\t16\trash\tB\tC\r\n6\tCID\tx\ty\r\n",
    "no blank line at the end": "7|t|Gout.\n7\t0\t4\tGout\tD\tC",
}


@pytest.mark.parametrize("case", sorted(FAST_CASES))
@pytest.mark.parametrize("multi_type", ["first", "all"])
def test_pubtator_fast_path_equals_the_line_reader(case, multi_type):
    from benchcheck.io import pubtator

    options = NerOptions(multi_type=multi_type)
    text = FAST_CASES[case]
    fast = pubtator._fast_records(text, options)
    assert fast is not None
    _same_records(fast, pubtator._line_records(text, Path("x"), options))


@pytest.mark.parametrize(
    "text",
    [
        "1|t|A.\n1\t0\t1\tB\tT\tC\n",  # the mention's text differs
        "1|t|A.\n1|t|B.\n",  # two titles
        "1|a|A.\n1\t0\t1\tA\tT\tC\n",  # no title
        "1|t|A.\n2\t0\t1\tA\tT\tC\n",  # another document's mention
        "1|t|A.\n\n1|t|B.\n",  # a PMID twice
        "1|t|A.\n1\t0\t9\tA\tT\tC\n",  # past the end
    ],
)
def test_pubtator_fast_path_leaves_anything_odd_to_the_line_reader(text):
    from benchcheck.io import pubtator

    assert pubtator._fast_records(text, NerOptions()) is None


def test_cli_warns_what_the_reading_policies_changed(tmp_path, capsys):
    medcat = READS["medcat"][0]
    argv = ["stats", medcat, "--span-fields", "type=type_id", "--overlaps", "keep-longest"]
    assert main([*argv, "--json", str(tmp_path / "m.json")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "split medcat: 2 annotations a reviewer rejected are kept" in err
    multi = _write(tmp_path, "m.pubtator", PUB_MULTI)
    assert main(["stats", str(multi), "--json", str(tmp_path / "p.json")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "split m: 1 mentions with several types kept the first (--multi-type)" in err


def test_brat_line_without_its_text_column_is_read_unchecked(tmp_path):
    _write(tmp_path / "c", "d.txt", "Fever today.")
    ann = _write(tmp_path / "c", "d.ann", "T1\tSign 0 5\n")
    assert _entities(_split(ann)) == [("Sign", "Fever")]
