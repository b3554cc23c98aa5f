"""``benchcheck remedy --spans``: a CoNLL corpus with its reviewed sentences corrected or removed.

The corrected spans of a span review (``review import -o``;
:mod:`benchcheck.labels.span_corrections`) are checked against the corpus, then each
reviewed sentence whose corrected spans differ from its gold ones is retagged in the
file's own scheme (``correct``: :func:`benchcheck.data.schemes.encode_spans`) or every
reviewed sentence is removed (``filter``: whether or not the review changed it, as the
classification remedy drops every flagged example). The file is written under the input's
name into the output folder through :mod:`benchcheck.io.output`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchcheck.errors import InputError, UsageError

__all__ = ["SPAN_REMEDY_MODES", "SpanRemedyRun", "run_span_remedy"]

#: What ``remedy --spans`` does to the reviewed sentences.
SPAN_REMEDY_MODES = ("correct", "filter")
#: Extensions of formats the remedy cannot write back (it writes CoNLL only).
_NOT_CONLL = (".jsonl", ".ndjson", ".json", ".csv", ".parquet", ".xml", ".ann", ".tsv")


@dataclass(frozen=True)
class SpanRemedyRun:
    """What ``remedy --spans`` changed and the file it wrote."""

    source: str
    spans_file: str
    mode: str
    split: str
    scheme: str
    n_sentences: int
    n_reviewed: int
    n_changed: int
    n_written: int
    file: str

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck remedy --spans --json``."""
        return {
            "source": self.source,
            "spans": self.spans_file,
            "mode": self.mode,
            "split": self.split,
            "scheme": self.scheme,
            "n_sentences": self.n_sentences,
            "n_reviewed": self.n_reviewed,
            "n_changed": self.n_changed,
            "n_corrected": self.n_changed if self.mode == "correct" else 0,
            "n_removed": self.n_reviewed if self.mode == "filter" else 0,
            "n_written": self.n_written,
            "file": self.file,
        }


def run_span_remedy(
    data: str | Path,
    spans: str | Path,
    *,
    output: str | Path,
    mode: str = "correct",
    scheme: str | None = None,
    force: bool = False,
) -> SpanRemedyRun:
    """Correct or remove the reviewed sentences of the CoNLL file ``data``; write the result.

    ``spans``: corrected spans (``review import -o`` of a span review on this file). Bad
    input (another format, a split other than the file's, a sentence out of range, a span
    past its sentence's end) raises before anything is written.
    """
    from benchcheck.data.schemes import encode_spans
    from benchcheck.io.conll import read_conll
    from benchcheck.io.conll_rewrite import rewrite_conll
    from benchcheck.io.output import Outputs
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.span_corrections import check_corrections, corrected_spans
    from benchcheck.runs.stats import sentence_spans

    if mode not in SPAN_REMEDY_MODES:
        raise UsageError(f"{{mode}} must be one of {list(SPAN_REMEDY_MODES)} with {{spans}}")
    path = Path(data)
    if path.is_dir() or path.suffix.lower() in _NOT_CONLL:
        raise InputError(
            "a span remedy ({spans}) writes CoNLL only (one file, as flag-spans reads); "
            "convert this corpus to CoNLL first",
            path=data,
        )
    corrections = corrected_spans(read_rows(spans), source=spans)
    split = read_conll(path, scheme=scheme.upper() if scheme else None)
    if split.spans is None:
        raise InputError("not an NER file", path=data)
    check_corrections(
        corrections, {split.name: split.table["n_tokens"].to_numpy()}, corpus=str(data)
    )
    gold = sentence_spans(split)
    reviewed = sorted(k for _, k in corrections.spans)
    changed = [
        k for k in reviewed if corrections.spans[(split.name, k)] != gold.get(k, frozenset())
    ]
    used = split.scheme or "IOB2"
    n_tok = split.table["n_tokens"].to_list()
    if mode == "correct":
        try:
            tags = {
                k: encode_spans(int(n_tok[k]), corrections.spans[(split.name, k)], used)
                for k in changed
            }
        except ValueError as exc:  # overlapping corrected spans
            raise InputError(str(exc), path=spans) from None
        content = rewrite_conll(split, tags=tags)
        written = split.n
    else:
        content = rewrite_conll(split, drop=set(reviewed))
        written = split.n - len(reviewed)
    out = Path(output)
    folder = Outputs([data, spans], force=force).folder(out, param="output", names=[path.name])
    with folder:
        folder.stage(path.name).write_bytes(content)
    return SpanRemedyRun(
        str(data),
        str(spans),
        mode,
        split.name,
        used,
        split.n,
        len(reviewed),
        len(changed),
        written,
        str(out / path.name),
    )
