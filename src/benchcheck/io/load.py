"""One entry point from files to the dataset model: :func:`load`.

A folder is searched for split files by name (``train``, ``dev``/``valid``/``validation``/
``testa``, ``test``/``testb`` as a word of the file name, e.g. ``eng.testa`` or
``conll2003_train.txt``); a saved HuggingFace dataset folder is read with ``datasets``; a
single file becomes one split, named after its file when the name says which.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from benchcheck.data.model import SPLIT_ALIASES, Dataset, Split
from benchcheck.errors import InputError, UsageError
from benchcheck.io.conll import read_conll
from benchcheck.io.ner_jsonl import read_ner_jsonl

_SKIP_SUFFIXES = {
    ".md",
    ".txt~",
    ".py",
    ".json",
    ".yaml",
    ".yml",
    ".toml",
    ".cfg",
    ".gz",
    ".zip",
    ".tar",
}
_SKIP_NAMES = {"readme", "license", "licence", "copying", "notice"}


def _ner_reader(path: Path) -> Callable[..., Split]:
    """One name → reader table: the file's suffix picks the NER reader."""
    return read_ner_jsonl if path.suffix.lower() in (".jsonl", ".ndjson") else read_conll


def read_predictions(
    files: Mapping[str, str | Path], *, scheme: str | None = None
) -> dict[str, Split]:
    """Read NER prediction files (CoNLL or NER JSONL), model name → predicted split.

    Each file is read like a dataset file (the last column holds the predicted tags), under
    ``scheme`` when given.
    """
    out = {}
    for name, file in files.items():
        path = Path(file)
        out[name] = _ner_reader(path)(path, name=name, scheme=scheme)
    return out


def split_name_of(path: Path) -> str | None:
    """Return the canonical split a file name points to, or None.

    >>> names = ("eng.testa", "wnut17_train.conll", "notes.txt")
    >>> tuple(split_name_of(Path(n)) for n in names)
    ('dev', 'train', None)
    """
    words = [w for w in re.split(r"[^a-z]+", path.name.lower()) if w]
    found = {SPLIT_ALIASES[w] for w in words if w in SPLIT_ALIASES}
    return found.pop() if len(found) == 1 else None


def discover_splits(folder: Path) -> dict[str, Path]:
    """Map canonical split names to the files of a folder; errors name clashing files."""
    found: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name.startswith("."):
            continue
        if path.suffix.lower() in _SKIP_SUFFIXES or path.stem.lower() in _SKIP_NAMES:
            continue
        name = split_name_of(path)
        if name is None:
            continue
        if name in found:
            raise InputError(
                f"two files look like the {name!r} split: {found[name].name} and {path.name}; "
                "name them with --split NAME=FILE",
                path=folder,
            )
        found[name] = path
    if not found:
        raise InputError(
            "no split files found: expected file names containing train, dev/valid/validation "
            "or test (or give them with --split NAME=FILE)",
            path=folder,
        )
    order = {"train": 0, "dev": 1, "test": 2}
    return dict(sorted(found.items(), key=lambda kv: order.get(kv[0], 3)))


def _source_files(
    source: str | Path | None, splits: Mapping[str, str | Path] | None, name: str | None
) -> tuple[dict[str, Path], Path | None, str]:
    """Resolve ``load``'s source: (split files, folder to inspect or None, dataset title).

    A folder comes back for the caller to recognise (saved HF, shards) before
    :func:`discover_splits`; its file mapping is then empty.
    """
    if (source is None) == (not splits):
        raise UsageError("give a dataset folder or file, or --split NAME=FILE options (not both)")
    if splits:
        return {str(k): Path(v) for k, v in splits.items()}, None, name or "dataset"
    path = Path(str(source))
    if not path.exists():
        raise InputError("no such file or folder", path=path)
    if path.is_dir():
        return {}, path, name or path.name
    return {split_name_of(path) or path.stem: path}, None, name or path.name


_WHOLE_FOLDERS = {
    "hf": "a saved HuggingFace dataset",
    "shards": "a shard folder written by benchcheck convert",
}


def _whole_folder_kind(folder: Path) -> str | None:
    """Say which folder :func:`load` reads as a whole (a key of ``_WHOLE_FOLDERS``), else None.

    The one place that decides: ``load`` dispatches on it and ``split_files`` refuses it.
    """
    from benchcheck.engine import shards
    from benchcheck.io import hf

    if hf.is_saved_hf(folder):
        return "hf"
    if shards.is_shard_folder(folder):  # written by `benchcheck convert`
        return "shards"
    return None


def split_files(
    source: str | Path | None = None, *, splits: Mapping[str, str | Path] | None = None
) -> dict[str, Path]:
    """Return the split files (name → file) :func:`load` reads, found as ``load`` finds them.

    ``splits`` are taken as given; a file is one split, named by :func:`split_name_of` or
    else after its stem; a folder is searched by :func:`discover_splits`. The errors are
    ``load``'s: neither or both of ``source`` and ``splits``, a missing path, clashing split
    files, no split file found. A folder ``load`` reads as a whole (a saved HuggingFace
    dataset, Parquet shards written by ``benchcheck convert``) has no split files: a
    :class:`~benchcheck.errors.UsageError` says what it is.

    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> {name: file.name for name, file in split_files(NER_SAMPLE).items()}
    {'train': 'train.txt', 'dev': 'dev.txt', 'test': 'test.txt'}
    """
    files, folder, _ = _source_files(source, splits, None)
    if folder is None:
        return files
    kind = _whole_folder_kind(folder)
    if kind is not None:
        raise UsageError(
            f"{folder} is {_WHOLE_FOLDERS[kind]}, not a folder of split files; "
            "pass it as it is to the commands that load a dataset"
        )
    return discover_splits(folder)


def load(
    source: str | Path | None = None,
    *,
    splits: Mapping[str, str | Path] | None = None,
    task: str = "ner",
    scheme: str | None = None,
    strict: bool = False,
    label_names: Sequence[str] | None = None,
    name: str | None = None,
    columns: Mapping[str, str | None] | None = None,
    keep_tokens: bool = True,
) -> Dataset:
    """Load a dataset from a folder, a file, or explicit ``splits`` (name → file).

    ``keep_tokens=False`` reads NER CoNLL files in bounded memory without their token table
    (enough for every statistic; see :func:`benchcheck.io.conll.read_conll`). A folder of
    Parquet shards written by ``benchcheck convert`` is read shard by shard the same way
    (see :mod:`benchcheck.engine.shards`).

    >>> from benchcheck.io.load import load
    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> sorted(load(NER_SAMPLE).split_names)
    ['dev', 'test', 'train']

    ``task="classification"`` or ``"pair"`` reads JSONL / CSV / TSV / Parquet files or a saved
    HuggingFace dataset; ``columns`` names the ``text``, ``text_a``, ``text_b``, ``label``
    and ``id`` columns (see :func:`benchcheck.io.tables.read_text_split`).
    """
    if task in ("classification", "pair"):
        return _load_text(source, splits, task, label_names, name, dict(columns or {}))
    if task != "ner":
        raise UsageError(f"unknown task {task!r}; expected 'ner', 'classification' or 'pair'")
    files, folder, title = _source_files(source, splits, name)
    if folder is not None:
        kind = _whole_folder_kind(folder)
        if kind == "hf":
            from benchcheck.io import hf

            return hf.read_hf_ner(folder, scheme=scheme, strict=strict)
        if kind == "shards":
            from benchcheck.engine import shards

            return shards.read_shards(
                folder, scheme=scheme, strict=strict, keep_tokens=keep_tokens, name=name
            )
        files = discover_splits(folder)
    jobs: dict[str, Callable[[], Split]] = {}
    for split, file in files.items():
        reader = _ner_reader(file)
        kwargs: dict[str, object] = (
            {"label_names": label_names}
            if reader is read_ner_jsonl
            else {"keep_tokens": keep_tokens}
        )
        jobs[split] = partial(reader, file, name=split, scheme=scheme, strict=strict, **kwargs)
    return Dataset(task="ner", splits=_read_splits(jobs), name=title)


def _read_splits(jobs: Mapping[str, Callable[[], Split]]) -> dict[str, Split]:
    """Run the split readers concurrently (a small test file is read while train is).

    The readers spend their time in polars and numpy, which release the GIL. Results and
    errors come back in split order: the first failing split's error is the one raised.
    """
    if len(jobs) <= 1:
        return {name: job() for name, job in jobs.items()}
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


def _load_text(
    source: str | Path | None,
    splits: Mapping[str, str | Path] | None,
    task: str,
    label_names: Sequence[str] | None,
    name: str | None,
    columns: dict[str, str | None],
) -> Dataset:
    """Classification and pair datasets (see :mod:`benchcheck.io.tables`)."""
    from benchcheck.io import tables

    cols = {k: v for k, v in columns.items() if v is not None}
    files, folder, title = _source_files(source, splits, name)
    if folder is not None:
        from benchcheck.io import hf

        if hf.is_saved_hf(folder):
            read = tables.read_hf_text(folder, task=task, label_names=label_names, **cols)
            return Dataset(task=task, splits=read, name=title)  # type: ignore[arg-type]
        files = discover_splits(folder)
    jobs = {
        split: partial(
            tables.read_text_split, file, task=task, name=split, label_names=label_names, **cols
        )
        for split, file in files.items()
    }
    return Dataset(task=task, splits=_read_splits(jobs), name=title)  # type: ignore[arg-type]
