"""Real annotation applications for the ``apps`` tests: own virtual environments, loopback.

Each application pins its own dependency versions, so it never enters benchcheck's
environment: :func:`app_venv` makes a virtual environment for it (kept between runs under
``$BENCHCHECK_APPS_CACHE`` when that is set, else made fresh in the test's temporary
folder) and installs the pinned release there. :class:`LabelStudio` starts the server on
127.0.0.1 with a fresh data folder and a test user, talks to its REST API with the standard
library, and stops it by its process id.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

LABEL_STUDIO = "label-studio==1.23.2"
#: argilla 2.8.0 imports requests without declaring it: installed beside it.
ARGILLA = ("argilla==2.8.0", "requests==2.34.2")


def apps_enabled() -> bool:
    """The ``apps`` tests install real applications (minutes): only with BENCHCHECK_APPS=1."""
    return os.environ.get("BENCHCHECK_APPS") == "1"


def app_venv(requirement: str | tuple[str, ...], scratch: Path) -> Path:
    """A virtual environment with ``requirement`` installed; returns its ``bin`` folder."""
    wanted = (requirement,) if isinstance(requirement, str) else requirement
    cache = os.environ.get("BENCHCHECK_APPS_CACHE")
    name = wanted[0].replace("==", "-")
    root = (Path(cache) if cache else scratch) / name
    bin_dir = root / "bin"
    done = root / ".benchcheck-installed"
    if done.exists():
        return bin_dir
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(root)], check=True)
    subprocess.run(
        [
            str(bin_dir / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            *wanted,
        ],
        check=True,
    )
    done.write_text("\n".join(wanted) + "\n")
    return bin_dir


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LabelStudio:
    """A Label Studio server on loopback: started fresh, driven over REST, stopped by pid."""

    user = "reviewer.one@example.org"
    password = "benchcheck-review-1"
    token = "b3c4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6"

    def __init__(self, bin_dir: Path, data_dir: Path, log: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "LATEST_VERSION_CHECK": "false",  # no call to the package index at start
            "COLLECT_ANALYTICS": "false",
            "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",  # the token given below
            "SENTRY_DSN": "",
        }
        env.pop("HOST", None)  # Label Studio reads HOST as its public URL
        self._log = log.open("wb")
        self.process = subprocess.Popen(
            [
                str(bin_dir / "label-studio"),
                "start",
                "--no-browser",
                "--internal-host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--data-dir",
                str(data_dir),
                "--username",
                self.user,
                "--password",
                self.password,
                "--user-token",
                self.token,
                "--enable-legacy-api-token",
            ],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.log = log

    def wait(self, timeout: float = 600) -> None:
        """Wait until ``/health`` answers (first start: database migrations, minutes)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.process.poll() is not None:
                pytest.fail(f"Label Studio exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=5) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(2)
        pytest.fail(f"Label Studio did not start in {timeout} s: {self.log.read_text()[-2000:]}")

    def call(self, method: str, path: str, body: Any = None, *, raw: bool = False) -> Any:
        """One REST call with the test user's token; JSON in and out (``raw``: bytes out)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                out = r.read()
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: {exc.code} {exc.read()[:1000]!r}") from None
        return out if raw else json.loads(out or b"null")

    def stop(self) -> None:
        """Stop the server by its process id (its session: the server and any child)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        self._log.close()
