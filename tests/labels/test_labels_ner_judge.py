"""Judge-verified NER spans: prompts, llm_score, combination, cache, --detector llm|both."""

import json
import math
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
    combine_scores,
    judge_span_flags,
    rescore_flags,
    span_claims,
)
from benchcheck.runs.judging import JudgeSetup  # noqa: E402

WORDS = [["Anna", "visited", "Rome", "."], ["Boris", "met", "Carl", "."]]
TYPES = ["LOC", "PER"]


def _flags() -> pl.DataFrame:
    """A type flag (gold PER over Rome), a spurious one (no gold over Boris), a missing one."""
    return pl.DataFrame(
        {
            "kind": ["type", "spurious", "missing"],
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
            p = self.p_yes[(framing, surface)]
            out.append(JudgeScore.from_logprobs(("0", "1"), (math.log(1 - p), math.log(p)), 9, 0.0))
        return out


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
        ("type", 1, True),
        ("missing", 2, False),
        ("spurious", 3, False),
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
                JudgeScore.from_logprobs(
                    ("0", "1"),
                    (math.log(0.9), math.log(0.1))
                    if "«Rome» is a named entity of type PER" in r.user
                    else (math.log(0.3), math.log(0.7)),
                    9,
                    0.0,
                )
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


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--detector", "crf"], "--detector: expected tagger, llm or both, got 'crf'"),
        (["--detector", "both", "--combination", "max"], "--combination: expected mean or rank"),
        (["--judge", "openai:m"], "--judge is for --detector llm or both"),
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
    assert len([ln for ln in err.splitlines() if ln.strip()]) <= 3  # one message (wrapped)
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
