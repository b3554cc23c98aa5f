"""The worker threads that chunked readers share: one pool for the whole process.

A CoNLL file is cut into chunks parsed on worker threads (polars and numpy release the
GIL), and :func:`benchcheck.io.load.load` reads a dataset's splits concurrently. With a
pool per file, reading train and test at once ran twice the workers on the same cores, and
each new thread started with a cold allocator arena whose pages the kernel had to map
again. One shared pool keeps the busy threads at :data:`WORKERS` however many files are
read at once, and keeps them warm from one file to the next.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

__all__ = ["WORKERS", "chunk_pool", "settle"]

#: Worker threads of the shared pool (the machines this is tuned on have two cores).
WORKERS = 2

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def chunk_pool() -> ThreadPoolExecutor:
    """Return the process's chunk workers, made on first use."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="benchcheck-read")
        return _pool


def settle(pending: Iterable[Future[Any]]) -> None:
    """Cancel the chunks not started and wait for the running ones (a read that failed).

    Nothing a read submitted then outlives it, as when each read had its own pool.
    """
    left = [f for f in pending if not f.cancel()]
    wait(left)
