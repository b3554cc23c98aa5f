"""``benchcheck items``: item analysis (CTT) and IRT of a benchmark's score matrix.

:func:`run_items` builds the matrix — read whole (``matrix``), or scored from a dataset's
labels and each model's predictions — then runs :func:`benchcheck.items.analyse_items` and,
for 0/1 scores, :func:`benchcheck.items.irt.fit_irt`. The ``items`` section of
``benchcheck audit`` is the same call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchcheck._progress import Progress, step
from benchcheck.errors import InputError, MissingExtraError, UsageError
from benchcheck.items.analysis import ItemAnalysis
from benchcheck.items.irt import IrtFit
from benchcheck.items.matrix import ItemMatrix

if TYPE_CHECKING:
    import polars as pl

    from benchcheck.data.mcq import McqColumns
    from benchcheck.io.output import OutputFolder
    from benchcheck.runs.review import ReviewExportRun

__all__ = ["ItemsOptions", "ItemsRun", "run_items", "suspects_frame"]


@dataclass(frozen=True)
class ItemsOptions:
    """Options of the item analysis and the IRT fit (``irt=None`` skips the fit)."""

    min_discrimination: float = 0.1
    n_resamples: int = 1000
    confidence: float = 0.95
    seed: int = 0
    irt: str | None = "2pl"
    top: int = 2
    n_separating: int = 10
    intersect: bool = False


@dataclass(frozen=True)
class ItemsRun:
    """The item analysis, the IRT fit (or why there is none), and the matrix analysed."""

    matrix: ItemMatrix
    analysis: ItemAnalysis
    irt: IrtFit | None
    irt_skipped: str | None
    options: ItemsOptions = field(default_factory=ItemsOptions)
    sources: Mapping[str, str] = field(default_factory=dict)
    review: ReviewExportRun | None = None

    def to_json(self) -> dict[str, Any]:
        """``items --json``: ``n_items``, ``n_models``, ``reliability``, ``items``, ``irt``."""
        body = self.analysis.to_json()
        out: dict[str, Any] = {"n_items": body.pop("n_items"), "n_models": body.pop("n_models")}
        out["reliability"] = body.pop("reliability")
        out["items"] = body.pop("items")
        out["irt"] = self.irt.to_json() if self.irt is not None else None
        out["irt_skipped"] = self.irt_skipped
        out.update(body)
        out["sources"] = dict(self.sources)
        out["dropped"] = dict(self.matrix.dropped)
        return out

    def write(self, folder: OutputFolder) -> None:
        """Write ``items.json`` (the canonical JSON) and ``items.csv`` (one row per item)."""
        import polars as pl

        from benchcheck.io.canonical import dumps
        from benchcheck.io.tables import write_rows

        payload = self.to_json()
        with folder as f:
            f.write("items.json", dumps(payload))
            flat = [{k: v for k, v in i.items() if k != "curve"} for i in payload["items"]]
            write_rows(pl.DataFrame(flat), f.stage("items.csv"))


def run_items(
    *,
    matrix: str | None = None,
    data: str | None = None,
    label: str = "label",
    id_col: str | None = None,
    predictions: Mapping[str, str] | None = None,
    scores: str | None = None,
    positive: str | None = None,
    options: ItemsOptions | None = None,
    prepared: ItemMatrix | None = None,
    folder: OutputFolder | None = None,
    to_review: str | None = None,
    experts: int = 2,
    force: bool = False,
    answers: Sequence[str] = (),
    mcq: McqColumns | None = None,
    progress: Progress | None = None,
) -> ItemsRun:
    """Read or build the score matrix, analyse its items, fit the IRT model.

    Give ``matrix`` (a table: ``id`` + one 0/1 column per model), or ``data`` with
    ``predictions`` (model → file with ``id`` and ``pred``) and/or ``scores`` (a matrix
    file of partial credits on the data's ids), or an already built ``prepared`` matrix.
    ``folder`` (claimed) receives ``items.json`` and ``items.csv``; ``to_review`` a blind
    review package of the suspect items for ``experts`` experts
    (:func:`benchcheck.runs.review.run_review_export`, over an earlier one with ``force``).
    With ``answers`` (models' answers to multiple-choice questions), ``data`` is the
    questions read with ``mcq`` (:func:`build_mcq_matrix`). ``progress`` is told the steps
    (reading, the item analysis, the IRT fit, writing).
    """
    from benchcheck.items.analysis import analyse_items
    from benchcheck.items.irt import fit_irt

    options = options or ItemsOptions()
    sources: dict[str, str] = {}
    if prepared is not None:
        m = prepared
    elif answers:
        if data is None or matrix is not None or predictions or scores:
            raise UsageError("the models' {answers} go with the questions (DATA) alone")
        if to_review is not None:
            raise UsageError(
                "{to_review} reviews classification items; review multiple-choice keys from "
                "the flags of the answers detector (its flags file)"
            )
        step(progress, f"reading {data} and the models' answers")
        m = build_mcq_matrix(data, answers, columns=mcq, intersect=options.intersect)
        sources["data"] = data
        for k, path in enumerate(answers):
            sources[f"answers {k + 1}"] = path
    elif matrix is not None:
        if data is not None or predictions or scores:
            raise UsageError("give either {matrix} or the dataset with its predictions, not both")
        from benchcheck.io.items import read_matrix

        step(progress, f"reading {matrix}")
        m = read_matrix(matrix)
        sources["matrix"] = matrix
    else:
        if data is None:
            raise UsageError("give {matrix}, or a dataset with {predictions}")
        if not predictions and scores is None:
            raise UsageError("give the models' {predictions} (NAME=FILE) or {scores}")
        step(progress, f"reading {data} and the models' predictions")
        m = build_matrix(
            data,
            label=label,
            id_col=id_col,
            predictions=predictions or {},
            scores=scores,
            positive=positive,
            intersect=options.intersect,
        )
        sources["data"] = data
        for name, path in (predictions or {}).items():
            sources[f"predictions {name}"] = path
        if scores is not None:
            sources["scores"] = scores
    step(
        progress,
        f"item analysis of {len(m.item_ids):,} items × {len(m.models)} models: "
        f"{options.n_resamples} bootstrap resamples",
    )
    analysis = analyse_items(
        m,
        min_discrimination=options.min_discrimination,
        n_resamples=options.n_resamples,
        confidence=options.confidence,
        seed=options.seed,
    )
    fit = None
    skipped = None
    if options.irt is None:
        skipped = "not requested"
    elif not analysis.dichotomous:
        skipped = "partial-credit scores: the 1PL/2PL models need 0/1"
    else:
        step(progress, f"IRT fit ({options.irt})")
        try:
            fit = fit_irt(
                m,
                model=options.irt,
                top=options.top,
                n_separating=options.n_separating,
                confidence=options.confidence,
            )
        except MissingExtraError as exc:
            skipped = str(exc)
        except UsageError as exc:
            if "IRT needs at least two items" not in str(exc):
                raise
            skipped = str(exc)
    run = ItemsRun(m, analysis, fit, skipped, options, sources)
    frame = None if to_review is None else suspects_frame(run, data, id_col=id_col)
    if folder is not None:
        step(progress, f"writing {folder.path}")
        run.write(folder)
    if to_review is not None and frame is not None:
        from dataclasses import replace

        from benchcheck.runs.review import ReviewExportRun, run_review_export

        review = run_review_export(
            frame, to_review, experts=experts, seed=options.seed, force=force, progress=progress
        )
        assert isinstance(review, ReviewExportRun)  # items are classification flags
        run = replace(run, review=review)
    return run


def build_matrix(
    data: str,
    *,
    label: str,
    id_col: str | None,
    predictions: Mapping[str, str],
    scores: str | None,
    positive: str | None,
    intersect: bool,
) -> ItemMatrix:
    """Score each model's predictions against the data's labels; add a partial-credit file."""
    import numpy as np

    from benchcheck.data.ids import check_join
    from benchcheck.io.items import read_matrix, read_predictions
    from benchcheck.io.label_files import read_labelled
    from benchcheck.items.matrix import item_matrix, matrix_from_predictions

    # ids unique, labels single values and present (the one rule, io.label_files)
    _, ids, labels = read_labelled(data, label=label, id_col=id_col)
    label_set = sorted(set(labels))
    preds = {
        name: read_predictions(name, path, positive=positive, labels=label_set)
        for name, path in predictions.items()
    }
    for name, path in predictions.items():  # predictions of other items: say which file
        check_join(
            ids,
            list(preds[name]),
            left_name="the data",
            right_name=f"the predictions of model {name!r}",
            left_file=data,
            right_file=path,
            path=path,
            left_unmatched=1.0,  # coverage is the matrix's rule (--intersect)
            right_unmatched=1.0,
        )
    if preds:
        try:
            m = matrix_from_predictions(ids, labels, preds, intersect=intersect, source=data)
        except UsageError as exc:  # the items the models answered: say which data
            raise InputError(exc.message, path=data) from None
    else:
        m = None
    if scores is None:
        assert m is not None
        return m
    extra = read_matrix(scores)
    base_ids = list(m.item_ids) if m is not None else ids
    index = {i: k for k, i in enumerate(extra.item_ids)}
    absent = [i for i in base_ids if i not in index]
    if absent:
        raise UsageError(
            f"the scores file has no row for {len(absent)} item(s) of the data (first: "
            f"{absent[0]!r})"
        )
    rows = [index[i] for i in base_ids]
    if m is None:
        return item_matrix(base_ids, extra.models, extra.scores[rows], source=scores)
    clash = set(m.models) & set(extra.models)
    if clash:
        raise UsageError(f"model(s) {sorted(clash)} are in both the predictions and the scores")
    both = np.column_stack([m.scores, extra.scores[rows]])
    return item_matrix(
        base_ids, [*m.models, *extra.models], both, dropped=m.dropped, notes=m.notes, source=data
    )


def build_mcq_matrix(
    data: str, answers: Sequence[str], *, columns: McqColumns | None, intersect: bool
) -> ItemMatrix:
    """Score each model's answers to multiple-choice questions against their keys.

    A model's answer is its option of highest probability (its only one in a long or wide
    table; the argmax of its option log-likelihoods in an lm-eval log, lm-eval's ``acc``);
    it scores 1 when it is the key. A question a model did not answer follows the matrix's
    coverage rule (:func:`benchcheck.items.matrix.matrix_from_predictions`: refused, or
    left out with ``intersect``).
    """
    import numpy as np

    from benchcheck.data.mcq import letter
    from benchcheck.io.mcq_answers import read_mcq_answers
    from benchcheck.items.matrix import matrix_from_predictions
    from benchcheck.runs.mcq_flag import load_mcq

    _, table = load_mcq(data, columns)
    ids = table.get_column("id").to_list()
    keys = table.get_column("key").to_numpy()
    read = read_mcq_answers(
        answers, ids, table.get_column("options").to_list(), keys, data_file=data
    )
    answered = read.probs.sum(2) > 0
    choice = read.probs.argmax(2)
    preds = {
        model: {ids[i]: letter(int(choice[i, j])) for i in np.flatnonzero(answered[:, j])}
        for j, model in enumerate(read.models)
    }
    labels = [letter(int(k)) for k in keys]
    try:
        return matrix_from_predictions(ids, labels, preds, intersect=intersect, source=data)
    except UsageError as exc:  # the questions the models answered: say which data
        raise InputError(exc.message, path=data) from None


def suspects_frame(run: ItemsRun, data: str | None, *, id_col: str | None) -> pl.DataFrame:
    """Return the suspect items as a flags table with the data's texts (``review export`` input)."""
    import polars as pl

    from benchcheck.io.tables import read_rows
    from benchcheck.items.analysis import review_frame

    if data is None:
        raise UsageError("{to_review} needs the dataset (its texts) and the models' predictions")
    rows = read_rows(data)
    key = id_col or ("id" if "id" in rows.columns else None)
    ids = rows[key].cast(pl.String).to_list() if key else [str(i) for i in range(rows.height)]
    index = {i: k for k, i in enumerate(ids)}
    text_cols = [c for c in ("text", "text_a", "text_b") if c in rows.columns]
    if not text_cols:
        raise InputError(
            "the data has no text column (text, or text_a and text_b) to show the reviewers",
            path=data,
        )
    order = [index[i] for i in run.matrix.item_ids]
    texts: dict[str, Sequence[str]] = {
        c: [rows[c].cast(pl.String)[k] for k in order] for c in text_cols
    }
    return pl.DataFrame(review_frame(run.analysis, run.matrix, texts))
