"""flag-spans without a model: the out-of-fold CRF on corpora where its answer is forced."""

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

pytest.importorskip("sklearn_crfsuite")
pytest.importorskip("cleanlab")

from _ner_corpus import corpus  # noqa: E402

from benchcheck.cli import main  # noqa: E402
from benchcheck.errors import InputError, UsageError  # noqa: E402
from benchcheck.io.conll import read_conll  # noqa: E402
from benchcheck.labels.ner_detect import MIN_ERROR_SCORE, score_flags, tagger_flags  # noqa: E402
from benchcheck.labels.ner_flags import spans_from_split  # noqa: E402
from benchcheck.labels.ner_tagger import (  # noqa: E402
    OofTagging,
    TaggerOptions,
    bio_labels,
    bio_spans,
    deal_folds,
    disjoint_training,
    token_features,
)


def _flags(text: str, tmp_path: Path, **kw: object) -> tuple:
    """Flags of a 2-fold tagger, flagged from 0.9 (the default, 0.99, is tuned for big data)."""
    path = tmp_path / "c.conll"
    path.write_text(text)
    split = read_conll(path)
    kw = {"n_jobs": 1, **kw}
    opts = TaggerOptions(folds=2, seed=0, **kw)  # type: ignore[arg-type]
    spans = spans_from_split(split)
    return split, tagger_flags(split.tokens, spans, split.n, options=opts, min_error_score=0.9)


def test_the_one_wrong_type_is_the_one_flag(tmp_path):
    # Sentence 5 tags "Rome" PER; every other Rome, and every city, is LOC: the tagger
    # trained on the other fold must say LOC there, and agree with the gold everywhere else.
    split, found = _flags(corpus(wrong={5: "B-PER"}), tmp_path)
    rows = found.flags.select(
        "kind", "sentence", "start", "end", "gold_type", "pred_type", "rank", "flagged"
    ).rows()
    assert rows == [("wrong_type", 5, 2, 3, "PER", "LOC", 1, True)]
    err = found.flags["error_score"][0]
    assert 0.9 <= err <= 1.0  # reaches the threshold
    # Rome occurs 6 times: 5 LOC disagree with sentence 5's PER -> 5 / (5 + 0.5); the error
    # score is the noisy-or of that and the CRF's score
    cons = found.flags["consistency_score"][0]
    assert cons == pytest.approx(5 / 5.5, abs=1e-12)
    crf = found.flags["crf_score"][0]
    assert err == pytest.approx(1 - (1 - crf) * (1 - cons), abs=1e-12)
    assert found.flags["source"].to_list() == ["tagger"]
    sent = found.sentences
    assert sent["sentence_error_score"][5] == pytest.approx(err, abs=1e-12)
    assert sent.filter(pl.col("sentence") != 5)["sentence_error_score"].max() == 0.0
    assert sent["sentence_quality"].arg_min() == 5  # cleanlab's worst sentence too


def test_a_missing_annotation_is_a_spurious_tagger_span(tmp_path):
    # Sentence 9's city carries no tag: the tagger finds a LOC the gold lacks.
    split, found = _flags(corpus(wrong={9: "O"}), tmp_path)
    rows = found.flags.select("kind", "sentence", "start", "end", "gold_type", "pred_type").rows()
    assert rows == [("missing_annotation", 9, 2, 3, None, "LOC")]
    assert found.flags["token_issue"].to_list() == [True]  # cleanlab flags the token too


def test_error_score_is_one_minus_the_worst_gold_marginal():
    # Region [0, 2): gold B-LOC I-LOC with marginals 0.8 and 0.35 -> 1 - 0.35 = 0.65.
    classes = ("O", "B-LOC", "I-LOC")
    marg = np.array([[0.1, 0.8, 0.1], [0.6, 0.05, 0.35], [0.9, 0.05, 0.05]])
    t = OofTagging(classes, (marg,), (("B-LOC", "O", "O"),), np.zeros(1, dtype=np.int64))
    f = pl.DataFrame({"sentence": [0], "start": [0], "end": [2]})
    out = score_flags(f, [["B-LOC", "I-LOC", "O"]], t)
    assert out["error_score"][0] == pytest.approx(0.65, abs=1e-12)
    # the tagger's own labels B-LOC, O: min(0.8, 0.6) = 0.6
    assert out["tagger_confidence"][0] == pytest.approx(0.6, abs=1e-12)


def test_same_seed_same_flags_in_any_worker_and_folds_dealt_evenly(tmp_path, monkeypatch):
    text = corpus(wrong={5: "B-PER", 13: "O"})
    _, a = _flags(text, tmp_path)
    _, b = _flags(text, tmp_path)
    assert a.flags.equals(b.flags) and a.sentences.equals(b.sentences)
    # folds trained in two worker processes: the same (CRFsuite's SGD shuffle is seeded)
    monkeypatch.setattr("benchcheck.labels.ner_tagger.PARALLEL_TOKENS", 0)
    _, c = _flags(text, tmp_path, n_jobs=2)
    assert c.flags.equals(a.flags) and c.sentences.equals(a.sentences)
    has = np.array([True] * 7 + [False] * 3)
    fold = deal_folds(has, 3, seed=4)
    # 7 entity sentences over 3 folds: 3, 2, 2 in some order; 3 others: 1 each
    assert sorted(np.bincount(fold[:7], minlength=3).tolist()) == [2, 2, 3]
    assert np.bincount(fold[7:], minlength=3).tolist() == [1, 1, 1]
    assert not np.array_equal(deal_folds(has, 3, seed=4), deal_folds(has, 3, seed=5))


def test_entity_disjoint_training_drops_shared_mentions():
    surfaces = [frozenset({"rome"}), frozenset({"paris"}), frozenset({"rome", "oslo"}), frozenset()]
    fold = np.array([0, 1, 1, 0])
    # fold 0 holds rome: sentence 2 (rome, oslo) leaves its training set, sentence 1 stays
    assert disjoint_training(fold, surfaces, 0).tolist() == [1]
    # fold 1 holds paris, rome, oslo: sentence 0 (rome) leaves, sentence 3 (none) stays
    assert disjoint_training(fold, surfaces, 1).tolist() == [3]


def test_entity_disjoint_still_finds_the_error(tmp_path):
    # Every name and city occurs once ("Pa0son visited Ca0ville ."), so the filter keeps all
    # training sentences; the held-out city is tagged from its suffix and context: LOC.
    blocks = []
    for i in range(24):
        city = "B-PER" if i == 5 else "B-LOC"
        blocks.append(f"P{chr(97 + i)}son B-PER\nvisited O\nC{chr(97 + i)}ville {city}\n. O\n")
    _, found = _flags("\n".join(blocks), tmp_path, entity_disjoint=True)
    rows = found.flags.select("kind", "sentence", "gold_type", "pred_type").rows()
    assert rows == [("wrong_type", 5, "PER", "LOC")]


def test_labels_and_spans_round_trip():
    labels = bio_labels([4], np.array([0, 0]), np.array([0, 2]), np.array([2, 3]), ["A", "B"])
    assert labels == [["B-A", "I-A", "B-B", "O"]]
    assert bio_spans(labels[0]) == [(0, 2, "A"), (2, 3, "B")]
    feats = token_features(["北", "京"])
    assert "w|+1w=北|京" in feats[0] and "BOS" in feats[0] and "EOS" in feats[1]
    assert not any(f.startswith("p1=") for f in feats[0])  # no affixes of one character


def test_a_span_past_the_sentence_end_is_an_input_error():
    with pytest.raises(InputError, match="ends at token 4, after the sentence's 3 tokens"):
        bio_labels([3], np.array([0]), np.array([2]), np.array([4]), ["LOC"])


def test_too_few_entity_sentences_and_one_type(tmp_path):
    path = tmp_path / "c.conll"
    path.write_text(corpus(n=3))
    split = read_conll(path)
    with pytest.raises(UsageError, match="at least 5 sentences with entities.*has 3"):
        tagger_flags(split.tokens, spans_from_split(split), split.n)
    path.write_text(corpus().replace("B-LOC", "B-PER"))
    split = read_conll(path)
    with pytest.raises(UsageError, match="two entity types.*only 'PER'"):
        tagger_flags(split.tokens, spans_from_split(split), split.n)


@pytest.fixture()
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cli_tagger_flags_feed_review_export(cwd):
    Path("c.conll").write_text(corpus(wrong={5: "B-PER"}))
    args = ["flag-spans", "c.conll", "--folds", "2"]
    assert main([*args, "--json", "d.json"]) == 0  # the default threshold
    res = json.loads(Path("d.json").read_text())
    assert res["tagger"]["min_error_score"] == MIN_ERROR_SCORE == 0.995
    assert res["flagged"] == sum(r["error_score"] >= 0.995 for r in res["top"])
    args += ["--min-error-score", "0.9", "-o", "f.jsonl", "--json", "f.json"]
    assert main(args) == 0
    res = json.loads(Path("f.json").read_text())
    assert res["detector"] == "tagger" and res["flagged"] == 1
    assert res["by_kind"] == {
        "wrong_type": 1,
        "wrong_boundary": 0,
        "missing_annotation": 0,
        "spurious_annotation": 0,
    }
    assert res["tagger"]["folds"] == 2 and res["tagger"]["min_error_score"] == 0.9
    top = res["top"][0]
    assert (top["sentence"], top["label"], top["llm_label"]) == (5, "PER", "LOC")
    # issue 36: gold and proposed spans both marked with their types, the glossary beside
    assert top["text"] == "Anna visited [[ {{ Rome }}LOC ]]PER ."
    assert (top["gold_type"], top["pred_type"], top["kind"]) == ("PER", "LOC", "wrong_type")
    assert top["file"] == "c.conll" and top["split"] == "c"
    # corpus() writes no -DOCSTART-: no document; the line is the sentence's first token's
    assert "document" not in top
    assert top["line"] == 26  # 4 token lines and a blank line per sentence: 5 * 5 + 1
    assert res["glossary"].startswith("wrong_type: ")
    rows = pl.read_ndjson("f.jsonl")
    assert {"error_score", "sentence_error_score", "split", "gold_start", "pred_type"} <= set(
        rows.columns
    )
    assert main(["review", "export", "f.jsonl", "-o", "rv", "--labels", "PER,LOC,O"]) == 0
    expert = pl.read_csv("rv/expert_a.csv", infer_schema=False)
    assert expert.height == 1
    # the expert marks the region LOC (the tagger's type): one error in one reviewed flag
    expert.with_columns(pl.lit("LOC").alias("label")).write_csv("rv/expert_a.csv")
    assert main(["review", "import", "rv/expert_a.csv", "-o", "g.jsonl"]) == 0
    assert main(["error-rate", "g.jsonl", "--population", "24", "--json", "er.json"]) == 0
    er = json.loads(Path("er.json").read_text())
    assert (er["errors"], er["sample"], er["population"]) == (1, 1, 24)


@pytest.mark.parametrize(
    ("text", "extra", "message"),
    [
        (corpus(n=3), [], "at least 5 sentences with entities for --folds 5"),
        (corpus().replace("B-LOC", "B-PER"), [], "at least two entity types"),
        (corpus(), ["--folds", "1"], "--folds must be an integer from 2 to 100"),
        (corpus(), ["--predictions", "c.conll", "--folds", "3"], "--folds is for the tagger"),
    ],
)
def test_cli_bad_input_one_line_exit_2_nothing_written(cwd, capsys, text, extra, message):
    Path("c.conll").write_text(text)
    capsys.readouterr()
    assert main(["flag-spans", "c.conll", *extra, "-o", "f.jsonl"]) == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()), err
    assert "Traceback" not in err and not Path("f.jsonl").exists()


def test_error_logit_ranks_where_the_error_score_rounds_to_one() -> None:
    """Issue 36: log-odds of the noisy-or, by hand; distinct evidence never ties."""
    from benchcheck.labels.ner_detect import error_logit

    q = np.array([1e-20, 1e-18, 0.5, 0.5])
    c = np.array([0.0, 0.0, 0.5, 0.0])
    d = np.array([0.0, 0.0, 0.0, 0.5])
    z = error_logit(np.log(q), c, d)
    # 1 - e^L with L = log q + log(1 - c) + log(1 - d): 0.75 for q = c = 0.5 -> log 3
    assert z[2] == pytest.approx(np.log(3.0)) and z[3] == pytest.approx(np.log(3.0))
    assert z[0] == pytest.approx(np.log(1e20), rel=1e-12)
    assert z[1] == pytest.approx(np.log(1e18), rel=1e-12)
    assert 1.0 - q[0] == 1.0 - q[1]  # the probabilities tie in float64, the log-odds do not
    assert z[0] > z[1]
    # the topic member joins the noisy-or: q = c = d = u = 0.5 -> 1 - 1/16, logit log 15
    half = np.full(1, 0.5)
    assert error_logit(np.log(half), half, half, half)[0] == pytest.approx(np.log(15.0))
    assert error_logit(np.log(q), c, d, np.zeros(4)) == pytest.approx(z)


def test_document_member_flags_the_odd_occurrence_of_one_story(tmp_path):
    """A surface typed ORG three times and LOC once in one document: the LOC is disputed."""
    from benchcheck.labels.ner_consistency import document_votes

    words = [["Leeds", "won"], ["Leeds", "lost"], ["Leeds", "drew"], ["at", "Leeds"], ["x"]]
    spans = [[(0, 1, "ORG")], [(0, 1, "ORG")], [(0, 1, "ORG")], [(1, 2, "LOC")], []]
    votes = document_votes(words, spans, [1, 1, 1, 1, 2])
    # the LOC occurrence: 3 others, none LOC -> 3 / (3 + 0.5); the ORG ones agree with 2 of 3
    assert votes.rows() == [(3, 1, 2, "LOC", "ORG", 3 / 3.5, 3)]
    # across documents nothing is compared: a second document's LOC is not counted
    assert document_votes(words, spans, [1, 1, 1, 2, 2]).height == 0


def test_merge_regions_gives_one_row_per_disputed_region() -> None:
    from benchcheck.labels.ner_flags import merge_regions

    f = pl.DataFrame(
        {
            "sentence": [3, 3, 3, 3],
            "start": [0, 0, 4, 1],
            "end": [3, 3, 5, 2],
            "kind": ["wrong_boundary", "wrong_boundary", "wrong_type", "x"],
        }
    )
    assert merge_regions(f).rows() == [(3, 0, 3, "wrong_boundary"), (3, 4, 5, "wrong_type")]


def test_sentence_documents_counts_docstart_lines(tmp_path):
    from benchcheck.io.conll import sentence_documents

    path = tmp_path / "d.conll"
    path.write_text("A O\n\n-DOCSTART- -X- O O\n\nB O\n\n-DOCSTART- -X- O O\n\nC O\nD O\n")
    split = read_conll(path)
    assert split.table["line"].to_list() == [1, 5, 9]
    assert sentence_documents(path, split.table["line"].to_numpy()).tolist() == [0, 1, 2]
    plain = tmp_path / "p.conll"
    plain.write_text("A O\n")
    assert sentence_documents(plain, np.array([1])) is None


def _oof(
    text: str, tmp_path: Path, **kw: object
) -> tuple[list[list[str]], list[list[str]], object]:
    from benchcheck.labels.ner_detect import _sentence_words
    from benchcheck.labels.ner_tagger import oof_tagging

    path = tmp_path / "c.conll"
    path.write_text(text)
    split = read_conll(path)
    spans = spans_from_split(split)
    words = _sentence_words(split.tokens, split.n)
    lengths = [len(w) for w in words]
    labels = bio_labels(
        lengths,
        spans["sentence"].to_numpy(),
        spans["start"].to_numpy(),
        spans["end"].to_numpy(),
        spans["type"].to_list(),
    )
    surfaces = [frozenset() for _ in words]
    for s, a, b in spans.select("sentence", "start", "end").iter_rows():
        surfaces[s] = surfaces[s] | {" ".join(words[s][a:b]).lower()}
    opts = TaggerOptions(folds=2, n_jobs=1, **kw)  # type: ignore[arg-type]
    return words, labels, oof_tagging(words, labels, surfaces, opts)


def test_two_views_take_per_token_the_one_less_sure_of_the_gold(tmp_path):
    # crossweigh=3 from seed 4: the plain run (seed 4) and the mean of three entity-disjoint
    # runs (seeds 4, 5, 6), each computed alone here; per token the marginals of the view
    # giving the gold label less probability, labels their arg-max; disputes count the runs
    # whose Viterbi label differs from the gold.
    text = corpus(wrong={5: "B-PER", 13: "O"})
    _, labels, both = _oof(text, tmp_path, seed=4, crossweigh=3)
    plain = _oof(text, tmp_path, seed=4, crossweigh=0)[2]
    alone = [_oof(text, tmp_path, seed=s, crossweigh=0, entity_disjoint=True)[2] for s in (4, 5, 6)]
    assert both.runs == 4 and plain.runs == 1
    assert both.plain_fits == sum(r.plain_fits for r in alone)
    assert np.array_equal(both.fold, plain.fold)
    col = {c: j for j, c in enumerate(both.classes)}
    chose_disjoint = 0
    for i in range(len(labels)):
        mean = np.mean([r.marginals[i] for r in alone], axis=0)
        gold = [col[g] for g in labels[i]]
        rows = np.arange(len(gold))
        less = mean[rows, gold] < plain.marginals[i][rows, gold]
        chose_disjoint += int(less.sum())
        want = np.where(less[:, None], mean, plain.marginals[i])
        np.testing.assert_allclose(both.marginals[i], want, rtol=0, atol=1e-12)
        assert both.predicted[i] == tuple(both.classes[j] for j in want.argmax(axis=1))
        runs = [plain, *alone]
        disputes = [
            sum(int(r.predicted[i][t] != labels[i][t]) for r in runs) for t in range(len(gold))
        ]
        assert both.disputes[i].tolist() == disputes
    assert chose_disjoint > 0  # the second view decides some tokens here
    # without the second view: the plain Viterbi labels, disputes 0 or 1
    assert all(max(d.tolist(), default=0) <= 1 for d in plain.disputes)


def test_entity_disjoint_falls_back_where_every_sentence_shares_an_entity(tmp_path):
    # Every sentence mentions Rome: the filter would leave each fold nothing to train on, so
    # each fold trains on the other (counted), and the run does not fail; the fallen-back
    # entity-disjoint run (same seed) is the plain run, so both views agree.
    blocks = [f"P{chr(97 + i)}son B-PER\nvisited O\nRome B-LOC\n. O\n" for i in range(8)]
    text = "\n".join(blocks)
    _, _, one = _oof(text, tmp_path, entity_disjoint=True, crossweigh=0)
    assert one.plain_fits == 2  # 2 folds
    _, _, both = _oof(text, tmp_path, crossweigh=1)
    assert both.plain_fits == 2 and both.runs == 2
    _, _, plain = _oof(text, tmp_path, crossweigh=0)
    assert plain.plain_fits == 0
    for a, b in zip(both.marginals, plain.marginals, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_flag_spans_says_how_many_folds_trained_unfiltered(tmp_path, capsys):
    # Every sentence mentions Rome: with --crossweigh 1 the entity-disjoint run's 2 folds
    # fall back to the unfiltered training set; the JSON and the terminal say so.
    blocks = [f"P{chr(97 + i)}son B-PER\nvisited O\nRome B-LOC\n. O\n" for i in range(8)]
    blocks += [
        f"Q{chr(97 + i)}son B-PER\nleft O\nC{chr(97 + i)}ville B-LOC\n. O\n" for i in range(8)
    ]
    path = tmp_path / "c.conll"
    path.write_text("\n".join(blocks))
    out = tmp_path / "r.json"
    main(["flag-spans", str(path), "--folds", "2", "--crossweigh", "1", "--json", str(out)])
    tagger = json.loads(out.read_text())["tagger"]
    assert tagger["crossweigh"] == 1 and tagger["plain_fits"] == 0  # Cxville keeps fold data
    path.write_text("\n".join(blocks[:8]))
    out2 = tmp_path / "r2.json"
    main(["flag-spans", str(path), "--folds", "2", "--crossweigh", "1", "--json", str(out2)])
    tagger = json.loads(out2.read_text())["tagger"]
    assert tagger["plain_fits"] == 2
    assert "entity-disjoint folds trained unfiltered" in capsys.readouterr().out
