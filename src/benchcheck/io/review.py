"""Files of a blind review: write the package, find an existing review, read the answers.

The package (:class:`benchcheck.labels.review.ReviewPackage`) becomes, in one folder:

* ``expert_a.csv``, ``expert_b.csv``, … — ``review_id``, ``content_hash``, the text
  columns and an empty ``label``; every cell a spreadsheet could run as a formula is
  prefixed with ``'`` (:mod:`benchcheck.io.spreadsheet`), undone on import;
* ``tasks.json`` + ``label_config.xml`` — Label Studio tasks and labelling interface;
* ``argilla/settings.json`` + ``argilla/records.json`` — an Argilla 2.x dataset:
  ``rg.Settings.from_json`` and ``dataset.records.from_json`` read them;
* ``guidelines.md`` — the task, the columns and what each label means (also shown by the
  Label Studio interface and in the Argilla settings);
* ``key.jsonl`` — the private key (never for the experts); ``README.txt``.

Expert answers come back as CSV/TSV/JSONL (``review_id``, ``label``, and the
``content_hash`` or text columns that prove they belong to the key), a Label Studio JSON
export, or an Argilla records export (one expert per annotator).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from benchcheck.errors import InputError, UsageError
from benchcheck.io.spreadsheet import neutralise_frame, restore
from benchcheck.io.tables import read_rows
from benchcheck.labels.guidelines import Guidelines
from benchcheck.labels.review import (
    HASH_COLUMN,
    KEY_NAME,
    TEXT_COLUMNS,
    ExpertLabels,
    ReviewPackage,
    content_hash,
)
from benchcheck.labels.span_review import SPAN_KEY_MARK, Region, SpanAnswers, SpanReviewPackage

__all__ = [
    "ReviewFiles",
    "existing_review",
    "package_files",
    "read_choices",
    "read_expert_file",
    "read_guidelines",
    "read_review_key",
    "read_span_answers",
    "read_span_key",
    "span_package_files",
    "write_review",
]

CONFIG_NAME = "label_config.xml"
#: The reviewers' guidelines in every package: the task, the columns, what each label means.
GUIDELINES_NAME = "guidelines.md"


def read_guidelines(path: str | Path) -> Guidelines:
    """Read review guidelines: TOML (``task`` and a ``[labels]`` table of meanings) or text.

    A ``.toml`` file holds ``task = "..."`` and ``[labels]`` with one ``LABEL = "meaning"``
    per label (or entity type); any other file is the task definition as written (the
    label meanings then come from the task's default).
    """
    import tomllib

    from benchcheck.io._text import read_text_file

    path = Path(path)
    text = read_text_file(path)
    if path.suffix.lower() != ".toml":
        if not text.strip():
            raise InputError("the guidelines file is empty", path=path)
        return Guidelines(text.strip())
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", path=path) from None
    unknown = sorted(set(data) - {"task", "labels"})
    if unknown:
        raise InputError(f"unknown key(s) {unknown}; expected task and a [labels] table", path=path)
    task, labels = data.get("task"), data.get("labels", {})
    if not isinstance(task, str) or not task.strip():
        raise InputError('needs task = "what the reviewers decide" (a text)', path=path)
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise InputError('[labels] must give one text per label: LABEL = "meaning"', path=path)
    return Guidelines(task.strip(), {str(k): v.strip() for k, v in labels.items()})


def package_files(package: ReviewPackage) -> dict[str, str]:
    """Return the text of every file of the package by its path in the folder (write order)."""
    files: dict[str, str] = {}
    sheet = neutralise_frame(package.expert_sheet())
    csv_text = sheet.write_csv()
    for name in package.experts:
        files[f"{name}.csv"] = csv_text
    files["tasks.json"] = _json(package.label_studio_tasks())
    files[CONFIG_NAME] = package.label_studio_config()
    files["argilla/settings.json"] = _json(package.argilla_settings())
    files["argilla/records.json"] = _json(package.argilla_records())
    files[KEY_NAME] = _jsonl(package.key)
    files[GUIDELINES_NAME] = package.guidelines_markdown()
    files["README.txt"] = _readme(package)
    return files


def span_package_files(package: SpanReviewPackage) -> dict[str, str]:
    """Files of a span review: Label Studio ``tasks.json`` + ``label_config.xml``, the key."""
    key = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in package.key_rows())
    return {
        "tasks.json": _json(package.label_studio_tasks()),
        CONFIG_NAME: package.label_studio_config(),
        KEY_NAME: key,
        GUIDELINES_NAME: package.guidelines_markdown(),
        "README.txt": _span_readme(package),
    }


def _span_readme(package: SpanReviewPackage) -> str:
    return f"""Blind span review package written by benchcheck ({package.n_items} sentences of
split {package.split}, seed {package.seed}).

In Label Studio, create a project with label_config.xml as its labelling interface and
import tasks.json; give the reviewers guidelines.md (the task and the entity types; the
interface shows them too). Each task shows one sentence with its current entity spans
pre-annotated, between the sentences before and after it, with its document: correct them
(move a boundary, change a type, delete a span, add a missing one) and submit; skip a
sentence you cannot judge. Mark whole tokens (the interface snaps to words). Reviewers
work alone.

Export the project (JSON or JSON-MIN) and read it back:
    benchcheck review import export.json --key key.jsonl -o corrected_spans.jsonl

key.jsonl maps the tasks to the sentences and holds the flags: do NOT give it to the
reviewers.
"""


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _jsonl(frame: pl.DataFrame) -> str:
    from benchcheck.io.tables import _json_value

    return "".join(
        json.dumps({k: _json_value(v) for k, v in row.items()}, ensure_ascii=False) + "\n"
        for row in frame.iter_rows(named=True)
    )


def _readme(package: ReviewPackage) -> str:
    experts = " ".join(f"{n}.csv" for n in package.experts)
    head = (
        f"Blind review package written by benchcheck ({package.n_items} items, "
        f"seed {package.seed})."
    )
    return f"""{head}

Give each expert their own expert_X.csv (or import tasks.json with label_config.xml into
Label Studio, or the argilla/ folder into Argilla 2.x:
    settings = rg.Settings.from_json("argilla/settings.json")
    dataset = rg.Dataset(name="review", settings=settings); dataset.create()
    dataset.records.from_json("argilla/records.json")
). Give every expert guidelines.md too: the task, the columns and what each label means
(Label Studio and Argilla show them in the interface). Each expert fills the `label`
column alone, without seeing the others. Keep the
review_id and content_hash columns: the import checks them against the key. Cells that
a spreadsheet could run as a formula (starting with = + - @, a tab or a carriage return)
start with a ' in the CSV files; the import removes it again.
Then reconcile disagreements in reconciled.csv (columns review_id,label; leave a label empty
when the disagreement stays unresolved).

key.jsonl maps review ids to the examples and holds the original and LLM labels:
do NOT give it to the experts.

    benchcheck review import {experts} --reconciled reconciled.csv -o gold.jsonl
"""


def _filled(path: Path) -> int:
    """Answers already filled in an expert file (0 when it cannot be read as one)."""
    try:
        frame = read_rows(path)
    except InputError:
        return 0
    if "label" not in frame.columns:
        return 0
    col = frame["label"].cast(pl.String).str.strip_chars()
    return int((col.is_not_null() & (col != "")).sum())


def existing_review(out_dir: str | Path, names: Sequence[str]) -> list[str]:
    """Describe what in ``out_dir`` a new package of files ``names`` would replace.

    A review key is ``key.jsonl``; an expert file is named with how many answers it holds
    (any expert CSV of the folder, also ones the new package would not write).
    """
    out = Path(out_dir)
    if not out.is_dir():
        return []
    found: list[str] = []
    experts = {p.name for p in out.glob("expert_*.csv")} | {
        n for n in names if n.startswith("expert_")
    }
    for name in sorted(set(names) | experts):
        path = out / name
        if not path.is_file():
            continue
        if name.startswith("expert_"):
            filled = _filled(path)
            found.append(f"{name} ({filled} answer(s) filled)" if filled else name)
        elif name == KEY_NAME:
            found.append(f"{name} (the key of an earlier review)")
        else:
            found.append(name)
    return found


@dataclass(frozen=True)
class ReviewFiles:
    """What :func:`write_review` wrote, and what it replaced (with ``force``)."""

    out_dir: str
    files: tuple[str, ...]
    replaced: tuple[str, ...]


def write_review(
    package: ReviewPackage | SpanReviewPackage,
    out_dir: str | Path,
    *,
    force: bool = False,
    inputs: Sequence[str | Path | None] = (),
) -> ReviewFiles:
    """Write the package into ``out_dir``; refuse a folder that already holds a review.

    Without ``force``, a folder holding any file the package would write, or any expert
    CSV, is refused with a :class:`UsageError` naming them (and the answers filled). With
    ``force`` those files are replaced (expert files of an earlier, larger package removed)
    and listed in :attr:`ReviewFiles.replaced`, so the caller can say so. A file of the
    package that is one of ``inputs`` is refused even with ``force``. Writes go through
    :class:`benchcheck.io.output.Outputs`: a new folder appears whole, each file of an
    existing one is replaced atomically.
    """
    from benchcheck.io.output import Outputs

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{{output}}: {out} is a file; expected a folder")
    if isinstance(package, SpanReviewPackage):
        files = span_package_files(package)
    else:
        files = package_files(package)
    present = existing_review(out, list(files))
    if present and not force:
        raise UsageError(
            f"{{output}}: {out} already holds a review: {', '.join(present)}; "
            "pass {force} to overwrite it"
        )
    # the refusal above is this command's; Outputs still refuses writing over an input,
    # and a link inside the folder unless the caller's force lets it replace the link itself
    folder = Outputs(inputs, force=True).folder(
        out, param="output", names=list(files), patterns=("expert_*.csv",), replace_links=force
    )
    with folder as staged:
        for name, text in files.items():
            staged.write(name, text)
    return ReviewFiles(str(out), tuple(files), tuple(present))


def read_review_key(path: str | Path) -> pl.DataFrame:
    """Read a review key (``key.jsonl``); an absent file says which parameter names it."""
    path = Path(path)
    if not path.exists():
        raise InputError("review key not found (pass {key})", path=path)
    return read_rows(path)


def read_choices(key_path: str | Path) -> tuple[str, ...]:
    """Labels the export offered, from the ``label_config.xml`` beside the key (or none)."""
    import html

    config = Path(key_path).parent / CONFIG_NAME
    if not config.exists():
        return ()
    text = config.read_text("utf-8")
    return tuple(html.unescape(v) for v in re.findall(r'<Choice value="([^"]*)"', text))


def read_expert_file(
    path: str | Path,
    *,
    labels: Sequence[str],
    normalize: Callable[[str], str] | None = None,
    key: pl.DataFrame | None = None,
) -> list[ExpertLabels]:
    """Read one file of answers: one expert, or one per annotator when the file names them.

    CSV/TSV/JSONL need ``review_id`` and ``label``; the ``'`` that the export put before
    formula-like cells is removed. The rows' ``content_hash`` proves they belong to the
    key; without that column it is computed from the file's text columns (``text``,
    ``text_a``, ``text_b``, as the export wrote them) when it has any; with the review
    ``key``, the texts under the key's own column names (the dataset's, ``grounding``) must
    be the key's texts of that review id, else :class:`InputError` names the file and line
    (an answer file of another review). A table with an
    ``annotator`` column (Label Studio's CSV/TSV export) holds one expert per annotator;
    rows without an annotator are tasks nobody answered. A ``.json`` file is a Label Studio
    export — JSON (tasks with ``data.review_id`` and ``annotations``, one expert per
    ``completed_by``; a skipped annotation, ``was_cancelled``, is no answer) or JSON-MIN (one
    row per annotation with ``annotator``) — or an Argilla records export (``id``,
    ``fields``, ``responses.label``, one expert per ``user_id``). ``normalize`` (the task's
    reading of an answer, e.g. ``b`` → ``B``) is applied before the check. Labels outside
    ``labels``, missing or duplicate ids raise :class:`InputError` naming the file and line.
    """
    path = Path(path)
    if path.suffix.lower() == ".json":
        return _read_json_answers(path, labels, normalize)
    frame = read_rows(path)
    for col in ("review_id", "label"):
        if col not in frame.columns:
            shown = [c for c in frame.columns if c != "__line__"]
            raise InputError(
                f"no column {col!r}; expected review_id,label; the file has {shown}", path=path
            )
    spreadsheet = path.suffix.lower() in (".csv", ".tsv")
    header = 1 if spreadsheet else 0
    has_hash = HASH_COLUMN in frame.columns
    by_annotator = "annotator" in frame.columns
    texts = [] if has_hash else [c for c in TEXT_COLUMNS if c in frame.columns]
    shared = [] if has_hash or key is None else _shared_texts(frame, key)
    if shared:
        texts = shared
        assert key is not None
        known = {
            str(r["review_id"]): r
            for r in key.select("review_id", *shared, *_hash_of(key)).iter_rows(named=True)
            if r["review_id"] is not None
        }
    wanted = [
        "review_id",
        "label",
        *([HASH_COLUMN] if has_hash else []),
        *(["annotator"] if by_annotator else []),
        *texts,
    ]
    rows = frame.select(
        *[pl.col(c).cast(pl.String) for c in wanted],
        *([pl.col("__line__")] if "__line__" in frame.columns else []),
    ).iter_rows(named=True)
    answers = _Answers(path, labels, normalize)
    for i, row in enumerate(rows):
        line = int(row.get("__line__") or (i + 1 + header))
        value = {c: restore(row[c]) if spreadsheet else row[c] for c in wanted}
        rid = (value["review_id"] or "").strip()
        if not rid:
            raise InputError("missing review_id", path=path, line=line)
        if has_hash:
            digest: str | None = (value[HASH_COLUMN] or "").strip()
        elif shared:
            digest = _compare_texts(rid, value, known.get(rid), shared, path, line)
        elif texts:
            digest = content_hash(rid, {c: value[c] for c in texts})
        else:
            digest = None
        who = (value.get("annotator") or "").strip() if by_annotator else ""
        answers.item(rid, digest, line)
        if by_annotator and not who:
            continue  # a task nobody answered (Label Studio lists it with no annotator)
        answers.add(who, rid, (value["label"] or "").strip() or None, line)
    return answers.experts(checked=has_hash or bool(texts))


#: Columns of an answer file that are never the data's texts.
_NOT_TEXT = ("review_id", "label", "annotator", HASH_COLUMN, "__line__", "id", "stratum")


def _shared_texts(frame: pl.DataFrame, key: pl.DataFrame) -> list[str]:
    """Return the text columns an answer file shares with the key (the dataset's names)."""
    return [
        c
        for c in frame.columns
        if c in key.columns and c not in _NOT_TEXT and key.schema[c] == pl.String
    ]


def _hash_of(key: pl.DataFrame) -> list[str]:
    return [HASH_COLUMN] if HASH_COLUMN in key.columns else []


def _compare_texts(
    rid: str,
    value: Mapping[str, str | None],
    item: Mapping[str, Any] | None,
    columns: Sequence[str],
    path: Path,
    line: int,
) -> str | None:
    """Check an answer row's texts against the key's item; return the item's content_hash.

    An unknown review id is left to the id check (:func:`combine_review`).
    """
    if item is None:
        return None
    for c in columns:
        if (value[c] or "") != (item[c] or ""):
            raise InputError(
                f"the {c!r} text of {rid} is not the review's (key.jsonl): an answer file "
                "of another review, or an edited text?",
                path=path,
                line=line,
            )
    found = item.get(HASH_COLUMN)
    return None if found is None else str(found)


class _Answers:
    """Answers of one file by annotator (``""`` = the file's one expert), checked as they come."""

    def __init__(
        self, path: Path, labels: Sequence[str], normalize: Callable[[str], str] | None = None
    ) -> None:
        self.path = path
        self.labels = labels
        self.normalize = normalize
        self.hashes: dict[str, str | None] = {}
        self.lines: dict[str, int] = {}
        self.by: dict[str, dict[str, str | None]] = {}

    def item(self, rid: str, digest: str | None, line: int | None, *, where: str = "") -> None:
        """Record an item of the file (the same item may come once per annotator).

        ``where`` (a JSON path) starts the messages of an export.
        """
        known = self.hashes.get(rid)
        if rid in self.hashes and known != digest:
            raise InputError(
                f"{where}{': ' if where else ''}review_id given twice with different "
                f"{HASH_COLUMN}s",
                path=self.path,
                line=line,
                got=rid,
            )
        self.hashes[rid] = digest
        if line is not None:
            self.lines.setdefault(rid, line)

    def add(
        self, who: str, rid: str, label: str | None, line: int | None, *, where: str = ""
    ) -> None:
        """One answer; ``None`` is an empty or skipped answer."""
        mine = self.by.setdefault(who, {})
        at = f"{where}: " if where else ""
        if rid in mine:
            what = f"{at}review_id given twice" + (f" by annotator {who}" if who else "")
            raise InputError(what, path=self.path, line=line, got=rid)
        if label is not None and self.normalize is not None:
            label = self.normalize(label)
        if label is not None and label not in self.labels:
            raise InputError(
                f"{at}label must be one of {list(self.labels)} or empty",
                path=self.path,
                line=line,
                got=label,
            )
        mine[rid] = label

    def experts(self, *, checked: bool, notes: tuple[str, ...] = ()) -> list[ExpertLabels]:
        """Return one :class:`ExpertLabels` per annotator: ``<stem>@<annotator>``, or the stem.

        ``notes`` (what the reader left out, counted) go with every one of them.
        """
        if not self.by:
            raise InputError("the file holds no answer (no annotation of any task)", path=self.path)
        hashes: dict[str, str] | None = None
        if checked and all(h is not None for h in self.hashes.values()):
            hashes = {r: h for r, h in self.hashes.items() if h is not None}
        stem = self.path.stem
        return [
            ExpertLabels(
                f"{stem}@{who}" if who and len(self.by) > 1 else stem,
                str(self.path),
                {rid: answers.get(rid) for rid in self.hashes},
                hashes,
                dict(self.lines),
                notes,
            )
            for who, answers in sorted(self.by.items(), key=lambda kv: _natural(kv[0]))
        ]


def _natural(name: str) -> tuple[int, int, str]:
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


def _read_json_answers(
    path: Path, labels: Sequence[str], normalize: Callable[[str], str] | None = None
) -> list[ExpertLabels]:
    """Answers of a Label Studio JSON / JSON-MIN or Argilla export, checked by its shape.

    :func:`benchcheck.io.review_exports.read_item_export` checks every element against the
    format's shape and reads the answers; here they are checked against the key's labels.
    """
    from benchcheck.io._text import loads_json, read_text_file
    from benchcheck.io.review_exports import read_item_export

    items = loads_json(read_text_file(path), path)
    if not isinstance(items, list):
        raise InputError("a Label Studio or Argilla export is a JSON list", path=path)
    if not items:
        raise InputError("the export holds no task", path=path)
    read = read_item_export(items, path)
    answers = _Answers(path, labels, normalize)
    records: set[str] = set()
    for a in read.answers:
        if not a.review_id.strip():
            raise InputError(f"{a.where}: an empty review_id", path=path)
        if a.who is None:
            if read.format == "argilla item" and a.review_id in records:
                raise InputError(f"{a.where}: record id given twice", path=path, got=a.review_id)
            records.add(a.review_id)
            answers.item(a.review_id, a.content_hash, None, where=a.where)
            continue
        answers.add(a.who, a.review_id, a.value, None, where=a.where)
    if read.format == "argilla item" and not answers.by:
        raise InputError("the Argilla export holds no answer to the 'label' question", path=path)
    return answers.experts(checked=True, notes=read.notes)


def read_span_key(path: str | Path) -> list[dict[str, Any]] | None:
    """Return the rows of a span review key, or ``None`` when ``path`` is a classification key."""
    from benchcheck.io._text import loads_json, read_text_file

    path = Path(path)
    if not path.exists():
        raise InputError("review key not found (pass {key})", path=path)
    text = read_text_file(path)
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = loads_json(line, path)
        if not isinstance(row, dict):
            raise InputError("expected one JSON object per line", path=path, line=n)
        if not rows and SPAN_KEY_MARK not in row:
            return None
        rows.append(row)
    return rows if rows else None


class _SpanAnswers:
    """Regions of one export by annotator, checked as they come."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hashes: dict[str, str | None] = {}
        self.where: dict[str, str] = {}
        self.by: dict[str, dict[str, tuple[Region, ...] | None]] = {}
        self.where_by: dict[str, dict[str, str]] = {}

    def item(self, rid: str, digest: Any, where: str) -> None:
        value = None if digest is None else str(digest)
        if rid in self.hashes and self.hashes[rid] != value:
            raise InputError(
                f"{where}: review_id {rid} given twice with different {HASH_COLUMN}s",
                path=self.path,
            )
        self.hashes[rid] = value
        self.where.setdefault(rid, where)

    def add(self, who: str, rid: str, regions: tuple[Region, ...] | None, where: str) -> None:
        mine = self.by.setdefault(who, {})
        if rid in mine:
            raise InputError(f"{where}: annotator {who} annotated it twice", path=self.path)
        mine[rid] = regions
        self.where_by.setdefault(who, {})[rid] = where

    def experts(self, notes: tuple[str, ...] = ()) -> list[SpanAnswers]:
        if not self.by:
            raise InputError("the export holds no annotation of any task", path=self.path)
        stem = self.path.stem
        return [
            SpanAnswers(
                f"{stem}@{who}" if len(self.by) > 1 else stem,
                str(self.path),
                {rid: regions.get(rid) for rid in self.hashes},
                dict(self.hashes),
                {**self.where, **self.where_by.get(who, {})},
                notes,
            )
            for who, regions in sorted(self.by.items(), key=lambda kv: _natural(kv[0]))
        ]


def read_span_answers(path: str | Path) -> list[SpanAnswers]:
    """Read a Label Studio export of a span review: one :class:`SpanAnswers` per annotator.

    JSON (tasks with ``data.review_id`` and ``annotations``: each ``completed_by`` is a
    reviewer, a ``was_cancelled`` annotation is a skipped task), JSON-MIN (one row per
    annotation: ``review_id``, ``annotator``, regions in ``label``) and CSV (the same
    columns, ``label`` holding the regions as JSON); JSON-MIN and CSV leave skipped
    annotations out. Each element is checked against its shape
    (:func:`benchcheck.io.review_exports.read_span_export`: errors name its JSON path);
    later messages name the task (``task 3 (review_id r0002)``), the JSON-MIN item or the
    CSV line.
    """
    from benchcheck.io._text import loads_json, read_text_file
    from benchcheck.io.review_exports import read_span_export

    path = Path(path)
    answers = _SpanAnswers(path)
    json_file = path.suffix.lower() == ".json"
    lines: list[int] | None = None
    if json_file:
        items = loads_json(read_text_file(path), path)
        if not isinstance(items, list):
            raise InputError("a Label Studio export is a JSON list of objects", path=path)
    else:
        items, lines = _span_csv_rows(path)
    if not items:
        raise InputError("the export holds no task", path=path)
    read = read_span_export(items, path, lines=lines)
    full = read.format == "label studio span"
    for a in read.answers:
        if not a.review_id.strip():
            raise InputError(f"{a.where}: an empty review_id", path=path, line=a.line)
        n = int(a.where[2:].split("]")[0]) + 1 if json_file else 0
        unit = "task" if full else "item" if json_file else "line"
        where = f"{unit} {n if json_file else a.line} (review_id {a.review_id})"
        if a.who is None:
            answers.item(a.review_id, a.content_hash, where)
        else:
            answers.add(a.who, a.review_id, _span_regions(a.value), where)
    return answers.experts(read.notes)


def _span_regions(value: Any) -> tuple[Region, ...] | None:
    """Regions of a checked answer (``None``: a skipped task)."""
    if value is None:
        return None
    return tuple(
        Region(r.start, r.end, r.labels[0], r.text if isinstance(r.text, str) else None)
        for r in value
    )


def _span_csv_rows(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """Rows of a Label Studio CSV export, the ``label`` column decoded from JSON, and lines."""
    from benchcheck.io._text import loads_json

    frame = read_rows(path)
    if "review_id" not in frame.columns:
        raise InputError("no column 'review_id' (expected a Label Studio export)", path=path)
    rows, lines = [], []
    for k, row in enumerate(frame.iter_rows(named=True)):
        line = int(row.pop("__line__", None) or k + 2)
        value = row.get("label")
        if isinstance(value, str) and value.strip():
            row["label"] = loads_json(value, path, line=line)
        elif not value:
            row["label"] = []
        rows.append(row)
        lines.append(line)
    return rows, lines
