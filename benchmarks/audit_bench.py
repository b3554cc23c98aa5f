"""Start time of the command line, and the audit / report path, against a baseline checkout.

Times, in fresh processes (median of ``--repeat``), each path on the code under test (the
``benchcheck`` on ``PYTHONPATH``, or ``--src``) and, with ``--baseline-src``, on an earlier
checkout's ``src`` (e.g. ``git worktree add /tmp/base <commit>``), then prints the ratios
(current / baseline, of wall time and of CPU time; below 1 is faster):

1. ``benchcheck --help`` (every command registered);
2. ``benchcheck stats`` of the bundled NER sample (``--json``);
3. ``benchcheck audit --no-judge`` of the bundled samples (statistics, table statistics,
   diagnostics; the report folder written);
4. ``benchcheck report`` re-rendering that audit's ``results.json`` as HTML (the typed
   reading and the schema check included on code that has them);
5. ``benchcheck report`` of a large label-error section (``--flags`` examples, a real
   audit's results with the section added), HTML.

    python benchmarks/audit_bench.py --baseline-src /tmp/base/src [--repeat 5] [--flags 1000]

Both versions run with compiled bytecode cached (``PYTHONPYCACHEPREFIX`` in a temporary
folder, as an installed package has it), whatever ``PYTHONDONTWRITEBYTECODE`` says.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _harness import timed

#: Runs a command and prints the CPU seconds (user + system) it used: on a shared machine
#: they move far less with the load than wall time does.
_CPU = r"""
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True)
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": done.returncode, "cpu_s": use.ru_utime + use.ru_stime}))
"""


def cpu_seconds(cmd: list[str]) -> float:
    """CPU seconds (user + system) of ``cmd`` run in a fresh process."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", _CPU, *cmd], capture_output=True, text=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    if report["rc"] != 0:
        raise RuntimeError(f"{cmd} failed: {out.stderr[-2000:]}")
    return float(report["cpu_s"])


HERE = Path(__file__).resolve().parent


#: Where the benchmark's processes cache their bytecode (set in main).
PYCACHE: list[str] = []


def _cli(src: Path, *args: str) -> list[str]:
    """A ``benchcheck`` command run on the code in ``src`` (bytecode cached)."""
    code = "import sys; from benchcheck.cli import main; sys.exit(main(sys.argv[1:]))"
    env = ["env", "-u", "PYTHONDONTWRITEBYTECODE", f"PYTHONPATH={src}", *PYCACHE]
    return [*env, sys.executable, "-c", code, *args]


def _big_results(base: dict, n: int) -> dict:
    """``base`` (an audit's results.json) with a label-error section of ``n`` flags."""
    labels = ["0", "1"]
    examples = [
        {
            "rank": i + 1,
            "id": f"e{i}",
            "text_a": f"grounding {i} " + "word " * 40,
            "text_b": f"claim {i} " + "word " * 12,
            "label": "1",
            "llm_label": "0",
            "confidence": 0.99 - i / (2 * n),
            "error_score": 0.99 - i / (2 * n),
            "bin": "[0.95, 1]" if i < n // 10 else "[0.5, 0.6)",
            "p_0": 0.99 - i / (2 * n),
            "p_1": 0.01 + i / (2 * n),
        }
        for i in range(n)
    ]
    out = dict(base)
    out["label_errors"] = {
        "dataset": {"source": "big.jsonl", "n": 10 * n, "columns": {}},
        "judge": {"judge": "j", "weights_sha256": None, "prompts": ["nli"], "members": 1},
        "text_columns": ["text_a", "text_b"],
        "summary": {
            "n": 10 * n,
            "judged": 10 * n,
            "disagreements": n,
            "flagged": n,
            "flag_rate": 0.1,
            "threshold": 0.5,
            "flagged_by_bin": {"[0.5, 0.6)": n - n // 10, "[0.95, 1]": n // 10},
            "labels": labels,
        },
        "bins": [0.5, 0.6, 0.95, 1.0],
        "examples": examples,
        "examples_total": n,
        "files": ["flagged.csv", "flagged.jsonl"],
    }
    return out


def _commands(src: Path, work: Path, flags: int) -> dict[str, list[str]]:
    """Each path's command on the code in ``src``, its files in ``work`` (made here)."""
    from benchcheck.sample_data import NER_SAMPLE

    work.mkdir(parents=True, exist_ok=True)
    results = work / "audit" / "results.json"
    return {
        "--help": _cli(src, "--help"),
        "stats (NER sample)": _cli(
            src, "stats", str(NER_SAMPLE), "--json", str(work / "s.json"), "--force"
        ),
        "audit --no-judge (samples)": _cli(
            src, "audit", "--no-judge", "-o", str(work / "audit"), "--force"
        ),
        "report (samples)": _cli(
            src, "report", str(results), "-o", str(work / "again.html"), "--force"
        ),
        f"report ({flags} flags)": _cli(
            src, "report", str(work / "big.json"), "-o", str(work / "big.html"), "--force"
        ),
    }


def _prepare(commands: dict[str, list[str]], work: Path, flags: int) -> None:
    """Run the audit once and write the large results.json the last path renders."""
    timed(commands["audit --no-judge (samples)"])
    base = json.loads((work / "audit" / "results.json").read_text(encoding="utf-8"))
    (work / "big.json").write_text(json.dumps(_big_results(base, flags)), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--baseline-src", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--flags", type=int, default=1000)
    args = parser.parse_args()
    sys.path.insert(0, str(args.src))
    versions = {"now": args.src}
    if args.baseline_src is not None:
        versions["baseline"] = args.baseline_src
    walls: dict[str, dict[str, list[float]]] = {v: {} for v in versions}
    cpus: dict[str, dict[str, list[float]]] = {v: {} for v in versions}
    peaks: dict[str, dict[str, float]] = {v: {} for v in versions}
    with tempfile.TemporaryDirectory() as tmp:
        PYCACHE[:] = [f"PYTHONPYCACHEPREFIX={Path(tmp) / 'pycache'}"]
        commands = {}
        for version, src in versions.items():
            commands[version] = _commands(src, Path(tmp) / version, args.flags)
            _prepare(commands[version], Path(tmp) / version, args.flags)
        for name in commands["now"]:
            for _ in range(args.repeat):  # interleaved: load drifts alike for both
                for version in versions:
                    wall, peak, _out = timed(commands[version][name])
                    walls[version].setdefault(name, []).append(wall)
                    peaks[version][name] = max(peak, peaks[version].get(name, 0.0))
                    cpu = cpu_seconds(commands[version][name])
                    cpus[version].setdefault(name, []).append(cpu)
    rows = {}
    for name, now in walls["now"].items():
        cpu = statistics.median(cpus["now"][name])
        row = {"median_s": round(statistics.median(now), 3), "median_cpu_s": round(cpu, 3)}
        row["peak_rss_mb"] = round(peaks["now"][name])
        if "baseline" in walls:
            base = statistics.median(walls["baseline"][name])
            base_cpu = statistics.median(cpus["baseline"][name])
            row["baseline_median_s"] = round(base, 3)
            row["baseline_median_cpu_s"] = round(base_cpu, 3)
            row["ratio"] = round(statistics.median(now) / base, 3)
            row["cpu_ratio"] = round(cpu / base_cpu, 3)
            row["baseline_peak_rss_mb"] = round(peaks["baseline"][name])
        rows[name] = row
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    print(json.dumps({"repeat": args.repeat, "load_1min": load, "paths": rows}, indent=2))


if __name__ == "__main__":
    main()
