"""Progress of long work: a rich bar on a terminal, a plain line per step elsewhere."""

from __future__ import annotations

import io
import re
import time

import pytest
from rich.console import Console

from benchcheck._progress import count, step
from benchcheck.cli import main
from benchcheck.report.terminal import progress
from benchcheck.report.terminal.progress import progress_bar
from benchcheck.sample_data import NER_SAMPLE

_STAMP = re.compile(r"^\[\s*\d+\.\d+s\] ")


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=100, color_system=None), out


@pytest.fixture
def talkative(monkeypatch):
    """No quiet time: every line is written at once."""
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.0)


def test_without_a_terminal_a_line_per_step_and_per_tenth(talkative):
    console, out = _console(terminal=False)
    with progress_bar(console, "judging") as bar:
        step(bar, "reading data.jsonl")
        step(bar, "judging the examples")
        for done in range(0, 101):
            count(bar, done, 100)
        count(bar, 100, 100)  # the same count again: no second line
    lines = out.getvalue().splitlines()
    assert all(_STAMP.match(line) for line in lines)
    assert [_STAMP.sub("", line) for line in lines] == [
        "reading data.jsonl",
        "judging the examples",
        *(f"judging the examples: {k}/100 ({k}%)" for k in range(0, 101, 10)),
    ]


def test_on_a_terminal_a_bar_with_the_step_and_count():
    console, out = _console(terminal=True)
    with progress_bar(console, "judging") as bar:
        step(bar, "judging the examples")
        count(bar, 3, 8)
        count(bar, 8, 8)
    text = out.getvalue()
    assert "judging the examples" in text
    assert "8/8" in text and "100%" in text
    assert not _STAMP.search(text)  # no log lines: the bar


def test_work_that_never_reports_draws_nothing():
    for terminal in (True, False):
        console, out = _console(terminal)
        with progress_bar(console):
            pass
        assert out.getvalue() == ""


def test_a_plain_callable_is_a_reporter_of_counts():
    seen = []
    step(lambda d, t: seen.append((d, t)), "ignored")
    count(lambda d, t: seen.append((d, t)), 2, 5)
    assert seen == [(2, 5)]


def test_quick_work_writes_nothing_and_a_long_step_is_written_when_the_quiet_ends(
    monkeypatch,
):
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.3)
    console, out = _console(terminal=False)
    with progress_bar(console) as bar:
        step(bar, "reading")
        step(bar, "counting")
        count(bar, 1, 4)
    assert out.getvalue() == ""  # done within the quiet time
    console, out = _console(terminal=False)
    with progress_bar(console) as bar:
        step(bar, "reading")
        count(bar, 1, 4)
        time.sleep(0.6)
        step(bar, "counting")
    lines = [_STAMP.sub("", line) for line in out.getvalue().splitlines()]
    assert lines == ["reading: 1/4 (25%)", "counting"]


def test_audit_tells_each_step_on_standard_error(capsys, tmp_path, talkative):
    rc = main(["audit", str(NER_SAMPLE), "--no-judge", "-o", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert rc == 0
    steps = [_STAMP.sub("", line) for line in err.splitlines() if _STAMP.match(line)]
    assert steps[0] == "Dataset statistics"
    assert f"reading {NER_SAMPLE}" in steps
    assert steps[-1] == "writing the report"


@pytest.mark.parametrize("parallel", [False, True])
def test_the_tagger_counts_every_iteration_of_its_folds(monkeypatch, parallel):
    """CRFsuite's iterations are told as they end (a fold is not silent), also from the
    folds' worker processes: 2 folds × 30 epochs, one count each, then the whole."""
    from benchcheck.io.conll import read_conll
    from benchcheck.labels import ner_tagger
    from benchcheck.labels.ner_detect import _sentence_words
    from benchcheck.labels.ner_flags import spans_from_split

    if parallel:  # every corpus is big enough for the folds' processes
        monkeypatch.setattr(ner_tagger, "PARALLEL_TOKENS", 0)
    split = read_conll(str(NER_SAMPLE / "train.txt"))
    gold = spans_from_split(split)
    words = _sentence_words(split.tokens, split.n)
    labels = ner_tagger.bio_labels(
        [len(w) for w in words],
        gold["sentence"].to_numpy(),
        gold["start"].to_numpy(),
        gold["end"].to_numpy(),
        gold["type"].to_list(),
    )
    surfaces = [
        frozenset({"x"}) if s in set(gold["sentence"]) else frozenset() for s in range(split.n)
    ]
    seen: list[tuple[int, int]] = []
    opts = ner_tagger.TaggerOptions(folds=2, seed=0, n_jobs=2)
    ner_tagger.oof_tagging(words, labels, surfaces, opts, lambda d, t: seen.append((d, t)))
    total = 2 * opts.max_iterations
    assert opts.max_iterations == 30
    assert seen == [(k, total) for k in range(total + 1)]


def test_flag_tells_the_trained_detector_s_steps(capsys, tmp_path, monkeypatch, talkative):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data.jsonl"
    data.write_bytes((NER_SAMPLE.parent / "pair" / "sample.jsonl").read_bytes())
    argv = ["flag", "--data", str(data), "--detector", "trained"]
    argv += ["--text-a", "grounding", "--text-b", "generated_text", "-o", "flags.jsonl"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    steps = [_STAMP.sub("", line) for line in err.splitlines() if _STAMP.match(line)]
    assert steps == [
        f"reading {data}",
        "trained detector: tfidf features of 20 examples",
        "trained detector: logistic regression, 5 folds (out of fold)",
    ]
