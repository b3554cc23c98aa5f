"""``benchcheck review export`` and ``review import``: the blind review's two halves.

:func:`run_review_export` reads a flags file, builds the package
(:func:`benchcheck.labels.review.build_review`, optionally with an audit sample of
undisputed examples) and writes it (:func:`benchcheck.io.review.write_review`, which refuses
a folder that already holds a review unless ``force``). :func:`run_review_import` reads
the key and the answer files, refuses a file given twice, combines them into gold labels
(:func:`benchcheck.labels.review.combine_review`) and writes the gold table it is given.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from benchcheck._progress import Progress, step
from benchcheck.errors import InputError, UsageError
from benchcheck.labels.guidelines import Guidelines
from benchcheck.labels.mcq_review import (
    check_mcq_answers,
    is_mcq_key,
    mcq_gold_kinds,
    mcq_review_labels,
    normalize_answer,
)
from benchcheck.labels.review import (
    KEY_NAME,
    ExpertLabels,
    ReviewPackage,
    ReviewSummary,
    build_review,
    check_key,
    combine_review,
    review_labels,
)
from benchcheck.labels.span_review import SpanReviewPackage, SpanReviewSummary

__all__ = [
    "ReviewExport",
    "ReviewExportRun",
    "ReviewImport",
    "ReviewImportRun",
    "SpanReviewExportRun",
    "SpanReviewImportRun",
    "run_review_export",
    "run_review_import",
]


class ReviewExport(Protocol):
    """What ``review export`` returns: an item review or a span review (``to_json``)."""

    @property
    def out_dir(self) -> str:
        """The folder written."""
        ...

    @property
    def replaced(self) -> tuple[str, ...]:
        """Files replaced with ``force``."""
        ...

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON of ``review export --json``."""
        ...


class ReviewImport(Protocol):
    """What ``review import`` returns: gold labels, or corrected spans (``to_json``)."""

    def to_json(self, *, output: str | None = None) -> dict[str, Any]:
        """Canonical JSON of ``review import --json``."""
        ...


@dataclass(frozen=True)
class ReviewExportRun:
    """What ``review export`` built and wrote (``replaced``: files overwritten with force)."""

    package: ReviewPackage
    out_dir: str
    files: tuple[str, ...]
    replaced: tuple[str, ...] = ()
    flags: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON of ``review export --json``."""
        p = self.package
        return {
            "flags": self.flags,
            "out_dir": self.out_dir,
            "n_items": p.n_items,
            "n_flagged": p.n_flagged,
            "n_disputed": p.n_disputed,
            "n_audit": p.n_audit,
            "n_undisputed": p.n_undisputed,
            "experts": list(p.experts),
            "seed": p.seed,
            "files": list(self.files),
            "replaced": list(self.replaced),
        }


@dataclass(frozen=True)
class SpanReviewExportRun:
    """What ``review export`` of span flags built and wrote (a Label Studio NER review)."""

    package: SpanReviewPackage
    out_dir: str
    files: tuple[str, ...]
    replaced: tuple[str, ...] = ()
    flags: str | None = None
    ner: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON of ``review export --json`` for span flags."""
        p = self.package
        return {
            "review": "spans",
            "flags": self.flags,
            "ner": self.ner,
            "split": p.split,
            "out_dir": self.out_dir,
            "n_items": p.n_items,
            "n_flags": p.n_flags,
            "n_flagged": p.n_flagged_sentences,
            "n_disputed": p.n_disputed,
            "n_audit": p.n_audit,
            "n_undisputed": p.n_undisputed,
            "types": list(p.types),
            "seed": p.seed,
            "files": list(self.files),
            "replaced": list(self.replaced),
        }


def _span_export(
    frame: pl.DataFrame,
    source: str | None,
    out: Path,
    *,
    ner: str | Path,
    scheme: str | None,
    experts: int,
    seed: int,
    sample: int | None,
    audit_sample: int,
    labels: Sequence[str] | None,
    force: bool,
    guidelines: Guidelines | None = None,
    also_read: Sequence[str] = (),
) -> SpanReviewExportRun:
    """Build and write the Label Studio NER review of span flags (``labels.span_review``)."""
    from benchcheck.io.conll import document_names, read_conll
    from benchcheck.io.review import write_review
    from benchcheck.labels.ner_flags import spans_from_split
    from benchcheck.labels.span_review import build_span_review

    if experts != 2:
        raise UsageError(
            "{experts} is for spreadsheet reviews; a span review goes to Label Studio, where "
            "every reviewer annotates the same project"
        )
    split = read_conll(ner, scheme=scheme.upper() if scheme else None)
    if split.tokens is None:
        raise InputError("not an NER file", path=ner)
    documents = document_names(ner, split.table["line"].to_list())
    try:
        package = build_span_review(
            frame.drop("__line__", strict=False),
            split.tokens,
            spans_from_split(split),
            split=split.name,
            seed=seed,
            sample=sample,
            audit_sample=audit_sample,
            labels=labels or (),
            guidelines=guidelines,
            documents=documents,
        )
    except InputError as exc:
        if exc.path is None and source is not None:
            raise InputError(exc.message, path=source, line=exc.line, got=exc.got) from None
        raise
    _refuse_empty(package.n_items, split.n, source, "sentence")
    written = write_review(package, out, force=force, inputs=[source, str(ner), *also_read])
    return SpanReviewExportRun(
        package, written.out_dir, written.files, written.replaced, source, str(ner)
    )


def _refuse_empty(items: int, rows: int, source: str | None, what: str) -> None:
    """Refuse to write a review package with nothing in it (no flag, no audit sample)."""
    if items == 0:
        raise InputError(
            f"nothing to review: no flagged {what} among the {rows} and no audit sample; "
            "flag with a lower {min_error_score} or a {budget}, or add an {audit_sample} of "
            f"{what}s without a flag",
            path=source,
        )


def run_review_export(
    flags: str | Path | pl.DataFrame,
    out_dir: str | Path,
    *,
    experts: int = 2,
    seed: int = 1,
    sample: int | None = None,
    audit_sample: int = 0,
    labels: Sequence[str] | None = None,
    force: bool = False,
    ner: str | Path | None = None,
    scheme: str | None = None,
    guidelines: str | Path | Guidelines | None = None,
    progress: Progress | None = None,
) -> ReviewExport:
    """Build the blind review of a flags file (or frame) and write it into ``out_dir``.

    See :func:`benchcheck.labels.review.build_review` for the options and
    :func:`benchcheck.io.review.write_review` for the files and the refusal rule. With
    ``ner``, the CoNLL file they were flagged on (``scheme`` as ``flag-spans``'s), span
    flags (``benchcheck flag-spans -o``: columns ``sentence``, ``start``, ``end``,
    ``kind``) become a Label Studio NER review of their sentences
    (:func:`benchcheck.labels.span_review.build_span_review`); without it they are
    reviewed as classification items (the marked region's type). ``guidelines`` (a file
    for :func:`benchcheck.io.review.read_guidelines`, or :class:`Guidelines`) go over the
    task's default guidelines in every format of the package. A package with nothing
    to review (no flag and no audit sample) is refused, and nothing is written.
    ``progress`` is told the steps (reading, building, writing).
    """
    from benchcheck.io.review import read_guidelines, write_review
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.span_review import is_span_flags

    source = None if isinstance(flags, pl.DataFrame) else str(flags)
    out = Path(out_dir)
    given = read_guidelines(guidelines) if isinstance(guidelines, str | Path) else guidelines
    also_read = [str(guidelines)] if isinstance(guidelines, str | Path) else []
    if source is not None:
        step(progress, f"reading {source}")
    frame = flags if isinstance(flags, pl.DataFrame) else read_rows(flags)
    if ner is not None:
        if not is_span_flags(frame.columns):
            raise InputError(
                "{ner} is for span flags (benchcheck flag-spans -o, with columns sentence, "
                "start, end, kind); these flags have none",
                path=source,
            )
        return _span_export(
            frame,
            source,
            out,
            ner=ner,
            scheme=scheme,
            experts=experts,
            seed=seed,
            sample=sample,
            audit_sample=audit_sample,
            labels=labels,
            force=force,
            guidelines=given,
            also_read=also_read,
        )
    if scheme is not None:
        raise UsageError("{scheme} goes with {ner} (a span review), and only with it")
    step(progress, f"building the blind review of {frame.height:,} flags")
    try:
        package = build_review(
            frame,
            experts=experts,
            seed=seed,
            sample=sample,
            audit_sample=audit_sample,
            labels=labels,
            guidelines=given,
        )
    except InputError as exc:
        if exc.path is None and source is not None:
            raise InputError(exc.message, path=source, line=exc.line, got=exc.got) from None
        raise
    _refuse_empty(package.n_items, frame.height, source, "example")
    step(progress, f"writing {out}")
    written = write_review(package, out, force=force, inputs=[source, *also_read])
    return ReviewExportRun(package, written.out_dir, written.files, written.replaced, source)


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


@dataclass(frozen=True)
class ReviewImportRun:
    """Gold labels of one review round, and its summary."""

    gold: pl.DataFrame
    summary: ReviewSummary
    key: str
    experts: tuple[str, ...]
    reconciled: str | None = None
    output: str | None = None

    def to_json(self, *, output: str | None = None) -> dict[str, Any]:
        """Canonical JSON of ``review import --json``."""
        output = output if output is not None else self.output
        out: dict[str, Any] = {"key": self.key, "expert_files": list(self.experts)}
        if self.reconciled is not None:
            out["reconciled_file"] = self.reconciled
        if output is not None:
            out["output"] = output
        return {**out, **self.summary.to_dict()}


@dataclass(frozen=True)
class SpanReviewImportRun:
    """Corrected gold spans of a span review round, and its summary."""

    gold: pl.DataFrame
    summary: SpanReviewSummary
    key: str
    experts: tuple[str, ...]
    output: str | None = None

    def to_json(self, *, output: str | None = None) -> dict[str, Any]:
        """Canonical JSON of ``review import --json`` for a span review."""
        output = output if output is not None else self.output
        out: dict[str, Any] = {"key": self.key, "expert_files": list(self.experts)}
        if output is not None:
            out["output"] = output
        return {**out, **self.summary.to_dict()}


def _span_import(
    paths: Sequence[Path],
    key_file: Path,
    rows: Sequence[dict[str, Any]],
    *,
    reconciled: Path | None,
    consensus: str,
    adjudicator: str | None,
    output: str | Path | None,
) -> SpanReviewImportRun:
    from benchcheck.io.review import CONFIG_NAME, read_span_answers
    from benchcheck.labels.span_review import combine_span_review, span_key_tasks

    if reconciled is not None:
        raise UsageError(
            "{reconciled} is for classification reviews; settle a span review with "
            "{consensus} majority or adjudicator"
        )
    tasks = span_key_tasks(rows, source=str(key_file))
    config = key_file.parent / CONFIG_NAME
    if config.exists():
        import html
        import re

        types: list[str] = [
            html.unescape(v)
            for v in re.findall(r'<Label value="([^"]*)"', config.read_text("utf-8"))
        ]
    else:
        types = sorted({s[2] for t in tasks for s in t.gold})
    experts = []
    for p in paths:
        experts.extend(read_span_answers(p))
    gold, summary = combine_span_review(
        tasks, experts, types=types, consensus=consensus, adjudicator=adjudicator
    )
    if output is not None:
        from benchcheck.io.tables import write_rows

        write_rows(gold, output)
    return SpanReviewImportRun(
        gold,
        summary,
        str(key_file),
        tuple(str(p) for p in paths),
        None if output is None else str(output),
    )


def run_review_import(
    expert_paths: Sequence[str | Path],
    *,
    key_path: str | Path | None = None,
    reconciled: str | Path | None = None,
    consensus: str = "unanimous",
    adjudicator: str | None = None,
    seed: int = 0,
    output: str | Path | None = None,
    progress: Progress | None = None,
) -> ReviewImport:
    """Combine answer files (and a reconciled file) with the review key into gold labels.

    A file may hold several experts (a Label Studio or Argilla export: one per annotator);
    ``consensus``, ``adjudicator`` and ``seed`` are
    :func:`benchcheck.labels.review.combine_review`'s.
    ``key_path`` defaults to ``key.jsonl`` beside the first answer file. A file given twice
    (the same path, or two names of one file) is refused, as is a reconciled file that is
    also an expert file; two byte-identical answer files get a warning. Returns the gold
    frame and the summary; with ``output`` the gold table is written there
    (:func:`benchcheck.io.tables.write_rows`). A key of multiple-choice flags
    (:func:`benchcheck.labels.mcq_review.is_mcq_key`) takes option letters or the verdicts
    ``none``/``several``/``unclear`` (as people write them; a letter past the question's
    options is refused), and its gold table adds ``error_kind`` and ``wrong_key``.
    ``progress`` is told the steps (reading each file, combining, writing).
    """
    from benchcheck.io.review import (
        read_choices,
        read_expert_file,
        read_review_key,
        read_span_key,
    )

    if not expert_paths:
        raise UsageError("give at least one expert file")
    paths = [Path(p) for p in expert_paths]
    rec_path = Path(reconciled) if reconciled is not None else None
    for i, p in enumerate(paths):
        if not p.exists():
            raise InputError("file not found", path=p)
        for q in paths[:i]:
            if _same(p, q):
                raise UsageError(f"{p}: the same answer file is given twice ({q})")
        if rec_path is not None and rec_path.exists() and _same(p, rec_path):
            raise UsageError(f"{p}: given both as an expert file and as {{reconciled}}")
    key_file = Path(key_path) if key_path is not None else paths[0].parent / KEY_NAME
    for p in paths:
        if _same(p, key_file):
            raise UsageError(f"{p}: the review key cannot be an expert file")
    step(progress, f"reading {key_file}")
    span_rows = read_span_key(key_file)
    if span_rows is not None:  # a span review (Label Studio NER): corrected spans
        return _span_import(
            paths,
            key_file,
            span_rows,
            reconciled=rec_path,
            consensus=consensus,
            adjudicator=adjudicator,
            output=output,
        )
    raw_key = read_review_key(key_file)
    key = check_key(raw_key, source=str(key_file))
    mcq = is_mcq_key(key)  # a review of multiple-choice flags: letters or a verdict
    labels = mcq_review_labels(key) if mcq else review_labels(key, read_choices(key_file))
    normalize = normalize_answer if mcq else None
    experts: list[ExpertLabels] = []
    for p in paths:
        step(progress, f"reading {p}")
        experts.extend(read_expert_file(p, labels=labels, normalize=normalize, key=key))
    if mcq:
        check_mcq_answers(key, experts)
    names = [e.name for e in experts]
    used = set(names)
    for i, e in enumerate(experts):  # two files with one stem (a/expert_a.csv, b/expert_a.csv)
        if names.count(e.name) > 1:
            name = f"{e.name}_{i}"
            while name in used:  # never another file's name (x_1.csv beside two x.csv)
                name += "_"
            used.add(name)
            experts[i] = ExpertLabels(name, e.source, e.labels, e.hashes, e.lines, e.notes)
    rec = None
    if rec_path is not None:
        found = read_expert_file(rec_path, labels=labels, normalize=normalize)
        if len(found) != 1:
            raise InputError("a reconciled file holds one set of labels", path=rec_path)
        rec = found[0]
        if mcq:
            check_mcq_answers(key, found)
    step(progress, f"combining {len(experts)} experts' labels")
    gold, summary = combine_review(
        key,
        experts,
        reconciled=rec,
        source=str(key_file),
        consensus=consensus,
        adjudicator=adjudicator,
        seed=seed,
    )
    if mcq:
        gold = mcq_gold_kinds(gold)
    warnings = list(summary.warnings)
    for note in dict.fromkeys(n for e in experts for n in e.notes):  # once per file
        warnings.append(note)
    blobs: dict[bytes, Path] = {}
    for p in paths:
        data = p.read_bytes()
        if data in blobs:
            warnings.append(
                f"{p} and {blobs[data]} are identical byte for byte: are they two experts' work?"
            )
        blobs.setdefault(data, p)
    if warnings != list(summary.warnings):
        from dataclasses import replace

        summary = replace(summary, warnings=tuple(warnings))
    if output is not None:
        from benchcheck.io.tables import write_rows

        step(progress, f"writing {output}")
        write_rows(gold, output)
    return ReviewImportRun(
        gold,
        summary,
        str(key_file),
        tuple(str(p) for p in paths),
        None if rec_path is None else str(rec_path),
        None if output is None else str(output),
    )
