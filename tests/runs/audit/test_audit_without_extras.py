"""`benchcheck audit` with only `pip install .`: the judge and the tagger missing (issue 33, §10).

The optional packages are hidden from the import system (``sys.modules[name] = None`` makes
``import name`` raise ImportError, as in an environment without them). Every analysis that
needs neither still runs, and each skipped one says in one short line which extra adds it.
The real fresh-environment install is ``tests/test_user_install.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.errors import MissingExtraError
from benchcheck.runs.audit import AuditInputs, NerInput, TableInput, run_audit
from benchcheck.sample_data import NER_SAMPLE, PAIR_SAMPLE

PAIR = TableInput(str(PAIR_SAMPLE), Columns(text_a="grounding", text_b="generated_text"))
JUDGE_LINE = "label errors: no judge installed: pip install 'benchcheck[judge]'"
TAGGER_LINE = "ner label errors: no tagger installed: pip install 'benchcheck[ner]'"


@pytest.fixture
def no_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hide llama.cpp, cleanlab and CRFsuite, as in a plain `pip install .`."""
    for name in ("llama_cpp", "cleanlab", "sklearn_crfsuite"):
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            monkeypatch.delitem(sys.modules, loaded)
        monkeypatch.setitem(sys.modules, name, None)


def test_the_missing_extra_names_its_install_command() -> None:
    exc = MissingExtraError("llama_cpp", "judge")
    assert exc.install == "pip install 'benchcheck[judge]'"
    assert str(exc).endswith("install it with: pip install 'benchcheck[judge]'")


def test_pair_audit_without_the_judge_says_how_to_add_it(no_extras) -> None:
    report = run_audit(AuditInputs(table=PAIR))
    assert report.unavailable == (JUDGE_LINE,)
    assert "label_errors" not in report.results and report.flagged is None
    assert report.results["table_stats"]["task"] == "pair"  # the rest ran


def test_ner_audit_without_the_tagger_says_how_to_add_it(no_extras) -> None:
    report = run_audit(AuditInputs(ner=NerInput(str(NER_SAMPLE))))
    assert report.unavailable == (TAGGER_LINE,)
    assert "ner_label_errors" not in report.results
    assert report.results["stats"]["metrics"]  # the nine metrics ran


def test_cli_audit_of_the_samples_without_extras(
    no_extras, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's `benchcheck audit -o report/` with neither extra: exit 0, one line each."""
    out = tmp_path / "r"
    assert main(["audit", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.md", "results.json"]
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.splitlines()
    # each on a line of its own, whole, within 80 columns
    for want in (JUDGE_LINE, TAGGER_LINE):
        line = next(x for x in lines if want in x)
        assert len(line) <= 80, line
