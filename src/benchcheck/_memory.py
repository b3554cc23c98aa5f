"""Keep freed memory for reuse: the allocator setting the command line starts with.

A chunked read (:mod:`benchcheck.io.conll`) makes and frees the same column-sized arrays
for every chunk. With its default thresholds glibc serves each array past 128 KiB-32 MiB
from a fresh mapping, or hands freed heap back to the kernel, so every chunk's arrays land
on pages the kernel has to fault in and zero again. Raising the mmap and trim thresholds
(``mallopt``, glibc's documented knobs) keeps freed memory in the heap for the next chunk:
reading the 1M-sentence corpus of ``benchmarks/stats_bench.py`` took 76-80k page faults
instead of 130-136k, 0.7-0.8 s of system time instead of 1.0-1.8 s, and 2.2-2.3 s instead
of 2.3-2.9 s (four runs each); peak memory grows by the chunks' working set (about 150 MB).

With pages kept, numpy's request for 2 MiB pages (``madvise``, for arrays of 4 MiB and more)
loses more than it wins here: each new 2 MiB page is zeroed (and compacted, with the kernel's
default ``defrag=madvise``) at its first touch. So before numpy is imported the environment
variable numpy documents for it, ``NUMPY_MADVISE_HUGEPAGE``, is set to 0 (unless set). Measured
with kept memory: a fresh 1.9M-row gather 65 -> 16 ms; ``benchcheck stats`` on the
gen_corpus 3.60 -> 3.40 s and on the stats_bench corpus 4.28 -> 3.89 s (medians of 4,
interleaved). Without kept memory small pages would cost more (27 against 10 ms a gather).

This is an application's choice, not a library's, so only the ``benchcheck`` command calls
:func:`keep_freed_memory`; a program using the library can call it too, or set glibc's
``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_`` (a value set there is left as it is).
Elsewhere than glibc (macOS, Windows, musl) it does nothing.
"""

from __future__ import annotations

import os
import sys

__all__ = ["address_space_left", "available_memory", "keep_freed_memory", "system_available"]

#: mallopt parameters (glibc's malloc.h), the value set and the variable that overrides it.
_SETTINGS = (
    (-3, 1 << 30, "MALLOC_MMAP_THRESHOLD_"),  # M_MMAP_THRESHOLD: 1 GiB, heap below
    (-1, 1 << 30, "MALLOC_TRIM_THRESHOLD_"),  # M_TRIM_THRESHOLD: keep up to 1 GiB freed
    (-2, 64 << 20, "MALLOC_TOP_PAD_"),  # M_TOP_PAD: grow the heap 64 MiB at a time
)


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds for this process; False where not glibc.

    Returns True when every setting not overridden by its environment variable took.
    Also turns numpy's 2 MiB page requests off when numpy is not imported yet (above).
    """
    if not sys.platform.startswith("linux"):
        return False
    if "numpy" not in sys.modules:
        os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
    except (ValueError, OSError):  # musl and others name no GNU libc version
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return all(
        mallopt(param, value) == 1 for param, value, env in _SETTINGS if env not in os.environ
    )


def system_available() -> int | None:
    """Bytes the system can still give without swapping (Linux ``MemAvailable``; else None)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def address_space_left() -> int | None:
    """Bytes of address space this process may still map under its limit (None: no limit)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status", encoding="ascii") as fh:
            used = next(int(x.split()[1]) * 1024 for x in fh if x.startswith("VmSize:"))
    except (ImportError, OSError, ValueError, StopIteration):
        return None
    return max(0, soft - used)


def available_memory() -> int | None:
    """Memory this process can still take: the system's or its ``ulimit -v``'s, the less.

    None where neither is known (not Linux, no limit).
    """
    known = [x for x in (system_available(), address_space_left()) if x is not None]
    return min(known) if known else None
