"""Judge-verified NER spans: prompts, llm_score, combination, cache, --detector llm|both,
--verify all."""

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pytest

pytest.importorskip("sklearn_crfsuite")
pytest.importorskip("cleanlab")

from _ner_corpus import corpus  # noqa: E402

from benchcheck.cli import main  # noqa: E402
from benchcheck.errors import UsageError  # noqa: E402
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore  # noqa: E402
from benchcheck.judges.cache import JudgeCache  # noqa: E402
from benchcheck.judges.prompts import ChatRequest  # noqa: E402
from benchcheck.labels.ner_judge import (  # noqa: E402
    FRAMINGS,
    SpanJudgement,
    combine_scores,
    judge_span_flags,
    judge_spans,
    likeliest_other_type,
    rescore_flags,
    span_claims,
    unverified_gold,
    verify_claims,
    verify_flags,
)
from benchcheck.labels.ner_tagger import OofTagging  # noqa: E402
from benchcheck.runs.flag_spans import run_flag_spans  # noqa: E402
from benchcheck.runs.judging import JudgeSetup  # noqa: E402

WORDS = [["Anna", "visited", "Rome", "."], ["Boris", "met", "Carl", "."]]
TYPES = ["LOC", "PER"]


def _flags() -> pl.DataFrame:
    """A type flag (gold PER over Rome), a spurious one (no gold over Boris), a missing one."""
    return pl.DataFrame(
        {
            "kind": ["wrong_type", "missing_annotation", "spurious_annotation"],
            "sentence": [0, 1, 1],
            "start": [2, 0, 2],
            "end": [3, 1, 3],
            "gold_start": [2, None, 2],
            "gold_end": [3, None, 3],
            "gold_type": ["PER", None, "PER"],
            "pred_start": [2, 0, None],
            "pred_end": [3, 1, None],
            "pred_type": ["LOC", "PER", None],
            "error_score": [0.9, 0.6, 0.3],
        },
        schema_overrides={"gold_start": pl.Int64, "gold_end": pl.Int64, "gold_type": pl.String},
    )


class FakeJudge(Judge):
    """P(yes) from a table keyed by (framing, surface); counts the requests it is asked."""

    def __init__(self, p_yes: dict[tuple[str, str], float]) -> None:
        self.p_yes = p_yes
        self.asked: list[ChatRequest] = []
        self.identity = JudgeIdentity("fake", "m", "h")

    def score(self, requests: Sequence[ChatRequest], *, on_result=None) -> list[JudgeScore]:
        out = []
        for r in requests:
            self.asked.append(r)
            framing = "question" if "Question:" in r.user else "statement"
            surface = r.user.split("«")[1].split("»")[0]
            out.append(_answer(self.p_yes[(framing, surface)]))
        return out


def _answer(p_yes: float) -> JudgeScore:
    """A judge's answer to a yes/no claim with P(1) = ``p_yes``."""
    return JudgeScore.from_logprobs(("0", "1"), (math.log(1 - p_yes), math.log(p_yes)), 9, 0.0)


P_YES = {
    ("question", "Rome"): 0.2,
    ("statement", "Rome"): 0.4,
    ("question", "Boris"): 0.9,
    ("statement", "Boris"): 0.7,
    ("question", "Carl"): 0.6,
    ("statement", "Carl"): 0.8,
}


def test_prompts_exact_text_and_shared_prefix() -> None:
    claims = span_claims(_flags(), WORDS, TYPES)
    assert claims["wrong"].to_list() == ["0", "1", "0"]
    ex = claims.row(0, named=True)
    q, s = (t.render(ex) for t in FRAMINGS)
    assert q.user == (
        "Sentence: Anna visited Rome .\n\nQuestion: in the sentence above, is it correct that "
        "«Rome» is a named entity of type PER (person)? Answer 1 for yes, 0 for no.\n"
        "Answer (0 or 1):"
    )
    assert s.user == (
        "Sentence: Anna visited Rome .\n\nStatement: in the sentence above, «Rome» is a named "
        "entity of type PER (person).\nIs the statement true? Answer 1 for true, 0 for false.\n"
        "Answer (0 or 1):"
    )
    assert q.system == s.system and q.user[:30] == s.user[:30]  # grounding first
    spurious = FRAMINGS[0].render(claims.row(1, named=True)).user
    assert "«Boris» is a named entity of one of the types LOC (location), PER (person)?" in (
        spurious
    )


def test_llm_score_is_p_gold_wrong_averaged_over_framings(tmp_path) -> None:
    judge = FakeJudge(P_YES)
    score, rows = judge_span_flags(_flags(), WORDS, TYPES, [judge])
    # gold span: P(no) = 1 - P(yes); no gold span (spurious): P(yes)
    expected = [((1 - 0.2) + (1 - 0.4)) / 2, (0.9 + 0.7) / 2, ((1 - 0.6) + (1 - 0.8)) / 2]
    np.testing.assert_allclose(score, expected, atol=1e-12)
    assert rows.height == 6 and set(rows["prompt"]) == {"span-question", "span-statement"}
    # grounding-major: the two framings of one sentence's spans are asked side by side
    firsts = [r.user.split("\n")[0] for r in judge.asked]
    assert firsts == sorted(firsts, key=firsts.index) and len(set(firsts)) == 2
    assert firsts[:2] == [firsts[0]] * 2


def test_second_run_asks_nothing_from_the_cache(tmp_path) -> None:
    with JudgeCache(tmp_path / "c.sqlite") as cache:
        first = FakeJudge(P_YES)
        a, _ = judge_span_flags(_flags(), WORDS, TYPES, [first], cache=cache)
        again = FakeJudge({})  # would raise KeyError if asked anything
        b, rows = judge_span_flags(_flags(), WORDS, TYPES, [again], cache=cache)
    assert len(first.asked) == 6 and again.asked == []
    assert rows["cached"].all()
    np.testing.assert_array_equal(a, b)


def test_combination_rules_by_hand() -> None:
    t = np.array([0.99, 0.5, 0.5, 0.1])
    j = np.array([0.2, 0.8, 0.6, 0.4])
    np.testing.assert_allclose(combine_scores(t, j, "mean"), [0.595, 0.65, 0.55, 0.25])
    # ranks (ties averaged) of t: 4, 2.5, 2.5, 1 -> (r-1)/3 = 1, .5, .5, 0; of j: 1, 4, 3, 2
    rt = np.array([1.0, 0.5, 0.5, 0.0])
    rj = np.array([0.0, 1.0, 2 / 3, 1 / 3])
    np.testing.assert_allclose(combine_scores(t, j, "rank"), (rt + rj) / 2, atol=1e-12)
    np.testing.assert_array_equal(combine_scores(np.array([0.3]), np.array([0.1]), "rank"), [1])
    with pytest.raises(UsageError, match="combination"):
        combine_scores(t, j, "max")


def test_rescore_reranks_flags_and_sentences() -> None:
    flags = _flags().with_columns(pl.lit(0.0).alias("sentence_error_score"))
    out = rescore_flags(flags, np.array([0.7, 0.2, 0.55]), min_error_score=0.6)
    assert out.select("kind", "rank", "flagged").rows() == [
        ("wrong_type", 1, True),
        ("spurious_annotation", 2, False),
        ("missing_annotation", 3, False),
    ]
    assert out["tagger_score"].to_list() == [0.9, 0.3, 0.6]
    assert out["sentence_error_score"].to_list() == [0.7, 0.55, 0.55]


@pytest.fixture()
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cli_detector_llm_and_both_with_a_judge(cwd, monkeypatch) -> None:
    """The run: tagger candidates -> judge -> error_score, llm_score in the review rows."""
    asked: list[ChatRequest] = []

    class Wise(FakeJudge):
        def score(self, requests, *, on_result=None):  # the wrong gold "Rome PER" is refuted
            asked.extend(requests)
            return [
                _answer(0.1 if "«Rome» is a named entity of type PER" in r.user else 0.7)
                for r in requests
            ]

    monkeypatch.setattr(JudgeSetup, "build", lambda self, spec: Wise({}))
    Path("c.conll").write_text(corpus(wrong={5: "B-PER"}))
    args = ["flag-spans", "c.conll", "--folds", "2", "--cache", "j.sqlite"]
    assert main([*args, "--detector", "llm", "-o", "f.jsonl", "--json", "f.json"]) == 0
    res = json.loads(Path("f.json").read_text())
    assert res["detector"] == "llm"
    assert res["tagger"]["min_error_score"] == 0.5
    assert res["tagger"]["judge"]["computed"] == len(asked) > 0
    top = res["top"][0]
    assert (top["sentence"], top["label"], top["llm_label"]) == (5, "PER", "LOC")
    assert top["error_score"] == pytest.approx(0.9, abs=1e-9) == top["llm_score"]
    rows = pl.read_ndjson("f.jsonl")
    assert {"llm_score", "tagger_score", "error_score", "sentence_error_score"} <= set(rows.columns)
    n = len(asked)
    assert main([*args, "--detector", "both", "--json", "b.json"]) == 0
    both = json.loads(Path("b.json").read_text())
    assert len(asked) == n  # served from the cache
    assert both["tagger"]["judge"]["cached"] == both["tagger"]["judge"]["judgements"]
    top = both["top"][0]
    assert top["error_score"] == pytest.approx((top["tagger_score"] + 0.9) / 2, abs=1e-9)


def test_cli_judge_top_judges_the_tagger_highest_rows_only(cwd, monkeypatch) -> None:
    """--judge-top 1: one row judged (both framings), ranked first; the rest keep the
    tagger's score in its order, unflagged, llm_score empty; 0 judges every row."""
    asked: list[ChatRequest] = []

    class Doubt(FakeJudge):
        def score(self, requests, *, on_result=None):  # every gold disputed at P(wrong) 0.8
            asked.extend(requests)  # a missing span's claim is "one of the types"
            return [_answer(0.8 if "one of the types" in r.user else 0.2) for r in requests]

    monkeypatch.setattr(JudgeSetup, "build", lambda self, spec: Doubt({}))
    Path("c.conll").write_text(corpus(wrong={5: "B-PER", 9: "B-ORG"}))
    args = ["flag-spans", "c.conll", "--folds", "2", "--no-cache", "--detector", "both"]
    assert main([*args, "--judge-top", "0", "--json", "all.json"]) == 0
    every = json.loads(Path("all.json").read_text())
    judged = every["tagger"]["judge"]
    assert judged["judge_top"] == 0 and judged["judged_rows"] == judged["candidate_rows"]
    n_rows = judged["candidate_rows"]
    assert n_rows >= 2, n_rows
    asked.clear()
    assert main([*args, "--judge-top", "1", "--json", "one.json", "-o", "one.jsonl"]) == 0
    one = json.loads(Path("one.json").read_text())
    judged = one["tagger"]["judge"]
    assert (judged["judge_top"], judged["judged_rows"], judged["candidate_rows"]) == (1, 1, n_rows)
    assert len(asked) == len(FRAMINGS)  # one row, each framing once
    rows = pl.read_ndjson("one.jsonl").sort("rank")
    assert rows.height == n_rows
    first, rest = rows.head(1), rows.slice(1)
    assert first["llm_score"].null_count() == 0 and rest["llm_score"].null_count() == n_rows - 1
    assert first["error_score"][0] == pytest.approx((first["tagger_score"][0] + 0.8) / 2, abs=1e-9)
    # the judged row is the tagger's highest; the rest keep its scores, in its order
    assert first["tagger_score"][0] == rows["tagger_score"].max()
    assert rest["error_score"].to_list() == rest["tagger_score"].to_list()
    assert rest["error_score"].to_list() == sorted(rest["error_score"].to_list(), reverse=True)
    assert not rest["flagged"].any()


# --verify all ----------------------------------------------------------------------------


class ClaimJudge(FakeJudge):
    """P(yes) keyed by (framing, sentence, claim), where a claim is the text after «SURFACE»
    up to the type list; 0.9 for a gold claim ("of type") and 0.1 for an any-type claim
    ("of one of the types") not listed: a judge that believes the gold."""

    def score(self, requests: Sequence[ChatRequest], *, on_result=None) -> list[JudgeScore]:
        out = []
        for r in requests:
            self.asked.append(r)
            framing = "question" if "Question:" in r.user else "statement"
            sentence = r.user.split("\n")[0].removeprefix("Sentence: ")
            surface = r.user.split("«")[1].split("»")[0]
            claim = "any" if "of one of the types" in r.user else "type"
            default = 0.1 if claim == "any" else 0.9
            p = self.p_yes.get((framing, sentence, surface, claim), default)
            out.append(JudgeScore.from_logprobs(("0", "1"), (math.log(1 - p), math.log(p)), 9, 0.0))
        return out


def test_unverified_gold_leaves_out_the_flags_gold_spans() -> None:
    gold = pl.DataFrame(
        {
            "sentence": [0, 0, 1, 1],
            "start": [0, 2, 0, 2],
            "end": [1, 3, 1, 3],
            "type": ["PER", "PER", "PER", "PER"],
        }
    )
    # _flags() holds the gold spans (0, 2-3) and (1, 2-3); its spurious flag has none
    assert unverified_gold(_flags(), gold).rows() == [(0, 0, 1, "PER"), (1, 0, 1, "PER")]


def test_verify_claims_text_and_one_batched_grounding_major_run() -> None:
    spans = pl.DataFrame({"sentence": [0, 1], "start": [0, 0], "end": [1, 1], "type": ["PER"] * 2})
    claims = verify_claims(spans, WORDS, TYPES)
    assert claims.select("id", "text_b", "wrong").rows() == [
        ("verify:0:gold", "«Anna» is a named entity of type PER (person)", "0"),
        ("verify:0:other", "«Anna» is a named entity of one of the types LOC (location)", "1"),
        ("verify:1:gold", "«Boris» is a named entity of type PER (person)", "0"),
        ("verify:1:other", "«Boris» is a named entity of one of the types LOC (location)", "1"),
    ]
    sent0, sent1 = "Anna visited Rome .", "Boris met Carl ."
    judge = ClaimJudge(
        {
            # the candidates as in P_YES
            ("question", sent0, "Rome", "type"): 0.2,
            ("statement", sent0, "Rome", "type"): 0.4,
            ("question", sent1, "Carl", "type"): 0.6,
            ("statement", sent1, "Carl", "type"): 0.8,
            ("question", sent0, "Anna", "type"): 0.3,
            ("statement", sent0, "Anna", "type"): 0.5,
            ("question", sent0, "Anna", "any"): 0.8,
            ("statement", sent0, "Anna", "any"): 0.6,
            # Boris: a candidate (spurious: any-type claim), and a verified span (gold PER,
            # gold claim at the default 0.9) whose other-types claim this judge keys alike
            ("question", sent1, "Boris", "any"): 0.9,
            ("statement", sent1, "Boris", "any"): 0.7,
        }
    )
    found = judge_spans(_flags(), WORDS, TYPES, [judge], verify=spans)
    # the candidates' scores are unchanged by the verified spans
    np.testing.assert_allclose(found.llm_score, [0.7, 0.8, 0.3], atol=1e-12)
    # q = mean P(no) of the gold claim; r = mean P(yes) of the other types' claim
    np.testing.assert_allclose(found.gold_wrong, [(0.7 + 0.5) / 2, 1 - 0.9], atol=1e-12)
    np.testing.assert_allclose(found.other_type, [(0.8 + 0.6) / 2, (0.9 + 0.7) / 2], atol=1e-12)
    # 3 candidates + 2 spans x 2 claims, x 2 framings, in one run; the verified claims marked
    assert len(judge.asked) == found.rows.height == (3 + 4) * 2
    assert int(found.rows["verify"].sum()) == 8
    # grounding-major: every claim of a sentence is asked before the next sentence's
    firsts = [r.user.split("\n")[0] for r in judge.asked]
    assert firsts == [f"Sentence: {sent0}"] * 6 + [f"Sentence: {sent1}"] * 8


def test_verify_flags_kind_proposed_type_and_tagger_score() -> None:
    """Hand-made marginals: the tagger's score is 1 - min p_t(gold_t) over the gold span."""
    classes = ("O", "B-LOC", "B-ORG", "B-PER", "I-LOC", "I-ORG", "I-PER")
    # sentence 0: "New York" gold LOC [0, 2); sentence 1: "Acme" gold ORG [0, 1)
    m0 = np.array(
        [
            [0.1, 0.5, 0.3, 0.1, 0.0, 0.0, 0.0],  # p(B-LOC) = 0.5
            [0.1, 0.0, 0.0, 0.0, 0.4, 0.3, 0.2],  # p(I-LOC) = 0.4
            [0.9, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0],
        ]
    )
    m1 = np.array([[0.2, 0.1, 0.6, 0.1, 0.0, 0.0, 0.0], [1.0, 0, 0, 0, 0, 0, 0]])
    tagging = OofTagging(
        classes,
        (m0, m1),
        (("B-LOC", "I-LOC", "O"), ("B-ORG", "O")),
        np.zeros(2, dtype=np.int64),
    )
    labels = [["B-LOC", "I-LOC", "O"], ["B-ORG", "O"]]
    spans = pl.DataFrame(
        {"sentence": [0, 1], "start": [0, 0], "end": [2, 1], "type": ["LOC", "ORG"]}
    )
    answers = SpanJudgement(np.zeros(0), np.array([0.8, 0.3]), np.array([0.7, 0.2]), pl.DataFrame())
    rows = verify_flags(spans, answers, tagging, labels, ["LOC", "ORG", "PER"])
    assert rows.select("kind", "gold_type", "pred_start", "pred_end", "pred_type").rows() == [
        ("wrong_type", "LOC", 0, 2, "ORG"),  # r = 0.7 > 1/2; ORG: (0.3 + 0.3) / 2 > PER: 0.3 / 2
        (
            "spurious_annotation",
            "ORG",
            None,
            None,
            None,
        ),  # r = 0.2: the gold marks an entity the judge denies
    ]
    # error_score = 1 - min(0.5, 0.4) = 0.6 and 1 - 0.6 = 0.4; the tagger's confidence in its
    # own labels (the same here) likewise; llm_score = q
    np.testing.assert_allclose(rows["error_score"], [0.6, 0.4], atol=1e-12)
    np.testing.assert_allclose(rows["tagger_confidence"], [0.4, 0.6], atol=1e-12)
    assert rows["llm_score"].to_list() == [0.8, 0.3]
    assert rows["source"].to_list() == ["verify"] * 2 and rows["token_issue"].is_null().all()
    assert likeliest_other_type(m1[:1], classes, "ORG", ["LOC", "ORG", "PER"]) == "LOC"  # tie


def _verify_judge() -> ClaimJudge:
    """A judge that believes every gold span but two of "Carl visited Lima ." (sentence 7) and
    refutes the wrong "Rome PER" of sentence 5 (the tagger's one candidate)."""
    lima = "Carl visited Lima ."
    return ClaimJudge(
        {
            ("question", "Anna visited Rome .", "Rome", "type"): 0.1,
            ("statement", "Anna visited Rome .", "Rome", "type"): 0.1,
            # Lima LOC: q = (0.8 + 0.6) / 2 = 0.7; another type? r = (0.1 + 0.3) / 2 = 0.2
            ("question", lima, "Lima", "type"): 0.2,
            ("statement", lima, "Lima", "type"): 0.4,
            ("question", lima, "Lima", "any"): 0.1,
            ("statement", lima, "Lima", "any"): 0.3,
            # Carl PER: q = (0.7 + 0.6) / 2 = 0.65; r = (0.8 + 0.6) / 2 = 0.7
            ("question", lima, "Carl", "type"): 0.3,
            ("statement", lima, "Carl", "type"): 0.4,
            ("question", lima, "Carl", "any"): 0.8,
            ("statement", lima, "Carl", "any"): 0.6,
        }
    )


def test_cli_verify_all_scores_kinds_and_requests(cwd, monkeypatch, capsys) -> None:
    judge = _verify_judge()
    monkeypatch.setattr(JudgeSetup, "build", lambda self, spec: judge)
    Path("c.conll").write_text(corpus(n=20, wrong={5: "B-PER"}))
    args = ["flag-spans", "c.conll", "--folds", "2", "--cache", "j.sqlite", "--verify", "all"]
    assert main([*args, "--detector", "llm", "-o", "f.jsonl", "--json", "f.json"]) == 0
    res = json.loads(Path("f.json").read_text())
    info = res["tagger"]["judge"]
    # 40 gold spans, one held by the tagger's candidate: 39 verified, 2 claims x 2 framings
    assert (info["verify"], info["verified_spans"]) == ("all", 39)
    assert info["verify_requests"] == info["verify_computed"] == 39 * 4
    assert info["judgements"] == info["computed"] == len(judge.asked) == 39 * 4 + 2
    rows = pl.read_ndjson("f.jsonl")
    assert rows.height == 40 and rows["source"].value_counts().sort("source").rows() == [
        ("tagger", 1),
        ("verify", 39),
    ]
    top = rows.head(3).select(
        "rank", "source", "kind", "sentence", "start", "end", "label", "llm_label", "error_score"
    )
    assert top.rows() == [
        (1, "tagger", "wrong_type", 5, 2, 3, "PER", "LOC", pytest.approx(0.9)),
        (2, "verify", "spurious_annotation", 7, 2, 3, "LOC", "O", pytest.approx(0.7)),
        (3, "verify", "wrong_type", 7, 0, 1, "PER", "LOC", pytest.approx(0.65)),
    ]
    carl = rows.row(2, named=True)
    assert (carl["pred_start"], carl["pred_end"], carl["gold_start"]) == (0, 1, 0)
    lima = rows.row(1, named=True)
    assert lima["pred_start"] is None and lima["pred_type"] is None
    assert res["flagged"] == 3 == int(rows["flagged"].sum())  # q = 0.1 elsewhere: not flagged
    assert res["by_kind"] == {
        "wrong_type": 2,
        "wrong_boundary": 0,
        "missing_annotation": 0,
        "spurious_annotation": 38,
    }
    assert lima["sentence_error_score"] == pytest.approx(0.7)
    # the verified rows' tagger score: 1 - min p_t(gold_t) over the gold span, from the same
    # out-of-fold tagging as the candidates' (trained once; deterministic under the seed)
    from benchcheck.io.conll import read_conll
    from benchcheck.labels.ner_detect import _sentence_words, score_flags
    from benchcheck.labels.ner_flags import spans_from_split
    from benchcheck.labels.ner_tagger import TaggerOptions, bio_labels, oof_tagging

    split = read_conll("c.conll")
    gold = spans_from_split(split)
    words = _sentence_words(split.tokens, split.n)
    labels = bio_labels(
        [len(w) for w in words],
        gold["sentence"].to_numpy(),
        gold["start"].to_numpy(),
        gold["end"].to_numpy(),
        gold["type"].to_list(),
    )
    surfaces = [frozenset() for _ in words]
    for s, a, b in gold.select("sentence", "start", "end").iter_rows():
        surfaces[s] = surfaces[s] | {" ".join(words[s][a:b]).lower()}
    tagging = oof_tagging(words, labels, surfaces, TaggerOptions(folds=2, seed=0))
    mine = rows.filter(pl.col("source") == "verify")
    expected = score_flags(mine.select("sentence", "start", "end"), labels, tagging)
    np.testing.assert_allclose(mine["tagger_score"], expected["error_score"], atol=1e-12)
    capsys.readouterr()
    # --detector both: served from the cache, error_score = mean of the two members
    n = len(judge.asked)
    assert main([*args, "--detector", "both", "-o", "b.jsonl", "--json", "b.json"]) == 0
    assert len(judge.asked) == n
    both = json.loads(Path("b.json").read_text())["tagger"]["judge"]
    assert (both["verify_requests"], both["verify_computed"]) == (39 * 4, 0)
    b = pl.read_ndjson("b.jsonl")
    np.testing.assert_allclose(b["error_score"], (b["tagger_score"] + b["llm_score"]) / 2)
    out = " ".join(capsys.readouterr().out.split())
    assert "gold spans verified │ 39" in out
    assert "their judge requests (computed / cached) │ 156 (0 / 156)" in out


def test_verify_all_needs_the_judge_and_the_tagger(tmp_path) -> None:
    path = tmp_path / "c.conll"
    path.write_text(corpus())
    with pytest.raises(UsageError, match="verify all needs detector llm or both"):
        run_flag_spans(path, verify="all")
    with pytest.raises(UsageError, match="verify all is for the tagger's path"):
        run_flag_spans(path, detector="llm", verify="all", predictions=path)
    with pytest.raises(UsageError, match="expected candidates or all, got 'some'"):
        run_flag_spans(path, detector="llm", verify="some")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--verify", "all"], "--verify is for --detector llm or both"),
        (["--verify", "every"], "--verify: expected candidates or all, got 'every'"),
        (
            ["--detector", "llm", "--verify", "all", "--predictions", "c.conll"],
            "--verify all is for the tagger's path with --detector llm or both (no "
            "--predictions/--spacy)",
        ),
        (
            ["--detector", "both", "--verify", "all", "--spacy", "en_core_web_sm"],
            "--verify all is for the tagger's path",
        ),
        (["--detector", "crf"], "--detector: expected tagger, llm or both, got 'crf'"),
        (["--detector", "both", "--combination", "max"], "--combination: expected mean or rank"),
        (["--judge", "openai:m"], "--judge is for --detector llm or both"),
        (["--judge-top", "5"], "--judge-top is for --detector llm or both"),
        (["--detector", "llm", "--judge-top", "-1"], "--judge-top: expected 0 (every row)"),
        (["--combination", "rank"], "--combination is for --detector llm or both"),
        (["--detector", "llm", "--predictions", "c.conll"], "--detector is for the tagger"),
        (["--detector", "llm", "--judge", "nope:x"], "--judge: unknown backend 'nope'"),
    ],
)
def test_cli_bad_values_one_line_exit_2(cwd, capsys, extra, message) -> None:
    Path("c.conll").write_text(corpus())
    capsys.readouterr()
    assert main(["flag-spans", "c.conll", *extra, "-o", "f.jsonl"]) == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()), err
    assert "Traceback" not in err and not Path("f.jsonl").exists()


@pytest.mark.slow
def test_cli_unreachable_server_one_line_exit_2(cwd, capsys) -> None:
    """A closed port: the judge's retries fail, one line names --judge, nothing written."""
    Path("c.conll").write_text(corpus(wrong={5: "B-PER"}))
    capsys.readouterr()
    argv = ["flag-spans", "c.conll", "--folds", "2", "--detector", "llm", "--no-cache"]
    argv += ["--judge", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--timeout", "1"]
    assert main([*argv, "-o", "f.jsonl"]) == 2
    err = capsys.readouterr().err
    assert "--judge could not judge the spans" in " ".join(err.split()), err
    assert "127.0.0.1:9" in err and "Traceback" not in err
    # one message (wrapped), after the run's progress lines ("[  0.1s] step")
    said = [ln for ln in err.splitlines() if ln.strip() and not re.match(r"\[\s*[\d.]+s\] ", ln)]
    assert len(said) <= 3
    assert not Path("f.jsonl").exists()


@pytest.mark.slow
def test_real_embedded_judge_on_two_spans(tmp_path) -> None:
    """The default judge: llm_score is the framings' mean P(gold wrong), the rerun is cached."""
    pytest.importorskip("llama_cpp")
    flags = _flags().head(2)
    with JudgeSetup(cache=str(tmp_path / "c.sqlite")).open() as (judges, cache):
        score, rows = judge_span_flags(flags, WORDS, TYPES, judges, cache=cache)
        again, rows2 = judge_span_flags(flags, WORDS, TYPES, judges, cache=cache)
    assert rows.height == 4 and not rows["cached"].any() and rows2["cached"].all()
    by = {(r["id"], r["prompt"]): r for r in rows.iter_rows(named=True)}
    for i, wrong in (("0", "p_0"), ("1", "p_1")):  # gold PER over Rome: P(0); no gold: P(1)
        p = [by[(i, t.name)][wrong] for t in FRAMINGS]
        assert score[int(i)] == pytest.approx(sum(p) / 2, abs=1e-12)
        assert all(
            abs(by[(i, t.name)]["p_0"] + by[(i, t.name)]["p_1"] - 1) < 1e-9 for t in FRAMINGS
        )
    np.testing.assert_array_equal(score, again)
