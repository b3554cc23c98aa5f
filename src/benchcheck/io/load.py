"""One entry point from files to the dataset model: :func:`load`.

A folder is searched for split files by name (``train``, ``dev``/``valid``/``validation``/
``testa``, ``test``/``testb`` as a word of the file name, e.g. ``eng.testa`` or
``conll2003_train.txt``); a saved HuggingFace dataset folder is read with ``datasets``; a
single file becomes one split, named after its file when the name says which; ``hf:NAME``
is a HuggingFace Hub dataset. Each NER file is read in its format, given or detected
(:mod:`benchcheck.io.formats`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from benchcheck.data.columns import Columns
from benchcheck.data.mcq import McqColumns
from benchcheck.data.model import (
    Dataset,
    Split,
    file_split_name,
    in_split_order,
    split_name_of,
)
from benchcheck.errors import DataWarning, InputError, UsageError
from benchcheck.io._spans import UnlabelledSplit
from benchcheck.io._text import check_readable
from benchcheck.io.formats import FORMATS, NerOptions, read_ner_file

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


def read_predictions(
    files: Mapping[str, str | Path], *, scheme: str | None = None
) -> dict[str, Split]:
    """Read NER prediction files (CoNLL or NER JSONL), model name → predicted split.

    Each file is read like a dataset file (the last column holds the predicted tags), under
    ``scheme`` when given.
    """
    return {
        name: read_ner_file(Path(file), name=name, scheme=scheme) for name, file in files.items()
    }


def discover_splits(folder: Path, *, suffixes: Sequence[str] | None = None) -> dict[str, Path]:
    """Map canonical split names to the files of a folder; errors name clashing files.

    ``suffixes`` (a format's) are taken even where they are skipped otherwise (``.json``).
    Files whose names point to no split are listed in a :class:`DataWarning` (or in the
    error, when no file does).
    """
    found: dict[str, Path] = {}
    unnamed: list[str] = []
    wanted = {s for s in suffixes or () if s}
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if not path.is_file():
            if not path.is_dir() and split_name_of(path) is not None:
                check_readable(path)  # a FIFO, a device or a link loop named like a split
            continue
        suffix = path.suffix.lower()
        if wanted and suffix not in wanted:
            continue
        if (suffix in _SKIP_SUFFIXES and suffix not in wanted) or path.stem.lower() in _SKIP_NAMES:
            continue
        name = split_name_of(path)
        if name is None:
            unnamed.append(path.name)
            continue
        if name in found:
            raise InputError(
                f"two files look like the {name!r} split: {found[name].name} and {path.name}; "
                "give each split's file by name ({splits})",
                path=folder,
            )
        found[name] = path
    left = f" ({_listed(unnamed)} name no split)" if unnamed else ""
    if not found:
        raise InputError(
            "no split files found: expected file names containing train, dev/valid/validation "
            f"or test{left} (or give each split's file by name: {{splits}})",
            path=folder,
        )
    if unnamed:
        warnings.warn(
            f"{folder}: not read, their names point to no split (train, dev, test): "
            f"{_listed(unnamed)}",
            DataWarning,
            stacklevel=2,
        )
    return in_split_order(found)


def _listed(names: Sequence[str], most: int = 5) -> str:
    """Return up to ``most`` names, comma-separated, and how many more.

    >>> _listed(["a", "b"]), _listed(list("abcdefg"), 3)
    ('a, b', 'a, b, c and 4 more')
    """
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


def _source_files(
    source: str | Path | None, splits: Mapping[str, str | Path] | None, name: str | None
) -> tuple[dict[str, Path], Path | None, str]:
    """Resolve ``load``'s source: (split files, folder to inspect or None, dataset title).

    A folder comes back for the caller to recognise (saved HF, shards) before
    :func:`discover_splits`; its file mapping is then empty.
    """
    if (source is None) == (not splits):
        raise UsageError(
            "give a dataset folder or file, or each split's file by name ({splits}), not both"
        )
    if splits:
        return {str(k): Path(v) for k, v in splits.items()}, None, name or "dataset"
    path = Path(str(source))
    if not path.exists():
        raise InputError("no such file or folder", path=path)
    if path.is_dir():
        return {}, path, name or path.name
    return {file_split_name(path): path}, None, name or path.name


_WHOLE_FOLDERS = {
    "hf": "a saved HuggingFace dataset",
    "shards": "a shard folder written by benchcheck convert",
}


def _whole_folder_kind(folder: Path) -> str | None:
    """Say which folder :func:`load` reads as a whole (a key of ``_WHOLE_FOLDERS``), else None.

    The one place that decides: ``load`` dispatches on it and ``split_files`` refuses it.
    """
    from benchcheck.io import hf, shards

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
    columns: Columns | Mapping[str, str | None] | None = None,
    keep_tokens: bool = True,
    ner: NerOptions | None = None,
    mcq: McqColumns | None = None,
) -> Dataset:
    """Load a dataset from a folder, a file, ``hf:NAME``, or explicit ``splits`` (name → file).

    ``keep_tokens=False`` reads NER CoNLL files in bounded memory without their token table
    (enough for every statistic; see :func:`benchcheck.io.conll.read_conll`). A folder of
    Parquet shards written by ``benchcheck convert`` is read shard by shard the same way
    (see :mod:`benchcheck.io.shards`). ``ner`` gives the NER format (else detected per
    file), the offset formats' tokeniser and span policies, and entity-type renaming
    (:class:`~benchcheck.io.formats.NerOptions`). A split file of a folder that holds no
    annotation at all (CLUENER's unlabelled ``test.json``) is skipped, and named in
    ``meta["skipped_splits"]``; given by name, it is an error.

    >>> from benchcheck.io.load import load
    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> sorted(load(NER_SAMPLE).split_names)
    ['dev', 'test', 'train']

    ``task="classification"`` or ``"pair"`` reads JSONL / CSV / TSV / Parquet files or a saved
    HuggingFace dataset; ``columns`` names the ``text``, ``text_a``, ``text_b``, ``label``
    and ``id`` columns (see :func:`benchcheck.io.tables.read_text_split`). ``task="mcq"``
    reads multiple-choice questions, ``mcq`` naming their columns (see
    :mod:`benchcheck.io.mcq`).
    """
    if task in ("classification", "pair"):
        given: dict[str, str | None] = dict(Columns.of(columns).given())
        return _load_text(source, splits, task, label_names, name, given)
    if task == "mcq":
        return _load_mcq(source, splits, name, mcq)
    if task != "ner":
        raise UsageError(
            f"unknown task {task!r}; expected 'ner', 'classification', 'pair' or 'mcq'"
        )
    options = ner or NerOptions()
    meta: dict[str, object] = {}
    if options.renames:
        meta["type_map"] = options.to_json()
    hub = _hub_name(source, options)
    if hub is not None and not splits:
        from benchcheck.io import hf

        read = hf.read_hf_hub(hub, scheme=scheme, strict=strict, options=options)
        return Dataset(task="ner", splits=read.splits, name=name or read.name, meta=meta)
    files, folder, title = _source_files(source, splits, name)
    discovered = False
    if folder is not None:
        kind = _whole_folder_kind(folder)
        if kind == "hf":
            from benchcheck.io import hf

            read = hf.read_hf_ner(folder, scheme=scheme, strict=strict, options=options)
            return Dataset(task="ner", splits=read.splits, name=read.name, meta=meta)
        if kind == "shards":
            from benchcheck.io import shards

            return shards.read_shards(
                folder, scheme=scheme, strict=strict, keep_tokens=keep_tokens, name=name
            )
        if options.format == "brat" or (options.format is None and _is_brat(folder)):
            from benchcheck.io import brat

            files = brat.split_folders(folder)
        else:
            fmt = FORMATS.get(options.format or "")
            files = discover_splits(folder, suffixes=fmt.suffixes if fmt and fmt.offsets else None)
            discovered = True
    if options.split_lists:
        return _load_by_lists(files, options, title, meta, keep_tokens)
    jobs: dict[str, Callable[[], Split | None]] = {
        split: partial(
            _read_one,
            file,
            name=split,
            scheme=scheme,
            strict=strict,
            label_names=label_names,
            keep_tokens=keep_tokens,
            options=options,
            skip_unlabelled=discovered,
        )
        for split, file in files.items()
    }
    read_splits = _read_splits(jobs)
    skipped = [files[k].name for k, v in read_splits.items() if v is None]
    if skipped:
        meta["skipped_splits"] = skipped
    kept = {k: v for k, v in read_splits.items() if v is not None}
    if not kept:
        raise InputError(
            "no labelled split: every split file holds texts without annotations", path=folder
        )
    return Dataset(task="ner", splits=kept, name=title, meta=meta)


def _is_brat(folder: Path) -> bool:
    """Tell whether a folder is a BRAT corpus (``.ann`` files in it or in its subfolders)."""
    from benchcheck.io import brat

    return brat.has_ann(folder)


def _load_by_lists(
    files: Mapping[str, Path],
    options: NerOptions,
    title: str,
    meta: dict[str, object],
    keep_tokens: bool,
) -> Dataset:
    """Divide one file's documents into splits by id lists (``NerOptions.split_lists``).

    Every listed id must be a document of the file, and in one list only; documents in no
    list are left out and counted in ``meta["unassigned_documents"]``.
    """
    import numpy as np

    from benchcheck.io._documents import read_id_list, subset
    from benchcheck.io.formats import detect_format, read_records, records_to_split

    if len(files) != 1:
        raise UsageError(
            "{split_lists} divides the documents of one file (or BRAT folder) into splits; "
            f"got {len(files)} split files"
        )
    (path,) = files.values()
    fmt = options.format or detect_format(path, span_fields=bool(options.span_fields))
    if fmt not in ("pubtator", "brat", "medcat", "spans-json"):
        raise UsageError(
            f"{{split_lists}} needs documents with ids (pubtator, brat, medcat or spans-json), "
            f"not {fmt}"
        )
    records = read_records(path, fmt, options)
    index = {doc_id: k for k, doc_id in enumerate(records.ids or ())}
    owner: dict[str, str] = {}
    splits: dict[str, Split] = {}
    for split, list_file in options.split_lists.items():
        chosen = []
        for doc_id, line in read_id_list(list_file):
            if doc_id not in index:
                raise InputError(
                    f"document {doc_id} is not in {path}; expected ids of its documents",
                    path=list_file,
                    line=line,
                )
            if doc_id in owner:
                raise InputError(
                    f"document {doc_id} is listed for both {owner[doc_id]} and {split}; "
                    "expected each document in one split",
                    path=list_file,
                    line=line,
                )
            owner[doc_id] = split
            chosen.append(index[doc_id])
        part = subset(records, np.array(chosen, dtype=np.int64))
        splits[split] = records_to_split(
            part, name=split, source=str(path), fmt=fmt, options=options, keep_tokens=keep_tokens
        )
    meta["split_lists"] = dict(options.split_lists)
    meta["unassigned_documents"] = len(index) - len(owner)
    return Dataset(task="ner", splits=splits, name=title, meta=meta)


def _hub_name(source: str | Path | None, options: NerOptions) -> str | None:
    """Return the Hub dataset ``source`` names (``hf:NAME``, or any name with format hf)."""
    if source is None:
        return None
    text = str(source)
    if text.startswith("hf:"):
        return text[3:]
    if options.format == "hf":
        return text
    return None


def _read_one(file: Path, *, skip_unlabelled: bool, **kwargs: object) -> Split | None:
    """Read one split file; ``None`` for a discovered file that holds no annotation."""
    try:
        return read_ner_file(file, **kwargs)  # type: ignore[arg-type]
    except UnlabelledSplit:
        if skip_unlabelled:
            return None
        raise


def _read_splits(jobs: Mapping[str, Callable[[], Split | None]]) -> dict[str, Split | None]:
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

    cols = Columns(**columns)
    files, folder, title = _source_files(source, splits, name)
    if folder is not None:
        from benchcheck.io import hf

        if hf.is_saved_hf(folder):
            read = tables.read_hf_text(folder, task=task, label_names=label_names, columns=cols)
            return Dataset(task=task, splits=read, name=title)  # type: ignore[arg-type]
        files = discover_splits(folder)
    jobs = {
        split: partial(
            tables.read_text_split,
            file,
            task=task,
            name=split,
            label_names=label_names,
            columns=cols,
        )
        for split, file in files.items()
    }
    return Dataset(task=task, splits=_read_splits(jobs), name=title)  # type: ignore[arg-type]


def _load_mcq(
    source: str | Path | None,
    splits: Mapping[str, str | Path] | None,
    name: str | None,
    columns: McqColumns | None,
) -> Dataset:
    """Multiple-choice datasets (see :mod:`benchcheck.io.mcq`)."""
    from benchcheck.io import mcq

    files, folder, title = _source_files(source, splits, name)
    if folder is not None:
        from benchcheck.io import hf

        if hf.is_saved_hf(folder):
            return Dataset(task="mcq", splits=mcq.read_hf_mcq(folder, columns=columns), name=title)
        files = discover_splits(folder)
    jobs = {
        split: partial(mcq.read_mcq_split, file, name=split, columns=columns)
        for split, file in files.items()
    }
    return Dataset(task="mcq", splits=_read_splits(jobs), name=title)  # type: ignore[arg-type]
