"""Contamination on a local Ray cluster: the embedded engine's JSON, failing shards named.

Two real nodes on loopback: ``test_ray_cluster.py``.
"""

import json
import os

import numpy as np
import pytest
from _leakage_corpus import leakage_corpus as _corpus

from benchcheck.cli import main

ray = pytest.importorskip(
    "ray", reason="ray is not installed (pip install 'benchcheck[ray]' or requirements/ray.txt)"
)


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
