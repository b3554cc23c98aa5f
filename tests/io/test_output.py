"""The output rules: never an input, never over existing work without force, atomic writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import polars as pl
import pytest

from benchcheck.errors import UsageError
from benchcheck.io.output import Outputs, atomic_file, atomic_write, remove_stale_temporaries
from benchcheck.io.tables import write_rows


def test_file_claims(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text('{"a": 1}\n')
    out = Outputs([data])
    assert out.file(None, param="json") is None
    assert out.file("-", param="json") is None
    with pytest.raises(UsageError, match="it is an input of this command") as info:
        out.file(data, param="json")
    assert info.value.render(lambda p: "--" + p).startswith("--json: refusing")
    # The same file under another spelling, and through a symbolic link.
    with pytest.raises(UsageError, match="input"):
        out.file(tmp_path / "." / "data.jsonl", param="json")
    link = tmp_path / "link.jsonl"
    link.symlink_to(data)
    with pytest.raises(UsageError, match="input"):
        Outputs([link]).file(data, param="output")
    with pytest.raises(UsageError, match="is a folder; expected a file path"):
        out.file(tmp_path, param="json")
    existing = tmp_path / "out.json"
    existing.write_text("{}")
    with pytest.raises(UsageError, match="exists; pass force to overwrite"):
        out.file(existing, param="json")
    assert Outputs([data], force=True).file(existing, param="json") == existing
    # force never lifts the input rule
    with pytest.raises(UsageError, match="input"):
        Outputs([data], force=True).file(data, param="json")
    assert existing.read_text() == "{}"  # claiming writes nothing


def test_file_inside_an_input_folder_is_an_input(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "train.txt").write_text("a O\n")
    with pytest.raises(UsageError, match="input"):
        Outputs([folder], force=True).file(folder / "train.txt", param="json")
    # a new file beside the splits is refused too (issue 29: `sample ner2 -o ner2/dev.txt`
    # wrote a split the next `stats ner2` read); a new folder inside is not read as data
    with pytest.raises(UsageError, match="inside the input folder"):
        Outputs([folder]).file(folder / "dev.txt", param="output")
    assert Outputs([folder]).folder(folder / "report", param="output").path == folder / "report"
    (folder / "report").mkdir()
    with pytest.raises(UsageError, match="inside the input folder"):  # an existing one: no
        Outputs([folder], force=True).folder(folder / "report", param="output")


def test_two_outputs_on_one_path(tmp_path):
    out = Outputs([])
    out.file(tmp_path / "a.json", param="json")
    with pytest.raises(UsageError, match="output and json name the same path"):
        out.file(tmp_path / "a.json", param="output")


def test_folder_claims(tmp_path):
    folder = tmp_path / "report"
    assert Outputs([]).folder(folder, param="output", names=["results.json"]).path == folder
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    Outputs([]).folder(folder, param="output", names=["results.json"])  # other files: fine
    (folder / "results.json").write_text("{}")
    with pytest.raises(UsageError, match="already holds results.json; pass force"):
        Outputs([]).folder(folder, param="output", names=["results.json", "report.md"])
    Outputs([], force=True).folder(folder, param="output", names=["results.json"])
    with pytest.raises(UsageError, match="already holds notes.txt, results.json"):
        Outputs([]).folder(folder, param="output", names=None)
    file = tmp_path / "file.txt"
    file.write_text("x")
    with pytest.raises(UsageError, match="is a file; expected a folder"):
        Outputs([]).folder(file, param="output")
    data = folder / "data.csv"
    data.write_text("a\n1\n")
    with pytest.raises(UsageError, match="input"):
        Outputs([data], force=True).folder(folder, param="output", names=["data.csv"])


def test_atomic_file_keeps_previous_content_on_error(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_file(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_stale_temporaries_of_dead_processes_are_removed(tmp_path):
    target = tmp_path / "a.txt"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    stale = tmp_path / f".a.txt.tmp-{pid}-deadbeef"
    stale.write_text("partial")
    live = tmp_path / f".a.txt.tmp-{os.getpid()}-cafecafe"
    live.write_text("mine, in progress")
    other = tmp_path / ".b.txt.tmp-1-00"
    other.write_text("not ours")
    assert remove_stale_temporaries(target) == 1
    assert not stale.exists() and live.exists() and other.exists()


def test_output_folder_new_and_existing(tmp_path):
    new = tmp_path / "new"
    with Outputs([]).folder(new, param="output", names=["a.txt", "b.txt"]) as folder:
        folder.write("a.txt", "A")
        assert not new.exists()  # built under a temporary name, renamed when complete
    assert sorted(p.name for p in new.iterdir()) == ["a.txt"]
    (new / "b.txt").write_text("old b")
    (new / "mine.txt").write_text("user file")
    with Outputs([], force=True).folder(new, param="output", names=["a.txt", "b.txt"]) as f:
        f.write("a.txt", "A2")
        f.remove("b.txt")
    assert sorted(p.name for p in new.iterdir()) == ["a.txt", "mine.txt"]
    assert (new / "a.txt").read_text() == "A2"
    with (
        pytest.raises(RuntimeError),
        Outputs([], force=True).folder(new, param="output", names=["a.txt"]) as f,
    ):
        f.write("a.txt", "A3")
        raise RuntimeError("killed")
    assert (new / "a.txt").read_text() == "A2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new"]


_WRITER = textwrap.dedent(
    """
    import sys
    import polars as pl
    from benchcheck.io.tables import write_rows
    n = int(sys.argv[2])
    frame = pl.DataFrame({"id": [str(i) for i in range(n)], "text": ["x" * 200] * n})
    print("ready", flush=True)
    write_rows(frame, sys.argv[1])
    """
)


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_sigkill_mid_write_leaves_previous_file(tmp_path, suffix):
    target = tmp_path / f"out{suffix}"
    previous = pl.DataFrame({"id": ["a"], "text": ["previous"]})
    write_rows(previous, target)
    before = target.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(target), "400000"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    # Wait until the temporary exists and grows: the writer is mid-write.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        tmps = [p for p in tmp_path.iterdir() if p.name.startswith(f".out{suffix}.tmp-")]
        if tmps and tmps[0].stat().st_size > 0:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert target.read_bytes() == before
    # The next write cleans the dead run's temporary.
    write_rows(previous, target)
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_write_rows_refuses_nothing_but_writes_atomically(tmp_path):
    path = write_rows(pl.DataFrame({"a": [1]}), Path(tmp_path) / "sub" / "x.parquet")
    assert pl.read_parquet(path)["a"].to_list() == [1]


def test_devices_are_written_into_never_replaced(tmp_path):
    """``--json /dev/null`` (as the benchmarks use) must not turn the device into a file."""
    null = Path("/dev/null")
    assert Outputs([]).file(null, param="json") == null  # exists, but nothing to lose
    atomic_write(null, "discarded\n")
    write_rows(pl.DataFrame({"a": [1]}), null, like="x.jsonl")
    assert null.is_char_device()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    atomic_write(fifo, "through the pipe\n")
    assert reader.communicate(timeout=10)[0] == "through the pipe\n"
    assert not fifo.is_file()


# ----------------------------------------------------------------------------- issue 29


def test_safe_names():
    from benchcheck.io.output import safe_name

    for good in ("train", "eng.testa", "dev-2", "_x", "训练"):
        assert safe_name(good) == good
    for bad in ("", ".", "..", "../x", "a/b", "/abs", ".hidden", "-x", "a\x1bb", "a" * 101):
        with pytest.raises(UsageError, match="cannot name a file"):
            safe_name(bad, what="split name")


def test_staged_names_stay_inside_the_folder(tmp_path):
    from benchcheck.io.output import inside

    assert inside(tmp_path, "a/b.txt") == tmp_path / "a" / "b.txt"
    for bad in ("../x", "a/../../x", str(tmp_path / "abs"), ""):
        with pytest.raises(UsageError, match="outside the output folder"):
            inside(tmp_path, bad)
    (tmp_path / "link").symlink_to(tmp_path.parent)
    with pytest.raises(UsageError, match="outside"):
        inside(tmp_path, "link/escape.txt")


def test_json_inside_the_folder_output_is_refused(tmp_path):
    from benchcheck.io.output import output_session

    with output_session():
        out = Outputs([])
        out.folder(tmp_path / "rev", param="output", names=["key.jsonl"])
        with pytest.raises(UsageError, match="inside the folder"):
            out.file(tmp_path / "rev" / "key.jsonl", param="json")
    with output_session():  # the other order: the file first, then the folder holding it
        out = Outputs([])
        out.file(tmp_path / "rep" / "x.json", param="json")
        with pytest.raises(UsageError, match="inside the folder"):
            out.folder(tmp_path / "rep", param="output", names=["results.json"])


def test_a_lock_refuses_a_second_writer_and_goes_with_the_run(tmp_path):
    from benchcheck.io.output import output_session

    target = tmp_path / "x.jsonl"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / ".x.jsonl.lock").write_text(f"{sleeper.pid} \n")
        with output_session(), pytest.raises(UsageError, match=f"process {sleeper.pid}"):
            Outputs([]).file(target, param="output")
    finally:
        sleeper.kill()
        sleeper.wait()
    with output_session():  # its process is gone: the lock is stale, taken over
        Outputs([]).file(target, param="output")
        assert (tmp_path / ".x.jsonl.lock").read_text().split()[0] == str(os.getpid())
    assert not (tmp_path / ".x.jsonl.lock").exists()


def test_force_replaces_an_owned_folder_whole_and_a_shared_one_by_its_patterns(tmp_path):
    owned = tmp_path / "owned"
    owned.mkdir()
    (owned / "target_0.1").mkdir()
    (owned / "old.txt").write_text("old")
    with Outputs([], force=True).folder(owned, param="output") as f:
        f.write("new.txt", "new")
    assert sorted(p.name for p in owned.iterdir()) == ["new.txt"]
    shared = tmp_path / "shared"
    shared.mkdir()
    for name in ("expert_a.csv", "expert_c.csv", "notes.txt"):
        (shared / name).write_text("old")
    folder = Outputs([], force=True).folder(
        shared, param="output", names=["expert_a.csv"], patterns=("expert_*.csv",)
    )
    with folder as f:
        f.write("expert_a.csv", "new")
    assert sorted(p.name for p in shared.iterdir()) == ["expert_a.csv", "notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_write_errors_are_one_line_with_the_systems_exit_code(tmp_path, monkeypatch):
    import errno

    from benchcheck.errors import WriteError

    def full(a, b):
        raise OSError(errno.ENOSPC, "No space left on device", str(b))

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(WriteError, match="a.txt: no space left on the device") as info:
        atomic_write(tmp_path / "a.txt", "x")
    assert info.value.exit_code == 74
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing half-written


def test_inputs_must_be_regular_files(tmp_path):
    from benchcheck.errors import InputError

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to("loop.jsonl")
    for bad, why in ((fifo, "FIFO"), (loop, "loop"), (Path("/dev/zero"), "character device")):
        with pytest.raises(InputError, match=why):
            Outputs([bad])


def test_a_lock_of_another_pid_space_is_never_taken_over(tmp_path):
    """A pid means something only on its host, boot and pid namespace (issue 37, item 10).

    A lock written from another container names a process this one cannot see: the live
    process that has its number here is unrelated, so the lock is kept and the run refused.
    Written here, the same lock with another start time is a reused pid: stale.
    """
    from benchcheck.io.output import _where, output_session

    target = tmp_path / "x.jsonl"
    lock = tmp_path / ".x.jsonl.lock"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(f"{sleeper.pid} 1 otherhost|boot|pid:[4026531836]\n")
        with output_session(), pytest.raises(UsageError, match=f"process {sleeper.pid}"):
            Outputs([]).file(target, param="output")
        assert lock.read_text().startswith(f"{sleeper.pid} 1 otherhost")  # not removed
        lock.write_text(f"{sleeper.pid} 1 {_where()}\n")  # here: pid reused, stale
        with output_session():
            Outputs([]).file(target, param="output")
            assert lock.read_text().split()[0] == str(os.getpid())
            assert lock.read_text().split()[2] == _where()
    finally:
        sleeper.kill()
        sleeper.wait()
