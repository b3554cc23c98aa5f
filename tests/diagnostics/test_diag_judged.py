import math

import pytest

from benchcheck.cli import main
from benchcheck.diagnostics import overlap_baseline, sample_suite_path
from benchcheck.diagnostics.judged import judge_predictions
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore
from benchcheck.runs.diagnose import load_suite

LABELS = ("entailment", "neutral", "contradiction")


class OverlapJudge(Judge):
    """A deterministic stand-in judge: 0.8 on the overlap baseline's label."""

    identity = JudgeIdentity("fake", "overlap")

    def __init__(self):
        from benchcheck.judges.prompts import BUILTIN_PROMPTS

        self.calls = 0
        suite = load_suite(sample_suite_path())
        self.answer = {
            BUILTIN_PROMPTS["nli3"].render(r).user: overlap_baseline(r["text_a"], r["text_b"])
            for r in suite.table.iter_rows(named=True)
        }

    def score(self, requests, *, on_result=None):
        out = []
        for i, req in enumerate(requests):
            self.calls += 1
            guess = self.answer[req.user]
            lp = [math.log(0.8 if lab == guess else 0.1) for lab in LABELS]
            score = JudgeScore.from_logprobs(LABELS, lp, 10, 0.0)
            if on_result:
                on_result(i, score)
            out.append(score)
        return out


def test_judge_predictions_argmax():
    suite = load_suite(sample_suite_path())
    preds = judge_predictions(suite, [OverlapJudge()])
    expected = {
        r["id"]: overlap_baseline(r["text_a"], r["text_b"])
        for r in suite.table.iter_rows(named=True)
    }
    assert preds == {"fake:overlap": expected}


def test_diagnose_with_judge_cli(monkeypatch, tmp_path, capsys):
    import benchcheck.judges.run as run

    judge = OverlapJudge()
    monkeypatch.setattr(run, "make_judge", lambda spec, **kw: judge)
    cache = tmp_path / "c.sqlite"
    args = [
        "diagnose",
        "--suite",
        str(sample_suite_path()),
        "--judge",
        "fake:overlap",
        "--cache",
        str(cache),
        "--resamples",
        "20",
        "--json",
        str(tmp_path / "o.json"),
    ]
    assert main(args) == 0
    assert judge.calls == 90
    assert main([*args, "--force"]) == 0
    assert judge.calls == 90  # second run served from the cache
    out = (tmp_path / "o.json").read_text()
    assert '"fake:overlap"' in out


def test_judge_needs_nli_labels(tmp_path):
    from benchcheck.errors import UsageError

    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a", "sentence1": "x", "sentence2": "y", "forward": "safe"}\n')
    with pytest.raises(UsageError, match="nli3"):
        judge_predictions(load_suite(path), [OverlapJudge()])
