r"""Outputs: the one rule for where a command may write, and atomic writes.

Every command that writes goes through :class:`Outputs`, so the rules hold everywhere:

- an output is never one of the command's inputs (nor a file inside an input folder);
- an existing output is never replaced unless ``force`` is given;
- a file output that is a folder, or a folder output that is a file, is an error;
- each file is written to a temporary sibling, flushed, fsynced and renamed over its final
  name, so a killed run leaves either the previous complete file or nothing there; a new
  folder is built under a temporary name and renamed into place once complete;
- temporaries left by killed runs (``.NAME.tmp-PID-…``, whose process is gone) are removed.

Paths are checked when they are *claimed* (:meth:`Outputs.file`, :meth:`Outputs.folder`),
before any work, so a refused output costs nothing. Error messages name the parameter in
braces (``{json}``), which the command line renders as its flag.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp:
...     data = pathlib.Path(tmp, "data.jsonl"); _ = data.write_text("{}\\n")
...     out = Outputs([data])
...     out.file(data, param="json")
Traceback (most recent call last):
...
benchcheck.errors.UsageError: json: refusing to write ...data.jsonl: it is an input of this command
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from benchcheck.errors import UsageError

__all__ = ["OutputFolder", "Outputs", "atomic_file", "atomic_write", "remove_stale_temporaries"]

_TMP = ".tmp-"


def _tmp_name(final: Path) -> Path:
    """Name a temporary sibling of ``final``: hidden, carrying the writer's process id."""
    return final.with_name(f".{final.name}{_TMP}{os.getpid()}-{secrets.token_hex(4)}")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(final: Path) -> int:
    """Remove temporaries of ``final`` left by killed runs (their process is gone).

    Returns how many were removed. Temporaries of a live process (another run writing the
    same path right now) are left alone.
    """
    parent = final.parent
    if not parent.is_dir():
        return 0
    prefix = f".{final.name}{_TMP}"
    removed = 0
    for entry in parent.iterdir():
        if not entry.name.startswith(prefix):
            continue
        pid_text = entry.name[len(prefix) :].split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed += 1
    return removed


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory handles
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


@contextlib.contextmanager
def atomic_file(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it is fsynced and renamed to ``path``.

    On an exception the temporary is removed and ``path`` keeps its previous content (or
    stays absent). The parent folder is created.
    """
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(final)
    tmp = _tmp_name(final)
    try:
        yield tmp
        if not tmp.exists():  # the writer wrote nothing: an empty file
            tmp.touch()
        _fsync_file(tmp)
        os.replace(tmp, final)
        _fsync_dir(final.parent)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_write(path: str | Path, content: str | bytes) -> Path:
    r"""Write ``content`` (text as UTF-8) to ``path`` atomically; returns the path.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     atomic_write(f"{tmp}/a.txt", "x\n").read_text()
    'x\n'
    """
    final = Path(path)
    with atomic_file(final) as tmp:
        if isinstance(content, str):
            tmp.write_text(content, encoding="utf-8")
        else:
            tmp.write_bytes(content)
    return final


def _same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


class Outputs:
    """The outputs of one command run, checked against its inputs before any work.

    Parameters
    ----------
    inputs
        Every path the command reads (files or folders; ``None`` entries are ignored).
    force
        Allow replacing outputs that exist.

    """

    def __init__(self, inputs: Iterable[str | Path | None] = (), *, force: bool = False) -> None:
        self.force = force
        self._inputs = [Path(p).resolve() for p in inputs if p is not None and str(p) != "-"]
        self._claimed: dict[Path, str] = {}

    def _is_input(self, target: Path) -> bool:
        for src in self._inputs:
            if _same(target, src):
                return True
            if src.is_dir() and target.exists() and target.is_relative_to(src):
                return True  # a file an input folder holds (a split read by name, say)
        return False

    def _claim(self, target: Path, param: str) -> None:
        other = self._claimed.get(target)
        if other is not None and other != param:
            raise UsageError(f"{{{param}}} and {{{other}}} name the same path {target}")
        if self._is_input(target):
            raise UsageError(
                f"{{{param}}}: refusing to write {target}: it is an input of this command"
            )
        self._claimed[target] = param

    def file(self, path: str | Path | None, *, param: str) -> Path | None:
        """Claim a file output; ``None`` and ``-`` (standard output) pass through as ``None``."""
        if path is None or str(path) == "-":
            return None
        target = Path(path).resolve()
        if target.is_dir():
            raise UsageError(f"{{{param}}}: {path} is a folder; expected a file path")
        if target.parent.exists() and not target.parent.is_dir():
            raise UsageError(f"{{{param}}}: {target.parent} is a file, not a folder")
        self._claim(target, param)
        if target.exists() and not self.force:
            raise UsageError(f"{{{param}}}: {path} exists; pass {{force}} to overwrite it")
        return Path(path)

    def folder(
        self, path: str | Path, *, param: str, names: Iterable[str] | None = None
    ) -> OutputFolder:
        """Claim a folder output that will hold the files ``names``.

        An existing folder is accepted when it holds none of ``names`` (other files in it
        are never touched); with ``names=None`` the folder must be absent or empty. Either
        rule is lifted by ``force`` (then only the files written are replaced).
        """
        target = Path(path).resolve()
        if target.exists() and not target.is_dir():
            raise UsageError(f"{{{param}}}: {path} is a file; expected a folder")
        self._claim(target, param)
        for src in self._inputs:
            if src.is_relative_to(target) and names is None:
                raise UsageError(
                    f"{{{param}}}: refusing to write into {path}: it holds an input of this command"
                )
        wanted = None if names is None else tuple(names)
        if target.is_dir():
            present = (
                sorted(p.name for p in target.iterdir() if not p.name.startswith("."))
                if wanted is None
                else [n for n in wanted if (target / n).exists()]
            )
            for name in wanted or ():
                if self._is_input(target / name):
                    raise UsageError(
                        f"{{{param}}}: refusing to write {target / name}: it is an input of "
                        "this command"
                    )
            if present and not self.force:
                shown = ", ".join(present[:5]) + (" …" if len(present) > 5 else "")
                raise UsageError(
                    f"{{{param}}}: {path} already holds {shown}; pass {{force}} to overwrite"
                )
        return OutputFolder(Path(path), names=wanted)


class OutputFolder:
    """A folder output: files staged in a temporary folder, moved into place on success.

    Use as a context manager. A folder that did not exist is built under a temporary name
    and renamed into place whole; into an existing folder each staged file is renamed over
    its final name (each file complete, the previous version or the new one). Files named
    when claiming but not written this time are removed only if they are listed in
    ``stale`` by the caller (e.g. what the previous run's manifest says it wrote).
    """

    def __init__(self, path: Path, *, names: tuple[str, ...] | None) -> None:
        self.path = path
        self.names = names
        self._stage: Path | None = None
        self._new = not path.exists()
        self._remove: list[str] = []
        self.written: list[Path] = []

    def __enter__(self) -> OutputFolder:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(self.path)
        self._stage = _tmp_name(self.path)
        self._stage.mkdir()
        return self

    def stage(self, name: str) -> Path:
        """Return the staging path of the file ``name`` (write there; it moves on success)."""
        assert self._stage is not None, "use OutputFolder as a context manager"
        target = self._stage / name
        target.parent.mkdir(parents=True, exist_ok=True)
        self.written.append(self.path / name)
        return target

    def write(self, name: str, content: str | bytes) -> Path:
        """Stage ``content`` (text as UTF-8) as the file ``name``; returns its final path."""
        target = self.stage(name)
        if isinstance(content, str):
            target.write_text(content, encoding="utf-8")
        else:
            target.write_bytes(content)
        return self.path / name

    def remove(self, name: str) -> None:
        """Remove ``name`` from the final folder on success (a file of an earlier run)."""
        self._remove.append(name)

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        stage = self._stage
        assert stage is not None
        if kind is not None:
            shutil.rmtree(stage, ignore_errors=True)
            return
        for path in stage.rglob("*"):
            if path.is_file():
                _fsync_file(path)
        if self._new and not self.path.exists():
            os.replace(stage, self.path)
            _fsync_dir(self.path.parent)
            return
        self.path.mkdir(parents=True, exist_ok=True)
        for path in sorted(p for p in stage.rglob("*") if p.is_file()):
            final = self.path / path.relative_to(stage)
            final.parent.mkdir(parents=True, exist_ok=True)
            if final.is_dir():
                shutil.rmtree(final)
            os.replace(path, final)
        for name in self._remove:
            (self.path / name).unlink(missing_ok=True)
        shutil.rmtree(stage, ignore_errors=True)
        _fsync_dir(self.path)
