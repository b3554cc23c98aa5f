"""A signal during a native write is held until the write has finished, then raised."""

import os
import signal

import pytest

from benchcheck.cli import _signals
from benchcheck.errors import Interrupted, uninterrupted


def test_sigint_inside_a_write_block_is_raised_after_the_block():
    finished = []
    with pytest.raises(Interrupted) as caught, _signals():
        with uninterrupted():
            os.kill(os.getpid(), signal.SIGINT)  # the handler runs here, and holds it
            finished.append("write")
        finished.append("after")  # not reached: the block raised on leaving
    assert finished == ["write"]
    assert (caught.value.signal_name, caught.value.exit_code) == ("SIGINT", 130)


def test_sigterm_outside_a_write_block_is_raised_at_once():
    finished = []
    with pytest.raises(Interrupted) as caught, _signals():
        os.kill(os.getpid(), signal.SIGTERM)
        finished.append("after")
    assert finished == []
    assert caught.value.exit_code == 143
