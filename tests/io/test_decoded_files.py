"""Local folders read by ``datasets.load_dataset`` bounded by decoded size (issue 37, item 3).

Expected sizes are the bytes written before compressing, the files' sizes on disk, or what
pyarrow itself reads back; the issue's bombs run in the replay.
"""

from __future__ import annotations

import bz2
import gzip
import lzma

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchcheck.errors import InputError
from benchcheck.io._decoded import check_parquet_decoded
from benchcheck.io._decoded_arrow import check_arrow_decoded
from benchcheck.io._decoded_files import check_compressed_decoded, check_data_files_decoded

pytest.importorskip("datasets")

from benchcheck.io.hf import local_data_files, read_hf_hub  # noqa: E402

RAW = b"".join(b'{"tokens": ["w%d"], "tags": ["O"]}\n' % i for i in range(3_000))
PART = RAW[: RAW.rindex(b"\n", 0, 5_000) + 1]  # whole lines


def _zstd(path, data) -> None:
    with pa.CompressedOutputStream(str(path), "zstd") as out:
        out.write(data)


WRITERS = {
    "gzip": lambda p, d: p.write_bytes(gzip.compress(d) + gzip.compress(d[:10])),  # 2 members
    "bz2": lambda p, d: p.write_bytes(bz2.compress(d)),
    "xz": lambda p, d: p.write_bytes(lzma.compress(d)),
    "zstd": _zstd,
}


@pytest.mark.parametrize("codec", sorted(WRITERS))
def test_a_compressed_file_counts_what_it_inflates_to_and_is_refused_one_byte_past(tmp_path, codec):
    path = tmp_path / "t.jsonl.z"
    WRITERS[codec](path, RAW)
    size = len(RAW) + (10 if codec == "gzip" else 0)
    assert check_compressed_decoded(path, codec, limit=size) == size
    assert check_compressed_decoded(path, codec, limit=size + 7, used=7) == size + 7
    with pytest.raises(InputError, match=r"t\.jsonl\.z: the file \(decompressed\) decodes"):
        check_compressed_decoded(path, codec, limit=size - 1)


def test_a_damaged_stream_is_one_input_error(tmp_path):
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(gzip.compress(RAW)[:200])
    with pytest.raises(InputError, match="bad.jsonl.gz: cannot decompress as gzip"):
        check_compressed_decoded(path, "gzip", limit=1 << 30)


def test_parquet_counts_after_the_bytes_already_used(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"text": ["ab" * 50] * 100, "n": np.arange(100)}), path)
    alone = check_parquet_decoded(path, limit=1 << 30)
    assert check_parquet_decoded(path, limit=1 << 30, used=1_000) == alone + 1_000
    with pytest.raises(InputError, match="decodes to more than the bound of 20,000 bytes"):
        check_parquet_decoded(path, limit=20_000, used=20_000 - alone + 1)


def test_an_arrow_ipc_file_is_measured_like_the_same_stream(tmp_path):
    zeros = pa.array(np.zeros(1_000, np.int32))
    text = pa.DictionaryArray.from_arrays(zeros, pa.array(["w" * 100]))
    batch = pa.record_batch({"text": text})
    stream, file = tmp_path / "s.arrow", tmp_path / "f.arrow"
    with pa.ipc.new_stream(str(stream), batch.schema) as writer:
        writer.write_batch(batch)
    with pa.ipc.new_file(str(file), batch.schema) as writer:
        writer.write_batch(batch)
    # decoded: 1,000 values of 100 chars and 1,000 offsets of 8 bytes (decoded_nbytes's rule)
    assert check_arrow_decoded(file, limit=1 << 30) == 1_000 * 100 + 8 * 1_000
    assert check_arrow_decoded(stream, limit=1 << 30) == 1_000 * 100 + 8 * 1_000
    with pytest.raises(InputError, match="f.arrow: the table decodes"):
        check_arrow_decoded(file, limit=1_000 * 108 - 1)


def _folder(tmp_path):
    folder = tmp_path / "hub"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "train.jsonl").write_bytes(RAW)
    (folder / "data" / "test.jsonl.gz").write_bytes(gzip.compress(PART))
    return folder


def test_the_loader_s_own_files_are_listed_and_counted_together(tmp_path):
    folder = _folder(tmp_path)
    files = local_data_files(str(folder))
    assert sorted(f.name for f in files) == ["test.jsonl.gz", "train.jsonl"]
    total = len(RAW) + len(PART)  # the plain file by its size, the gzip one decompressed
    assert check_data_files_decoded(files, limit=total) == total
    with pytest.raises(InputError, match="decodes to more than the bound of"):
        check_data_files_decoded(files, limit=total - 1)
    assert local_data_files("no-such-folder-here") == []


def test_a_local_folder_past_the_bound_is_refused_before_load_dataset_runs(tmp_path, monkeypatch):
    import datasets

    folder = _folder(tmp_path)
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(len(RAW) + len(PART) - 1))
    called = []
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: called.append(a))
    with pytest.raises(InputError, match=r"test\.jsonl\.gz: the file \(decompressed\)"):
        read_hf_hub(str(folder))
    assert called == []
    monkeypatch.undo()  # at the bound exactly: read, by load_dataset itself
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(len(RAW) + len(PART)))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    read = read_hf_hub(str(folder))
    assert sorted(read.split_names) == ["test", "train"]
