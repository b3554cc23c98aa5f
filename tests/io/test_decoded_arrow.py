"""Saved Hugging Face folders (Arrow IPC streams) bounded by decoded size (issue 37, item 3).

The measure is checked against what pyarrow itself decodes (buffer sizes after reading),
and the refusal exactly at the bound; the issue's full-size bombs run in the replay.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from benchcheck.errors import InputError
from benchcheck.io._decoded import bound_words
from benchcheck.io._decoded_arrow import (
    check_arrow_decoded,
    check_saved_hf_decoded,
    declared_nbytes,
    saved_hf_files,
)
from benchcheck.io.tables import read_hf_text

STRING = {"dtype": "string", "_type": "Value"}


def saved(folder, batches, *, compression=None) -> None:
    """Write ``batches`` as a ``save_to_disk`` folder (one Arrow stream, its bookkeeping)."""
    folder.mkdir(parents=True)
    name = "data-00000-of-00001.arrow"
    options = pa.ipc.IpcWriteOptions(compression=compression)
    with pa.ipc.new_stream(str(folder / name), batches[0].schema, options=options) as writer:
        for batch in batches:
            writer.write_batch(batch)
    features = {field.name: STRING for field in batches[0].schema}
    (folder / "dataset_info.json").write_text(json.dumps({"features": features}))
    state = {"_data_files": [{"filename": name}], "_fingerprint": "t", "_split": None}
    state.update(_format_columns=None, _format_kwargs={}, _format_type=None)
    (folder / "state.json").write_text(json.dumps({**state, "_output_all_columns": False}))


def texts(rows: int, width: int, *, dictionary: bool) -> pa.RecordBatch:
    """``rows`` rows of one ``width``-character text and the label ``pos``."""
    zeros = pa.array(np.zeros(rows, np.int32))
    text, label = pa.array(["w" * width]), pa.array(["pos"])
    if dictionary:
        cols = {
            "text": pa.DictionaryArray.from_arrays(zeros, text),
            "label": pa.DictionaryArray.from_arrays(zeros, label),
        }
    else:
        cols = {"text": text.take(zeros), "label": label.take(zeros)}
    return pa.record_batch(cols)


def buffer_bytes(path) -> int:
    """What pyarrow decodes the stream to: every buffer's size after reading it whole."""
    table = pa.ipc.open_stream(pa.memory_map(str(path))).read_all()
    return sum(b.size for col in table.columns for ch in col.chunks for b in ch.buffers() if b)


@pytest.mark.parametrize("compression", ["zstd", "lz4", None])
def test_declared_lengths_are_what_pyarrow_decompresses(tmp_path, compression):
    batches = [texts(3_000, 700, dictionary=False), texts(5, 3, dictionary=False)]
    saved(tmp_path / "hf", batches, compression=compression)
    path = tmp_path / "hf" / "data-00000-of-00001.arrow"
    messages = list(pa.ipc.MessageReader.open_stream(pa.memory_map(str(path))))
    assert sum(declared_nbytes(m) for m in messages) == buffer_bytes(path)
    if compression:
        assert path.stat().st_size * 50 < buffer_bytes(path)


def test_a_text_dictionary_counts_each_index_times_its_value(tmp_path):
    saved(tmp_path / "hf", [texts(1_000, 1_000, dictionary=True)])
    # by hand: text 1,000 x (1,000 characters + an 8-byte offset); label 1,000 x (3 + 8)
    assert check_saved_hf_decoded(tmp_path / "hf") == 1_000 * 1_008 + 1_000 * 11


def test_refused_one_byte_past_the_decoded_size_and_read_at_it(tmp_path, monkeypatch):
    saved(tmp_path / "hf", [texts(20_000, 1_000, dictionary=True)], compression="zstd")
    size = 20_000 * (1_008 + 11)
    assert sum(f.stat().st_size for f in (tmp_path / "hf").iterdir()) < 5_000
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(size - 1))
    with pytest.raises(InputError) as info:
        read_hf_text(tmp_path / "hf", task="classification")
    assert str(info.value) == (
        f"{tmp_path / 'hf' / 'data-00000-of-00001.arrow'}: the table decodes to more than "
        f"the bound of {bound_words(size - 1)}"
    )
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(size))
    split = read_hf_text(tmp_path / "hf", task="classification")["train"]
    assert split.table.height == 20_000 and split.table["text"][0] == "w" * 1_000


def test_compressed_stream_refused_before_it_is_decompressed(tmp_path, monkeypatch):
    saved(tmp_path / "hf", [texts(10_000, 1_000, dictionary=False)] * 3, compression="zstd")
    path = tmp_path / "hf" / "data-00000-of-00001.arrow"
    with pytest.raises(InputError, match=r"its buffers decompressed\) decodes to more than"):
        check_arrow_decoded(path, limit=buffer_bytes(path) - 1)
    monkeypatch.setattr(pa.ipc, "open_stream", None)  # refused by step 1: nothing decoded
    with pytest.raises(InputError, match="the bound of 1.0 MiB"):
        check_arrow_decoded(path, limit=1 << 20)


def test_a_dataset_dict_counts_its_splits_together(tmp_path):
    for split in ("train", "test"):
        saved(tmp_path / "hf" / split, [texts(1_000, 1_000, dictionary=True)])
    (tmp_path / "hf" / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    assert [f.parent.name for f in saved_hf_files(tmp_path / "hf")] == ["train", "test"]
    one = 1_000 * (1_008 + 11)
    assert check_saved_hf_decoded(tmp_path / "hf") == 2 * one
    with pytest.raises(InputError) as info:
        check_saved_hf_decoded(tmp_path / "hf", limit=2 * one - 1)
    assert str(info.value).startswith(f"{tmp_path / 'hf' / 'test' / 'data-00000-of-00001.arrow'}:")


def test_a_folder_datasets_wrote_reads_as_before(tmp_path):
    datasets = pytest.importorskip("datasets")
    data = {"text": ["good film", "bad film", "fine"], "label": ["pos", "neg", "pos"]}
    datasets.Dataset.from_dict(data).save_to_disk(str(tmp_path / "hf"))
    (path,) = saved_hf_files(tmp_path / "hf")
    table = pa.ipc.open_stream(pa.memory_map(str(path))).read_all()
    assert check_saved_hf_decoded(tmp_path / "hf") == table.nbytes  # pyarrow's own count
    split = read_hf_text(tmp_path / "hf", task="classification")["train"]
    assert split.table["text"].to_list() == data["text"]


def test_a_damaged_stream_is_one_input_error(tmp_path):
    saved(tmp_path / "hf", [texts(100, 10, dictionary=False)], compression="zstd")
    path = tmp_path / "hf" / "data-00000-of-00001.arrow"
    path.write_bytes(path.read_bytes()[:300])
    with pytest.raises(InputError, match="cannot read as an Arrow stream"):
        check_saved_hf_decoded(tmp_path / "hf")
