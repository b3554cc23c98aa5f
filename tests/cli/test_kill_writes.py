"""SIGKILL a writing command mid-write: the final path holds the previous content or a whole file.

Every writing command of the sweep table (``_sweep.COMMANDS``) runs in a fresh process over
the outputs of an earlier run (``--force``) and is killed by ``SIGKILL`` at a point of its
write chosen with a seeded generator: when a file has been written completely but not yet
renamed into place (``fsync``), or just before one of its renames (``replace``). The kill
must happen (every output goes through :mod:`benchcheck.io.output`), and afterwards each
output is either its previous content or a complete file (parses whole). Two commands are
also killed by the clock while a large output grows (``flag -o`` on 150,000 examples and
``remedy``): the parent watches the temporary file and kills once it holds bytes. The next
run over the same paths succeeds and leaves no temporaries.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from _sweep import _SUFFIX, COMMANDS, PREVIOUS, build_workspace

_LAUNCHER = r"""
import os, signal, sys
import benchcheck.io.output as out
mode, at = sys.argv[1], int(sys.argv[2])
count = {"fsync": 0, "replace": 0}
real_fsync, real_replace = out._fsync_file, os.replace

def event(name):
    count[name] += 1
    if name == mode and count[name] == at:
        os.kill(os.getpid(), signal.SIGKILL)

def fsync(path):
    event("fsync")
    return real_fsync(path)

def replace(a, b):
    event("replace")
    return real_replace(a, b)

out._fsync_file = fsync
os.replace = replace
from benchcheck.cli import main
sys.exit(main(sys.argv[3:]))
"""

WRITING = [c for c in COMMANDS if c.outputs]


def _whole(path: Path) -> bool:
    """Whether ``path`` is its previous content or a complete file of its kind."""
    data = path.read_bytes()
    if data == PREVIOUS:
        return True
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            json.loads(data)
        elif suffix == ".jsonl":
            if data and not data.endswith(b"\n"):  # empty: a table without rows
                return False
            for line in data.splitlines():
                json.loads(line)
        elif suffix == ".parquet":
            pl.read_parquet(path)
        elif suffix in (".csv", ".tsv"):
            if data and not data.endswith(b"\n"):
                return False
            pl.read_csv(path, infer_schema=False)
        elif suffix in (".html",):
            return data.rstrip().endswith(b"</html>")
        elif suffix == ".md":
            return data.endswith(b"\n")
    except Exception:  # noqa: BLE001 - anything unreadable is a cut file
        return False
    return True


def _prepare(case_dir: Path, workspace: Path, cmd) -> tuple[list[str], dict[str, Path]]:
    """Copy the inputs into ``case_dir`` (relative paths) and leave earlier outputs there."""
    case_dir.mkdir(parents=True)
    shutil.copytree(workspace / "review", case_dir / "review")
    for shared in ("pb.jsonl", "results.json"):
        shutil.copy(workspace / shared, case_dir / shared)
    (case_dir / "ner").mkdir(exist_ok=True)
    paths = {}
    for slot in cmd.slots:
        src = workspace / slot.source
        name = slot.source if slot.source.startswith("review/") else f"in_{slot.name}"
        if src.is_dir():
            dst = case_dir / name
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst)
        else:
            dst = case_dir / (name if name.startswith("review/") else name + src.suffix)
            if not dst.exists():
                shutil.copy(src, dst)
        paths[slot.name] = str(dst.relative_to(case_dir))
    shutil.copy(workspace / "ner" / "test.txt", case_dir / "ner" / "test.txt")
    outputs = {}
    for name, kind in cmd.outputs.items():
        out = case_dir / f"{name}{_SUFFIX[name]}"
        if kind == "dir":
            out.mkdir()
            for produced in (
                "results.json",
                "report.html",
                "report.md",
                "cleaned.jsonl",
                "ablation_random.jsonl",
                "key.jsonl",
            ):
                (out / produced).write_bytes(PREVIOUS)
        elif kind == "file":
            out.write_bytes(PREVIOUS)
        outputs[name] = out
    names = {**paths, **{n: p.name for n, p in outputs.items()}, "server": "{server}"}
    return [a.format(**names) for a in cmd.argv] + ["--force"], outputs


def _check(outputs: dict[str, Path]) -> list[str]:
    bad = []
    for path in outputs.values():
        if not path.exists():
            continue  # nothing under the final name (a new folder never renamed into place)
        files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
        bad += [str(p) for p in files if not p.name.startswith(".") and not _whole(p)]
    return bad


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return build_workspace(tmp_path_factory.mktemp("kill") / "ws")


@pytest.fixture(scope="module")
def server():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "judges"))
    from judges_fault_server import FaultServer

    with FaultServer() as fault:
        yield fault.base_url


@pytest.mark.parametrize("cmd", WRITING, ids=[c.name for c in WRITING])
def test_sigkill_during_the_write(cmd, workspace, server, tmp_path):
    rng = random.Random(f"kill {cmd.name}")
    folder_out = any(kind != "file" for kind in cmd.outputs.values())
    mode = rng.choice(["fsync", "replace"])
    at = rng.randint(1, 3) if folder_out else 1
    argv, outputs = _prepare(tmp_path / "case", workspace, cmd)
    argv = [a.replace("{server}", server) for a in argv]
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, mode, str(at), *argv],
        cwd=tmp_path / "case",
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != -signal.SIGKILL and at > 1:  # fewer events than drawn: the first
        argv, outputs = _prepare(tmp_path / "again", workspace, cmd)
        argv = [a.replace("{server}", server) for a in argv]
        done = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, mode, "1", *argv],
            cwd=tmp_path / "again",
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == -signal.SIGKILL, (
        f"not killed at {mode}: the output bypassed benchcheck.io.output? rc="
        f"{done.returncode} {done.stderr[-500:]}"
    )
    assert _check(outputs) == []
    # the next run over the same paths completes and leaves no temporaries behind
    case = outputs[next(iter(outputs))].parent
    import contextlib
    import io
    import os

    from benchcheck.cli import main

    old = Path.cwd()
    os.chdir(case)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(argv) == 0
    finally:
        os.chdir(old)
    assert _check(outputs) == []
    left = [p.name for p in case.iterdir() if ".tmp-" in p.name]
    left += [
        p.name for o in outputs.values() if o.is_dir() for p in o.iterdir() if ".tmp-" in p.name
    ]
    assert left == []


def _big_case(folder: Path, n: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "labels"))
    from _labels_synth import make_case

    data, j, _, _ = make_case(n, flip_rate=0.2, seed=5, judges=("m",), prompts=("nli",))
    data.write_ndjson(folder / "data.jsonl")
    j.select("id", "judge", "prompt", "p_0", "p_1").write_parquet(folder / "j.parquet")


@pytest.mark.parametrize(
    ("argv", "target"),
    [
        (["flag", "j.parquet", "--data", "data.jsonl", "-o", "flags.jsonl"], "flags.jsonl"),
        (
            [
                "remedy",
                "data.jsonl",
                "--judgments",
                "j.parquet",
                "--min-confidence",
                "0.5",
                "-o",
                "out",
            ],
            "out",
        ),
    ],
    ids=["flag -o", "remedy"],
)
def test_sigkill_while_a_large_output_grows(argv, target, tmp_path):
    _big_case(tmp_path, 150_000)
    final = tmp_path / target
    if target == "out":
        final.mkdir()
        (final / "cleaned.jsonl").write_bytes(PREVIOUS)
        (final / "ablation_random.jsonl").write_bytes(PREVIOUS)
    else:
        final.write_bytes(PREVIOUS)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from benchcheck.cli import main; sys.exit(main(sys.argv[1:]))",
            *argv,
            "--force",
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # kill once a temporary of the output holds bytes: the writer is mid-write
    deadline = time.monotonic() + 120
    grown = False
    while time.monotonic() < deadline and proc.poll() is None:
        temps = [
            p
            for p in tmp_path.rglob("*")
            if ".tmp-" in str(p.relative_to(tmp_path)) and p.is_file()
        ]
        if any(p.stat().st_size > 64 * 1024 for p in temps):
            grown = True
            break
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert grown, "the write finished before it could be caught (make the input larger)"
    files = [p for p in final.rglob("*") if p.is_file()] if final.is_dir() else [final]
    assert all(p.read_bytes() == PREVIOUS or _whole(p) for p in files if not p.name.startswith("."))
    assert all(p.read_bytes() == PREVIOUS for p in files if not p.name.startswith("."))
