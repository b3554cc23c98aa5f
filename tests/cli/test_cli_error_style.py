"""One error style: every failure is one ``error:`` line, lower case, on standard error."""

from __future__ import annotations

import pytest

from benchcheck._version import __version__
from benchcheck.cli import main


def _run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["--bogus"], "error: no such option: --bogus (see benchcheck --help)"),
        (["no-such"], "error: no such command 'no-such' (see benchcheck --help)"),
        (
            ["review", "export"],
            "error: missing argument 'flags' (see benchcheck review export --help)",
        ),
    ],
)
def test_click_usage_errors_read_as_ours(capsys, argv, line):
    rc, _, err = _run(capsys, *argv)
    assert rc == 2
    assert err.splitlines() == [line]


@pytest.mark.parametrize("argv", [[], ["review"]])
def test_a_group_without_its_command_shows_help_and_no_empty_error(capsys, argv):
    rc, out, err = _run(capsys, *argv)
    assert rc == 2
    assert "Usage:" in out + err
    assert "error:" not in out + err


def test_version_option(capsys):
    rc, out, err = _run(capsys, "--version")
    assert (rc, out.strip(), err) == (0, __version__, "")
