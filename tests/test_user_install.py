"""The README's user path in a fresh virtual environment (issue 33, §10; marker ``slow``).

``pip install .`` of this checkout into a new virtual environment — no extra, nothing of the
test environment visible — then ``benchcheck audit -o r/`` from an empty folder, as a user
would: exit 0, the three report files, every analysis that needs no judge run, and one line
each saying how to add the judge and the NER tagger; no traceback. Minutes (the core's wheels
are ~200 MB): runs only with BENCHCHECK_INSTALL=1 (``.ci/run`` sets it). With
BENCHCHECK_WHEELHOUSE=DIR it installs offline, ``--no-index --find-links DIR`` (a folder made
by ``pip wheel . -w DIR``); else from the package index pip is configured with.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("BENCHCHECK_INSTALL") != "1",
        reason="installs benchcheck into a fresh virtual environment: BENCHCHECK_INSTALL=1",
    ),
]


def _checkout_copy(target: Path) -> Path:
    """The files `pip install .` reads (a copy: a build never writes into the checkout)."""
    shutil.copytree(
        ROOT,
        target,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "*.egg-info", "build", "dist", "__pycache__", "_data", "_artifacts"
        ),
    )
    return target


@pytest.fixture(scope="module")
def fresh_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    scratch = tmp_path_factory.mktemp("user-install")
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    source = _checkout_copy(scratch / "src")
    offline = os.environ.get("BENCHCHECK_WHEELHOUSE")
    where = ["--no-index", "--find-links", offline] if offline else []
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *where, str(source)],
        check=True,
        env=env,
        cwd=scratch,
    )
    return venv / "bin"


def _clean_env(bin_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "80"
    return env


def test_the_fresh_environment_has_no_extra(fresh_bin: Path) -> None:
    code = (
        "import importlib.util as u, benchcheck, json; "
        "print(json.dumps([benchcheck.__file__, "
        "[m for m in ('llama_cpp', 'cleanlab', 'sklearn_crfsuite', 'torch', 'pytest') "
        "if u.find_spec(m)]]))"
    )
    out = subprocess.run(
        [str(fresh_bin / "python"), "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env(fresh_bin),
        cwd=fresh_bin,
    ).stdout
    where, present = json.loads(out)
    assert str(fresh_bin.parent) in where  # the installed copy, not this checkout
    assert present == []


def test_audit_without_the_judge_extra(fresh_bin: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [str(fresh_bin / "benchcheck"), "audit", "-o", "r/"],
        capture_output=True,
        text=True,
        env=_clean_env(fresh_bin),
        cwd=tmp_path,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "report.html",
        "report.md",
        "results.json",
    ]
    results = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    # every analysis of the bundled samples that needs no judge and no tagger ran
    for key in ("stats", "table_stats", "diagnostics"):
        assert key in results, key
    assert "label_errors" not in results and "ner_label_errors" not in results
    lines = run.stderr.splitlines()
    judge = [x for x in lines if "label errors: no judge installed" in x]
    assert judge and judge[0].endswith("pip install 'benchcheck[judge]'"), run.stderr
    tagger = [x for x in lines if "ner label errors: no tagger installed" in x]
    assert tagger and tagger[0].endswith("pip install 'benchcheck[ner]'"), run.stderr
