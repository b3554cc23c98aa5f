"""CoNLL reader: golden files per scheme and quirk, fast path == slow path, exact errors."""

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from seqeval.metrics.sequence_labeling import get_entities

from benchcheck.data.model import Split
from benchcheck.data.scripts import join_tokens
from benchcheck.errors import InputError
from benchcheck.io import conll
from benchcheck.io._ner import build_ner_split
from benchcheck.io.conll import read_conll

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden"
GOOD = sorted(p.name for p in FIXTURES.iterdir() if p.is_file())


def as_golden(split: Split) -> dict:
    """The split in the golden files' shape: per sentence its line, tokens, tags, entities."""
    assert split.tokens is not None and split.spans is not None
    by_sentence = split.tokens.group_by("sentence", maintain_order=True).agg("token", "tag")
    sentences = []
    for k, (tokens, tags) in enumerate(by_sentence.select("token", "tag").iter_rows()):
        ents = split.spans.filter(pl.col("sentence") == k).sort("start")
        sentences.append(
            {
                "line": int(split.table["line"][k]),
                "tokens": tokens,
                "tags": tags,
                "entities": [
                    [int(s), int(e), str(t), str(x)]
                    for s, e, t, x in ents.select("start", "end", "type", "surface").iter_rows()
                ],
            }
        )
    return {"scheme": split.scheme, "tag_repairs": split.tag_repairs, "sentences": sentences}


def test_every_fixture_has_a_golden_file():
    assert GOOD and {f"{n}.json" for n in GOOD} == {p.name for p in GOLDEN.iterdir()}


@pytest.mark.parametrize("chunk_bytes", [conll.CHUNK_BYTES, 64, 5])
@pytest.mark.parametrize("name", GOOD)
def test_golden(name, chunk_bytes):
    # Tiny chunks cut the file at every blank line: the parts must combine exactly.
    expected = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert as_golden(read_conll(FIXTURES / name, chunk_bytes=chunk_bytes)) == expected
    stats_only = read_conll(FIXTURES / name, chunk_bytes=chunk_bytes, keep_tokens=False)
    whole = read_conll(FIXTURES / name)
    assert stats_only.tokens is None
    assert stats_only.table.equals(whole.table) and stats_only.spans.equals(whole.spans)


@pytest.mark.parametrize("name", GOOD)
def test_golden_entities_are_seqevals(name):
    # The golden entities themselves agree with seqeval on the golden tags.
    # BILOU and BMES tags are given to seqeval in their BIOES spelling (L = E, U = S, M = I).
    expected = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    spell = str.maketrans({"L": "E", "U": "S", "M": "I"})
    for sentence in expected["sentences"]:
        ours = [(t, s, e - 1) for s, e, t, _ in sentence["entities"]]
        assert ours == get_entities([t[0].translate(spell) + t[1:] for t in sentence["tags"]])
        for s, e, _, surface in sentence["entities"]:
            assert surface == _joined(sentence["tokens"][s:e])


def _cjk(ch: str) -> bool:
    # The fixtures' no-space characters: CJK ideographs, kana, CJK punctuation, full width.
    return "\u3001" <= ch <= "\u9fff" or "\uff01" <= ch <= "\uffef"


def _joined(tokens: list[str]) -> str:
    """One space between tokens, none where either side is a CJK character (plain Python)."""
    out = tokens[0]
    for prev, tok in zip(tokens[:-1], tokens[1:], strict=True):
        out += ("" if _cjk(prev[-1]) or _cjk(tok[0]) else " ") + tok
    return out


def _both_paths(path: Path) -> tuple[Split | None, Split]:
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    fast = conll._parse_fast(data)

    def build(parsed):  # type: ignore[no-untyped-def]
        token, tag, line, start = parsed.token, parsed.tag, parsed.line, parsed.sentence_start
        return build_ner_split(
            name="x", source=str(path), token=token, tag=tag, sentence_start=start, line=line
        )

    return (None if fast is None else build(fast)), build(conll._parse_lines(data, path))


@pytest.mark.parametrize("name", GOOD)
def test_fast_and_slow_paths_agree(name):
    fast, slow = _both_paths(FIXTURES / name)
    assert as_golden(slow) == as_golden(read_conll(FIXTURES / name))
    if fast is not None:
        assert as_golden(fast) == as_golden(slow)
        for attr in ("table", "tokens", "spans"):
            assert getattr(fast, attr).equals(getattr(slow, attr)), attr


@pytest.mark.parametrize(
    "name",
    ["iob1.conll", "iob2.tsv", "bioes.txt", "extra_columns.tsv", "strings.tsv", "crlf_bom.conll"],
)
def test_well_formed_files_take_the_fast_path(name):
    # Otherwise the fast path would be dead code and the agreement test vacuous.
    assert (
        conll._parse_fast((FIXTURES / name).read_bytes().removeprefix(b"\xef\xbb\xbf")) is not None
    )


def test_forced_scheme_and_tag_repairs():
    split = read_conll(FIXTURES / "iob1.conll", scheme="IOB2")
    # Read as IOB2, the IOB1 file has an I after O at the start of each chunk:
    # EU, German, British, Peter, Spain, BRUSSELS.
    assert split.scheme == "IOB2" and split.tag_repairs == 6
    # The spans do not depend on the scheme (seqeval's lenient reading).
    assert (
        as_golden(split)["sentences"] == as_golden(read_conll(FIXTURES / "iob1.conll"))["sentences"]
    )
    with pytest.raises(InputError, match="unknown tagging scheme"):
        read_conll(FIXTURES / "iob2.tsv", scheme="BIO")


@pytest.mark.parametrize("chunk_bytes", [conll.CHUNK_BYTES, 5])
def test_strict_rejects_i_after_o_with_its_line(chunk_bytes):
    path = FIXTURES / "repairs.conll"
    with pytest.raises(InputError) as info:
        read_conll(path, strict=True, chunk_bytes=chunk_bytes)
    assert info.value.path == str(path) and info.value.line == 3 and info.value.got == "I-PER"
    assert f"{path}:3:" in str(info.value) and "IOB2" in str(info.value)
    assert read_conll(FIXTURES / "iob2.tsv", strict=True).tag_repairs == 0
    # Forced BIOES on an IOB2 file: B-PER -> I-PER is fine, I-PER -> O ("met", line 3) is not.
    with pytest.raises(InputError) as info:
        read_conll(FIXTURES / "iob2.tsv", scheme="BIOES", strict=True)
    assert info.value.line == 3 and info.value.got == "O"


BAD = [
    ("one_column.conll", 2, "expected a token and a tag", "rejects"),
    # Token first, tag last: the last field "X" is read as the tag.
    ("ragged_more.conll", 2, "unknown tag shape", "X"),
    (
        "tab_then_spaces.tsv",
        3,
        "the file is tab-separated, as its first line is",
        "German JJ B-MISC",
    ),
    ("nul.conll", 4, "NUL byte at byte 2 of the line", None),
    ("mixed_schemes.conll", 7, "mixed tagging schemes: a M- tag after B-, E-, I- tags", "M-ORG"),
    ("tag_per.conll", 3, "unknown tag shape", "PER"),
    ("tag_xper.conll", 1, "unknown tag shape", "X-PER"),
    ("undecodable.conll", 3, "undecodable bytes at byte 2 of the line", None),
    ("empty_token.tsv", 2, "empty field", "\tO"),
    ("empty_middle.tsv", 2, "empty field", "rejects\t\tO"),
]


@pytest.mark.parametrize("chunk_bytes", [conll.CHUNK_BYTES, 5])
@pytest.mark.parametrize(("name", "line", "message", "got"), BAD)
def test_bad_input_names_file_and_line(name, line, message, got, chunk_bytes):
    path = FIXTURES / "bad" / name
    with pytest.raises(InputError) as info:
        read_conll(path, chunk_bytes=chunk_bytes)
    err = info.value
    assert (err.path, err.line) == (str(path), line)
    assert message in err.message and err.got == got
    assert str(err).startswith(f"{path}:{line}: ")
    # The slow path alone gives the same error (the fast path only ever declines).
    data = path.read_bytes()
    if name not in ("tag_per.conll", "tag_xper.conll", "ragged_more.conll", "mixed_schemes.conll"):
        with pytest.raises(InputError) as slow:
            conll._parse_lines(data, path)
        assert (slow.value.line, slow.value.message) == (line, err.message)


def test_empty_split_names_the_file(tmp_path):
    # Named at the last line: only blank and -DOCSTART- lines up to there.
    path = FIXTURES / "bad" / "only_docstart.conll"
    for chunk_bytes in (conll.CHUNK_BYTES, 5):
        with pytest.raises(InputError, match="empty split") as info:
            read_conll(path, chunk_bytes=chunk_bytes)
        assert (info.value.path, info.value.line) == (str(path), 4)
    (tmp_path / "empty.conll").touch()
    with pytest.raises(InputError, match="empty split") as info:
        read_conll(tmp_path / "empty.conll")
    assert (info.value.path, info.value.line) == (str(tmp_path / "empty.conll"), None)


def test_many_leading_blank_lines(tmp_path):
    # The format is read from the first content line, however far down it is.
    path = tmp_path / "lead.conll"
    path.write_text("\n" * 70 + " \t\n" + "EU NNP B-ORG\nrejects VBZ O\n", encoding="utf-8")
    for chunk_bytes in (conll.CHUNK_BYTES, 16):
        split = read_conll(path, chunk_bytes=chunk_bytes)
        assert split.table["line"].to_list() == [72]
        assert split.tokens["token"].to_list() == ["EU", "rejects"]


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_conll(tmp_path / "nope.conll")
    with pytest.raises(InputError, match="directory"):
        read_conll(tmp_path)


# Tokens: any text without ASCII whitespace (the field separators), NUL (an error) and not
# a DOCSTART.
token_st = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters=" \t\n\r\x0b\x0c\x00"),
    min_size=1,
    max_size=6,
).filter(lambda t: t != conll.DOCSTART)
# A file's leading U+FEFF is its byte-order mark, which the reader drops (as UTF-8 readers
# do): a token starting with one cannot come first, so none does.
token_st = token_st.filter(lambda t: not t.startswith("\ufeff"))
tag_st = st.sampled_from(["O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "E-LOC", "S-ORG"])
sentence_st = st.lists(st.tuples(token_st, tag_st), min_size=1, max_size=5)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sentences=st.lists(sentence_st, min_size=1, max_size=5),
    sep=st.sampled_from(["\t", " "]),
    middle=st.integers(0, 2),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    chunk_bytes=st.sampled_from([conll.CHUNK_BYTES, 3, 40]),
)
def test_random_files_read_back_exactly(
    tmp_path_factory, sentences, sep, middle, crlf, final_newline, chunk_bytes
):
    eol = "\r\n" if crlf else "\n"
    blocks = [
        eol.join(sep.join([tok, *["X"] * middle, tag]) for tok, tag in sentence)
        for sentence in sentences
    ]
    text = (eol + eol).join(blocks) + (eol if final_newline else "")
    path = tmp_path_factory.mktemp("conll") / "random.conll"
    path.write_bytes(text.encode("utf-8"))
    fast, slow = _both_paths(path)
    got = as_golden(slow)
    assert [s["tokens"] for s in got["sentences"]] == [[t for t, _ in s] for s in sentences]
    assert [s["tags"] for s in got["sentences"]] == [[g for _, g in s] for s in sentences]
    lines = np.cumsum([1] + [len(s) + 1 for s in sentences[:-1]]).tolist()
    assert [s["line"] for s in got["sentences"]] == lines
    for sentence, expected in zip(got["sentences"], sentences, strict=True):
        ents = get_entities([g for _, g in expected])
        assert [(t, s, e - 1) for s, e, t, _ in sentence["entities"]] == ents
        assert [x for *_, x in sentence["entities"]] == [
            join_tokens([t for t, _ in expected[s : e + 1]]) for _, s, e in ents
        ]
    if fast is not None:
        assert as_golden(fast) == got
        assert fast.table.equals(slow.table)
    whole = read_conll(path, chunk_bytes=chunk_bytes)
    assert as_golden(whole)["sentences"] == got["sentences"]
    assert whole.table.equals(slow.table) and whole.spans.equals(slow.spans)


# Differential fuzzing: files glued from tokens, tags, separators, line ends and markers.
piece_st = st.sampled_from(
    [
        "EU", '"', "NA", "B-PER", "I-PER", "O", "S-LOC", "PER", "\u00a0", "é", "\x0b",
        " ", "  ", "\t", "\n", "\n", "\n", "\r\n", "\r", "\t\n", " \n",
        "-DOCSTART-", "-DOCSTART- O", "EU\tNNP\tB-PER", "x\tVB\tO", "y O", "a b c",
    ]
)  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(piece_st, max_size=30))
def test_fuzzed_files_read_the_same_every_way(tmp_path_factory, parts):
    data = "".join(parts).encode("utf-8")
    path = tmp_path_factory.mktemp("fuzz") / "f.conll"
    path.write_bytes(data)
    fast = conll._parse_fast(data)
    try:
        slow = conll._parse_lines(data, path)
    except InputError:
        slow = None
    if fast is not None:
        # The fast path may only decline, never accept what the slow path rejects.
        assert slow is not None
        assert fast[0].to_list() == slow[0].to_list() and fast[1].to_list() == slow[1].to_list()
        assert fast[2].tolist() == slow[2].tolist() and fast[3].tolist() == slow[3].tolist()
        assert fast.n_newlines == slow.n_newlines == data.count(b"\n")

    def outcome(chunk_bytes):  # type: ignore[no-untyped-def]
        try:
            s = read_conll(path, chunk_bytes=chunk_bytes)
        except InputError:
            return None
        return as_golden(s), s.table.rows()

    whole, chunked = outcome(conll.CHUNK_BYTES), outcome(4)
    assert (whole is None) == (chunked is None)
    assert whole == chunked


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(piece_st, max_size=40), st.sampled_from([1, 5, 16, 1 << 18]))
def test_byte_parser_agrees_with_the_slow_path(tmp_path_factory, parts, block):
    # The numpy byte parser may only decline, and reads what it takes as the line parser
    # does, however its blocks (of whole lines) fall.
    data = "".join(parts).encode("utf-8")
    path = tmp_path_factory.mktemp("fuzz") / "f.conll"
    fmt = conll._format_of(data, path, 1)
    saved, conll._BLOCK_BYTES = conll._BLOCK_BYTES, block
    try:
        fast = conll._parse_bytes(data, fmt)
    finally:
        conll._BLOCK_BYTES = saved
    if fast is None:
        return
    slow = conll._parse_lines(data, path, fmt)
    assert fast.rows is None
    assert fast.token.to_list() == slow.token.to_list()
    assert fast.tag.to_list() == slow.tag.to_list()
    assert fast.line.tolist() == slow.line.tolist()
    assert fast.sentence_start.tolist() == slow.sentence_start.tolist()
    assert fast.n_newlines == slow.n_newlines == data.count(b"\n")
    coded = conll._parse_bytes(data, fmt, tag_codes=True)
    if max((len(t.encode()) for t in slow.tag.to_list()), default=0) > 16:
        assert coded is None  # tags are coded up to 16 bytes
        return
    assert coded is not None and coded.tag is None and coded.tag_codes is not None
    codes, tags, first_row = coded.tag_codes
    assert [tags[c] for c in codes.tolist()] == slow.tag.to_list()
    # Every code occurs, and first_row holds its first row (codes number first appearances).
    assert first_row.tolist() == [codes.tolist().index(c) for c in range(len(tags))]
    assert first_row.tolist() == sorted(first_row.tolist())
    assert coded.token.to_list() == slow.token.to_list()


def test_tag_codes_of_long_tags(tmp_path):
    # Tags of 1-16 bytes are coded (two words past 8 bytes); a longer one declines, and the
    # split read for statistics equals the split read with its tokens either way.
    tags = ["O", "B-X", "B-ORGANIZAT", "I-ORGANIZATION", "B-ORGANIZATIONS", "S-ORGANIZATIONXY"]
    lines = [f"w{k}\t{tags[k % len(tags)]}" for k in range(60)]
    data = ("\n".join(lines) + "\n").encode()
    coded = conll._parse_bytes(data, (True, 2), tag_codes=True)
    assert coded is not None and coded.tag_codes is not None
    codes, distinct, _ = coded.tag_codes
    assert [distinct[c] for c in codes.tolist()] == [tags[k % len(tags)] for k in range(60)]
    longer = data + b"w\tB-ORGANIZATIONXYZ\n"  # 17 bytes
    assert conll._parse_bytes(longer, (True, 2), tag_codes=True) is None
    for text in (data, longer):
        path = tmp_path / "long.tsv"
        path.write_bytes(text)
        lean, full = read_conll(path, keep_tokens=False), read_conll(path)
        assert lean.table.equals(full.table) and lean.spans.equals(full.spans)


@pytest.mark.parametrize(
    "name",
    ["bilou.conll", "bioes.txt", "extra_columns.tsv", "iob1.conll", "iob2.tsv", "strings.tsv"],
)
def test_plain_files_take_the_byte_parser(name):
    data = (FIXTURES / name).read_bytes()
    parsed = conll._parse_bytes(data, conll._format_of(data, FIXTURES / name, 1))
    assert parsed is not None
    # Short and long strings (views inline up to 12 bytes, else pointing into the buffer).
    slow = conll._parse_lines(data, FIXTURES / name)
    assert parsed.token.to_list() == slow.token.to_list()
    assert parsed.tag.to_list() == slow.tag.to_list()


@pytest.mark.parametrize("block", [1, 7, 64, 300, 1 << 18])
def test_byte_parser_views_of_every_length(block):
    # Each block is read from an aligned copy of itself: however the blocks fall (the block
    # size moves them), short views are inline and long ones point into the piece itself.
    tokens = ["x" * k + "é" * (k % 3) for k in range(1, 40)]
    data = "".join(f"{t}\tB-{t[:k]}\n" for k, t in enumerate(tokens, start=1)).encode()
    saved, conll._BLOCK_BYTES = conll._BLOCK_BYTES, block
    try:
        parsed = conll._parse_bytes(data, (True, 2))
        # Tags coded (up to 16 bytes), the last one first seen in the last block.
        short_tags = [f"B-{'é' * (k % 8)}" for k in range(len(tokens) - 1)] + ["E-Z"]
        coded = conll._parse_bytes(
            "".join(f"{t}\t{g}\n" for t, g in zip(tokens, short_tags, strict=True)).encode(),
            (True, 2),
            tag_codes=True,
        )
    finally:
        conll._BLOCK_BYTES = saved
    assert coded is not None and coded.tag_codes is not None
    assert coded.token.to_list() == tokens
    codes, distinct, _ = coded.tag_codes
    assert [distinct[c] for c in codes.tolist()] == short_tags
    assert parsed is not None
    assert parsed.token.to_list() == tokens
    assert parsed.tag.to_list() == [f"B-{t[:k]}" for k, t in enumerate(tokens, start=1)]
    assert parsed.token.hash().to_list() == pl.Series(tokens).hash().to_list()


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_fast_path_declines_a_longer_row_in_a_two_field_file(sep):
    # Without the separator count, this relies on polars rejecting a row longer than the schema.
    data = f"a{sep}O\n".encode() * 50_000 + f"b{sep}O{sep}X\nc{sep}O\n".encode()
    assert conll._parse_fast(data, (sep == "\t", 2)) is None
