"""NER JSONL reader: tags or ner_tags + label names, exact errors with the line."""

import json

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.errors import InputError
from benchcheck.io.ner_jsonl import read_ner_jsonl

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def _write(path, rows):
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def _sentences(split):
    grouped = split.tokens.group_by("sentence", maintain_order=True).agg("token", "tag")
    return [(t, g) for t, g in grouped.select("token", "tag").iter_rows()]


def _entities(split):
    return [
        (int(s), int(a), int(b), str(t), str(x))
        for s, a, b, t, x in split.spans.sort("sentence", "start")
        .select("sentence", "start", "end", "type", "surface")
        .iter_rows()
    ]


def test_tags_and_ner_tags_read_the_same(tmp_path):
    rows = [
        {
            "tokens": ["Angela", "Merkel", "visited", "Paris"],
            "tags": ["B-PER", "I-PER", "O", "B-LOC"],
        },
        {"tokens": [], "tags": []},  # empty sentences are skipped
        {"tokens": ["Paris", "Hilton"], "tags": ["B-PER", "I-PER"], "id": 7},
    ]
    by_tags = read_ner_jsonl(_write(tmp_path / "a.jsonl", rows))
    indexed = [
        {"tokens": r["tokens"], "ner_tags": [LABELS.index(t) for t in r["tags"]]} for r in rows
    ]
    by_ids = read_ner_jsonl(_write(tmp_path / "b.jsonl", indexed), label_names=LABELS)
    for split in (by_tags, by_ids):
        assert split.n == 2 and split.scheme == "IOB2" and split.tag_repairs == 0
        assert split.table["line"].to_list() == [1, 3]
        assert _sentences(split) == [
            (["Angela", "Merkel", "visited", "Paris"], ["B-PER", "I-PER", "O", "B-LOC"]),
            (["Paris", "Hilton"], ["B-PER", "I-PER"]),
        ]
        assert _entities(split) == [
            (0, 0, 2, "PER", "Angela Merkel"),
            (0, 3, 4, "LOC", "Paris"),
            (1, 0, 2, "PER", "Paris Hilton"),
        ]
    assert by_tags.table.select("x_hash", "xy_hash").equals(
        by_ids.table.select("x_hash", "xy_hash")
    )


BAD = [
    ('{"tokens": ["a"], "tags": ["O"]}\n{"tokens": ["a"], "tags": ["O"]', 2, "invalid JSON"),
    ('{"tokens": ["a"]}', 1, '"tokens" and "tags"'),
    ('["a", "O"]', 1, '"tokens" and "tags"'),
    ('\n\n{"tokens": ["a", "b"], "tags": ["O"]}', 3, "same length"),
    ('{"tokens": ["a", ""], "tags": ["O", "O"]}', 1, "non-empty strings"),
    ('{"tokens": ["a", 3], "tags": ["O", "O"]}', 1, "non-empty strings"),
    ('{"tokens": ["a"], "tags": ["PER"]}', 1, "unknown tag shape"),
    (
        '{"tokens": ["a"], "tags": ["O"]}\n{"tokens": ["b"], "tags": ["X-PER"]}',
        2,
        "unknown tag shape",
    ),
    ('{"tokens": ["a"], "ner_tags": [0]}', 1, "give the label list ({label_names})"),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD)
def test_bad_rows_name_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_ner_jsonl(path)
    assert (info.value.path, info.value.line) == (str(path), line)
    assert message in info.value.message
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_label_index_errors(tmp_path):
    path = tmp_path / "ids.jsonl"
    path.write_text('{"tokens": ["a"], "ner_tags": [0]}\n{"tokens": ["a"], "ner_tags": [9]}\n')
    with pytest.raises(InputError, match="out of range") as info:
        read_ner_jsonl(path, label_names=LABELS)
    assert info.value.line == 2 and info.value.got == 9
    path.write_text('{"tokens": ["a"], "ner_tags": ["O"]}\n')
    with pytest.raises(InputError, match="list of integers") as info:
        read_ner_jsonl(path, label_names=LABELS)
    assert info.value.line == 1
    path.write_text('{"tokens": ["a"], "ner_tags": [true]}\n')
    with pytest.raises(InputError, match="list of integers"):
        read_ner_jsonl(path, label_names=LABELS)
    # A negative index must not pick a label from the end of the list.
    path.write_text('{"tokens": ["a", "b"], "ner_tags": [0, -1]}\n')
    with pytest.raises(InputError, match="out of range") as info:
        read_ner_jsonl(path, label_names=LABELS)
    assert info.value.got == -1


def test_byte_order_mark(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"tokens": ["a"], "tags": ["S-LOC"]}\n')
    assert _entities(read_ner_jsonl(path)) == [(0, 0, 1, "LOC", "a")]


def test_crlf_lines(tmp_path):
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(
        b'{"tokens": ["a"], "tags": ["B-PER"]}\r\n\r\n{"tokens": ["b"], "tags": ["O"]}\r\n'
    )
    split = read_ner_jsonl(path)
    assert split.table["line"].to_list() == [1, 3] and _entities(split) == [(0, 0, 1, "PER", "a")]


def test_undecodable_empty_and_missing(tmp_path):
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(
        b'{"tokens": ["a"], "tags": ["O"]}\n{"tokens": ["M\xfcnchen"], "tags": ["O"]}\n'
    )
    with pytest.raises(InputError, match="undecodable") as info:
        read_ner_jsonl(path)
    assert info.value.line == 2
    path.write_text('\n{"tokens": [], "tags": []}\n')
    with pytest.raises(InputError, match="empty split") as info:
        read_ner_jsonl(path)
    assert info.value.line == 2
    with pytest.raises(InputError, match="file not found"):
        read_ner_jsonl(tmp_path / "nope.jsonl")


def test_strict_names_the_line(tmp_path):
    path = _write(
        tmp_path / "s.jsonl",
        [
            {"tokens": ["a", "b"], "tags": ["B-PER", "I-PER"]},
            {"tokens": ["c", "d"], "tags": ["O", "I-LOC"]},
        ],
    )
    assert read_ner_jsonl(path).tag_repairs == 1
    with pytest.raises(InputError, match="invalid IOB2") as info:
        read_ner_jsonl(path, strict=True)
    assert info.value.line == 2 and info.value.got == "I-LOC"


# Any non-empty token text, including line separators JSON leaves unescaped (U+2028, U+0085).
token_st = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(token_st, st.sampled_from(LABELS)), min_size=1, max_size=4),
        min_size=1,
        max_size=4,
    )
)
def test_random_tokens_read_back(tmp_path_factory, sentences):
    rows = [{"tokens": [t for t, _ in s], "tags": [g for _, g in s]} for s in sentences]
    split = read_ner_jsonl(_write(tmp_path_factory.mktemp("j") / "r.jsonl", rows))
    assert _sentences(split) == [(r["tokens"], r["tags"]) for r in rows]
    assert split.table["line"].to_list() == list(range(1, len(rows) + 1))
    assert split.tokens["token"].dtype == pl.String


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(["Ann", "Lee", "Paris", "."]), st.sampled_from(LABELS)),
            min_size=1,
            max_size=5,
        ),
        min_size=1,
        max_size=5,
    )
)
def test_jsonl_and_conll_read_the_same(tmp_path_factory, sentences):
    # Same corpus, two formats: same hashes, spans and surfaces (so leakage across formats works).
    from benchcheck.io.conll import read_conll

    folder = tmp_path_factory.mktemp("fmt")
    rows = [{"tokens": [t for t, _ in s], "tags": [g for _, g in s]} for s in sentences]
    j = read_ner_jsonl(_write(folder / "a.jsonl", rows))
    text = "\n\n".join("\n".join(f"{t} {g}" for t, g in s) for s in sentences) + "\n"
    (folder / "a.conll").write_text(text, encoding="utf-8")
    c = read_conll(folder / "a.conll")
    keys = ["x_hash", "xy_hash", "n_tokens", "n_entities"]
    assert j.table.select(keys).equals(c.table.select(keys))
    assert j.spans.equals(c.spans) and j.scheme == c.scheme and j.tag_repairs == c.tag_repairs
