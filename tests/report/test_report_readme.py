"""The README's two commands: CI runs them as written; the audit part runs here as written.

The first README command (``./scripts/setup.sh && benchcheck audit -o report/``) installs
everything, which is too slow for a unit test; .ci/run executes it on a fresh machine. Here
we check that .ci/run really executes the README's first ``sh`` block, and run the
``benchcheck audit`` part exactly as written, in a scratch folder.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _readme_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block, "README.md has no ```sh block"
    return [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("#")]


def test_ci_runs_the_readme_block() -> None:
    lines = _readme_block()
    assert len(lines) == 2
    printed = subprocess.run(
        [sys.executable, ".ci/readme_commands.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert printed == lines
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    produce = re.search(r"python \.ci/readme_commands\.py > (\S+)", run)
    assert produce, ".ci/run must write the README's commands to a script"
    assert re.search(rf"^bash [^\n]*{re.escape(produce.group(1))}\s*$", run, re.M), (
        ".ci/run must execute the script it wrote"
    )
    assert "set -euo pipefail" in run
    # the setup step installs the browser the report tests need
    assert lines[0].startswith("./scripts/setup.sh")
    assert (ROOT / "scripts" / "setup.d" / "50-browser.sh").exists()
    assert "playwright" in (ROOT / "requirements" / "report.txt").read_text(encoding="utf-8")


def _main_job() -> list[str]:
    first = _readme_block()[0]
    job = first.split("&&")[-1].strip()
    argv = shlex.split(job)
    assert argv[:2] == ["benchcheck", "audit"], job
    return argv


@pytest.mark.slow  # runs the embedded judge; seconds once its cache is warm (CI order)
def test_readme_audit_command_as_written(tmp_path: Path) -> None:
    exe = shutil.which("benchcheck")
    if exe is None:
        pytest.skip("the benchcheck console script is not installed (pip install -e .)")
    argv = _main_job()
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    out = tmp_path / argv[argv.index("-o") + 1]
    for name in ("results.json", "report.html", "report.md"):
        assert (out / name).is_file(), name
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    status = {a["name"]: a for a in results["analyses"]}
    assert status["statistics"]["status"] == "ok"
    assert status["diagnostics"]["status"] == "ok"
    assert status["table statistics"]["status"] in ("ok", "skipped")
    # the judge runs when its model and engine are installed (scripts/setup.sh); if not,
    # the audit says why instead of failing
    label = status["label errors"]
    if label["status"] == "ok":
        assert (out / "flagged.jsonl").is_file() == bool(results["label_errors"]["files"])
    else:
        assert "unavailable" in label["detail"]
