"""The Ray engine: block cuts anywhere give the embedded split; byte-identical JSON on Ray."""

import json
import os

import numpy as np
import polars as pl
import pytest
from _shard_corpus import _stats_text, _write_split_files  # noqa: I001
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.cli import main
from benchcheck.engine.ray_engine import assemble, build_block
from benchcheck.errors import BenchcheckError, UsageError
from benchcheck.io import shards
from benchcheck.io.convert import convert
from benchcheck.sample_data import NER_SAMPLE


def _same_split(a, b):
    assert a.table.equals(b.table.cast(a.table.schema))
    assert a.spans.cast({"type": pl.String}).equals(b.spans.cast({"type": pl.String}))
    assert a.spans["type"].dtype == b.spans["type"].dtype
    assert (a.scheme, a.tag_repairs, dict(a.scheme_violations)) == (
        b.scheme,
        b.tag_repairs,
        dict(b.scheme_violations),
    )


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_cuts=st.integers(0, 40), chunk=st.integers(30, 300))
def test_blocks_cut_anywhere(tmp_path_factory, seed, n_cuts, chunk):
    """Cut a split's token rows at random rows (mid-sentence too), in any block order."""
    rng = np.random.default_rng(seed)
    src = _write_split_files(tmp_path_factory.mktemp("c"), rng, sizes=(40, 1, 1))
    out = tmp_path_factory.mktemp("o") / "s"
    info = convert(src, out, chunk_bytes=chunk).splits["train"]
    rows = pl.concat([shards.read_shard(p) for p in info.shards])
    cuts = np.unique(rng.integers(0, rows.height + 1, size=n_cuts))
    bounds = np.r_[0, cuts, rows.height]
    blocks = [rows.slice(int(b), int(e - b)) for b, e in zip(bounds[:-1], bounds[1:], strict=True)]
    order = rng.permutation(len(blocks))
    parts = [p for k in order for p in build_block(blocks[k], name="train", source=info.source)]
    _same_split(shards.read_shard_split(info), assemble(parts, info))


def test_unforeseen_cut_raises(tmp_path):
    info = convert(NER_SAMPLE, tmp_path / "s").splits["train"]
    rows = shards.read_shard(info.shards[0])
    # A block that skips rows inside one sentence (ids and lines still rise): never silent.
    third = rows.filter(pl.col("sentence") == 3)
    assert third.height >= 3
    gap = pl.concat(
        [
            rows.filter(pl.col("sentence") < 3),
            third.head(1),
            third.tail(1),
            rows.filter(pl.col("sentence") > 3),
        ]
    )
    middle = third.slice(1, third.height - 2)
    parts = build_block(gap, name="train", source=info.source)
    parts += build_block(middle, name="train", source=info.source)
    with pytest.raises(BenchcheckError, match="block cut"):
        assemble(parts, info)


def test_engine_usage_errors(tmp_path, capsys):
    assert main(["stats", str(NER_SAMPLE), "--engine", "ray"]) == 2
    assert "--engine ray reads an NER shard folder" in capsys.readouterr().err
    assert main(["stats", str(NER_SAMPLE), "--engine", "spark"]) == 2
    assert "unknown engine" in capsys.readouterr().err
    out = tmp_path / "s"
    convert(NER_SAMPLE, out)
    from benchcheck.engine import load_with_engine

    with pytest.raises(UsageError, match="token table"):
        load_with_engine("ray", str(out), keep_tokens=True)


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip(
        "ray", reason="ray is not installed (pip install 'benchcheck[ray]' or requirements/ray.txt)"
    )
    pytest.importorskip("ray.data", reason="ray[data] is not installed")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_identical_json(ray_cluster, tmp_path):
    rng = np.random.default_rng(7)
    src = _write_split_files(tmp_path / "conll", rng, sizes=(150, 30, 40))
    out = tmp_path / "s.parquet"
    convert(src, out, chunk_bytes=400)  # several shards per split
    ray_json, emb_json, conll_json = (tmp_path / f"{k}.json" for k in ("ray", "emb", "conll"))
    assert main(["stats", str(out), "--engine", "ray", "--json", str(ray_json)]) == 0
    assert main(["stats", str(out), "--json", str(emb_json)]) == 0
    assert main(["stats", str(src), "--json", str(conll_json)]) == 0
    assert ray_json.read_bytes() == emb_json.read_bytes() == conll_json.read_bytes()
    assert json.loads(ray_json.read_text())["splits"]["train"]["n_instances"] == 150

    # Force small blocks: sentences straddle blocks, the result does not move.
    ctx = ray_cluster.data.DataContext.get_current()
    saved = ctx.target_max_block_size
    ctx.target_max_block_size = 2048
    try:
        from benchcheck.engine.ray_engine import read_shards_ray

        assert _stats_text(read_shards_ray(out)) == emb_json.read_text()
    finally:
        ctx.target_max_block_size = saved


def test_ray_strict_error_names_line(ray_cluster, tmp_path, capsys):
    src = tmp_path / "train.txt"
    src.write_text("a B-PER\nb I-PER\n\n" * 20 + "c O\nd I-LOC\n\n", encoding="utf-8")
    out = tmp_path / "s"
    convert(src, out, chunk_bytes=50)
    assert main(["stats", str(out), "--engine", "ray", "--strict", "--scheme", "iob2"]) == 2
    assert f"{src}:62: invalid IOB2 tag transition" in capsys.readouterr().err


@pytest.mark.slow
def test_ray_judge_same_scores_and_cache(ray_cluster, tmp_path):
    """llama.cpp actors via map_batches: the local judge's bits, cache served, resumable."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from benchcheck.engine.ray_judge import RayJudge
    from benchcheck.errors import JudgeUnavailable
    from benchcheck.judges.cache import JudgeCache
    from benchcheck.judges.llama_cpp import LlamaCppJudge
    from benchcheck.judges.prompts import select_prompts
    from benchcheck.judges.resolve import resolve_model
    from benchcheck.judges.run import judge_frame

    model = "qwen2.5-coder-0.5b-instruct"
    try:
        resolve_model(model)
    except JudgeUnavailable as exc:
        pytest.skip(f"offline model bundle not installed: {exc}")
    frame = pl.DataFrame(
        {
            "id": ["a", "b", "c"],
            "text_a": [
                "The bakery opens at seven.",
                "The bakery opens at seven.",
                "Omar grew beans.",
            ],
            "text_b": ["The bakery opens.", "The bakery is open at night.", "Omar grew nothing."],
        }
    )
    prompts = select_prompts("nli")
    options = {"n_threads": 1, "n_ctx": 512}
    local = LlamaCppJudge(model, **options)
    try:
        want = judge_frame(frame, [local], prompts)
        # Resumable: one judgement already stored (from the local judge: same identity).
        cache = JudgeCache(tmp_path / "c.sqlite")
        judge_frame(frame.head(1), [local], prompts, cache=cache)
    finally:
        local.close()
    remote = RayJudge(f"llama-cpp:{model}", actors=1, options=options)
    assert remote.identity == local.identity
    got = judge_frame(frame, [remote], prompts, cache=cache, batch_size=10**6)
    assert got["cached"].to_list() == [True, False, False]
    cols = ["id", "p_0", "p_1"]
    assert got.select(cols).equals(want.select(cols))
    again = judge_frame(frame, [remote], prompts, cache=cache, batch_size=10**6)
    assert again["cached"].to_list() == [True, True, True] and len(cache) == 3
    cache.close()


def test_unreachable_cluster_is_a_usage_error(monkeypatch):
    """ray.init's ConnectionError becomes one message and exit code 2, not a traceback."""
    import sys
    import types

    from benchcheck.engine.ray_engine import connect

    def refuse(**kwargs):
        raise ConnectionError(f"Failed to connect to Ray cluster at {kwargs.get('address')}")

    fake = types.ModuleType("ray")
    fake.is_initialized = lambda: False
    fake.init = refuse
    fake.data = types.ModuleType("ray.data")
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setitem(sys.modules, "ray.data", fake.data)
    with pytest.raises(UsageError, match="cannot start or join the Ray cluster at 10.0.0.9:6379"):
        connect("10.0.0.9:6379")


def test_ray_shards_measured_before_ray_starts(tmp_path, monkeypatch):
    """A shard past the decoded-size bound is refused by the embedded path's check, unread.

    Ray is never started: ``connect`` fails the test if it is reached.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from benchcheck.engine import ray_engine
    from benchcheck.errors import InputError

    out = tmp_path / "s"
    info = convert(NER_SAMPLE, out).splits["train"]
    rows = 50_000  # one 1,000-character token under 50,000 indices: 4 kB, 50 MB decoded
    zeros = pa.array(np.zeros(rows, np.int32))
    bomb = {
        "sentence": pa.array(np.arange(rows) // 10),
        "token": pa.DictionaryArray.from_arrays(zeros, pa.array(["w" * 1_000])),
        "tag": pa.DictionaryArray.from_arrays(zeros, pa.array(["O"])),
        "line": pa.array(np.arange(1, rows + 1)),
    }
    pq.write_table(pa.table(bomb), info.shards[0], compression="zstd", store_schema=False)
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(16 << 20))  # 8 MiB a shard
    monkeypatch.setattr(ray_engine, "connect", lambda *a: pytest.fail("Ray was started"))
    with pytest.raises(InputError) as info_:
        ray_engine.read_shards_ray(out)
    assert str(info_.value) == (
        f"{info.shards[0]}: the table decodes to more than the bound of 8.0 MiB "
        "(half the free memory; BENCHCHECK_MAX_READ_BYTES sets it)"
    )
    # the embedded reader refuses the same shard with the same line
    with pytest.raises(InputError) as embedded:
        shards.read_shard(info.shards[0])
    assert str(embedded.value) == str(info_.value)
