"""Generated decompression and dictionary bombs, one generator per format (issue 37, item 3).

Each draw builds a bomb of the format with a drawn size (rows, value width, line length)
and runs the command that reads it, in process, with the decoded-size bound set to 8 MiB
(``BENCHCHECK_MAX_READ_BYTES``). The contract: a reader that reads whole refuses with the
bound named once the *decoded* size passes it (whatever the file's size); a streaming
reader (leakage's corpus) reads it in batches and either succeeds or refuses a record
longer than a batch, naming its bound. Never a traceback, never anything written on a
refusal. Nested lists (MCQ option lists, a corpus text column of lists) and ``convert``
shards are formats of their own, and so are a saved Hugging Face folder's Arrow streams
(a text dictionary; plain text IPC-compressed), and a local folder read by
``datasets.load_dataset`` (``hf:FOLDER``: a ``.jsonl.gz``), and a Parquet file whose page
header declares more than its footer (``rows * width`` bytes). The full-size bombs of the
issue run in the replay under ``ulimit -v``.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest
from _replay import (
    deadline,
    dictionary_bomb,
    dishonest_parquet,
    nothing_written,
    ok,
    refused,
    repeated_lists,
    run,
    saved_hf_bomb,
    shard_bomb,
)
from _sweep import build_workspace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BOUND = 8 << 20


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace(tmp_path_factory.mktemp("bombs") / "ws")


def _table(ws: Path, rows: int, width: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    zeros = pa.array(np.zeros(rows, np.int32))
    text = pa.DictionaryArray.from_arrays(zeros, pa.array(["w" * width]))
    label = pa.DictionaryArray.from_arrays(zeros, pa.array(["pos"]))
    pq.write_table(pa.table({"text": text, "label": label}), ws / "b.parquet", store_schema=False)


FORMATS = (
    "parquet table",
    "parquet corpus",
    "gzip long line",
    "gzip blank lines",
    "DocBin",
    "parquet option lists",
    "convert shard",
    "parquet corpus list",
    "saved HF dictionary",
    "saved HF zstd",
    "hf:FOLDER gzip",
    "parquet dishonest header",
)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rows=st.integers(10_000, 400_000),
    width=st.integers(100, 3_000),
)
def test_bombs_of_each_format(workspace: Path, tmp_path_factory, fmt, rows, width) -> None:
    import shutil

    ws = tmp_path_factory.mktemp("b") / "ws"
    shutil.copytree(workspace, ws, symlinks=True)
    decoded = rows * width
    with pytest.MonkeyPatch.context() as mp, deadline(120):
        mp.setenv("BENCHCHECK_MAX_READ_BYTES", str(BOUND))
        if fmt == "parquet table":
            _table(ws, rows, width)
            argv = ("stats", "b.parquet", "--task", "classification")
            r = _checked(ws, argv, refuse=decoded > BOUND)
            if decoded > BOUND:
                refused(r, "b.parquet", "decodes to more than the bound of 8.0 MiB")
        elif fmt == "parquet corpus":
            dictionary_bomb(ws / "b.parquet", rows)
            ok(run(ws, "leakage", "--test", "test_items.jsonl", "--corpus", "b.parquet"))
        elif fmt == "gzip long line":
            line = b'{"text": "' + b"a" * decoded
            (ws / "b.jsonl.gz").write_bytes(gzip.compress(line, 1))
            argv = ("leakage", "--test", "test_items.jsonl", "--corpus", "b.jsonl.gz")
            r = _checked(ws, argv, refuse=True)
            why = "runs past" if decoded > 32 << 20 else "not JSON lines"
            refused(r, "b.jsonl.gz", why)
        elif fmt == "gzip blank lines":
            data = b"\n" * decoded + b'{"text": "x"}\n'
            (ws / "b.jsonl.gz").write_bytes(gzip.compress(data, 1))
            ok(run(ws, "leakage", "--test", "test_items.jsonl", "--corpus", "b.jsonl.gz"))
        elif fmt == "parquet option lists":  # rows questions of 20 options, width chars each
            import pyarrow as pa
            import pyarrow.parquet as pq

            decoded = rows * 20 * (width + 8)
            table = pa.table(
                {
                    "question": pa.array([f"q{i}?" for i in range(rows)]),
                    "choices": repeated_lists(rows, 20, "o" * width),
                    "answer": pa.array([0] * rows),
                }
            )
            pq.write_table(table, ws / "m.parquet", store_schema=False)
            r = _checked(ws, ("stats", "m.parquet", "--task", "mcq"), refuse=decoded > BOUND)
            if decoded > BOUND:
                refused(r, "m.parquet", "decodes to more than the bound of 8.0 MiB")
        elif fmt == "convert shard":  # two shards read at once: 4 MiB each
            shard_bomb(ws, rows)
            decoded = rows * (1_000 + 8 + 1 + 8 + 8 + 8)
            r = _checked(ws, ("stats", "s.parquet"), refuse=decoded > BOUND // 2)
            if decoded > BOUND // 2:
                refused(r, "part-00000.parquet", "decodes to more than the bound of 4.0 MiB")
        elif fmt == "parquet corpus list":
            import pyarrow as pa
            import pyarrow.parquet as pq

            lists = repeated_lists(rows // 100 + 1, 100, "w" * width)
            pq.write_table(pa.table({"text": lists}), ws / "b.parquet", store_schema=False)
            argv = ("leakage", "--test", "test_items.jsonl", "--corpus", "b.parquet")
            refused(_checked(ws, argv, refuse=True), "b.parquet", "holds list<")
        elif fmt == "saved HF dictionary":  # text and label, each row an index into one value
            saved_hf_bomb(ws / "hf", rows, width)
            decoded = rows * (width + 8) + rows * (3 + 8)
            argv = ("stats", "hf", "--task", "classification")
            r = _checked(ws, argv, refuse=decoded > BOUND)
            if decoded > BOUND:
                refused(r, "data-00000-of-00001.arrow", "the table decodes to more than the bound")
        elif fmt == "saved HF zstd":  # plain text, IPC-compressed in batches of 10,000 rows
            rows //= 10
            saved_hf_bomb(ws / "hf", rows, width, compression="zstd", dictionary=False)
            batches = [min(10_000, rows - start) for start in range(0, rows, 10_000)]
            decoded = sum(8 * (n + 1) + n * (width + 3) for n in batches)  # offsets + values
            argv = ("stats", "hf", "--task", "classification")
            r = _checked(ws, argv, refuse=decoded > BOUND)
            if decoded > BOUND:
                refused(r, "data-00000-of-00001.arrow", "(its buffers decompressed) decodes to")
        elif fmt == "hf:FOLDER gzip":  # rows / 10 lines, one token of width chars each
            import json

            import datasets

            mp.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path_factory.mktemp("cache"))
            line = json.dumps({"tokens": ["w" * width], "tags": ["O"]}).encode() + b"\n"
            (ws / "hub").mkdir()
            with gzip.open(ws / "hub" / "train.jsonl.gz", "wb", compresslevel=1) as fh:
                fh.write(line * (rows // 10))
            decoded = len(line) * (rows // 10)
            r = _checked(ws, ("stats", "hf:hub"), refuse=decoded > BOUND)
            if decoded > BOUND:
                refused(r, "train.jsonl.gz", "(decompressed) decodes to more than the bound")
            else:
                ok(r)
        elif fmt == "parquet dishonest header":  # the footer says 14 kB
            dishonest_parquet(ws / "d.parquet", min(decoded, 2**31 - 1))
            argv = ("stats", "d.parquet", "--task", "classification")
            r = _checked(ws, argv, refuse=True)
            if decoded > BOUND:
                refused(r, "d.parquet", "its page headers", "bound of 8.0 MiB")
            else:
                refused(r, "d.parquet", "a dishonest or damaged Parquet file", "the footer")
        else:
            (ws / "b.spacy").write_bytes(zlib.compress(b"\0" * decoded, 9))
            r = _checked(ws, ("stats", "--split", "test=b.spacy"), refuse=True)
            if "install" not in r.err:  # without the spacy extra: refused before reading
                why = "decodes to more than the bound" if decoded > BOUND else "DocBin"
                refused(r, "b.spacy", why)


def _checked(ws: Path, argv: tuple[str, ...], *, refuse: bool):  # noqa: ANN202
    if not refuse:
        r = run(ws, *argv)
        assert "Traceback" not in r.err, r.err[-500:]
        return r
    with nothing_written(ws):
        r = run(ws, *argv)
    refused(r)
    return r
