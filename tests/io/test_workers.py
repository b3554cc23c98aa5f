"""io._workers: one pool of chunk workers for every reader, nothing left running after a read."""

from __future__ import annotations

import threading
import time

import pytest

from benchcheck.errors import InputError
from benchcheck.io import _workers
from benchcheck.io.conll import read_conll


def test_one_pool_for_the_process():
    assert _workers.chunk_pool() is _workers.chunk_pool()
    assert _workers.chunk_pool()._max_workers == _workers.WORKERS  # noqa: SLF001


def test_settle_cancels_queued_and_waits_for_running():
    pool = _workers.chunk_pool()
    started = threading.Semaphore(0)
    release = threading.Event()
    ran: list[int] = []

    def job(k: int) -> int:
        if k < _workers.WORKERS:
            started.release()
            release.wait(5)
        ran.append(k)
        return k

    futures = [pool.submit(job, k) for k in range(_workers.WORKERS + 3)]
    for _ in range(_workers.WORKERS):  # every worker is busy: the other jobs are queued
        assert started.acquire(timeout=5)
    threading.Timer(0.2, release.set).start()  # the workers stay busy while settle cancels
    _workers.settle(futures)
    assert all(f.done() for f in futures)
    assert sorted(ran) == list(range(_workers.WORKERS))  # waited for; the queued never ran
    assert sum(f.cancelled() for f in futures) == 3


def test_a_failed_read_leaves_no_chunk_work(tmp_path, monkeypatch):
    # Many small chunks, the second bad: the error names its line, and no chunk of the failed
    # read starts after it (the queued ones are cancelled, the running ones waited for).
    from benchcheck.io import conll

    parsed: list[int] = []
    build = conll.build_ner_split

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        parsed.append(1)
        return build(*args, **kwargs)

    monkeypatch.setattr(conll, "build_ner_split", counted)
    good = "".join(f"w{k}\tO\n\n" for k in range(200))
    path = tmp_path / "bad.conll"
    path.write_text(good + "x\tQ-PER\n\n" + good * 100)
    with pytest.raises(InputError) as err:
        read_conll(path, chunk_bytes=1 << 10)
    assert err.value.line == 401
    at_error = len(parsed)
    time.sleep(0.3)
    assert len(parsed) == at_error < 20  # the file has about 150 chunks
