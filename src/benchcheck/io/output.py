r"""Outputs: the one rule for where a command may write, and atomic writes.

Every command that writes goes through :class:`Outputs`, so the rules hold everywhere:

- an output is never one of the command's inputs, nor inside an input folder (a file there
  would be read as data by the next run); the one exception is a *new* folder inside a
  dataset folder that is read by file name (train/dev/test at its top level), which no
  reader looks into;
- an output is never a file an input *glob* of the run would match, nor a folder holding
  files it could match (``--corpus 'corp/**/*.json*'`` and ``-o corp/rep``), whether or not
  they exist yet (:func:`glob_reads`);
- an output never holds another output of the same run (``--json`` inside ``-o``);
- an existing output is never replaced unless ``force`` is given; ``force`` over a folder
  the command owns whole (``names=None``) replaces it whole, and over a shared folder
  replaces the command's own files (``names``), removes its earlier ones that this run did
  not write again (``patterns``) and leaves every other file alone;
- two runs never write one output at once: a claim takes a lock beside the output
  (``.NAME.lock``, holding the writer's process id), released when the run ends; the lock of
  a run that is gone (killed) is stale and taken over;
- a name that becomes part of a path (a split, an expert) follows :func:`safe_name`, and no
  file is written outside its claimed folder, whatever the name;
- a symbolic link *inside* an output folder is never followed: on the way to a file the run
  writes, a link (to a folder or a file, dangling or not) is refused without ``force`` and,
  with it, the link itself is replaced (a real folder or file takes its place; what it
  pointed to is never touched); :func:`link_on_path` finds it;
- each file is written to a temporary sibling, flushed, fsynced and renamed over its final
  name, so a killed run leaves either the previous complete file or nothing there (a device
  or a pipe such as ``/dev/null`` is written into, never renamed over); a new folder is
  built under a temporary name and renamed into place once complete;
- temporaries left by killed runs (``.NAME.tmp-PID-…``, whose process is gone) are removed;
- a write the system refuses (a full disk, a read-only file system, a file size limit) is a
  :class:`~benchcheck.errors.WriteError` naming the output, never a half-written file.

Paths are checked when they are *claimed* (:meth:`Outputs.file`, :meth:`Outputs.folder`),
before any work, so a refused output costs nothing. Error messages name the parameter in
braces (``{json}``), which the command line renders as its flag. A command line run holds
its claims in one :func:`output_session`, so a library function that claims again (the
report writer, the review writer) sees what the command claimed.

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

import atexit
import contextlib
import errno
import fnmatch
import os
import re
import secrets
import shutil
import socket
import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from benchcheck.errors import InputError, UsageError, WriteError

__all__ = [
    "OutputFolder",
    "Outputs",
    "atomic_file",
    "atomic_write",
    "inside",
    "link_on_path",
    "output_session",
    "remove_stale_temporaries",
    "resolve",
    "safe_name",
    "write_error",
]

_TMP = ".tmp-"
_LOCK = ".lock"
#: Files of a folder that mark it as read whole, subfolders included (Parquet shards written
#: by ``benchcheck convert``: ``benchcheck.io.shards.MANIFEST``, a saved HuggingFace
#: dataset): no output may go inside it. (Named here: importing the readers costs polars.)
WHOLE_FOLDER_MARKS = (
    "_benchcheck_shards.json",
    "dataset_dict.json",
    "dataset_info.json",
    "state.json",
)

# ----------------------------------------------------------------------------- names

#: A name that may become one component of a path: letters, digits, ``_``, ``.`` and ``-``,
#: starting with a letter, a digit or ``_`` (so never ``.`` or ``..``, never hidden).
_SAFE = re.compile(r"[^\W][\w.-]*")
SAFE_NAME_MAX = 100


def safe_name(name: str, *, what: str = "name") -> str:
    """Return ``name`` if it may be one component of a file path, else raise UsageError.

    The rule: 1 to 100 characters, letters (any script), digits, ``_``, ``.`` and ``-``,
    not starting with ``.`` or ``-``: no separators, no ``.``/``..``, no control characters,
    no hidden files.

    >>> safe_name("train"), safe_name("eng.testa"), safe_name("训练")
    ('train', 'eng.testa', '训练')
    >>> safe_name("../evil", what="split name")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: split name '../evil' cannot name a file: use 1 to 100 letters, ...
    """
    if not (isinstance(name, str) and len(name) <= SAFE_NAME_MAX and _SAFE.fullmatch(name)):
        shown = name if len(name) <= 60 else name[:60] + f"… ({len(name)} characters)"
        raise UsageError(
            f"{what} {shown!r} cannot name a file: use 1 to {SAFE_NAME_MAX} letters, digits, "
            "'_', '.' or '-', starting with a letter, digit or '_'"
        )
    return name


def inside(folder: Path, name: str | Path) -> Path:
    """Return ``folder / name``, refusing a name that would leave ``folder``.

    ``name`` may have several components (``test/part-00000.parquet``); an absolute name, a
    ``..`` component, or a symbolic link leading out is a :class:`UsageError`.

    >>> inside(Path("out"), "a/b.txt").as_posix()
    'out/a/b.txt'
    >>> inside(Path("out"), "../b.txt")
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: refusing to write '../b.txt' outside the output folder out
    """
    rel = Path(name)
    if rel.is_absolute() or not rel.parts or any(part in ("..", "") for part in rel.parts):
        raise UsageError(f"refusing to write {str(name)!r} outside the output folder {folder}")
    target = folder / rel
    base = resolve(folder)
    if not resolve(target).is_relative_to(base):
        raise UsageError(f"refusing to write {str(name)!r} outside the output folder {folder}")
    return target


def link_on_path(folder: Path, name: str | Path) -> Path | None:
    """Return the first symbolic link on the way from ``folder`` to ``folder / name``, or None.

    ``folder`` itself is not looked at (the output's own path is the user's choice and is
    checked resolved); each component of ``name`` is, the last one included.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (Path(tmp) / "a").symlink_to(tmp)
    ...     link_on_path(Path(tmp), "a/b.json").name, link_on_path(Path(tmp), "c/b.json")
    ('a', None)
    """
    current = folder
    for part in Path(name).parts:
        current = current / part
        if current.is_symlink():
            return current
        if not current.exists():
            return None
    return None


def _link_refusal(link: Path, param: str) -> UsageError:
    return UsageError(
        f"{{{param}}}: {link} is a symbolic link inside the output folder; benchcheck never "
        "writes through one: remove it, or pass {force} to replace the link itself"
    )


def resolve(path: str | Path, *, param: str | None = None, reading: bool = False) -> Path:
    """``Path(path).resolve()``, with a symbolic link loop as one error, not a traceback."""
    if "\x00" in str(path):
        if reading:
            raise InputError("the path holds a NUL character; expected a file name", path=path)
        where = f"{{{param}}}: " if param else ""
        raise UsageError(f"{where}the path holds a NUL character: {str(path)!r}")
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError) as exc:  # a loop: RuntimeError (3.11), OSError (3.13)
        if reading:
            raise InputError("a symbolic link loop; expected a file or folder", path=path) from None
        where = f"{{{param}}}: " if param else ""
        raise UsageError(f"{where}{path} is a symbolic link loop ({exc})") from None


# ----------------------------------------------------------------------------- write errors

#: Errors of the place the user chose (exit 2) rather than of the system (exit 74).
_PLACE = {errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG}
_WORDS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file too large (a file size limit, e.g. ulimit -f)",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted (an immutable file or folder?)",
    errno.EIO: "input/output error",
    errno.ENAMETOOLONG: "file name too long",
    errno.EPIPE: "the reading end is closed",
}


def write_error(exc: OSError, path: str | Path | None = None) -> WriteError:
    """Turn an OS error of a write into one :class:`WriteError` line naming ``path``.

    Exit code 2 where the place cannot be written (read-only, permissions, immutable), 74
    (``EX_IOERR``) where the system failed the write (full disk, quota, size limit, I/O).

    >>> err = write_error(OSError(errno.ENOSPC, "No space left on device"), "out.json")
    >>> str(err), err.exit_code
    ('cannot write out.json: no space left on the device', 74)
    """
    where = path if path is not None else (exc.filename or "the output")
    reason = _WORDS.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()
    code = 2 if exc.errno in _PLACE else 74
    return WriteError(f"cannot write {where}: {reason}", exit_code=code)


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Turn OS errors raised inside into :func:`write_error` naming ``path``."""
    try:
        yield
    except OSError as exc:
        if isinstance(exc, FileNotFoundError | FileExistsError):
            raise
        raise write_error(exc, path) from None


# ----------------------------------------------------------------------------- temporaries


def _tmp_name(final: Path) -> Path:
    """Name a temporary sibling of ``final``: hidden, carrying the writer's process id."""
    return final.with_name(f".{final.name}{_TMP}{os.getpid()}-{secrets.token_hex(4)}")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process (a number past any pid)
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
    try:
        entries = list(parent.iterdir())
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        pid_text = entry.name[len(prefix) :].split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
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
    stays absent). The parent folder is created. An OS error of the write (a full disk, a
    read-only file system) becomes a :class:`~benchcheck.errors.WriteError` naming ``path``.
    """
    final = Path(path)
    if final.exists() and not final.is_file() and not final.is_dir():
        # a device or a pipe (/dev/null, /dev/stdout, a FIFO): write into it, never rename
        # over it (a rename would replace the device with a regular file)
        with _writing(final):
            yield final
        return
    with _writing(final):
        final.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(final)
    tmp = _tmp_name(final)
    try:
        with _writing(final):
            yield tmp
            if not tmp.exists():  # the writer wrote nothing: an empty file
                tmp.touch()
            _fsync_file(tmp)
            os.replace(tmp, final)
            _fsync_dir(final.parent)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


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


# ----------------------------------------------------------------------------- locks

#: Lock files this process holds (any session): lock → the output it guards.
_HELD: dict[Path, Path] = {}


def _start_time(pid: int) -> str:
    """Return the process's start time (clock ticks since boot, Linux), or '' if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[19] if ")" in stat else ""


def lock_path(target: Path) -> Path:
    """Return an output's lock: ``.NAME.lock`` beside it, or beside its first missing folder."""
    anchor = target
    while not anchor.parent.exists() and anchor.parent != anchor:
        anchor = anchor.parent
    return anchor.parent / f".{anchor.name}{_LOCK}"


def _lock_owner(lock: Path) -> tuple[int, str, str] | None:
    """(pid, start time, where) written in a lock; None when it holds none (being written)."""
    try:
        words = lock.read_text(encoding="ascii", errors="replace").split()
    except OSError:
        return None
    if not words or not words[0].isdigit() or len(words[0]) > 12:
        return None
    return int(words[0]), *(words[1:3] + ["", ""])[:2]  # type: ignore[return-value]


def _where() -> str:
    """Name the process-id space this process lives in: host, boot and pid namespace.

    A process id means something only there: a lock written from another container, host
    or boot names a process this one cannot see, whatever runs here under that number.
    """
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = ""
    try:
        space = os.readlink("/proc/self/ns/pid")
    except OSError:
        space = ""
    return "|".join((socket.gethostname(), boot, space)).replace(" ", "_")


def _stale(lock: Path) -> bool:
    """Whether a lock's writer is gone (or is this process, which no longer holds it)."""
    owner = _lock_owner(lock)
    if owner is None:  # created but not yet written, or garbage: stale once it is old
        try:
            return time.time() - lock.stat().st_mtime > 10
        except OSError:
            return True
    pid, started, where = owner
    if where and where != _where():  # another host, boot or container: cannot be told
        return False
    if pid == os.getpid():
        return lock not in _HELD
    if not _alive(pid):
        return True
    now = _start_time(pid)
    started = "" if started == "-" else started
    return bool(started and now and started != now)  # the pid was reused by another process


def _acquire(target: Path, param: str) -> Path | None:
    """Take the lock of ``target`` (None when this process holds it already)."""
    lock = lock_path(target)
    if lock in _HELD:
        return None
    for _ in range(3):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            if _stale(lock):
                with contextlib.suppress(OSError):
                    lock.unlink()
                continue
            owner = _lock_owner(lock)
            who = f"process {owner[0]}" if owner else "another process"
            raise UsageError(
                f"{{{param}}}: another benchcheck run ({who}) is writing {target}; wait for it "
                f"to finish (or delete {lock} if that run is gone)"
            ) from None
        except OSError as exc:
            raise write_error(exc, target) from None
        try:
            pid = os.getpid()
            os.write(fd, f"{pid} {_start_time(pid) or '-'} {_where()}\n".encode())
        finally:
            os.close(fd)
        _HELD[lock] = target
        return lock
    raise UsageError(f"{{{param}}}: cannot take the lock {lock}")  # pragma: no cover


def _release(lock: Path) -> None:
    if _HELD.pop(lock, None) is None:
        return
    owner = _lock_owner(lock)
    if owner is not None and owner[0] == os.getpid():
        with contextlib.suppress(OSError):
            lock.unlink()


@atexit.register
def _release_all() -> None:  # pragma: no cover - exercised at interpreter exit
    for lock in list(_HELD):
        _release(lock)


# ----------------------------------------------------------------------------- sessions


_MAGIC = re.compile(r"[*?\[]")


def _match_parts(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether ``parts`` match the glob components ``pattern`` (``**``: any folders)."""
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_match_parts(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return (
        bool(parts)
        and fnmatch.fnmatchcase(parts[0], pattern[0])
        and _match_parts(pattern[1:], parts[1:])
    )


def _may_hold(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether a path strictly below the folder ``parts`` could match ``pattern``."""
    if not parts:
        return bool(pattern)
    if not pattern:
        return False
    if pattern[0] == "**":
        return True
    return fnmatch.fnmatchcase(parts[0], pattern[0]) and _may_hold(pattern[1:], parts[1:])


def glob_reads(pattern: str, target: str | Path, *, folder: bool = False) -> bool:
    """Whether the input glob ``pattern`` reads ``target`` (a folder: any file in it).

    Paths are compared resolved: the pattern's literal folder (before its first ``*``, ``?``
    or ``[``) is resolved, its rest matched component by component as :func:`glob.glob`
    with ``recursive=True`` does (``**`` is any number of folders). A file matches when its
    path does; a folder when its path does (the reader takes a matched folder as an input)
    or a file below it could (it is on the pattern's way, or under a ``**``); either when a
    folder above it matches (``corp/[a-z]*`` reads the folder ``corp/new`` that writing
    ``corp/new/x.json`` creates). Conservative where glob is not: names starting with ``.``
    match ``*`` here.

    >>> import os
    >>> here = os.getcwd()
    >>> glob_reads("corp/*.jsonl", f"{here}/corp/out.jsonl"), glob_reads("corp/*.jsonl", "x.jsonl")
    (True, False)
    >>> glob_reads("corp/**/*.json*", f"{here}/corp/rep", folder=True)
    True
    >>> glob_reads("corp/*/*.jsonl", f"{here}/corp/rep/deeper", folder=True)
    False
    >>> glob_reads("corp/*", f"{here}/corp/rep", folder=True)  # the folder itself matches
    True
    >>> glob_reads("corp/[a-z]*", f"{here}/corp/new/x.json")  # a folder above it matches
    True
    """
    parts = Path(pattern).parts
    k = next((i for i, part in enumerate(parts) if _MAGIC.search(part)), len(parts))
    root = resolve(Path(*parts[:k]) if k else Path("."))
    rest = tuple(parts[k:])
    target = Path(target)
    if not target.is_relative_to(root):
        return False
    below = target.relative_to(root).parts
    if any(_match_parts(rest, below[:k]) for k in range(1, len(below))):
        return True
    if folder:
        return _may_hold(rest, below) or _match_parts(rest, below)
    return _match_parts(rest, below)


@dataclass
class _Claims:
    """What one run claimed: outputs (path → parameter, kind), inputs, locks taken."""

    files: dict[Path, str] = field(default_factory=dict)
    folders: dict[Path, str] = field(default_factory=dict)
    inputs: list[Path] = field(default_factory=list)
    deep: set[Path] = field(default_factory=set)
    globs: list[str] = field(default_factory=list)
    locks: list[Path] = field(default_factory=list)
    private: bool = True

    def release(self) -> None:
        while self.locks:
            _release(self.locks.pop())

    def __del__(self) -> None:  # a library call's own claims: released with them
        if self.private:
            with contextlib.suppress(Exception):
                self.release()


_SESSION: ContextVar[_Claims | None] = ContextVar("output_session", default=None)


@contextlib.contextmanager
def output_session(
    inputs: Iterable[str | Path | None] = (),
    *,
    deep: Iterable[str | Path] = (),
    globs: Iterable[str] = (),
) -> Iterator[None]:
    """Hold one run's claims: every :class:`Outputs` made inside shares them and its inputs.

    ``inputs`` are checked (:func:`benchcheck.io._text.check_readable`) and claimed for the
    whole run; ``deep`` are input folders whose readers look into subfolders (a corpus
    folder), so not even a new folder may go inside them; ``globs`` are input patterns
    (:func:`glob_reads`): no output may be a file they match, or a folder of such files.
    Locks are released on exit.
    """
    claims = _Claims(private=False)
    _add_inputs(claims, inputs, deep=deep)
    claims.globs.extend(globs)
    token = _SESSION.set(claims)
    try:
        yield
    finally:
        _SESSION.reset(token)
        claims.release()


def _add_inputs(
    claims: _Claims, inputs: Iterable[str | Path | None], *, deep: Iterable[str | Path] = ()
) -> None:
    from benchcheck.io._text import check_readable

    for p in inputs:
        if p is None or str(p) in ("", "-"):
            continue
        check_readable(p)
        path = resolve(p, reading=True)
        if path not in claims.inputs:
            claims.inputs.append(path)
    for p in deep:
        claims.deep.add(resolve(p, reading=True))


def _reads_subfolders(folder: Path, claims: _Claims) -> bool:
    """Whether a reader of the input folder ``folder`` looks into its subfolders."""
    return folder in claims.deep or any((folder / m).exists() for m in WHOLE_FOLDER_MARKS)


def _within(path: Path, folder: Path) -> bool:
    return path != folder and path.is_relative_to(folder)


# ----------------------------------------------------------------------------- claims


class Outputs:
    """The outputs of one command run, checked against its inputs before any work.

    Parameters
    ----------
    inputs
        Every path the command reads (files or folders; ``None`` entries are ignored).
        Each must be a readable regular file or folder (a FIFO, a device, a socket or a
        link loop is an :class:`~benchcheck.errors.InputError`); a missing one is left to
        its reader to report.
    force
        Allow replacing outputs that exist.

    """

    def __init__(self, inputs: Iterable[str | Path | None] = (), *, force: bool = False) -> None:
        self.force = force
        session = _SESSION.get()
        self._claims = session if session is not None else _Claims()
        _add_inputs(self._claims, inputs)
        self._mine: dict[Path, str] = {}

    @property
    def _inputs(self) -> list[Path]:
        return self._claims.inputs

    def close(self) -> None:
        """Release the locks of a library call's claims (a command's run releases its own)."""
        if self._claims.private:
            self._claims.release()

    def _is_input(self, target: Path) -> bool:
        for src in self._inputs:
            if _same(target, src):
                return True
            if src.is_dir() and _within(target, src):
                return True  # a file an input folder holds, or would hold
        return False

    def _check_others(self, target: Path, param: str, kind: str) -> None:
        """Refuse an output inside another output of the run, or holding one."""
        mine = self._mine.get(target)
        if mine is not None and mine != param:
            raise UsageError(f"{{{param}}} and {{{mine}}} name the same path {target}")
        claims = self._claims
        for folder, other in claims.folders.items():
            if _within(target, folder):
                raise UsageError(
                    f"{{{param}}}: {target} is inside the folder {{{other}}} writes ({folder}); "
                    "choose a path outside it"
                )
        if kind == "file" and target in claims.folders:
            other = claims.folders[target]
            raise UsageError(f"{{{param}}}: {target} is the folder {{{other}}} writes")
        if kind == "folder":
            if target in claims.files:
                raise UsageError(f"{{{param}}}: {target} is the file {{{claims.files[target]}}}")
            for path, other in [*claims.files.items(), *claims.folders.items()]:
                if _within(path, target):
                    raise UsageError(
                        f"{{{other}}}: {path} is inside the folder {{{param}}} writes "
                        f"({target}); choose a path outside it"
                    )

    def _claim(self, target: Path, param: str, kind: str) -> None:
        self._check_others(target, param, kind)
        for pattern in self._claims.globs:
            if glob_reads(pattern, target, folder=kind == "folder"):
                what = "files in it would match" if kind == "folder" else "it matches"
                raise UsageError(
                    f"{{{param}}}: refusing to write {target}: {what} the input pattern "
                    f"{pattern!r} (a later run would read it as input); write it elsewhere"
                )
        if kind == "file" and self._is_input(target):
            if self._is_plain_input(target):
                raise UsageError(
                    f"{{{param}}}: refusing to write {target}: it is an input of this command"
                )
            folder = next(s for s in self._inputs if s.is_dir() and _within(target, s))
            raise UsageError(
                f"{{{param}}}: refusing to write {target}: it is inside the input folder "
                f"{folder} (a later read of the folder could take it for data); write it elsewhere"
            )
        lock = _acquire(target, param)
        if lock is not None:
            self._claims.locks.append(lock)
        (self._claims.files if kind == "file" else self._claims.folders)[target] = param
        self._mine[target] = param

    def _is_plain_input(self, target: Path) -> bool:
        return any(_same(target, src) for src in self._inputs)

    def file(self, path: str | Path | None, *, param: str) -> Path | None:
        """Claim a file output; ``None`` and ``-`` (standard output) pass through as ``None``."""
        if path is None or str(path) == "-":
            return None
        target = resolve(path, param=param)
        if target.is_dir():
            raise UsageError(f"{{{param}}}: {path} is a folder; expected a file path")
        if target.exists() and not target.is_file():
            return Path(path)  # a device or a pipe (/dev/null): nothing to lose, written into
        if target.parent.exists() and not target.parent.is_dir():
            raise UsageError(f"{{{param}}}: {target.parent} is a file, not a folder")
        self._claim(target, param, "file")
        if target.exists() and not self.force:
            raise UsageError(f"{{{param}}}: {path} exists; pass {{force}} to overwrite it")
        return Path(path)

    def reserve(self, path: str | Path, *, param: str) -> Path:
        """Claim a folder a library writer fills later under its own rules (its lock, now).

        The checks that need no list of files run before any work: never an input nor
        inside one, never holding or inside another output, no other run writing it. The
        writer's own :meth:`folder` claim of the same path then passes these again.
        """
        target = resolve(path, param=param)
        if target.exists() and not target.is_dir():
            raise UsageError(f"{{{param}}}: {path} is a file; expected a folder")
        for src in self._inputs:
            inner = src.is_dir() and _within(target, src)
            if _same(target, src) or (
                inner and (target.exists() or _reads_subfolders(src, self._claims))
            ):
                raise UsageError(
                    f"{{{param}}}: refusing to write into {path}: it is an input of this "
                    "command, or inside one"
                )
        self._claim(target, param, "folder")
        return Path(path)

    def folder(
        self,
        path: str | Path,
        *,
        param: str,
        names: Iterable[str] | None = None,
        patterns: Iterable[str] = (),
        replace_links: bool | None = None,
    ) -> OutputFolder:
        """Claim a folder output that will hold the files ``names``.

        ``names=None``: the command owns the whole folder, which must be absent or empty;
        ``force`` lifts that and the folder is then replaced whole. Otherwise an existing
        folder is accepted when it holds none of ``names`` (other files in it are never
        touched); ``force`` lifts that rule, and files matching ``patterns`` (the
        command's files of an earlier run, e.g. ``expert_*.csv``) that this run does not
        write again are removed.

        A symbolic link inside the folder on the way to one of ``names`` is refused unless
        ``replace_links`` (default: ``force``), which replaces the link itself when the
        folder is written (:class:`OutputFolder`), never what it points to.
        """
        links_ok = self.force if replace_links is None else replace_links
        target = resolve(path, param=param)
        if target.exists() and not target.is_dir():
            raise UsageError(f"{{{param}}}: {path} is a file; expected a folder")
        for src in self._inputs:
            if _same(target, src):
                raise UsageError(
                    f"{{{param}}}: refusing to write into {path}: it is an input of this command"
                )
            if src.is_dir() and _within(target, src):
                if target.exists() or _reads_subfolders(src, self._claims):
                    raise UsageError(
                        f"{{{param}}}: refusing to write into {path}: it is inside the input "
                        f"folder {src} (only a new folder may go inside a dataset folder)"
                    )
            if _within(src, target) and names is None:
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
                if self._is_plain_input(target / name):
                    raise UsageError(
                        f"{{{param}}}: refusing to write {target / name}: it is an input of "
                        "this command"
                    )
            for name in wanted or ():
                link = link_on_path(Path(path), name)
                if link is not None and not links_ok:
                    raise _link_refusal(link, param)
            if present and not self.force:
                shown = ", ".join(present[:5]) + (" …" if len(present) > 5 else "")
                raise UsageError(
                    f"{{{param}}}: {path} already holds {shown}; pass {{force}} to overwrite"
                )
        self._claim(target, param, "folder")
        stale: list[str] = []
        if target.is_dir() and self.force and wanted is not None:
            stale = sorted(
                p.name
                for p in target.iterdir()
                if any(fnmatch.fnmatchcase(p.name, pat) for pat in patterns)
                and p.name not in wanted
                and not any(_same(p.resolve(), src) or _within(src, p) for src in self._inputs)
            )
        return OutputFolder(
            Path(path),
            names=wanted,
            replace=self.force and wanted is None,
            stale=stale,
            claims=self._claims,
            replace_links=links_ok,
            param=param,
        )


# ----------------------------------------------------------------------------- folders


class OutputFolder:
    """A folder output: files staged in a temporary folder, moved into place on success.

    Use as a context manager. A folder that did not exist is built under a temporary name
    and renamed into place whole; into an existing folder each staged file is renamed over
    its final name (each file complete, the previous version or the new one, as a killed run
    leaves it), then the files this run did not write are removed: every one in a folder
    replaced whole (``replace``), else those listed in ``stale`` (the command's own files of
    an earlier run) and those given to :meth:`remove`.

    A symbolic link inside the folder on the way to a staged file is never written through:
    before anything moves, it is refused (:class:`UsageError`) unless ``replace_links``, and
    then the link itself is removed and the staged file or a real folder takes its place.
    """

    def __init__(
        self,
        path: Path,
        *,
        names: tuple[str, ...] | None,
        replace: bool = False,
        stale: Iterable[str] = (),
        claims: object = None,
        replace_links: bool = False,
        param: str = "output",
    ) -> None:
        self.path = path
        self._replace_links = replace_links
        self._param = param
        self.names = names
        self._stage: Path | None = None
        self._new = not path.exists()
        self._replace = replace and not self._new
        self._remove: list[str] = list(stale)
        self._claims = claims  # keeps a library call's locks until the folder is written
        self.written: list[Path] = []

    def __enter__(self) -> OutputFolder:
        with _writing(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_temporaries(self.path)
            self._stage = _tmp_name(self.path)
            self._stage.mkdir()
        return self

    def stage(self, name: str) -> Path:
        """Return the staging path of the file ``name`` (write there; it moves on success).

        ``name`` is relative and stays inside the folder (:func:`inside`).
        """
        assert self._stage is not None, "use OutputFolder as a context manager"
        target = inside(self._stage, name)
        with _writing(self.path / name):
            target.parent.mkdir(parents=True, exist_ok=True)
        self.written.append(self.path / name)
        return target

    def write(self, name: str, content: str | bytes) -> Path:
        """Stage ``content`` (text as UTF-8) as the file ``name``; returns its final path."""
        target = self.stage(name)
        with _writing(self.path / name):
            if isinstance(content, str):
                target.write_text(content, encoding="utf-8")
            else:
                target.write_bytes(content)
        return self.path / name

    def remove(self, name: str) -> None:
        """Remove ``name`` from the final folder on success (a file of an earlier run)."""
        inside(self.path, name)
        self._remove.append(name)

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        stage = self._stage
        assert stage is not None
        try:
            if kind is not None:
                shutil.rmtree(stage, ignore_errors=True)
                return
            try:
                with _writing(self.path):
                    self._commit(stage)
            except BaseException:
                shutil.rmtree(stage, ignore_errors=True)
                raise
        finally:
            if isinstance(self._claims, _Claims) and self._claims.private:
                self._claims.release()  # a library call's claims end with its write

    def _commit(self, stage: Path) -> None:
        for path in stage.rglob("*"):
            if path.is_file():
                _fsync_file(path)
        if self._new and not self.path.exists():
            os.replace(stage, self.path)
            _fsync_dir(self.path.parent)
            return
        self.path.mkdir(parents=True, exist_ok=True)
        staged = sorted(p for p in stage.rglob("*") if p.is_file())
        for path in staged:  # refused before anything moves: nothing half-written
            link = link_on_path(self.path, path.relative_to(stage))
            if link is not None and not self._replace_links:
                raise _link_refusal(link, self._param)
        if self._replace:  # owned whole: a folder of an earlier run goes, none of it is kept
            for top in sorted({p.relative_to(stage).parts[0] for p in staged}):
                old = self.path / top
                if old.is_dir() and not old.is_symlink():
                    shutil.rmtree(old)
        for path in staged:
            rel = path.relative_to(stage)
            while (link := link_on_path(self.path, rel)) is not None:
                link.unlink()  # the link itself, never what it points to
            final = self.path / rel
            final.parent.mkdir(parents=True, exist_ok=True)
            if final.is_dir() and not final.is_symlink():
                shutil.rmtree(final)
            os.replace(path, final)
        written = {p.relative_to(self.path).parts[0] for p in self.written}
        if self._replace:  # the command owns the folder: nothing of an earlier run stays
            self._remove += [p.name for p in self.path.iterdir() if not p.name.startswith(".")]
        for name in self._remove:
            if name in written:
                continue
            gone = self.path / name
            if gone.is_dir() and not gone.is_symlink():
                shutil.rmtree(gone)
            else:
                gone.unlink(missing_ok=True)
        shutil.rmtree(stage, ignore_errors=True)
        _fsync_dir(self.path)
