"""Blind expert review of flagged examples: export, import, reconcile, gold labels.

Methods.md section 2, step 3. Flagged examples go to experts *blind*: shuffled with a seed,
without the original label and without the LLM label. Two (or more) experts label
independently; disagreements are reconciled in a separate file. The gold label is

* the original label where the LLM agrees with it (status ``llm_agrees``);
* else the reconciled label where the reconciled file gives one (``reconciled``; it wins);
* else the experts' label where all experts agree (``experts_agree``);
* else nothing: the disagreement is reported as ``unresolved``, never guessed.

Flagged examples left out of the review sample, and disagreements below the flag threshold,
get status ``not_reviewed`` and no gold label.

Export layout (``out_dir``): ``expert_a.csv``, ``expert_b.csv``, … (``review_id``, the text
columns, an empty ``label`` column), ``tasks.json`` and ``label_config.xml`` for Label Studio,
``key.jsonl`` (the private key: every example with its original and LLM label and
``review_id``; never give it to the experts) and ``README.txt``.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from benchcheck.errors import InputError, UsageError
from benchcheck.io.tables import read_rows, write_rows
from benchcheck.labels.ensemble import label_sort_key
from benchcheck.labels.flags import normalise_flags
from benchcheck.stats.agreement import cohen_kappa, fleiss_kappa, percent_agreement

__all__ = [
    "ExportResult",
    "ReviewSummary",
    "TEXT_COLUMNS",
    "export_review",
    "import_review",
    "read_expert_labels",
]

TEXT_COLUMNS = ("text", "text_a", "text_b")
KEY_NAME = "key.jsonl"
STATUSES = ("llm_agrees", "experts_agree", "reconciled", "unresolved", "not_reviewed")


@dataclass(frozen=True)
class ExportResult:
    """What :func:`export_review` wrote."""

    out_dir: str
    n_items: int
    n_flagged: int
    experts: tuple[str, ...]
    seed: int
    files: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "out_dir": self.out_dir,
            "n_items": self.n_items,
            "n_flagged": self.n_flagged,
            "experts": list(self.experts),
            "seed": self.seed,
            "files": list(self.files),
        }


def _labels_of(frame: pl.DataFrame) -> list[str]:
    labels = {c[2:] for c in frame.columns if c.startswith("p_")}
    for col in ("label", "llm_label"):
        if col in frame.columns:
            labels |= {v for v in frame[col].cast(pl.String).to_list() if v is not None}
    return sorted(labels, key=label_sort_key)


def export_review(
    flags: pl.DataFrame,
    out_dir: str | Path,
    *,
    experts: int = 2,
    seed: int = 1,
    sample: int | None = None,
    labels: Sequence[str] | None = None,
) -> ExportResult:
    """Write the blind review package for the flagged rows of a :func:`flag_examples` frame.

    Rows are shuffled with ``numpy.random.default_rng(seed)``; ``sample`` keeps a seeded
    random subset of the flags. Expert files carry ``review_id`` and the text columns only.
    ``labels`` lists the choices offered to the experts (default: the labels in ``flags``).
    """
    if not 1 <= experts <= 26:
        raise UsageError(f"--experts must be between 1 and 26, got {experts}")
    need = {"id", "label", "llm_label", "flagged"}
    if not need <= set(flags.columns):
        raise InputError(f"not a flags file: needs columns {sorted(need)}, has {flags.columns}")
    text_cols = [c for c in TEXT_COLUMNS if c in flags.columns]
    if not text_cols:
        raise InputError("the flags file has no text column (text, or text_a and text_b)")
    flags = normalise_flags(flags.drop([c for c in ("__line__",) if c in flags.columns]))
    flagged_idx = np.flatnonzero(flags["flagged"].fill_null(False).to_numpy())
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(flagged_idx))
    if sample is not None:
        if sample < 1:
            raise UsageError(f"--sample must be >= 1, got {sample}")
        order = order[:sample]
    chosen = flagged_idx[order]
    review_ids = [f"r{i + 1:04d}" for i in range(len(chosen))]
    rid: list[str | None] = [None] * flags.height
    for r, i in zip(review_ids, chosen, strict=True):
        rid[int(i)] = r
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    items = (
        flags[chosen.tolist()].select(text_cols) if len(chosen) else flags.head(0).select(text_cols)
    )
    items = items.select(
        [pl.Series("review_id", review_ids, dtype=pl.String), *[pl.col(c) for c in text_cols]]
    ).with_columns(pl.lit("", dtype=pl.String).alias("label"))
    names = tuple(f"expert_{string.ascii_lowercase[i]}" for i in range(experts))
    files: list[str] = []
    for name in names:
        items.write_csv(out / f"{name}.csv")
        files.append(f"{name}.csv")
    tasks = [
        {"id": i + 1, "data": {k: row[k] for k in ("review_id", *text_cols)}}
        for i, row in enumerate(items.iter_rows(named=True))
    ]
    (out / "tasks.json").write_text(json.dumps(tasks, indent=2, ensure_ascii=False) + "\n", "utf-8")
    choices = sorted(set(labels or ()) | set(_labels_of(flags)), key=label_sort_key)
    (out / "label_config.xml").write_text(_label_config(text_cols, choices), "utf-8")
    key_cols = [c for c in flags.columns if c not in text_cols]
    write_rows(
        flags.select(key_cols).with_columns(pl.Series("review_id", rid, dtype=pl.String)),
        out / KEY_NAME,
    )
    (out / "README.txt").write_text(_README, "utf-8")
    files += ["tasks.json", "label_config.xml", KEY_NAME, "README.txt"]
    return ExportResult(str(out), len(chosen), len(flagged_idx), names, seed, tuple(files))


_README = """Blind review package written by benchcheck.

Give each expert their own expert_X.csv (or import tasks.json with label_config.xml into
Label Studio). Each expert fills the `label` column alone, without seeing the others.
Then reconcile disagreements in reconciled.csv (columns review_id,label; leave a label empty
when the disagreement stays unresolved).

key.jsonl maps review ids to the examples and holds the original and LLM labels:
do NOT give it to the experts.

    benchcheck review import expert_a.csv expert_b.csv --reconciled reconciled.csv -o gold.jsonl
"""


def _label_config(text_cols: Sequence[str], labels: Sequence[str]) -> str:
    import html

    texts = "\n".join(f'  <Text name="{c}" value="${c}"/>' for c in text_cols)
    choices = "\n".join(f'    <Choice value="{html.escape(lab)}"/>' for lab in labels)
    return (
        "<View>\n"
        f"{texts}\n"
        f'  <Choices name="label" toName="{text_cols[0]}" choice="single" required="true">\n'
        f"{choices}\n"
        "  </Choices>\n"
        "</View>\n"
    )


def read_expert_labels(path: str | Path, labels: Sequence[str]) -> dict[str, str | None]:
    """Read one expert's labels: ``review_id → label`` (None for an empty label).

    CSV/TSV/JSONL need ``review_id`` and ``label`` columns; a ``.json`` file is read as a
    Label Studio export (tasks with ``data.review_id`` and the first choice of the first
    annotation). Labels outside ``labels``, unknown columns and duplicate ids raise
    :class:`InputError` naming the file and line.
    """
    path = Path(path)
    if path.suffix.lower() == ".json":
        return _read_label_studio(path, labels)
    frame = read_rows(path)
    for col in ("review_id", "label"):
        if col not in frame.columns:
            shown = [c for c in frame.columns if c != "__line__"]
            raise InputError(
                f"no column {col!r}; expected review_id,label; the file has {shown}", path=path
            )
    header = 1 if path.suffix.lower() in (".csv", ".tsv") else 0
    out: dict[str, str | None] = {}
    rows = frame.select(
        pl.col("review_id").cast(pl.String),
        pl.col("label").cast(pl.String),
        *([pl.col("__line__")] if "__line__" in frame.columns else []),
    ).iter_rows(named=True)
    for i, row in enumerate(rows):
        line = int(row.get("__line__") or (i + 1 + header))
        rid = (row["review_id"] or "").strip()
        if not rid:
            raise InputError("missing review_id", path=path, line=line)
        if rid in out:
            raise InputError("review_id given twice", path=path, line=line, got=rid)
        lab = (row["label"] or "").strip() or None
        if lab is not None and lab not in labels:
            raise InputError(
                f"label must be one of {list(labels)} or empty", path=path, line=line, got=lab
            )
        out[rid] = lab
    return out


def _read_label_studio(path: Path, labels: Sequence[str]) -> dict[str, str | None]:
    try:
        tasks = json.loads(path.read_text("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not a Label Studio JSON export: {exc}", path=path) from None
    if not isinstance(tasks, list):
        raise InputError("a Label Studio export is a JSON list of tasks", path=path)
    out: dict[str, str | None] = {}
    for n, task in enumerate(tasks):
        rid = str(((task or {}).get("data") or {}).get("review_id") or "")
        if not rid:
            raise InputError(f"task #{n} has no data.review_id", path=path)
        if rid in out:
            raise InputError("review_id given twice", path=path, got=rid)
        lab = None
        for ann in task.get("annotations") or []:
            for res in ann.get("result") or []:
                choices = (res.get("value") or {}).get("choices") or []
                if choices:
                    lab = str(choices[0])
                    break
            if lab is not None:
                break
        if lab is not None and lab not in labels:
            raise InputError(f"task #{n}: label must be one of {list(labels)}", path=path, got=lab)
        out[rid] = lab
    return out


@dataclass(frozen=True)
class ReviewSummary:
    """Agreement and outcome counts of one review round."""

    experts: tuple[str, ...]
    n_reviewed: int
    agreement_before: dict[str, float | None]
    agreement_after: dict[str, float | None]
    status_counts: dict[str, int]
    changes: dict[str, int]
    sided_with_llm: int
    sided_with_original: int
    unresolved_ids: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "experts": list(self.experts),
            "n_reviewed": self.n_reviewed,
            "agreement_before": dict(self.agreement_before),
            "agreement_after": dict(self.agreement_after),
            "status_counts": dict(self.status_counts),
            "changes": dict(self.changes),
            "sided_with_llm": self.sided_with_llm,
            "sided_with_original": self.sided_with_original,
            "unresolved": len(self.unresolved_ids),
            "unresolved_ids": list(self.unresolved_ids),
            "warnings": list(self.warnings),
        }


def _agreement(columns: list[list[str | None]]) -> dict[str, float | None]:
    """Cohen's kappa + % agreement for two raters; Fleiss' kappa + % unanimous for more.

    A kappa is ``None`` where it is undefined (no shared items, or one single label
    throughout: the rule of :mod:`benchcheck.stats.agreement`).
    """
    if len(columns) < 2:
        return {}
    if len(columns) == 2:
        a, b = columns
        return {
            "cohen_kappa": cohen_kappa(a, b),
            "percent": percent_agreement(a, b),
            "n": sum(1 for u, v in zip(a, b, strict=True) if u is not None and v is not None),
        }
    rows = [list(r) for r in zip(*columns, strict=True) if all(v is not None for v in r)]
    return {
        "fleiss_kappa": fleiss_kappa(rows),
        "percent": float(np.mean([len(set(r)) == 1 for r in rows])) if rows else float("nan"),
        "n": len(rows),
    }


def import_review(
    expert_paths: Sequence[str | Path],
    *,
    key_path: str | Path | None = None,
    reconciled: str | Path | None = None,
) -> tuple[pl.DataFrame, ReviewSummary]:
    """Combine expert files (and a reconciled file) with the key into gold labels.

    ``key_path`` defaults to ``key.jsonl`` beside the first expert file. Returns the gold
    frame (every example of the key with ``expert_*``, ``reconciled``, ``gold``, ``status``
    and ``error`` = gold ≠ original) and a :class:`ReviewSummary`.
    """
    if not expert_paths:
        raise UsageError("give at least one expert file")
    key_file = Path(key_path) if key_path is not None else Path(expert_paths[0]).parent / KEY_NAME
    if not key_file.exists():
        raise InputError("review key not found (pass --key)", path=key_file)
    key = read_rows(key_file)
    need = {"id", "label", "llm_label", "review_id"}
    if not need <= set(key.columns):
        raise InputError(f"not a review key: needs columns {sorted(need)}", path=key_file)
    key = key.drop([c for c in ("__line__",) if c in key.columns]).with_columns(
        pl.col("id").cast(pl.String),
        pl.col("label").cast(pl.String),
        pl.col("llm_label").cast(pl.String),
        pl.col("review_id").cast(pl.String),
    )
    labels = _labels_of(key)
    config = key_file.parent / "label_config.xml"
    if config.exists():  # the export lists every allowed label there (NER: all types and O)
        import html
        import re

        extra = re.findall(r'<Choice value="([^"]*)"', config.read_text("utf-8"))
        labels = sorted(set(labels) | {html.unescape(v) for v in extra}, key=label_sort_key)
    exported = [r for r in key["review_id"].to_list() if r is not None]
    exported_set = set(exported)
    names: list[str] = []
    expert_labels: list[dict[str, str | None]] = []
    warnings: list[str] = []
    for p in expert_paths:
        name = Path(p).stem
        if name in names:
            name = f"{name}_{len(names)}"
        got = read_expert_labels(p, labels)
        unknown = [r for r in got if r not in exported_set]
        if unknown:
            raise InputError("review_id not in the review key", path=p, got=unknown[0])
        missing = len([r for r in exported if got.get(r) is None])
        if missing:
            warnings.append(f"{p}: {missing} item(s) without a label")
        names.append(name)
        expert_labels.append(got)
    rec: dict[str, str | None] = {}
    if reconciled is not None:
        rec = read_expert_labels(reconciled, labels)
        unknown = [r for r in rec if r not in exported_set]
        if unknown:
            raise InputError("review_id not in the review key", path=reconciled, got=unknown[0])

    gold: list[str | None] = []
    status: list[str] = []
    rows = key.select("label", "llm_label", "review_id").iter_rows()
    for label, llm, rid in rows:
        if rid is None:
            if llm is not None and llm == label:
                gold.append(label)
                status.append("llm_agrees")
            else:
                gold.append(None)
                status.append("not_reviewed")
            continue
        votes = [e.get(rid) for e in expert_labels]
        if rec.get(rid) is not None:
            gold.append(rec[rid])
            status.append("reconciled")
        elif all(v is not None for v in votes) and len(set(votes)) == 1:
            gold.append(votes[0])
            status.append("experts_agree")
        else:
            gold.append(None)
            status.append("unresolved")
    rids = key["review_id"].to_list()
    extra = [
        pl.Series(n, [e.get(r) if r is not None else None for r in rids], dtype=pl.String)
        for n, e in zip(names, expert_labels, strict=True)
    ]
    extra.append(
        pl.Series("reconciled", [rec.get(r) if r else None for r in rids], dtype=pl.String)
    )
    extra.append(pl.Series("gold", gold, dtype=pl.String))
    extra.append(pl.Series("status", status, dtype=pl.String))
    out = key.with_columns(extra).with_columns(
        pl.when(pl.col("gold").is_null())
        .then(None)
        .otherwise(pl.col("gold") != pl.col("label"))
        .alias("error")
    )
    before = _agreement([[e.get(r) for r in exported] for e in expert_labels])
    final = [[rec.get(r) or e.get(r) for r in exported] for e in expert_labels]
    after = _agreement(final)
    reviewed = out.filter(pl.col("review_id").is_not_null() & pl.col("gold").is_not_null())
    changes = Counter(
        f"{a}->{b}" for a, b in zip(reviewed["label"], reviewed["gold"], strict=True) if a != b
    )
    summary = ReviewSummary(
        experts=tuple(names),
        n_reviewed=len(exported),
        agreement_before=before,
        agreement_after=after,
        status_counts={s: status.count(s) for s in STATUSES},
        changes=dict(sorted(changes.items())),
        sided_with_llm=int((reviewed["gold"] == reviewed["llm_label"]).sum()),
        sided_with_original=int((reviewed["gold"] == reviewed["label"]).sum()),
        unresolved_ids=tuple(out.filter(pl.col("status") == "unresolved")["id"].to_list()),
        warnings=tuple(warnings),
    )
    return out, summary
