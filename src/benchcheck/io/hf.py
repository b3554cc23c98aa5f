"""HuggingFace datasets, saved or on the Hub; needs the ``hf`` extra.

Saved datasets are read with ``datasets.load_from_disk``, Hub datasets (``hf:NAME``) with
``datasets.load_dataset``.

NER splits need a ``tokens`` column and a ``ner_tags`` (ClassLabel sequence, names read from
the features) or ``tags`` column.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from benchcheck.data.model import SPLIT_ALIASES, Dataset, Split
from benchcheck.errors import InputError, require
from benchcheck.io._decoded_arrow import check_saved_hf_decoded
from benchcheck.io._decoded_files import check_data_files_decoded
from benchcheck.io._ner import SHOWN_EMPTY, build_ner_split, warn_empty, with_empty_records

if TYPE_CHECKING:  # formats reads tables, which reads this module
    from benchcheck.io._options import NerOptions


def is_saved_hf(path: Path) -> bool:
    """Tell whether a folder was written by ``(Dataset|DatasetDict).save_to_disk``."""
    return (path / "dataset_dict.json").exists() or (path / "dataset_info.json").exists()


def saved_hf_parts(path: Path) -> list[tuple[str, str, Any]]:
    """Load a ``save_to_disk`` folder as ``(split name, source, datasets.Dataset)`` triples.

    Split names go through :data:`~benchcheck.data.model.SPLIT_ALIASES`; a lone ``Dataset`` is
    ``train``; ``source`` names the folder and the split as saved, for error messages. The
    folder's Arrow files are measured by decoded size first (compressed buffers, text
    dictionaries: :mod:`benchcheck.io._decoded_arrow`), refused past the bound unread.
    """
    datasets = require("datasets", "hf")
    check_saved_hf_decoded(path)
    try:
        loaded = datasets.load_from_disk(str(path))
    except Exception as exc:  # noqa: BLE001 - any loader error is a bad folder here
        raise InputError(f"cannot load a saved HuggingFace dataset: {exc}", path=path) from None
    parts = dict(loaded) if isinstance(loaded, datasets.DatasetDict) else {"train": loaded}
    return [(SPLIT_ALIASES.get(raw, raw), f"{path}[{raw}]", part) for raw, part in parts.items()]


def arrow_table(part: Any) -> Any:
    """Return the pyarrow table behind a ``datasets.Dataset`` (unwrapping its memory/mmap table)."""
    return part.data.table if hasattr(part.data, "table") else part.data


def read_hf_ner(
    path: str | Path,
    *,
    scheme: str | None = None,
    strict: bool = False,
    options: NerOptions | None = None,
) -> Dataset:
    """Read a saved HuggingFace NER dataset into a :class:`Dataset`."""
    path = Path(path)
    splits = {
        name: _split(part, name, source, scheme, strict, options)
        for name, source, part in saved_hf_parts(path)
    }
    return Dataset(task="ner", splits=splits, name=path.name)


def read_hf_hub(
    name: str,
    *,
    scheme: str | None = None,
    strict: bool = False,
    options: NerOptions | None = None,
) -> Dataset:
    """Read a Hub dataset, ``NAME`` or ``NAME:CONFIG``, with ``datasets.load_dataset``.

    The real download path (or ``datasets``' local cache). Offline, or where the Hub cannot
    be reached, an :class:`InputError` says which, and how to bring the dataset over. A
    local folder of data files (``hf:path/to/folder``) is read the same way, after the
    files the loader will read are measured by decoded size (:func:`local_data_files`,
    :mod:`benchcheck.io._decoded_files`) and refused past the bound, unread. A Hub
    dataset's files are not measured: they are only known once downloaded.
    """
    datasets = require("datasets", "hf")
    dataset_name, _, config = name.partition(":")
    source = f"hf:{name}"
    if not dataset_name:
        raise InputError("expected hf:NAME or hf:NAME:CONFIG", path=source)
    check_data_files_decoded(local_data_files(dataset_name, config or None))
    try:
        loaded = datasets.load_dataset(dataset_name, config or None)
    except Exception as exc:  # noqa: BLE001 - every loader failure is reported the same way
        raise InputError(_hub_failure(dataset_name, exc), path=source) from None
    parts = dict(loaded) if isinstance(loaded, datasets.DatasetDict) else {"train": loaded}
    splits = {
        SPLIT_ALIASES.get(raw, raw): _split(
            part,
            SPLIT_ALIASES.get(raw, raw),
            f"{source}[{raw}]",
            scheme,
            strict,
            options,
        )
        for raw, part in parts.items()
    }
    return Dataset(task="ner", splits=splits, name=dataset_name)


def local_data_files(name: str, config: str | None = None) -> list[Path]:
    """List the files ``datasets.load_dataset(name, config)`` reads, for a local folder.

    The loader's own resolution (``load_dataset_builder``: its ``data_files``, every split,
    nothing read yet). Not a folder, or a folder the loader cannot resolve: no files (the
    loader then says what is wrong).
    """
    if not Path(name).is_dir():
        return []
    datasets = require("datasets", "hf")
    try:
        builder = datasets.load_dataset_builder(name, config)
    except Exception:  # noqa: BLE001 - load_dataset reports the same failure itself
        return []
    data_files = getattr(builder.config, "data_files", None) or {}
    return [Path(str(f)) for files in data_files.values() for f in files]


def _hub_failure(name: str, exc: Exception) -> str:
    """Say why a Hub dataset could not be loaded, in the user's terms."""
    text = str(exc)
    bring = (
        "; where there is network, save it with datasets.load_dataset(...).save_to_disk(DIR) "
        "and give DIR"
    )
    if "OfflineModeIsEnabled" in text or "offline" in text.lower():
        return (
            f"cannot load {name!r}: HuggingFace offline mode is on (HF_HUB_OFFLINE or "
            f"HF_DATASETS_OFFLINE) and the dataset is not in the local cache{bring}"
        )
    if isinstance(exc, ConnectionError) or "Couldn't reach" in text:
        return (
            f"cannot load {name!r}: the HuggingFace Hub cannot be reached (no network?) and "
            f"the dataset is not in the local cache{bring}"
        )
    if type(exc).__name__ in ("DatasetNotFoundError", "FileNotFoundError"):
        return f"cannot load {name!r}: no such dataset on the Hub or on disk ({text})"
    return f"cannot load {name!r} with datasets.load_dataset: {type(exc).__name__}: {text}"


def _split(  # type: ignore[no-untyped-def]
    part, name: str, source: str, scheme: str | None, strict: bool, options: NerOptions | None
) -> Split:
    if "tokens" not in part.column_names:
        raise InputError(f"no 'tokens' column; columns are {part.column_names}", path=source)
    table = arrow_table(part)
    if "ner_tags" in part.column_names:
        feature = part.features["ner_tags"]
        names = getattr(getattr(feature, "feature", None), "names", None)
        if names is None:
            raise InputError(
                "'ner_tags' is not a sequence of ClassLabel: cannot name its tags", path=source
            )
        frame = _frame(table, "ner_tags", source)
        rows = _token_rows(frame)
        index = frame.get_column("ner_tags").explode()
        bad = (index.is_null() | (index < 0) | (index >= len(names))).arg_true()
        if bad.len():
            k = int(bad[0])
            raise InputError(
                f"tag index out of range for {len(names)} ClassLabel names",
                path=source,
                line=int(rows[k]),
                got=index[k],
            )
        tag = pl.Series(names, dtype=pl.String).gather(index)
    elif "tags" in part.column_names:
        frame = _frame(table, "tags", source)
        rows = _token_rows(frame)
        tag = frame.get_column("tags").explode()
        _no_missing(tag, rows, "tags", source)
    else:
        raise InputError(
            f"no 'ner_tags' or 'tags' column; columns are {part.column_names}", path=source
        )
    lengths = frame.get_column("tokens").list.len().to_numpy()
    token = frame.get_column("tokens").explode()
    _no_missing(token, rows, "tokens", source)
    starts = np.zeros(int(lengths.sum()), dtype=bool)
    starts[np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)] = True
    split = build_ner_split(
        name=name,
        source=source,
        token=token.alias("token"),
        tag=tag.alias("tag"),
        sentence_start=starts,
        line=rows,
        scheme=scheme,
        strict=strict,
        type_map=options.type_map if options else None,
        coarse_types=bool(options and options.coarse_types),
    )
    empty = _empty_rows(table)
    named = [f"row {r}" for r in empty[:SHOWN_EMPTY].tolist()]
    return warn_empty(with_empty_records(split, named, count=int(empty.size)), "rows")


def _empty_rows(table) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Return the 1-based rows whose tokens are empty or null: no instance (counted)."""
    import pyarrow.compute as pc

    lengths = pc.fill_null(pc.list_value_length(table.column("tokens")), 0)
    return np.flatnonzero(lengths.to_numpy(zero_copy_only=False) == 0) + 1


def _frame(table, tag_column: str, source: str) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    """Tokens and tags of the non-empty sentences, with their 1-based ``row`` in the split.

    Raises :class:`InputError` naming the row where tokens and tags differ in length.
    """
    frame = pl.from_arrow(table.select(["tokens", tag_column]))
    if not isinstance(frame, pl.DataFrame):  # pragma: no cover - from_arrow of a table
        raise TypeError("expected a table")
    frame = frame.with_row_index("row", offset=1).filter(pl.col("tokens").list.len() > 0)
    if frame.height == 0:  # checked here: an all-null column has no string operations
        raise InputError(
            "empty split: expected at least one sentence with tokens and tags", path=source
        )
    ragged = frame.filter(
        pl.col(tag_column).list.len().fill_null(-1) != pl.col("tokens").list.len()
    )
    if ragged.height:
        raise InputError(
            f"'tokens' and '{tag_column}' must be lists of the same length",
            path=source,
            line=int(ragged["row"][0]),
        )
    return frame


def _token_rows(frame: pl.DataFrame) -> np.ndarray:
    """Give every token the split row it comes from."""
    lengths = frame.get_column("tokens").list.len().to_numpy()
    return np.repeat(frame.get_column("row").to_numpy().astype(np.int64), lengths)


def _no_missing(values: pl.Series, rows: np.ndarray, column: str, source: str) -> None:
    """Reject null or empty strings (a token or tag must be a non-empty string)."""
    bad = (values.is_null() | (values == "")).fill_null(True).arg_true()
    if bad.len():
        raise InputError(
            f"'{column}' must hold non-empty strings", path=source, line=int(rows[int(bad[0])])
        )
