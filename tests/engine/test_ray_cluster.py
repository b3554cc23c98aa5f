"""Contamination on a real two-node Ray cluster on loopback (marker ``ray_cluster``).

A head and a second node, each its own ``ray start --block`` process with one CPU
(``_ray_nodes``): the tasks ran on both nodes (the node id each task reports), the JSON is the
embedded engine's, and a task whose worker is killed mid-shard is run again.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from _leakage_corpus import leakage_corpus as _corpus

from benchcheck.runs.leakage import LeakageEngine, run_leakage

ray = pytest.importorskip(
    "ray", reason="ray is not installed (pip install 'benchcheck[ray]' or requirements/ray.txt)"
)
pytestmark = pytest.mark.ray_cluster


#: The driver runs in a process of its own, as a user's would: this one may have started and
#: stopped local clusters already (the other Ray tests), and a driver's state does not
#: survive that reliably.
DRIVER = r"""
import json, sys
from benchcheck.engine.ray_leakage import scan_units_ray
from benchcheck.io.corpus import corpus_files, corpus_units
from benchcheck.metrics.contamination import DEFINITIONS, ScanOptions, build_index, leakage_result

address, test, corpus = sys.argv[1:]
texts = [json.loads(x)["text"] for x in open(test, encoding="utf-8")]
d = DEFINITIONS["llama2"].resolve([len(t.split()) for t in texts])
index = build_index(texts, n=d.n)
files = [str(f) for f in corpus_files(corpus)]
units = corpus_units(corpus_files(corpus), column="text", unit_mb=1)
read = {"column": "text", "id_column": None, "batch_mb": 1}
state, nodes, pids = scan_units_ray(index, ScanOptions(10, 4, 3), units, read=read, address=address)
ids = [json.loads(x)["id"] for x in open(test, encoding="utf-8")]
unit_files = [u.path for u in units]
result = leakage_result(index, state, d, ids=ids, unit_files=unit_files, files=files, max_matches=3)
print(json.dumps({"nodes": nodes, "pids": pids, "result": result.to_json()}))
"""


@pytest.fixture(scope="module")
def two_nodes():
    """A head and a second node on loopback (``_ray_nodes``) and their node ids."""
    pytest.importorskip("ray.data", reason="ray[data] is not installed")
    from _ray_nodes import two_nodes as cluster

    with cluster() as (address, env, procs):
        probe = (
            f"import json, ray; ray.init(address={address!r}, log_to_driver=False); "
            "print(json.dumps([n['NodeID'] for n in ray.nodes() if n['Alive']]))"
        )
        out = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
        )
        yield address, env, set(json.loads(out.stdout.strip().splitlines()[-1])), procs


def _drive(address: str, env: dict[str, str], folder: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, address, str(folder / "test.jsonl"), str(folder / "corpus")],
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _embedded(folder: Path) -> dict:
    engine = LeakageEngine(unit_mb=1, batch_mb=1)
    return run_leakage(folder / "test.jsonl", [str(folder / "corpus")], engine=engine).to_json()


def test_two_nodes_share_the_work(two_nodes, tmp_path):
    address, env, node_ids, _ = two_nodes
    _corpus(tmp_path / "corpus", np.random.default_rng(2))
    got = _drive(address, env, tmp_path)
    assert got["result"] == _embedded(tmp_path)
    # Checked by where the tasks ran: each returns its node's id.
    assert set(got["nodes"]) == node_ids and len(node_ids) == 2 and len(got["nodes"]) >= 4


def _descendants(roots: list[int]) -> set[int]:
    parent = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(stat.parent.name)] = int(fields[1])
    out, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        for child, par in parent.items():
            if par == p and child not in out:
                out.add(child)
                todo.append(child)
    return out


def _running_scan(roots: list[int]) -> int | None:
    for pid in _descendants(roots):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"ray::benchcheck_scan_unit" in cmd:
            return pid
    return None


def test_a_killed_worker_is_retried(two_nodes, tmp_path):
    """A task's worker killed mid-shard: Ray runs the task again, the result is the same."""
    address, env, _, procs = two_nodes
    _corpus(tmp_path / "corpus", np.random.default_rng(3), docs_per_shard=6000)
    killed = []

    def killer():
        for _ in range(2400):
            pid = _running_scan([p.pid for p in procs])
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.05)

    thread = threading.Thread(target=killer)
    thread.start()
    got = _drive(address, env, tmp_path)
    thread.join()
    assert killed and killed[0] not in got["pids"]  # its unit finished on another worker
    assert got["result"] == _embedded(tmp_path)
