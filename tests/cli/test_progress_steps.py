"""Every command that can work for more than ~2 s tells its steps on standard error (issue 33).

Each command is classified by measurement (``benchmarks/progress_timings.py``: 150,000
pairs with one judge's judgments, a CoNLL-2003-sized corpus of ~300k tokens, the MCQ
sample repeated to 14,400 questions, the diagnostic suite repeated to 9,000 items; two
shared cores at load 3-4, a fresh process each, start-up ~0.5 s included):

- :data:`REPORTS`: commands that hand a reporter to their run; each is run here without a
  terminal and without the quiet time, and must write its named steps on standard error,
  in order, and leave standard output as a run that writes no step line does;
- :data:`FAST`: commands measured well under ~2 s at those sizes (the seconds beside each).

A new command must be put in one of the two (:func:`test_every_command_is_classified`).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from _sweep import build_workspace

from benchcheck.cli import main
from benchcheck.report.terminal import progress

_STAMP = re.compile(r"^\[\s*\d+\.\d+s\] ")

#: Commands measured fast at the sizes users meet: seconds of a fresh process, two runs
#: (before / after this change, load 2.6-4.0; benchmarks/results/progress_timings.json).
FAST = {
    "diff": "two results.json of a 300k-token audit: 1.7 s / 1.4 s",
    "convert": "a 300k-token CoNLL corpus to JSONL: 1.2 s / 0.9 s",
    "report": "results.json of a 300k-token audit to HTML: 1.1 s / 0.7 s",
    "glossary": "no input: 0.3 s / 0.2 s",
    "version": "no input",
}

#: Commands told to report progress before this change (tested in tests/report/test_progress.py
#: and beside their runs); listed so that the classification is whole.
REPORTED_ELSEWHERE = {"audit", "stats", "judge", "flag", "flag-spans", "leakage"}

#: Commands that report progress, measured (seconds before / after this change, which also
#: removed items' quadratic curves and rerank's per-call checks): remedy 18.4 / 21.5,
#: rerank 7.7 / 13.1 (11.6 / 10.3 back to back), items 60.3 / 15.1, rank 93.2 / 36.6,
#: review export 12.2 / 9.2, review import 11.0 / 11.1, error-rate 10.5 / 12.0, bins 9.4 /
#: 7.3, agreement 15.5 / 14.3, ensemble-curve 9.9 / 9.9, diagnose 6.1 / 6.9, artifacts 7.6 /
#: 7.3, human 7.7 / 5.5, check-suite 5.5 / 4.8; MCQ forms: remedy 3.7 / 6.4, rerank 7.3 /
#: 7.1, items 7.1 / 7.4, error-rate 6.8 / 3.9. Near the line, wired all the same (larger
#: inputs are common): adjust 3.4 / 2.0, sample 5.1 / 2.5, accuracy 3.6 / 2.2 (sklearn's
#: import), compare (two corpora) 2.0 / 0.9.
#: command name → (argv in the sweep's workspace, outputs to clear before a run, steps)
REPORTS: dict[str, tuple[list[str], list[str], list[str]]] = {
    "remedy": (
        ["remedy", "data.jsonl", "--judgments", "j.parquet", "-o", "p_remedy"],
        ["p_remedy"],
        [
            "reading data.jsonl",
            "reading j.parquet",
            "flagging: the judges' error posterior",
            "remedy: filter the flags of confidence 0.9 or more",
            "writing p_remedy",
        ],
    ),
    "rerank": (
        ["rerank", "--gold", "gold.jsonl", "--scores", "a=a.jsonl", "--scores", "b=pa.jsonl"]
        + ["--bootstrap", "100"],
        [],
        [
            "reading gold.jsonl",
            "reading the models' scores",
            "scores on original and gold labels",
            "paired bootstrap of f1: a vs b",
            "paired bootstrap of f1: a vs b: 0/100 (0%)",
            "paired bootstrap of f1: a vs b: 50/100 (50%)",
            "paired bootstrap of f1: a vs b: 100/100 (100%)",
            "paired bootstrap of accuracy: a vs b",
            "paired bootstrap of accuracy: a vs b: 0/100 (0%)",
            "paired bootstrap of accuracy: a vs b: 50/100 (50%)",
            "paired bootstrap of accuracy: a vs b: 100/100 (100%)",
        ],
    ),
    "review export": (
        ["review", "export", "flags.jsonl", "-o", "p_review", "--seed", "1"],
        ["p_review"],
        ["reading flags.jsonl", "building the blind review of 60 flags", "writing p_review"],
    ),
    "review import": (
        ["review", "import", "review/expert_a.csv", "review/expert_b.csv", "-o", "p_gold.jsonl"],
        ["p_gold.jsonl"],
        [
            "reading review/key.jsonl",
            "reading review/expert_a.csv",
            "reading review/expert_b.csv",
            "combining 2 experts' labels",
            "writing p_gold.jsonl",
        ],
    ),
    "error-rate": (
        ["error-rate", "gold.jsonl"],
        [],
        [
            "reading gold.jsonl",
            "lower bound of the error rate",
            "expected errors (Poisson-binomial)",
            "stratified estimate",
        ],
    ),
    "bins": (
        ["bins", "gold.jsonl", "--bootstrap", "100"],
        [],
        ["reading gold.jsonl", "agreement per bin: 100 bootstrap resamples"],
    ),
    "agreement": (
        ["agreement", "--source", "original=gold.jsonl#label", "--source", "gold=gold.jsonl"],
        [],
        ["reading gold.jsonl#label", "reading gold.jsonl", "comparing the label sources"],
    ),
    "ensemble-curve": (
        ["ensemble-curve", "j.parquet", "--gold", "gold.jsonl", "--repeats", "2"],
        [],
        [
            "reading gold.jsonl",
            "reading j.parquet",
            "growing the ensemble: 2 random orders per size",
        ],
    ),
    "items": (
        ["items", "data.jsonl", "--predictions", "a=pa.jsonl", "--predictions", "b=pb.jsonl"]
        + ["-o", "p_items"],
        ["p_items"],
        [
            "reading data.jsonl and the models' predictions",
            "item analysis of 60 items × 2 models: 1000 bootstrap resamples",
            "IRT fit (2pl)",
            "writing p_items",
        ],
    ),
    "rank": (
        ["rank", "data.jsonl", "--predictions", "a=pa.jsonl", "--predictions", "b=pb.jsonl"]
        + ["--gold", "gold.jsonl", "--draws", "100"],
        [],
        [
            "reading data.jsonl",
            "reading pa.jsonl",
            "reading pb.jsonl",
            "reading gold.jsonl",
            "scores on original and gold labels (paired bootstrap)",
            "drawing plausible labelings",
            "drawing plausible labelings: 0/100 (0%)",
            "drawing plausible labelings: 50/100 (50%)",
            "drawing plausible labelings: 100/100 (100%)",
        ],
    ),
    "compare": (
        ["compare", "a=ner", "b=ner"],
        [],
        [
            "dataset a",
            "reading ner",
            "metrics of the three dimensions",
            "dataset b",
            "reading ner",
            "metrics of the three dimensions",
        ],
    ),
    "sample": (
        ["sample", "ner", "-o", "p_sample.jsonl", "--per-split", "5"],
        ["p_sample.jsonl"],
        ["reading ner", "drawing 5 instances per split", "writing p_sample.jsonl"],
    ),
    "accuracy": (
        ["accuracy", "annotated.jsonl"],
        [],
        ["reading annotated.jsonl", "accuracy per split and agreement"],
    ),
    "adjust": (
        ["adjust", "ner", "--split", "test", "--metric", "leakage_ratio", "--target", "0.2"]
        + ["-o", "p_adjust"],
        ["p_adjust"],
        ["reading ner", "building subsets of test for leakage_ratio", "writing p_adjust"],
    ),
    "artifacts": (
        ["artifacts", "--train", "train_pairs.jsonl", "--eval", "suite.jsonl"]
        + ["--text-a", "premise", "--text-b", "hypothesis", "--resamples", "100"],
        [],
        [
            "reading train_pairs.jsonl",
            "reading suite.jsonl",
            "hypothesis-only baseline: training, then 100 bootstrap resamples",
        ],
    ),
    "human": (
        ["human", "--suite", "suite.jsonl", "--annotations", "annotations.jsonl"]
        + ["--resamples", "100"],
        [],
        [
            "reading suite.jsonl",
            "reading annotations.jsonl",
            "agreement and R_K per annotator: 100 bootstrap resamples",
        ],
    ),
    "check-suite": (
        ["check-suite", "suite.jsonl"],
        [],
        ["reading suite.jsonl", "checking the suite's construction"],
    ),
    "diagnose": (
        ["diagnose", "--suite", "suite.jsonl", "--predictions", "base=preds.jsonl"]
        + ["--resamples", "100"],
        [],
        [
            "reading suite.jsonl",
            "reading the models' predictions",
            "R_K per phenomenon: 100 bootstrap resamples",
        ],
    ),
}

#: The MCQ forms of commands above (their own runs), checked the same way.
MCQ = ["--task", "mcq", "--answers", "mcq_answers.csv"]
VARIANTS: dict[str, tuple[list[str], list[str], list[str]]] = {
    "rerank mcq": (
        ["rerank", "--gold", "mcq_gold.jsonl", *MCQ, "--bootstrap", "100"],
        [],
        [
            "reading mcq_gold.jsonl",
            "reading the models' answers",
            "scoring the models on the original and reviewed keys",
            "paired bootstrap of neighbours' gaps: 100 resamples",
        ],
    ),
    "items mcq": (
        ["items", "mcq.jsonl", *MCQ, "--intersect", "--bootstrap", "100"],
        [],
        [
            "reading mcq.jsonl and the models' answers",
            "item analysis of 47 items × 14 models: 100 bootstrap resamples",
            "IRT fit (2pl)",
        ],
    ),
    "error-rate mcq": (
        ["error-rate", "mcq_gold.jsonl", "--task", "mcq"],
        [],
        ["reading mcq_gold.jsonl", "error rates, overall and per group"],
    ),
    "remedy mcq": (
        ["remedy", "mcq.jsonl", "--task", "mcq", "--gold", "mcq_gold.jsonl", "-o", "p_mcq"],
        ["p_mcq"],
        ["reading mcq.jsonl", "reading mcq_gold.jsonl", "writing p_mcq"],
    ),
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace(tmp_path_factory.mktemp("progress") / "ws")


def _run(argv, clear, folder: Path, capsys, monkeypatch, quiet: float) -> tuple[str, list[str]]:
    for name in clear:
        path = folder / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    monkeypatch.setattr(progress, "QUIET_SECONDS", quiet)
    capsys.readouterr()
    assert main(argv) == 0
    out, err = capsys.readouterr()
    steps = [_STAMP.sub("", line) for line in err.splitlines() if _STAMP.match(line)]
    return out, steps


@pytest.mark.parametrize("name", [*REPORTS, *VARIANTS])
def test_a_long_command_tells_its_steps_on_standard_error(name, workspace, capsys, monkeypatch):
    argv, clear, expected = {**REPORTS, **VARIANTS}[name]
    monkeypatch.chdir(workspace)
    quiet_out, quiet_steps = _run(argv, clear, workspace, capsys, monkeypatch, 1e9)
    out, steps = _run(argv, clear, workspace, capsys, monkeypatch, 0.0)
    assert quiet_steps == []  # within the quiet time: not a line
    assert steps == expected
    assert out == quiet_out  # the steps never reach standard output
    assert not _STAMP.search(out)


def _registered() -> set[str]:
    """Every command of the CLI, sub-commands as ``group name``."""
    import typer.main

    from benchcheck.cli import app

    group = typer.main.get_group(app)
    names = set()
    for name, cmd in group.commands.items():
        sub = getattr(cmd, "commands", None)
        if sub:
            names |= {f"{name} {s}" for s in sub}
        else:
            names.add(name)
    return names


def test_every_command_is_classified():
    """A new command must be measured: put it in FAST (with the size and seconds) or make it
    report its steps (REPORTS, with a test above)."""
    classified = set(FAST) | set(REPORTS) | REPORTED_ELSEWHERE
    assert _registered() == classified
    assert not set(FAST) & (set(REPORTS) | REPORTED_ELSEWHERE)


def test_on_a_terminal_a_transient_bar_is_drawn_and_erased(workspace, capsys, monkeypatch):
    """On a terminal: a bar with the step and the count (no log lines), erased at the end
    (the transient bar is gone before the result is printed on standard output)."""
    import io

    from rich.console import Console

    from benchcheck.cli import _common

    terminal = io.StringIO()
    console = Console(file=terminal, force_terminal=True, width=120, color_system=None)
    monkeypatch.setattr(_common, "console_err", console)
    monkeypatch.chdir(workspace)
    argv, _, _ = REPORTS["rank"]
    assert main(argv) == 0
    drawn = terminal.getvalue()
    out = capsys.readouterr().out
    assert "drawing plausible labelings" in drawn and "100/100" in drawn
    assert not any(_STAMP.match(line) for line in drawn.splitlines())
    assert drawn.endswith("\x1b[2K")  # the bar's line erased when the run ended
    assert "Leaderboard" in out and "drawing" not in out
