"""The judge cache refuses what is not its own file, with a message, never an sqlite traceback."""

from __future__ import annotations

import math
import os
import sqlite3
import sys

import pytest

from benchcheck.cli import main
from benchcheck.errors import InputError, JudgeError
from benchcheck.judges.base import JudgeScore
from benchcheck.judges.cache import JudgeCache


def test_folder_given_as_the_cache(tmp_path):
    with pytest.raises(InputError, match="is a folder; the judge cache is one SQLite file"):
        JudgeCache(tmp_path)


def test_garbage_file(tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not an sqlite database, but it is long enough" * 20)
    with pytest.raises(InputError, match="not a readable judge cache .*file is not a database"):
        JudgeCache(path)
    assert path.read_bytes().startswith(b"this is not")  # left as it was


def test_truncated_cache(tmp_path):
    path = tmp_path / "c.sqlite"
    with JudgeCache(path) as c:
        for i in range(200):
            c.put(f"k{i}", JudgeScore(("0", "1"), (0.5, 0.5), (-0.7, -0.7), 1, 0.0))
    for name in os.listdir(tmp_path):  # fold the WAL in, then cut the file
        if name.endswith(("-wal", "-shm")):
            os.remove(tmp_path / name)
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\x00" * 50 + data[150 : len(data) // 3])
    with pytest.raises(InputError, match=r"c\.sqlite: "):
        c = JudgeCache(path)
        c.get_many([f"k{i}" for i in range(200)])


def test_sqlite_of_another_program(tmp_path):
    path = tmp_path / "app.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE users (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(
        InputError, match=r"an SQLite file of another program \(tables \['users'\]\)"
    ):
        JudgeCache(path)
    db = sqlite3.connect(path)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["users"]  # untouched
    db.close()
    db = sqlite3.connect(tmp_path / "j.sqlite")
    db.execute("CREATE TABLE judgements (k TEXT)")
    db.commit()
    db.close()
    with pytest.raises(InputError, match="its 'judgements' table has columns"):
        JudgeCache(tmp_path / "j.sqlite")


def test_damaged_payload_and_impossible_scores(tmp_path):
    c = JudgeCache(tmp_path / "c.sqlite")
    c._db.execute("INSERT INTO judgements VALUES ('k', '', '', '', '{\"probs\": ', 0)")
    with pytest.raises(InputError, match="a stored judgement cannot be read back"):
        c.get_many(["k"])
    for probs in ((math.nan, 0.5), (1.5, -0.5), (math.inf, 0.0)):
        with pytest.raises(JudgeError, match="refusing to cache an impossible score"):
            c.put("x", JudgeScore(("0", "1"), probs, (None, None), 1, 0.0))
    # a log-probability of -inf (probability 0) is possible, and stored
    assert c.put("y", JudgeScore(("0", "1"), (0.0, 1.0), (-math.inf, 0.0), 1, 0.0))
    assert c.get_many(["y"])["y"].logprobs == (-math.inf, 0.0)


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root writes anyway")
def test_read_only_cache(tmp_path):
    path = tmp_path / "c.sqlite"
    JudgeCache(path).close()
    path.chmod(0o444)
    with pytest.raises(InputError, match="read-only"):
        JudgeCache(path).put("k", JudgeScore(("0", "1"), (0.5, 0.5), (-0.7, -0.7), 1, 0.0))


def test_judge_command_names_the_cache(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "text_a": "x", "text_b": "y"}\n')
    cache = tmp_path / "cache"  # a folder given as the cache (outputs go beside it, not in it)
    cache.mkdir()
    rc = main(
        [
            "judge",
            str(data),
            "--text-a",
            "text_a",
            "--text-b",
            "text_b",
            "--cache",
            str(cache),
            "-o",
            str(tmp_path / "j.parquet"),
            "--judge",
            "openai:m",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "is a folder; the judge cache is one SQLite file" in err
    assert "Traceback" not in err and not (tmp_path / "j.parquet").exists()
