"""Test-set contamination against a streamed Parquet corpus: planted copies, counted by hand."""

import json
import unicodedata

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.cli import main
from benchcheck.errors import InputError
from benchcheck.io.corpus import corpus_batches, corpus_files
from benchcheck.metrics.contamination import contamination, normalise


def corpus_leakage(texts, corpus, *, ids=None, n=13, text_column="text", batch_rows=8192):
    """The leakage run's composition: corpus files streamed in batches into contamination()."""
    files = corpus_files(corpus)
    return contamination(
        texts, corpus_batches(files, text_column, batch_rows), ids=ids, n=n, n_files=len(files)
    )


B_WORDS = [f"b{k}" for k in range(1, 21)]  # item B: 20 distinct words → 8 distinct 13-grams
A = "The quick brown fox jumps over the lazy dog."
B = " ".join(B_WORDS)
C = "FINE STRASSE"
D = "one two three four five six seven eight nine ten eleven twelve thirteen"
TEST = [A, B, C, D]


def _corpus(tmp_path):
    """Two shards; every planted match is listed here and counted in the test below."""
    d3 = "noise " + " ".join(w.upper() for w in B_WORDS[2:16]) + "\n\t more noise"  # b3..b16
    shard1 = [
        A,  # exact copy of A
        "the  QUICK brown fox jumps over\nthe lazy dog.",  # normalised copy of A
        d3,  # 14 consecutive words of B: its 13-grams starting at b3 and b4
        " ".join(B_WORDS[:7]),  # b1..b7 ends this document ...
        " ".join(B_WORDS[7:13]) + " tail",  # ... b8..b13 starts the next: no 13-gram across
    ]
    shard2 = [
        A,  # a second exact copy of A
        "ﬁne Straße",  # NFKC (ligature) + casefold (ß → ss): a normalised copy of C
        None,
        "one two three four five six seven eight nine ten eleven thirteen twelve",  # order
        "x " + " ".join(B_WORDS[:12]),  # only 12 words of B: no 13-gram
    ]
    folder = tmp_path / "corpus"
    folder.mkdir()
    for k, docs in enumerate((shard1, shard2)):
        pl.DataFrame({"text": docs, "other": list(range(len(docs)))}).write_parquet(
            folder / f"part-{k}.parquet"
        )
    return folder


EXPECTED = {
    # id: (exact, normalised, n_ngrams, found)
    "A": (2, 3, 0, 0),
    "B": (0, 0, 8, 2),
    "C": (0, 1, 0, 0),
    "D": (0, 0, 1, 0),
}


@pytest.mark.parametrize("batch_rows", [1, 2, 8192])
def test_planted_counts(tmp_path, batch_rows):
    folder = _corpus(tmp_path)
    result = corpus_leakage(
        TEST, str(folder / "*.parquet"), ids=list("ABCD"), n=13, batch_rows=batch_rows
    )
    got = {
        i.id: (i.exact_matches, i.normalised_matches, i.n_ngrams, i.n_ngrams_found)
        for i in result.items
    }
    assert got == EXPECTED
    assert result.corpus_files == 2 and result.corpus_documents == 9  # the null row is skipped
    overlap = {i.id: i.ngram_overlap for i in result.items}
    assert overlap == {"A": None, "B": 0.25, "C": None, "D": 0.0}
    assert result.rates() == {
        "exact_rate": 0.25,
        "normalised_rate": 0.5,
        "ngram_rate": 0.25,
        "contaminated_rate": 0.75,
    }


def test_smaller_n(tmp_path):
    folder = _corpus(tmp_path)
    result = corpus_leakage(TEST, folder, ids=list("ABCD"), n=12)
    by_id = {i.id: i for i in result.items}
    # B has 9 distinct 12-grams; found: b3.., b4.., b5.. (from b3..b16) and b1..b12 (last doc).
    assert (by_id["B"].n_ngrams, by_id["B"].n_ngrams_found) == (9, 4)
    # D: 13 words → 2 twelve-grams; the reordered copy keeps "one .. eleven" but not 2..13.
    assert (by_id["D"].n_ngrams, by_id["D"].n_ngrams_found) == (2, 0)


def test_normalise_rules():
    assert normalise("Stra\u00dfe\u00a0\u00a0X") == "strasse x"
    assert normalise("\u2160 \uff21") == "i a"  # NFKC: Roman numeral one, fullwidth A
    assert normalise(" a\tb\n\nc ") == "a b c"
    assert normalise("") == ""


def _reference(texts, docs, n):
    """Plain-Python decontamination: sets of word tuples, no hashing."""

    def norm(t):
        return " ".join(unicodedata.normalize("NFKC", t).casefold().split())

    def grams(t):
        w = norm(t).split()
        return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}

    corpus = set().union(*(grams(d) for d in docs)) if docs else set()
    return [
        (
            sum(d == t for d in docs),
            sum(norm(d) == norm(t) for d in docs),
            len(grams(t)),
            len(grams(t) & corpus),
        )
        for t in texts
    ]


words = st.sampled_from(["a", "B", "c", "ß", "SS", "ﬁ", "fi", "x\u00a0y"])
texts = st.lists(words, min_size=0, max_size=9).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(
    test=st.lists(texts, min_size=1, max_size=6),
    docs=st.lists(texts, min_size=1, max_size=12),
    n=st.integers(1, 4),
    batch_rows=st.integers(1, 5),
)
def test_against_plain_python(tmp_path_factory, test, docs, n, batch_rows):
    folder = tmp_path_factory.mktemp("c")
    half = len(docs) // 2
    for k, part in enumerate((docs[:half], docs[half:])):
        pl.DataFrame({"text": part}, schema={"text": pl.String}).write_parquet(
            folder / f"p{k}.parquet"
        )
    result = corpus_leakage(test, folder, n=n, batch_rows=batch_rows)
    got = [
        (i.exact_matches, i.normalised_matches, i.n_ngrams, i.n_ngrams_found) for i in result.items
    ]
    assert got == _reference(test, docs, n)


def test_errors(tmp_path):
    folder = _corpus(tmp_path)
    with pytest.raises(InputError, match="no column 'body'") as info:
        corpus_leakage(TEST, folder, text_column="body")
    assert info.value.path.endswith("part-0.parquet")
    with pytest.raises(InputError, match="no corpus files"):
        corpus_leakage(TEST, str(tmp_path / "nothing" / "*.parquet"))
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="cannot read as Parquet"):
        corpus_leakage(TEST, tmp_path / "bad.parquet")


def test_cli(tmp_path, capsys):
    folder = _corpus(tmp_path)
    test = tmp_path / "test.jsonl"
    test.write_text(
        "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip("ABCD", TEST, strict=True)),
        encoding="utf-8",
    )
    out = tmp_path / "leak.json"
    corpus = str(folder / "*.parquet")
    assert main(["leakage", "--test", str(test), "--corpus", corpus, "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    assert payload["metrics"]["contaminated_rate"] == 0.75
    assert [i["id"] for i in payload["items"] if i["contaminated"]] == ["A", "B", "C"]
    assert payload["items"][1]["ngram_overlap"] == 0.25 and payload["n_short_items"] == 2
    assert "contaminated 75.00%" in capsys.readouterr().out
    assert main(["leakage", "--test", str(test), "--corpus", corpus, "--test-column", "x"]) == 2
    assert "no column 'x'" in capsys.readouterr().err


def test_hash_path_is_vectorised_and_order_sensitive():
    from benchcheck.metrics.contamination import ngram_hashes

    w = np.array([1, 2, 3, 3, 2, 1], dtype=np.uint64)
    h, at = ngram_hashes(w, np.array([3, 3]), 3)
    assert at.tolist() == [0, 3] and h[0] != h[1]
