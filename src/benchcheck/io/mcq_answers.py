r"""Read the answers of evaluated models to multiple-choice questions, aligned to the data.

Three shapes (one or more files; each file's models are added):

* **long** (a ``model`` and an ``answer`` column, plus ``id``): one row per question × model;
* **wide** (``id`` and one column per model, every other column a model);
* **lm-evaluation-harness** ``samples_*.jsonl`` (lines with ``doc_id`` and ``resps`` /
  ``filtered_resps``): one model per file, named by its folder (lm-eval writes
  ``OUTPUT/<model>/samples_<task>_<time>.jsonl``); the per-option log-likelihoods become
  the model's distribution over the options, :math:`\pi_o = e^{\ell_o} / \sum_{o'}
  e^{\ell_{o'}}` (raw, not length-normalised), ``doc_id`` is the question's id (the row
  number when the data has no id column), and ``target`` is checked against the key.

An answer is an index, a letter or an option's text (:func:`benchcheck.data.mcq.key_index`);
an empty cell is no answer. An answer that names no option of its question, a question ×
model given twice, a log whose option count differs from the question's, or unparseable
log-likelihoods are :class:`InputError` naming the file and line. Ids join by the one rule
(:func:`benchcheck.data.ids.check_join`: refused when over 5 % of either side lack a
partner).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchcheck.data.ids import check_join
from benchcheck.data.mcq import key_index
from benchcheck.errors import InputError
from benchcheck.io._text import read_text_file
from benchcheck.io.tables import json_lines, read_rows

__all__ = ["McqAnswers", "read_mcq_answers"]

#: Largest share of an lm-eval log's targets that may differ from the data's keys.
MAX_TARGET_MISMATCH = 0.05


@dataclass(frozen=True)
class McqAnswers:
    """Models' answers aligned to the questions: ``probs`` is (questions × models × options).

    A row of zeros is no answer. ``formats`` names each file's shape; ``soft`` says whether
    some model gave a distribution (lm-eval) rather than one answer.
    """

    models: tuple[str, ...]
    probs: np.ndarray
    files: tuple[str, ...]
    formats: tuple[str, ...]
    soft: bool
    missing: int
    #: Ids in each file that are not questions of the data (under the 5 % refusal).
    unmatched_ids: tuple[int, ...] = ()

    def to_json(self) -> dict[str, object]:
        """Return where the answers came from and how complete they are."""
        return {
            "files": list(self.files),
            "formats": list(self.formats),
            "models": list(self.models),
            "soft": self.soft,
            "missing_answers": self.missing,
            "unmatched_ids": list(self.unmatched_ids),
        }


def _is_lm_eval(path: Path) -> bool:
    if path.suffix.lower() not in (".jsonl", ".ndjson", ".json"):
        return False
    with path.open("rb") as fh:
        head = fh.read(65536)
    return b'"doc_id"' in head and (b'"resps"' in head or b'"filtered_resps"' in head)


def _loglik(value: Any) -> float:
    """One option's log-likelihood: ``-1.2``, ``["-1.2", false]`` or ``[["-1.2", false]]``."""
    while isinstance(value, list | tuple):
        value = value[0] if value else None
    out = float(value)  # type: ignore[arg-type]
    if math.isnan(out) or out > 0:
        raise ValueError("not a log-likelihood")
    return out


def _lm_eval(
    path: Path, index: dict[str, int], options: list[list[str]], keys: np.ndarray
) -> tuple[list[str], dict[tuple[int, int], np.ndarray], list[str]]:
    model = path.parent.name or path.stem
    out: dict[tuple[int, int], np.ndarray] = {}
    ids, mismatched, checked = [], 0, 0
    for line, rec in json_lines(read_text_file(path), path):
        if not isinstance(rec, dict) or "doc_id" not in rec:
            raise InputError("expected an lm-eval sample with a doc_id", path=path, line=line)
        raw = rec.get("filtered_resps", rec.get("resps"))
        qid = str(rec["doc_id"])
        ids.append(qid)
        if qid not in index:
            continue
        i = index[qid]
        try:
            if not isinstance(raw, list):
                raise TypeError("no list of responses")
            lls = np.array([_loglik(r) for r in raw])
        except (TypeError, ValueError, IndexError):
            raise InputError(
                "cannot read the per-option log-likelihoods of resps/filtered_resps",
                path=path,
                line=line,
            ) from None
        if len(lls) != len(options[i]):
            raise InputError(
                f"{len(lls)} log-likelihoods for a question of {len(options[i])} options",
                path=path,
                line=line,
                got=qid,
            )
        if (i, 0) in out:
            raise InputError("question answered twice in one log", path=path, line=line, got=qid)
        p = np.exp(lls - lls.max())
        out[(i, 0)] = p / p.sum()
        target = rec.get("target")
        if target is not None:
            checked += 1
            mismatched += key_index(target, options[i]) != keys[i]
    if checked and mismatched / checked > MAX_TARGET_MISMATCH:
        raise InputError(
            f"the log's targets differ from the data's keys for {mismatched} of {checked} "
            "questions: is it a log of this dataset?",
            path=path,
        )
    return [model], out, ids


def _table(
    path: Path, index: dict[str, int], options: list[list[str]], id_col: str
) -> tuple[str, list[str], dict[tuple[int, int], np.ndarray], list[str]]:
    frame = read_rows(path)
    if id_col not in frame.columns:
        shown = [c for c in frame.columns if c != "__line__"]
        raise InputError(f"no column {id_col!r}; the file has {shown}", path=path)
    lines = (
        frame.get_column("__line__").to_list()
        if "__line__" in frame.columns
        else list(range(1, frame.height + 1))  # Parquet: the row number
    )
    ids = [None if v is None else str(v) for v in frame.get_column(id_col).to_list()]
    if {"model", "answer"} <= set(frame.columns):
        fmt = "long"
        models_col = [str(m) for m in frame.get_column("model").to_list()]
        models = list(dict.fromkeys(models_col))
        cells = [(k, models_col[k], v) for k, v in enumerate(frame.get_column("answer").to_list())]
    else:
        fmt = "wide"
        models = [c for c in frame.columns if c not in (id_col, "__line__")]
        if not models:
            raise InputError("no model columns beside the id", path=path)
        cells = [(k, m, v) for m in models for k, v in enumerate(frame.get_column(m).to_list())]
    at = {m: j for j, m in enumerate(models)}
    out: dict[tuple[int, int], np.ndarray] = {}
    for k, model, value in cells:
        qid = ids[k]
        if qid is None or qid not in index or value is None or str(value).strip() == "":
            continue
        i = index[qid]
        choice = key_index(value, options[i])
        if choice is None:
            raise InputError(
                f"model {model!r} answers outside the {len(options[i])} options of question "
                f"{qid!r}",
                path=path,
                line=int(lines[k]),
                got=value,
            )
        if (i, at[model]) in out:
            raise InputError(
                f"question {qid!r} answered twice by model {model!r}",
                path=path,
                line=int(lines[k]),
            )
        hot = np.zeros(len(options[i]))
        hot[choice] = 1.0
        out[(i, at[model])] = hot
    return fmt, models, out, [i for i in ids if i is not None]


def read_mcq_answers(
    paths: Sequence[str | Path],
    ids: Sequence[str],
    options: Sequence[Sequence[str]],
    keys: np.ndarray,
    *,
    id_column: str = "id",
    data_file: str | None = None,
) -> McqAnswers:
    """Read every answers file and align it to the questions ``ids`` (see the module)."""
    index = {q: i for i, q in enumerate(ids)}
    opts = [list(o) for o in options]
    k_max = max(len(o) for o in opts)
    models: list[str] = []
    blocks: list[tuple[list[str], dict[tuple[int, int], np.ndarray]]] = []
    formats, soft = [], False
    unmatched: list[int] = []
    for raw in paths:
        path = Path(raw)
        if _is_lm_eval(path):
            found, cells, seen = _lm_eval(path, index, opts, np.asarray(keys))
            fmt = "lm_eval"
            soft = True
        else:
            fmt, found, cells, seen = _table(path, index, opts, id_column)
        joined = check_join(
            list(ids),
            seen,
            left_name="the data",
            right_name="the answers",
            path=path,
            left_file=data_file,
        )
        for m in found:
            if m in models:
                raise InputError(f"model {m!r} is given twice (also in an earlier file)", path=path)
        models += found
        formats.append(fmt)
        unmatched.append(joined.right_only)
        blocks.append((found, cells))
    probs = np.zeros((len(ids), len(models), k_max))
    offset = 0
    for found, cells in blocks:
        for (i, j), p in cells.items():
            probs[i, offset + j, : len(p)] = p
        offset += len(found)
    missing = int((probs.sum(2) == 0).sum())
    return McqAnswers(
        models=tuple(models),
        probs=probs,
        files=tuple(str(p) for p in paths),
        formats=tuple(formats),
        soft=soft,
        missing=missing,
        unmatched_ids=tuple(unmatched),
    )
