"""A real two-node Ray cluster on loopback: a head and a second node, each its own process.

Shared by ``tests/engine/test_ray_cluster.py`` and ``benchmarks/leakage_bench.py``. Each node
is a ``ray start --block`` process with one CPU, in its own process group, with free ports
of its own (other Ray clusters may run on the machine); the cluster runs without token
authentication (``RAY_AUTH_MODE=disabled``, loopback only). Stopping ends exactly these
process groups and removes the cluster's temporary folder.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    ports = []
    for flag in (
        "--dashboard-agent-listen-port",
        "--dashboard-agent-grpc-port",
        "--metrics-export-port",
    ):
        ports += [flag, str(free_port())]
    cmd = [str(Path(sys.executable).with_name("ray")), "start", *args, *ports]
    cmd += ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--block"]
    cmd += ["--disable-usage-stats"]
    return subprocess.Popen(
        cmd, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, start_new_session=True
    )


def _stop(proc: subprocess.Popen) -> None:
    """End a ``ray start --block`` process and what it started (its own process group)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(10)


def _alive_nodes(address: str, env: dict[str, str]) -> int:
    probe = (
        f"import ray; ray.init(address={address!r}, log_to_driver=False); "
        "print(sum(n['Alive'] for n in ray.nodes()))"
    )
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    last = out.stdout.strip().splitlines()[-1:] or ["0"]
    return int(last[0]) if last[0].isdigit() else 0


@contextmanager
def two_nodes() -> Iterator[tuple[str, dict[str, str], list[subprocess.Popen]]]:
    """Yield the cluster's address, the environment its drivers need and its processes."""
    tmp = Path(tempfile.mkdtemp(prefix="bcray", dir="/tmp"))  # short: Ray's socket paths
    src = str(Path(__file__).resolve().parents[2] / "src")
    path = [src, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env = dict(
        os.environ,
        RAY_USAGE_STATS_ENABLED="0",
        RAY_AUTH_MODE="disabled",
        PYTHONPATH=os.pathsep.join(path),
    )
    port = free_port()
    address = f"127.0.0.1:{port}"
    head_args = ["--head", "--port", str(port), "--temp-dir", str(tmp)]
    head_args += ["--include-dashboard=false", "--dashboard-port", str(free_port())]
    procs = [_start(head_args, tmp / "head.log", env)]
    try:
        for _ in range(240):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if procs[0].poll() is not None:
                raise RuntimeError((tmp / "head.log").read_text()[-2000:])
            time.sleep(0.5)
        worker_args = ["--address", address, "--resources", '{"second_node": 1}']
        procs.append(_start(worker_args, tmp / "worker.log", env))
        for _ in range(60):
            if _alive_nodes(address, env) == 2:
                break
            if procs[1].poll() is not None:
                raise RuntimeError((tmp / "worker.log").read_text()[-2000:])
            time.sleep(2)
        else:
            raise RuntimeError("the second node did not join")
        yield address, env, procs
    finally:
        for proc in reversed(procs):
            _stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)
