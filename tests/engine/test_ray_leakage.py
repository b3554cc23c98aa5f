"""Contamination on Ray: the embedded engine's JSON, shards named when they fail, two nodes.

The multi-node test starts a real cluster on loopback — a head and a second node, each its
own ``ray start --block`` process with one CPU — and checks that the tasks ran on both nodes
(the node id each task reports) and that a task whose worker is killed is run again.
"""

import gzip
import json
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from benchcheck.cli import main
from benchcheck.runs.leakage import LeakageEngine, run_leakage

ray = pytest.importorskip(
    "ray", reason="ray is not installed (pip install 'benchcheck[ray]' or requirements/ray.txt)"
)


def _corpus(folder: Path, rng: np.random.Generator, *, docs_per_shard=400, words=60) -> Path:
    """Random shards in every format, with copies and pieces of the test items planted."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = np.array([f"w{k}" for k in range(500)])
    items = [" ".join(rng.choice(vocab, 40)) for _ in range(30)]
    (folder.parent / "test.jsonl").write_text(
        "".join(json.dumps({"id": f"t{k}", "text": t}) + "\n" for k, t in enumerate(items))
    )

    def shard(k):
        docs = [" ".join(rng.choice(vocab, words)) for _ in range(docs_per_shard)]
        for j in range(0, docs_per_shard, 37):
            toks = items[(j + k) % 30].split()
            a = int(rng.integers(0, 25))
            docs[j] = f"x {' '.join(toks[a : a + 15 + j % 20])} y " + docs[j]
        return docs

    pl.DataFrame({"text": shard(0)}).write_parquet(folder / "a.parquet", row_group_size=100)
    rows = "".join(json.dumps({"text": d}) + "\n" for d in shard(1)).encode()
    (folder / "b.jsonl.gz").write_bytes(gzip.compress(rows))
    with (
        pa.OSFile(str(folder / "c.jsonl.zst"), "wb") as f,
        pa.CompressedOutputStream(f, "zstd") as z,
    ):
        z.write("".join(json.dumps({"text": d}) + "\n" for d in shard(2)).encode())
    pl.DataFrame({"text": shard(3)}).write_parquet(folder / "d.parquet")
    return folder


@pytest.fixture(scope="module")
def local_ray():
    pytest.importorskip("ray.data", reason="ray[data] is not installed")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_gives_the_embedded_json(local_ray, tmp_path):
    corpus = _corpus(tmp_path / "corpus", np.random.default_rng(0))
    base = ["leakage", "--test", str(tmp_path / "test.jsonl"), "--corpus", str(corpus)]
    base += ["--near-threshold", "0.5", "--batch-mb", "1"]
    assert main([*base, "--json", str(tmp_path / "e.json")]) == 0
    assert main([*base, "--engine", "ray", "--json", str(tmp_path / "r.json")]) == 0
    assert (tmp_path / "e.json").read_bytes() == (tmp_path / "r.json").read_bytes()
    payload = json.loads((tmp_path / "e.json").read_text())
    assert payload["corpus"]["documents"] == 1600 and payload["buckets"]["dirty"] > 0


def test_a_failing_shard_is_named(local_ray, tmp_path, capsys):
    corpus = _corpus(tmp_path / "corpus", np.random.default_rng(1))
    data = (corpus / "b.jsonl.gz").read_bytes()
    (corpus / "b.jsonl.gz").write_bytes(data[: len(data) // 2])
    argv = ["leakage", "--test", str(tmp_path / "test.jsonl"), "--corpus", str(corpus)]
    assert main([*argv, "--engine", "ray", "--json", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert f"{corpus / 'b.jsonl.gz'}: compressed stream cut short" in err
    assert "(failed on both attempts on Ray)" in err and not (tmp_path / "r.json").exists()


# ----------------------------------------------------------------- two nodes on loopback


@pytest.fixture(scope="module")
def two_nodes():
    """A head and a second node on loopback (``_ray_nodes``), this process their driver."""
    pytest.importorskip("ray.data", reason="ray[data] is not installed")
    from _ray_nodes import two_nodes as cluster

    if ray.is_initialized():
        ray.shutdown()
    saved = dict(os.environ)
    with cluster() as (address, env, procs):
        os.environ.update(env)
        try:
            ray.init(address=address, log_to_driver=False)
            alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
            yield address, alive, procs
        finally:
            ray.shutdown()
            os.environ.clear()
            os.environ.update(saved)


@pytest.mark.ray_cluster
def test_two_nodes_share_the_work(two_nodes, tmp_path):
    address, node_ids, _ = two_nodes
    corpus = _corpus(tmp_path / "corpus", np.random.default_rng(2))
    test = tmp_path / "test.jsonl"
    embedded = run_leakage(test, [str(corpus)])
    engine = LeakageEngine("ray", address=address, unit_mb=1)
    on_ray = run_leakage(test, [str(corpus)], engine=engine)
    assert on_ray.to_json() == embedded.to_json()
    # Checked by where the tasks ran: each returns its node's id.
    assert set(on_ray.nodes) == node_ids and len(on_ray.nodes) >= 4


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


@pytest.mark.ray_cluster
def test_a_killed_worker_is_retried(two_nodes, tmp_path):
    """A task's worker killed mid-shard: Ray runs the task again, the result is the same."""
    from benchcheck.engine.ray_leakage import scan_units_ray
    from benchcheck.io.corpus import corpus_files, corpus_units
    from benchcheck.metrics.contamination import ScanOptions, build_index

    address, _, procs = two_nodes
    corpus = _corpus(tmp_path / "corpus", np.random.default_rng(3), docs_per_shard=6000)
    texts = [json.loads(x)["text"] for x in (tmp_path / "test.jsonl").read_text().splitlines()]
    index = build_index(texts, n=10)
    units = corpus_units(corpus_files(corpus), column="text")
    opts = ScanOptions(10, 4, 3)
    read = {"column": "text", "id_column": None, "batch_mb": 1}
    killed = []

    def killer():
        for _ in range(1200):
            pid = _running_scan([p.pid for p in procs])
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.05)

    thread = threading.Thread(target=killer)
    thread.start()
    state, _, pids = scan_units_ray(index, opts, units, read=read, address=address)
    thread.join()
    assert killed and killed[0] not in pids  # the unit finished on another worker
    from benchcheck.io.corpus import read_unit
    from benchcheck.metrics.contamination import ScanState
    from benchcheck.metrics.contamination.scan import scan_batches

    want = ScanState.empty(index)
    for unit in units:
        want.merge(scan_batches(index, opts, read_unit(unit, **read), unit=unit.index), 3)
    assert np.array_equal(state.covered, want.covered) and state.documents == want.documents
    assert state.match_ids == want.match_ids
    assert all(np.array_equal(state.matches[k], want.matches[k]) for k in want.matches)
