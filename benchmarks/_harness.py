"""What every benchmark script shares: timing a command in a fresh process, with its own peak.

``ru_maxrss`` of a child counts the pages it inherited at fork, so a large parent (one that
has just generated a corpus) inflates every child's figure. :func:`timed` therefore starts
the command from a small launcher process and reports the peak RSS of that command alone
(inflated by at most the launcher's own ~10 MB).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

_LAUNCHER = r"""
import json, os, resource, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
out, err = child.communicate()
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stderr.write(err.decode(errors="replace"))
print(json.dumps({"rc": child.returncode, "peak_kb": peak_kb, "stdout": out.decode(errors="replace")}))
"""


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB and stdout of ``cmd`` run in a fresh process.

    The wall time includes the launcher's start (a bare interpreter, ~20 ms), the same for
    every path compared.
    """
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *cmd], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - start
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if report["rc"] != 0:
        raise subprocess.CalledProcessError(report["rc"], cmd, report["stdout"], done.stderr)
    return wall, report["peak_kb"] / 1024, report["stdout"].strip()


def median_of(cmd: list[str], repeat: int) -> tuple[dict[str, float], str]:
    """Run ``cmd`` ``repeat`` times through :func:`timed`: median wall, max peak, last stdout."""
    walls, peaks = [], []
    out = ""
    for _ in range(repeat):
        wall, peak, out = timed(cmd)
        walls.append(wall)
        peaks.append(peak)
    return {"median_s": statistics.median(walls), "peak_rss_mb": max(peaks)}, out
