"""The judgement cache: keys, WAL, and a run killed mid-way then resumed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchcheck.judges.base import JudgeScore
from benchcheck.judges.cache import JudgeCache, default_cache_path, example_hash
from benchcheck.judges.prompts import BUILTIN_PROMPTS

WORKER = Path(__file__).with_name("judges_resume_worker.py")


def test_default_path_is_under_user_cache_dir():
    import platformdirs

    assert default_cache_path().parent == Path(platformdirs.user_cache_dir("benchcheck"))


def test_wal_and_round_trip(tmp_path):
    with JudgeCache(tmp_path / "c.sqlite") as c:
        mode = c._db.execute("PRAGMA journal_mode").fetchone()[0]
        s = JudgeScore(
            ("a", "b", "c"), (0.2, 0.3, 0.5), (-1.0, None, -0.1), 7, 0.25, (("n_evaluated", 3),)
        )
        assert c.put("k", s)
        assert c.get_many(["k", "missing"]) == {"k": s}
    assert mode == "wal"


@given(st.dictionaries(st.sampled_from(["text", "text_a", "text_b"]), st.text(), min_size=1))
def test_example_hash_depends_on_content_only(fields):
    assert example_hash(fields) == example_hash(dict(reversed(list(fields.items()))))
    changed = {k: v + "x" for k, v in fields.items()}
    assert example_hash(changed) != example_hash(fields)


def test_key_changes_with_each_part():
    t1 = BUILTIN_PROMPTS["nli"].template_hash
    t2 = BUILTIN_PROMPTS["nli"].with_verbalisers(["A", "B"]).template_hash
    assert t1 != t2
    k = JudgeCache.key("j", t1, "e")
    assert (
        len(
            {
                k,
                JudgeCache.key("j2", t1, "e"),
                JudgeCache.key("j", t2, "e"),
                JudgeCache.key("j", t1, "e2"),
            }
        )
        == 4
    )


def _stored_ids(cache_path: Path) -> int:
    with sqlite3.connect(cache_path) as db:
        return db.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]


def test_killed_run_resumes_without_recomputing_or_losing(tmp_path):
    n = 150
    cache_path, log1, log2 = tmp_path / "c.sqlite", tmp_path / "run1.log", tmp_path / "run2.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(cache_path), str(log1), str(n)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not (log1.exists() and len(log1.read_text().splitlines()) >= 40):
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)  # no clean-up of any kind
    proc.wait()
    stored_after_kill = _stored_ids(cache_path)
    computed_run1 = log1.read_text().splitlines()
    assert 39 <= stored_after_kill < n
    # every stored result was computed; at most the one in flight was computed but not stored
    assert len(computed_run1) - stored_after_kill in (0, 1)

    done = subprocess.run(
        [sys.executable, str(WORKER), str(cache_path), str(log2), str(n)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.split() == [str(n), str(stored_after_kill)]  # rows, served from cache
    computed_run2 = log2.read_text().splitlines()
    assert len(computed_run2) == n - stored_after_kill  # nothing stored was recomputed
    assert set(computed_run2).isdisjoint(set(computed_run1[:stored_after_kill]))
    assert set(computed_run1[:stored_after_kill]) | set(computed_run2) == {
        f"h{i}" for i in range(n)
    }
    assert _stored_ids(cache_path) == n  # nothing lost, nothing duplicated

    again = subprocess.run(
        [sys.executable, str(WORKER), str(cache_path), str(tmp_path / "r3.log"), str(n)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert again.stdout.split() == [str(n), str(n)]  # a finished run re-run: all from cache
    assert not (tmp_path / "r3.log").exists() or not (tmp_path / "r3.log").read_text()


def test_judge_frame_dedupes_identical_examples(tmp_path):
    from judges_resume_worker import SlowJudge

    from benchcheck.judges.run import judge_frame

    frame = pl.DataFrame(
        {"id": ["a", "b", "c"], "text_a": ["g", "g", "g"], "text_b": ["x", "x", "y"]}
    )
    judge = SlowJudge(str(tmp_path / "log"))
    calls: list[tuple[int, int]] = []
    with JudgeCache(tmp_path / "c.sqlite") as cache:
        out = judge_frame(
            frame,
            [judge],
            [BUILTIN_PROMPTS["nli"]],
            cache=cache,
            progress=lambda done, total: calls.append((done, total)),
        )
        assert len(cache) == 2
    assert calls == [(0, 3), (2, 3), (3, 3)]  # a and b share one judgement: both done at once
    assert (tmp_path / "log").read_text().splitlines() == ["x", "y"]
    assert out["p_1"][0] == out["p_1"][1]
    assert out.columns[:7] == ["id", "judge", "prompt", "p_0", "logprob_0", "p_1", "logprob_1"]
    assert (out["p_0"] + out["p_1"]).to_list() == pytest.approx([1.0] * 3)
