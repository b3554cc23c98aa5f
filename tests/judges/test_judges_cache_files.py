"""The judge cache refuses what is not its own file, with a message, never an sqlite traceback."""

from __future__ import annotations

import json
import math
import os
import re
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
    with pytest.raises(InputError, match="damaged .a stored judgement cannot be read back"):
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


# ----------------------------------------------------------------------------- issue 37


def _stored(path, key: str, payload: str) -> None:
    db = sqlite3.connect(path)
    db.execute("INSERT INTO judgements VALUES (?, '', '', '', ?, 0)", (key, payload))
    db.commit()
    db.close()


GOOD = {"labels": ["0", "1"], "probs": [0.3, 0.7], "logprobs": [-1.2, -0.4],
        "n_prompt_tokens": 3, "seconds": 0.1}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"probs": [5.0, -4.0]}, "not all in [0, 1]"),
        ({"probs": [-4.0, 5.0]}, "not all in [0, 1]"),
        ({"probs": [math.nan, 0.5]}, "not all in [0, 1]"),
        ({"probs": [math.inf, 0.0]}, "not all in [0, 1]"),
        ({"probs": [0.3]}, "2 labels but 1 probabilities"),
        ({"labels": ["0", "0"]}, "not distinct strings"),
        ({"logprobs": [math.nan, 0.0]}, "log-probability nan"),
        ({"n_prompt_tokens": -3}, "token count -3"),
        ({"seconds": math.inf}, "seconds inf"),
    ],
)
def test_rows_are_checked_when_read_as_when_stored(tmp_path, change, said):
    """get_many() applies put()'s rule: an impossible stored row is a damaged cache."""
    path = tmp_path / "c.sqlite"
    JudgeCache(path).close()
    _stored(path, "k", json.dumps({**GOOD, **change}))
    with JudgeCache(path) as c, pytest.raises(InputError) as err:
        c.get_many(["k"])
    text = str(err.value)
    assert str(path) in text and said in text and "remove it" in text, text
    with JudgeCache(path) as c, pytest.raises(JudgeError, match=re.escape(said)):
        c.put("k2", JudgeScore.from_json({**GOOD, **change}))


@pytest.mark.parametrize(
    "payload",
    [
        "[1, 2]",
        "null",
        '"x"',
        "1" * 5000,
        '{"probs": [' + "1" * 5000 + "]}",
        json.dumps({**GOOD, "probs": "01"}),
        json.dumps({**GOOD, "labels": "01"}),
    ],
)
def test_rows_that_are_not_scores(tmp_path, payload):
    path = tmp_path / "c.sqlite"
    JudgeCache(path).close()
    _stored(path, "k", payload)
    with JudgeCache(path) as c, pytest.raises(InputError, match="the judge cache is damaged"):
        c.get_many(["k"])


def test_good_rows_still_read(tmp_path):
    path = tmp_path / "c.sqlite"
    JudgeCache(path).close()
    _stored(path, "k", json.dumps(GOOD))
    with JudgeCache(path) as c:
        assert c.get_many(["k"])["k"].probs == (0.3, 0.7)


def _damage_a_page(path) -> None:
    """Fill a cache, fold its WAL in, then overwrite one page of the table's b-tree."""
    with JudgeCache(path) as c:
        for i in range(400):
            c.put(f"k{i:04d}", JudgeScore(("0", "1"), (0.5, 0.5), (-0.7, -0.7), 1, 0.0))
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("PRAGMA journal_mode=DELETE")
    db.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 6 * page
    data[3 * page : 4 * page] = b"\xa5" * page  # a b-tree page of the table, garbled
    path.write_bytes(bytes(data))


def test_a_damaged_page_is_one_line(tmp_path):
    path = tmp_path / "c.sqlite"
    _damage_a_page(path)
    with pytest.raises(InputError) as err:
        with JudgeCache(path) as c:
            c.get_many([f"k{i:04d}" for i in range(400)])
            len(c)
    assert str(path) in str(err.value) and "remove it" in str(err.value)


def test_judge_command_damaged_cache_is_one_line(tmp_path, capsys):
    """A damaged page met by ``judge``: exit 2, one line naming the cache, nothing written."""
    from judges_fault_server import FaultServer

    data = tmp_path / "d.jsonl"
    data.write_text("".join(
        json.dumps({"id": f"e{i}", "text_a": f"x{i}", "text_b": "y"}) + "\n" for i in range(5)
    ))  # fmt: skip
    cache = tmp_path / "c.sqlite"
    out = tmp_path / "j.parquet"
    argv = ["judge", str(data), "--text-a", "text_a", "--text-b", "text_b", "--judge",
            "openai:m", "--cache", str(cache), "-o", str(out)]  # fmt: skip
    with FaultServer() as server:
        assert main([*argv, "--base-url", server.base_url]) == 0
        db = sqlite3.connect(cache)
        db.execute("UPDATE judgements SET payload = replace(payload, '\"probs\": [', "
                   "'\"probs\": [5.0, ')")  # fmt: skip
        db.commit()
        db.close()
        capsys.readouterr()
        before = out.read_bytes()
        rc = main([*argv, "--base-url", server.base_url, "--force"])
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.startswith("error:")]
    assert rc == 2 and len(lines) == 1, err
    assert str(cache) in lines[0] and "damaged" in lines[0] and "Traceback" not in err
    assert out.read_bytes() == before  # the earlier output kept
