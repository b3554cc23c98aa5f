"""Blind expert review of flagged examples: the package, the audit sample, gold labels.

Methods.md section 2, step 3. Flagged examples go to experts *blind*: shuffled with a seed,
without the original label and without the LLM label. Two (or more) experts label
independently; disagreements are reconciled in a separate file. The gold label is

* the original label where the LLM agrees with it (status ``llm_agrees``);
* else the reconciled label where the reconciled file gives one (``reconciled``; it wins);
* else the experts' label where all experts agree (``experts_agree``; with a single
  expert, whom nobody can agree with, ``one_expert``);
* else, by the ``consensus`` rule (default ``unanimous``: none), the label more than half of
  the experts who answered gave (``majority``), the named adjudicator's label
  (``adjudicated``), or the most probable label under a crowd model fitted to every
  expert's answers (``crowd_model``: ``dawid-skene``, ``glad``, ``mace``; see
  :mod:`benchcheck.labels.crowd`), whose posterior per label the gold table keeps as
  ``posterior_<label>``;
* else nothing: the disagreement is reported as ``unresolved``, never guessed.

Any number of experts; an expert with no answer at all is refused (a file exported but
never filled, or a reviewer who skipped every task).

Flagged examples left out of the review sample, and disagreements below the flag threshold,
get status ``not_reviewed`` and no gold label.

**Audit sample.** ``audit_sample=N`` mixes ``N`` seeded random *undisputed* (not flagged)
examples into the review, shuffled together with the flags and shown with the same columns,
so the experts cannot tell them apart. The private key records every example's
``stratum`` (``disputed`` = flagged, ``undisputed`` = the rest); an audited example is
reviewed like a flag and its gold label is the experts' (it can reveal an error the
detector missed). :mod:`benchcheck.stats.stratified` turns the two strata into an estimate
of the whole dataset's error rate and of the detector's recall.

**Belonging.** Every shown item carries ``content_hash``: the first 16 hex digits of the
SHA-256 of ``[review_id, [[column, text], ...]]`` (JSON, UTF-8). The key holds the same
hashes, so :func:`combine_review` refuses an expert file from another export (another
seed, other flags) whose review ids happen to match.

This module is pure: frames and mappings in, frames and frozen results out. Reading and
writing the files is :mod:`benchcheck.io.review`'s.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from benchcheck.errors import InputError, UsageError
from benchcheck.labels.crowd import CROWD_MODELS, CrowdModel, fit_crowd_model
from benchcheck.labels.ensemble import label_sort_key
from benchcheck.labels.flags import normalise_flags
from benchcheck.labels.guidelines import Guidelines, default_guidelines
from benchcheck.stats.agreement import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    krippendorff_alpha_ci,
    percent_agreement,
)

__all__ = [
    "CONSENSUS",
    "ExpertLabels",
    "HASH_COLUMN",
    "KEY_NAME",
    "ReviewPackage",
    "ReviewSummary",
    "STRATA",
    "TEXT_COLUMNS",
    "build_review",
    "check_key",
    "combine_review",
    "content_hash",
    "expert_columns",
    "review_labels",
]

TEXT_COLUMNS = ("text", "text_a", "text_b")
KEY_NAME = "key.jsonl"
HASH_COLUMN = "content_hash"
#: Strata of the key: flagged examples, and the rest (where the audit sample comes from).
STRATA = ("disputed", "undisputed")
STATUSES = ("llm_agrees", "experts_agree", "reconciled", "unresolved", "not_reviewed")
#: The status of a review with one expert, in place of ``experts_agree``: their label.
ONE_EXPERT = "one_expert"
#: How a disagreement that no reconciled label settles is decided (``unanimous``: it is not).
CONSENSUS = ("unanimous", "majority", "adjudicator", *CROWD_MODELS)
#: The status each consensus rule gives the items it decides.
_DECIDED = {"majority": "majority", "adjudicator": "adjudicated"} | {
    m: "crowd_model" for m in CROWD_MODELS
}
#: Columns the export adds to the key; a flags table that has them is refused.
_KEY_COLUMNS = ("review_id", "stratum", HASH_COLUMN)


def content_hash(review_id: str, texts: Mapping[str, str | None]) -> str:
    """Hash of one shown item: SHA-256 of ``[review_id, [[column, text], ...]]``, 16 hex digits.

    >>> content_hash("r0001", {"text": "a"}) == content_hash("r0001", {"text": "a"})
    True
    >>> content_hash("r0001", {"text": "a"}) == content_hash("r0002", {"text": "a"})
    False
    """
    payload = json.dumps([review_id, [[k, v] for k, v in texts.items()]], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def review_labels(frame: pl.DataFrame, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """Labels offered to the experts: ``p_<label>`` columns, ``label``, ``llm_label``, ``extra``.

    >>> review_labels(pl.DataFrame({"label": ["1", "0"], "p_1": [0.2, 0.9]}), ["2"])
    ('0', '1', '2')
    """
    labels = {c[2:] for c in frame.columns if c.startswith("p_")} | set(extra)
    for col in ("label", "llm_label"):
        if col in frame.columns:
            labels |= {v for v in frame[col].cast(pl.String).to_list() if v is not None}
    return tuple(sorted(labels, key=label_sort_key))


@dataclass(frozen=True)
class ReviewPackage:
    """Everything a blind review needs, in memory (:mod:`benchcheck.io.review` writes it).

    ``items`` are the shown rows in review order (``review_id``, ``content_hash``, the text
    columns, raw texts); ``key`` is the private key (the flags' columns without the texts,
    plus ``review_id``, ``stratum`` and ``content_hash``).
    """

    items: pl.DataFrame
    key: pl.DataFrame
    text_columns: tuple[str, ...]
    choices: tuple[str, ...]
    experts: tuple[str, ...]
    seed: int
    n_flagged: int
    n_disputed: int
    n_audit: int
    n_undisputed: int
    shown: tuple[str, ...] = ()
    guidelines: Guidelines | None = None

    @property
    def n_items(self) -> int:
        """Items shown to each expert (flags and audit together)."""
        return self.items.height

    @property
    def shown_columns(self) -> tuple[str, ...]:
        """The text columns as the dataset names them (``grounding``, not ``text_a``)."""
        return self.shown or self.text_columns

    @property
    def task(self) -> str:
        """``pair``, ``mcq`` (``flag --task mcq``: the key has options) or ``classification``."""
        if "options" in self.key.columns and isinstance(self.key.schema["options"], pl.List):
            return "mcq"
        return "pair" if "text_a" in self.text_columns else "classification"

    @property
    def review_guidelines(self) -> Guidelines:
        """The guidelines given, over the task's default (:mod:`benchcheck.labels.guidelines`)."""
        default = default_guidelines(self.task, self.choices, self.shown_columns)
        return default if self.guidelines is None else self.guidelines.over(default)

    def guidelines_markdown(self) -> str:
        """Return the reviewers' guidelines (``guidelines.md``): task, columns, meanings."""
        roles = {
            "text": "the text to label",
            "text_a": "the first text of the pair",
            "text_b": "the second text of the pair",
        }
        columns = {
            "review_id": "the item's number (keep it)",
            HASH_COLUMN: "proves the answer belongs to this review (keep it)",
            **{s: roles[c] for s, c in zip(self.shown_columns, self.text_columns, strict=True)},
            "label": f"your answer: one of {', '.join(self.choices)}",
        }
        return self.review_guidelines.to_markdown(self.choices, columns)

    def expert_sheet(self) -> pl.DataFrame:
        """One expert's table: ``review_id``, ``content_hash``, the texts, an empty ``label``.

        The texts are under the dataset's own column names (:attr:`shown_columns`).
        """
        names = dict(zip(self.text_columns, self.shown_columns, strict=True))
        return self.items.rename(names).with_columns(pl.lit("", dtype=pl.String).alias("label"))

    def label_studio_tasks(self) -> list[dict[str, object]]:
        """Label Studio tasks (``data`` holds the review id, the hash and the texts)."""
        cols = ("review_id", HASH_COLUMN, *self.text_columns)
        return [
            {"id": i + 1, "data": {c: row[c] for c in cols}}
            for i, row in enumerate(self.items.iter_rows(named=True))
        ]

    def label_studio_config(self) -> str:
        """Label Studio labelling interface: the task, the texts, one single-choice ``label``.

        The texts are headed by the dataset's names; the choices carry their meaning
        (``hint``), also listed above them.
        """
        g = self.review_guidelines
        esc = html.escape
        texts = "\n".join(
            f'  <Header value="{esc(shown)}" size="5"/>\n  <Text name="{c}" value="${c}"/>'
            for c, shown in zip(self.text_columns, self.shown_columns, strict=True)
        )
        meanings = "\n".join(
            f'  <Header value="{esc(g.choice_text(lab))}" size="6"/>' for lab in self.choices
        )
        choices = "\n".join(
            f'    <Choice value="{esc(lab)}"'
            + (f' hint="{esc(found)}"' if (found := g.meaning(lab)) else "")
            + "/>"
            for lab in self.choices
        )
        return (
            "<View>\n"
            f'  <Header value="{esc(" ".join(g.task.split()))}" size="4"/>\n'
            f"{texts}\n"
            '  <Header value="label" size="5"/>\n'
            f"{meanings}\n"
            f'  <Choices name="label" toName="{self.text_columns[0]}" choice="single" '
            'required="true">\n'
            f"{choices}\n"
            "  </Choices>\n"
            "</View>\n"
        )

    def argilla_settings(self) -> dict[str, object]:
        """Argilla 2.x dataset settings, the dict ``rg.Settings.from_json`` reads.

        One ``TextField`` per text column (no Markdown, so texts show verbatim), one
        ``LabelQuestion`` named ``label``, and ``content_hash`` as a terms metadata
        property hidden from annotators.
        """
        g = self.review_guidelines
        return {
            "guidelines": self.guidelines_markdown(),
            "allow_extra_metadata": False,
            "fields": [
                {
                    "name": c,
                    "title": shown,
                    "required": True,
                    "description": None,
                    "settings": {"type": "text", "use_markdown": False},
                }
                for c, shown in zip(self.text_columns, self.shown_columns, strict=True)
            ],
            "questions": [
                {
                    "name": "label",
                    "title": "label",
                    "description": "; ".join(g.choice_text(c) for c in self.choices),
                    "required": True,
                    "settings": {
                        "type": "label_selection",
                        "options": [{"value": c, "text": g.choice_text(c)} for c in self.choices],
                        "visible_options": None,
                    },
                }
            ],
            "vectors": [],
            "metadata": [
                {
                    "name": HASH_COLUMN,
                    "title": HASH_COLUMN,
                    "visible_for_annotators": False,
                    "settings": {"type": "terms", "values": None, "visible_for_annotators": False},
                }
            ],
        }

    def argilla_records(self) -> list[dict[str, object]]:
        """Argilla 2.x records, the list ``dataset.records.from_json`` reads (``Record.from_dict``).

        ``id`` is the review id; ``fields`` the texts; ``metadata`` the content hash.
        """
        return [
            {
                "id": row["review_id"],
                "fields": {c: row[c] for c in self.text_columns},
                "metadata": {HASH_COLUMN: row[HASH_COLUMN]},
                "suggestions": {},
                "responses": {},
                "vectors": {},
            }
            for row in self.items.iter_rows(named=True)
        ]


def build_review(
    flags: pl.DataFrame,
    *,
    experts: int = 2,
    seed: int = 1,
    sample: int | None = None,
    audit_sample: int = 0,
    labels: Sequence[str] | None = None,
    guidelines: Guidelines | None = None,
) -> ReviewPackage:
    """Build the blind review package for the flagged rows of a flags frame.

    Flags are shuffled with ``numpy.random.default_rng(seed)``; ``sample`` keeps a seeded
    random subset of them. ``audit_sample`` then draws that many undisputed rows with the
    same generator (without replacement) and shuffles them in with the flags; with
    ``audit_sample=0`` the review is the flags alone, in the same order as without the
    option. ``labels`` adds choices for the experts (default: the labels seen).
    ``guidelines`` (task, label meanings) go over the task's default
    (:func:`benchcheck.labels.guidelines.default_guidelines`). The texts are shown under
    the data's own column names (:func:`shown_names`).
    Refuses duplicate ids, and a table with a ``review_id`` column (a review key given as
    flags); a data column ``stratum`` or ``content_hash`` is kept as ``data_<name>``.
    """
    if not 1 <= experts <= 26:
        raise UsageError(f"{{experts}} must be between 1 and 26, got {experts}")
    if sample is not None and sample < 1:
        raise UsageError(f"{{sample}} must be >= 1, got {sample}")
    if audit_sample < 0:
        raise UsageError(f"{{audit_sample}} must be >= 0, got {audit_sample}")
    need = {"id", "label", "llm_label", "flagged"}
    if not need <= set(flags.columns):
        raise InputError(f"not a flags file: needs columns {sorted(need)}, has {flags.columns}")
    if "review_id" in flags.columns:
        raise InputError(
            "the flags table has a review_id column: is it a review key? "
            "Export from the flags file that `benchcheck flag` wrote"
        )
    # a data column named like a key column is kept under data_<name>, as `flag` does
    flags = flags.rename({c: f"data_{c}" for c in _KEY_COLUMNS if c in flags.columns})
    text_cols = tuple(c for c in TEXT_COLUMNS if c in flags.columns)
    if not text_cols:
        raise InputError("the flags file has no text column (text, or text_a and text_b)")
    lines = flags["__line__"].to_list() if "__line__" in flags.columns else None
    flags = normalise_flags(flags.drop("__line__", strict=False))
    shown_as = shown_names(flags, text_cols)
    ids = flags["id"].cast(pl.String).to_list()
    missing = next((k for k, i in enumerate(ids) if i is None or not i.strip()), None)
    if missing is not None:  # a flag without an id can never be joined back
        line = None if lines is None else int(lines[missing])
        raise InputError("missing id (null or empty); expected every flag to have one", line=line)
    _refuse_duplicate_ids(ids, lines)
    flagged = flags["flagged"].fill_null(False).to_numpy()
    flagged_idx = np.flatnonzero(flagged)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(flagged_idx))
    if sample is not None:
        order = order[:sample]
    chosen = flagged_idx[order]
    n_disputed = len(chosen)
    undisputed_idx = np.flatnonzero(~flagged)
    if audit_sample > len(undisputed_idx):
        raise UsageError(
            f"{{audit_sample}} ({audit_sample}) is more than the {len(undisputed_idx)} "
            "undisputed (not flagged) examples"
        )
    if audit_sample:
        audit = rng.choice(undisputed_idx, size=audit_sample, replace=False)
        both = np.concatenate([chosen, audit])
        chosen = both[rng.permutation(len(both))]
    review_ids = [f"r{i + 1:04d}" for i in range(len(chosen))]
    rid: list[str | None] = [None] * flags.height
    for r, i in zip(review_ids, chosen, strict=True):
        rid[int(i)] = r
    shown = flags[chosen.tolist()].select(text_cols) if len(chosen) else flags.head(0)
    texts = [dict(zip(text_cols, row, strict=True)) for row in shown.select(text_cols).rows()]
    hashes = [content_hash(r, t) for r, t in zip(review_ids, texts, strict=True)]
    items = pl.DataFrame(
        {
            "review_id": pl.Series(review_ids, dtype=pl.String),
            HASH_COLUMN: pl.Series(hashes, dtype=pl.String),
            **{c: shown[c].cast(pl.String) for c in text_cols},
        }
    )
    hash_of: list[str | None] = [None] * flags.height
    for h, i in zip(hashes, chosen, strict=True):
        hash_of[int(i)] = h
    key = flags.select([c for c in flags.columns if c not in text_cols]).with_columns(
        pl.Series("review_id", rid, dtype=pl.String),
        pl.Series("stratum", np.where(flagged, STRATA[0], STRATA[1]).tolist(), dtype=pl.String),
        pl.Series(HASH_COLUMN, hash_of, dtype=pl.String),
    )
    names = tuple(f"expert_{chr(ord('a') + i)}" for i in range(experts))
    return ReviewPackage(
        items=items,
        key=key,
        text_columns=text_cols,
        choices=review_labels(flags, labels or ()),
        experts=names,
        seed=seed,
        n_flagged=len(flagged_idx),
        n_disputed=n_disputed,
        n_audit=audit_sample,
        n_undisputed=len(undisputed_idx),
        shown=shown_as,
        guidelines=guidelines,
    )


def shown_names(flags: pl.DataFrame, text_cols: Sequence[str]) -> tuple[str, ...]:
    """Return the data's own name of each normalised text column of a flags table.

    ``benchcheck flag`` keeps the data's columns beside the normalised ``text_a``/…; the
    data's name is the first other column holding the same texts. A name that is taken
    (``review_id``, ``label``, …, or another text's) keeps the normalised one.

    >>> f = pl.DataFrame({"id": ["1"], "grounding": ["g"], "claim": ["c"], "text_a": ["g"],
    ...                   "text_b": ["c"], "label": ["0"]})
    >>> shown_names(f, ("text_a", "text_b"))
    ('grounding', 'claim')
    """
    taken = {"review_id", HASH_COLUMN, "label", "id", *text_cols}
    out: list[str] = []
    for c in text_cols:
        texts = flags[c].cast(pl.String)
        found = next(
            (
                other
                for other in flags.columns
                if other not in taken
                and other not in out
                and not isinstance(flags[other].dtype, pl.List | pl.Struct | pl.Array)
                and flags[other].cast(pl.String, strict=False).equals(texts)
            ),
            c,
        )
        out.append(found)
    return tuple(out)


def _refuse_duplicate_ids(ids: Sequence[str | None], lines: Sequence[int] | None) -> None:
    seen: dict[str, int] = {}
    for i, v in enumerate(ids):
        if v is None:
            continue
        if v in seen:
            line = None if lines is None else int(lines[i])
            raise InputError(f"id given twice (first in row {seen[v] + 1})", line=line, got=v)
        seen[v] = i


@dataclass(frozen=True)
class ExpertLabels:
    """One expert's answers as read from a file: ``review_id → label`` (None = empty).

    ``hashes`` maps review ids to the ``content_hash`` the file carries (or that its texts
    give); ``None`` when the file carries neither. ``lines`` maps review ids to the line of
    the file they are on, for messages; ``source`` names the file. ``notes`` say what the
    reader of the file left out (drafts never submitted), counted.
    """

    name: str
    source: str
    labels: Mapping[str, str | None]
    hashes: Mapping[str, str] | None = None
    lines: Mapping[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReviewSummary:
    """Agreement and outcome counts of one review round.

    ``flags_decided`` counts the reviewed flags (the disputed stratum; audited examples are
    ``audited``) that got a gold label; each sided with the LLM, with the original label,
    or with neither (a third label), so the three add up to it.
    """

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
    flags_decided: int = 0
    audited: int = 0
    audit_errors: int = 0
    consensus: str = "unanimous"
    crowd: CrowdModel | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        crowd = None
        if self.crowd is not None:
            crowd = {k: v for k, v in self.crowd.to_json().items() if k != "labels"}
        return {
            "consensus": self.consensus,
            **({"crowd_model": crowd} if crowd is not None else {}),
            "experts": list(self.experts),
            "n_reviewed": self.n_reviewed,
            "agreement_before": dict(self.agreement_before),
            "agreement_after": dict(self.agreement_after),
            "status_counts": dict(self.status_counts),
            "changes": dict(self.changes),
            "flags_decided": self.flags_decided,
            "sided_with_llm": self.sided_with_llm,
            "sided_with_original": self.sided_with_original,
            "sided_with_neither": self.flags_decided
            - self.sided_with_llm
            - self.sided_with_original,
            "unresolved": len(self.unresolved_ids),
            "unresolved_ids": list(self.unresolved_ids),
            "audited": self.audited,
            "audit_errors": self.audit_errors,
            "warnings": list(self.warnings),
        }


def _agreement(columns: list[list[str | None]]) -> dict[str, Any]:
    """Cohen's kappa + % agreement for two raters; Fleiss' kappa + % unanimous for more.

    Beside them Krippendorff's alpha (nominal) with its bootstrap interval (seed 0), on
    every item two experts answered (missing answers allowed). A kappa or alpha is
    ``None`` where it is undefined (no shared items, or one single label throughout: the
    rule of :mod:`benchcheck.stats.agreement`).
    """
    if len(columns) < 2:
        return {}
    units = [list(r) for r in zip(*columns, strict=True)]
    alpha = {
        "krippendorff_alpha": krippendorff_alpha(units),
        "krippendorff_alpha_ci": _pair(krippendorff_alpha_ci(units)),
    }
    if len(columns) == 2:
        a, b = columns
        return {
            "cohen_kappa": cohen_kappa(a, b),
            "percent": percent_agreement(a, b),
            "n": sum(1 for u, v in zip(a, b, strict=True) if u is not None and v is not None),
            **alpha,
        }
    rows = [r for r in units if all(v is not None for v in r)]
    return {
        "fleiss_kappa": fleiss_kappa(rows),
        "percent": float(np.mean([len(set(r)) == 1 for r in rows])) if rows else float("nan"),
        "n": len(rows),
        **alpha,
    }


def _pair(ci: tuple[float, float] | None) -> list[float] | None:
    return None if ci is None else [ci[0], ci[1]]


def check_key(key: pl.DataFrame, *, source: str | None = None) -> pl.DataFrame:
    """Validate a review key and give its columns their types (ids and labels as strings).

    Needs ``id``, ``label``, ``llm_label`` and ``review_id``; refuses duplicate ``id`` or
    ``review_id`` values and strata other than :data:`STRATA`, naming the line.
    """
    need = {"id", "label", "llm_label", "review_id"}
    if not need <= set(key.columns):
        raise InputError(f"not a review key: needs columns {sorted(need)}", path=source)
    lines = key["__line__"].to_list() if "__line__" in key.columns else None
    key = key.drop("__line__", strict=False).with_columns(
        pl.col(c).cast(pl.String)
        for c in ("id", "label", "llm_label", "review_id", "stratum", HASH_COLUMN)
        if c in key.columns
    )
    for col in ("id", "review_id"):
        try:
            _refuse_duplicate_ids(key[col].to_list(), lines)
        except InputError as exc:
            raise InputError(
                f"{col} given twice in the review key", path=source, line=exc.line, got=exc.got
            ) from None
    if "stratum" in key.columns:
        bad = key.with_row_index("_i").filter(~pl.col("stratum").is_in(list(STRATA)))
        if bad.height:
            i = int(bad["_i"][0])
            raise InputError(
                f"stratum must be one of {list(STRATA)}",
                path=source,
                line=None if lines is None else int(lines[i]),
                got=bad["stratum"][0],
            )
    return key


def _check_belongs(
    expert: ExpertLabels, exported: set[str], key_hash: Mapping[str, str] | None
) -> None:
    """Refuse an expert file whose ids or content hashes are not the key's."""
    for rid in expert.labels:
        if rid not in exported:
            raise InputError(
                "review_id not in the review key (a file of another review?)",
                path=expert.source,
                line=expert.lines.get(rid),
                got=rid,
            )
    if key_hash is None:
        return
    if expert.hashes is None:
        raise InputError(
            f"cannot check that this file belongs to the review key: it has neither the "
            f"{HASH_COLUMN!r} column nor the text columns the export wrote (keep them)",
            path=expert.source,
        )
    for rid in expert.labels:
        got = expert.hashes.get(rid)
        if got != key_hash.get(rid):
            raise InputError(
                f"this item was not exported with this review key: its {HASH_COLUMN} (or "
                "its texts) differ from the key's (a file of another export, or edited texts?)",
                path=expert.source,
                line=expert.lines.get(rid),
                got=rid,
            )


#: Columns :func:`combine_review` adds after the key's and the experts' (and
#: ``posterior_<label>`` with a crowd model).
DERIVED_COLUMNS = ("reconciled", "gold", "status", "error")
EXPERT_PREFIX = "expert_"


def expert_columns(names: Sequence[str], taken: Sequence[str] = ()) -> list[str]:
    """Name each expert's gold column: ``expert_<name>``, never one of ``taken`` or another's.

    A name already starting with ``expert_`` (the package's ``expert_a.csv``) is kept; any
    other gets the prefix, so an expert file named ``id.csv`` or ``status.csv`` never stands
    for the key's or the derived column of that name. A column still taken gets ``_2``,
    ``_3``, … (the first free one).

    >>> expert_columns(["expert_a", "id", "status", "expert_id"], ["id", "status", "expert_x"])
    ['expert_a', 'expert_id', 'expert_status', 'expert_id_2']
    """
    used = set(taken)
    out = []
    for name in names:
        base = name if name.startswith(EXPERT_PREFIX) else EXPERT_PREFIX + name
        column, k = base, 1
        while column in used:
            k += 1
            column = f"{base}_{k}"
        used.add(column)
        out.append(column)
    return out


def combine_review(
    key: pl.DataFrame,
    experts: Sequence[ExpertLabels],
    *,
    reconciled: ExpertLabels | None = None,
    source: str | None = None,
    consensus: str = "unanimous",
    adjudicator: str | None = None,
    seed: int = 0,
) -> tuple[pl.DataFrame, ReviewSummary]:
    """Combine the experts' labels (and a reconciled file) with the key into gold labels.

    Every expert file must belong to the key: its review ids are the key's and, when the key
    has ``content_hash``, its hashes match (a key without them, from an older export, is
    accepted with a warning). Expert names must differ, and every expert must have answered
    something. ``consensus`` decides the disagreements no reconciled label settles
    (:data:`CONSENSUS`; the module docstring); ``adjudicator`` names the expert whose label
    decides them under ``consensus="adjudicator"``; ``seed`` feeds the MACE crowd model.
    Returns the gold frame (every example of the key with one column per expert,
    :func:`expert_columns`, then ``reconciled``,
    ``gold``, ``status``, ``error`` = gold ≠ original and, with a crowd model,
    ``posterior_<label>``) and a :class:`ReviewSummary`.
    """
    if not experts:
        raise UsageError("give at least one expert file")
    if consensus not in CONSENSUS:
        raise UsageError(f"{{consensus}} must be one of {list(CONSENSUS)}, got {consensus!r}")
    names = [e.name for e in experts]
    if (consensus == "adjudicator") != (adjudicator is not None):
        raise UsageError("{adjudicator} goes with {consensus} adjudicator, and only with it")
    if adjudicator is not None and adjudicator not in names:
        raise UsageError(f"{{adjudicator}} {adjudicator!r} is none of the experts {names}")
    key = check_key(key, source=source)
    exported = [r for r in key["review_id"].to_list() if r is not None]
    exported_set = set(exported)
    warnings: list[str] = []
    key_hash: dict[str, str] | None = None
    if HASH_COLUMN in key.columns:
        key_hash = {
            r: h for r, h in zip(key["review_id"], key[HASH_COLUMN], strict=True) if r is not None
        }
    else:
        warnings.append(
            "the review key has no content_hash column (an older export): the expert files' "
            "texts could not be checked against it"
        )
    dup = [n for n, c in Counter(names).items() if c > 1]
    if dup:
        raise UsageError(f"two expert files are both named {dup[0]!r}; rename one")
    for e in experts:
        _check_belongs(e, exported_set, key_hash)
    for e in experts:
        answered = len([r for r in exported if e.labels.get(r) is not None])
        if answered == 0:
            raise InputError(
                f"expert {e.name!r} answered nothing (no label on any of the "
                f"{len(exported)} items): a file exported but never filled?",
                path=e.source,
            )
        if answered < len(exported):
            warnings.append(f"{e.name}: {len(exported) - answered} item(s) without a label")
    rec: Mapping[str, str | None] = {}
    if reconciled is not None:
        _check_belongs(reconciled, exported_set, None)
        rec = reconciled.labels
    crowd = None
    if consensus in CROWD_MODELS:
        answers = [
            (r, e.name, lab)
            for e in experts
            for r in exported
            if (lab := e.labels.get(r)) is not None
        ]
        labels = review_labels(key, sorted({a[2] for a in answers}))
        crowd = fit_crowd_model(answers, method=consensus, labels=labels, seed=seed)
    crowd_gold = crowd.gold() if crowd is not None else {}

    gold: list[str | None] = []
    status: list[str] = []
    for label, llm, rid in key.select("label", "llm_label", "review_id").iter_rows():
        if rid is None:
            if llm is not None and llm == label:
                gold.append(label)
                status.append("llm_agrees")
            else:
                gold.append(None)
                status.append("not_reviewed")
            continue
        votes = [e.labels.get(rid) for e in experts]
        decided = _decide(votes, names, consensus, adjudicator, crowd_gold.get(rid))
        if rec.get(rid) is not None:
            gold.append(rec[rid])
            status.append("reconciled")
        elif all(v is not None for v in votes) and len(set(votes)) == 1:
            gold.append(votes[0])
            status.append("experts_agree" if len(votes) > 1 else ONE_EXPERT)
        elif decided is not None:
            gold.append(decided)
            status.append(_DECIDED[consensus])
        else:
            gold.append(None)
            status.append("unresolved")
    rids = key["review_id"].to_list()
    columns = expert_columns(names, [*key.columns, *DERIVED_COLUMNS])
    extra = [
        pl.Series(col, [e.labels.get(r) if r is not None else None for r in rids], pl.String)
        for col, e in zip(columns, experts, strict=True)
    ]
    extra.append(pl.Series("reconciled", [rec.get(r) if r else None for r in rids], pl.String))
    extra.append(pl.Series("gold", gold, dtype=pl.String))
    extra.append(pl.Series("status", status, dtype=pl.String))
    if crowd is not None:
        for lab in crowd.labels:
            extra.append(
                pl.Series(
                    f"posterior_{lab}",
                    [crowd.probability(r, lab) if r in crowd.posteriors else None for r in rids],
                    dtype=pl.Float64,
                )
            )
    out = key.with_columns(extra).with_columns(
        pl.when(pl.col("gold").is_null())
        .then(None)
        .otherwise(pl.col("gold") != pl.col("label"))
        .alias("error")
    )
    before = _agreement([[e.labels.get(r) for r in exported] for e in experts])
    final = [[rec.get(r) or e.labels.get(r) for r in exported] for e in experts]
    after = _agreement(final)
    reviewed = out.filter(pl.col("review_id").is_not_null() & pl.col("gold").is_not_null())
    changes = Counter(
        f"{a}->{b}" for a, b in zip(reviewed["label"], reviewed["gold"], strict=True) if a != b
    )
    audited = out.filter(pl.col("review_id").is_not_null())
    if "stratum" in out.columns:
        audited = audited.filter(pl.col("stratum") == STRATA[1])
    else:
        audited = audited.head(0)
    shown: tuple[str, ...] = (
        STATUSES if consensus == "unanimous" else (*STATUSES, _DECIDED[consensus])
    )
    if len(experts) == 1:  # one expert agrees with nobody: their label, said so
        shown = tuple(ONE_EXPERT if s == "experts_agree" else s for s in shown)
    flags = (
        reviewed.filter(pl.col("stratum") == STRATA[0]) if "stratum" in out.columns else reviewed
    )
    with_original = flags["gold"] == flags["label"]
    with_llm = (flags["gold"] == flags["llm_label"]).fill_null(False) & ~with_original
    summary = ReviewSummary(
        experts=tuple(names),
        n_reviewed=len(exported),
        agreement_before=before,
        agreement_after=after,
        status_counts={s: status.count(s) for s in shown},
        changes=dict(sorted(changes.items())),
        sided_with_llm=int(with_llm.sum()),
        sided_with_original=int(with_original.sum()),
        flags_decided=flags.height,
        unresolved_ids=tuple(out.filter(pl.col("status") == "unresolved")["id"].to_list()),
        warnings=tuple(warnings),
        audited=audited.height,
        audit_errors=int(audited["error"].fill_null(False).sum()),
        consensus=consensus,
        crowd=crowd,
    )
    return out, summary


def _decide(
    votes: Sequence[str | None],
    names: Sequence[str],
    consensus: str,
    adjudicator: str | None,
    crowd_label: str | None,
) -> str | None:
    """Return the label ``consensus`` gives a disagreement (``None``: it stays unresolved).

    >>> _decide(["a", "a", "b"], ["x", "y", "z"], "majority", None, None)
    'a'
    >>> _decide(["a", "b"], ["x", "y"], "majority", None, None) is None
    True
    >>> _decide(["a", "b"], ["x", "y"], "adjudicator", "y", None)
    'b'
    """
    given = [v for v in votes if v is not None]
    if not given:
        return None
    if consensus == "majority":
        label, count = Counter(given).most_common(1)[0]
        return label if count * 2 > len(given) else None
    if consensus == "adjudicator":
        return dict(zip(names, votes, strict=True)).get(adjudicator or "")
    if consensus in CROWD_MODELS:
        return crowd_label
    return None
