"""keep_freed_memory: freed arrays are reused instead of faulted in again (glibc only)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# Make, touch and free a 16 MiB array ten times; print the minor page faults that took.
CYCLES = r"""
import resource, sys
import numpy as np
from benchcheck._memory import keep_freed_memory
took = keep_freed_memory() if sys.argv[1] == "keep" else None
np.ones(1 << 21)  # the first one may fault in either way
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    a = np.ones(1 << 21)  # 16 MiB of float64
    del a
print(took, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not os.confstr("CS_GNU_LIBC_VERSION"),
    reason="glibc's mallopt only",
)


def faults(mode: str, env: dict[str, str] | None = None) -> tuple[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", CYCLES, mode],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    ).stdout.split()
    return out[0], int(out[1])


@glibc
def test_freed_arrays_are_reused_not_faulted_in_again():
    took, kept = faults("keep")
    _, fresh = faults("default")
    assert took == "True"
    # By default each 16 MiB array is a fresh mapping (at least 8 faults even on 2 MiB
    # pages); kept, the ten reuse the first one's pages.
    assert fresh >= 80
    assert kept < fresh / 4


@glibc
def test_a_threshold_set_in_the_environment_is_left_as_set():
    # glibc reads MALLOC_MMAP_THRESHOLD_ at start; keep_freed_memory must not override it.
    took, kept = faults("keep", {"MALLOC_MMAP_THRESHOLD_": str(128 << 10)})
    assert took == "True"
    assert kept >= 80  # the 16 MiB arrays still get mappings of their own


HUGEPAGES = r"""
import sys
from benchcheck._memory import keep_freed_memory
keep_freed_memory()
from numpy._core import multiarray
print(multiarray._set_madvise_hugepage(True))  # returns the setting numpy started with
"""


def numpy_hugepages(env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    return subprocess.run(
        [sys.executable, "-c", HUGEPAGES],
        capture_output=True,
        text=True,
        check=True,
        env={**clean, **env},
    ).stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_numpy_hugepage_requests_are_turned_off_unless_asked_for():
    assert numpy_hugepages({}) == "False"
    assert numpy_hugepages({"NUMPY_MADVISE_HUGEPAGE": "1"}) == "True"
