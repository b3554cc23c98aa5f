"""Judges × prompts → one probability per example and label (methods.md section 2, step 1).

A judgments file (Parquet, or JSONL/CSV by extension) has one row per (example, judge,
prompt) with the columns ``id``, ``judge``, ``prompt`` and one probability column per label,
``p_<label>`` (e.g. ``p_0``, ``p_1``); ``logprob_<label>``, ``model``, ``n_prompt_tokens`` and
``seconds`` may be present and are carried along but not needed here.

The ensemble probability is the plain mean over the selected members::

    p(label | x) = 1/|M| * sum_{(judge, prompt) in M} p_{judge,prompt}(label | x)

and the LLM label is the argmax (binary: ``1{p_1 > 0.5}``; ties go to the first label in
sorted order, so ``p_1 = 0.5`` gives ``0``). Rows whose probabilities are missing (a judge
that failed) are left out of the mean and counted. Files are read and validated by
:func:`benchcheck.io.judgments.read_judgments`.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from benchcheck.errors import UsageError

__all__ = ["ensemble", "is_content_free", "judgment_labels", "label_sort_key"]


def label_sort_key(label: str) -> tuple[int, int, str]:
    """Sort numeric labels by value, then other labels alphabetically.

    >>> sorted(["10", "2", "b", "a"], key=label_sort_key)
    ['2', '10', 'a', 'b']
    """
    try:
        return (0, int(label), "")
    except ValueError:
        return (1, 0, label)


def judgment_labels(frame: pl.DataFrame) -> tuple[str, ...]:
    """Return the labels a judgments frame scores (its ``p_<label>`` columns), sorted.

    >>> judgment_labels(pl.DataFrame({"id": ["a"], "p_1": [0.2], "p_0": [0.8]}))
    ('0', '1')
    """
    labels = [c[2:] for c in frame.columns if c.startswith("p_") and len(c) > 2]
    return tuple(sorted(labels, key=label_sort_key))


def is_content_free(frame: pl.DataFrame) -> pl.Series:
    """Which rows are content-free judgments (contextual calibration's, not examples).

    Those rows have a ``content_free`` column and an ``id`` starting with
    ``content-free:`` (:func:`benchcheck.judges.run.judge_frame`); the id is the marker,
    so an empty content-free input survives CSV (where it reads as an empty cell).

    >>> f = pl.DataFrame({"id": ["a", "content-free:N/A"], "content_free": [None, "N/A"]})
    >>> is_content_free(f).to_list()
    [False, True]
    """
    from benchcheck.judges.run import CONTENT_FREE_PREFIX

    if "content_free" not in frame.columns:
        return pl.Series("content_free", [False] * frame.height)
    return (
        frame["id"].cast(pl.String).str.starts_with(CONTENT_FREE_PREFIX).fill_null(False)
    ).alias("content_free")


def ensemble(
    judgments: pl.DataFrame,
    *,
    judges: Sequence[str] | None = None,
    prompts: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Mean probability per example over the selected judges × prompts, and the LLM label.

    Returns one row per id: ``id``, ``p_<label>`` (means), ``n_members`` (rows averaged),
    ``llm_label`` (argmax) and ``confidence`` (the mean probability of the LLM label).

    >>> j = pl.DataFrame({"id": ["a", "a", "b", "b"], "judge": ["m"] * 4,
    ...                   "prompt": ["nli", "doc", "nli", "doc"],
    ...                   "p_0": [0.9, 0.7, 0.4, 0.5], "p_1": [0.1, 0.3, 0.6, 0.5]})
    >>> ensemble(j).select("id", "p_1", "llm_label", "confidence").rows()
    [('a', 0.2, '0', 0.8), ('b', 0.55, '1', 0.55)]
    """
    labels = judgment_labels(judgments)
    frame = judgments
    for name, chosen in (("judge", judges), ("prompt", prompts)):
        if chosen:
            have = sorted(set(frame[name].cast(pl.String).to_list()))
            unknown = [c for c in chosen if c not in have]
            if unknown:
                raise UsageError(f"unknown {name}(s) {unknown}; the judgments have {have}")
            frame = frame.filter(pl.col(name).cast(pl.String).is_in(list(chosen)))
    pcols = [f"p_{lab}" for lab in labels]
    frame = frame.filter(pl.all_horizontal(pl.col(c).is_not_null() for c in pcols))
    if frame.height == 0:
        raise UsageError("no judgments left to average (all filtered out or missing)")
    out = frame.group_by(pl.col("id").cast(pl.String), maintain_order=True).agg(
        [pl.col(c).mean() for c in pcols] + [pl.len().alias("n_members")]
    )
    probs = out.select(pcols).to_numpy()
    best = probs.argmax(axis=1)  # first maximum: ties go to the first label in sorted order
    return out.with_columns(
        pl.Series("llm_label", [labels[i] for i in best], dtype=pl.String),
        pl.Series("confidence", probs[range(len(best)), best], dtype=pl.Float64),
    )
