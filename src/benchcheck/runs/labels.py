"""Label-error commands after the flags: bins, remedy, rerank, agreement, ensemble-curve.

Each run reads its files and calls :mod:`benchcheck.labels`; the typed results'
``to_json()`` (or ``to_dict()``) is the command's JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from benchcheck._progress import Progress, step
from benchcheck.errors import InputError, UsageError

if TYPE_CHECKING:
    import polars as pl

    from benchcheck.labels.analysis import AgreementReport, BinStat, CurvePoint
    from benchcheck.labels.remedies import RemedyResult, RerankResult

__all__ = [
    "BinsRun",
    "CurveRun",
    "RemedyRun",
    "run_agreement",
    "run_bins",
    "run_ensemble_curve",
    "RemedyOutcome",
    "run_remedy",
    "run_rerank",
    "write_remedy",
]


def _in_file(path: str | Path, exc: InputError) -> InputError:
    """``exc`` naming ``path`` when it names no file (e.g. a missing column)."""
    return exc if exc.path is not None else InputError(exc.message, path=path)


def _read_gold(
    path: str | Path, need: Sequence[str] = ("label", "gold"), filled: Sequence[str] = ()
) -> pl.DataFrame:
    from benchcheck.io.label_files import read_gold

    return read_gold(path, need=need, filled=filled)


# ----------------------------------------------------------------------------- bins


@dataclass(frozen=True)
class BinsRun:
    """Expert agreement per confidence bin, with bootstrap intervals."""

    bins: tuple[BinStat, ...]
    bootstrap: int
    seed: int

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck bins --json``."""
        return {
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "bins": [b.to_dict() for b in self.bins],
        }


def run_bins(
    gold: str | Path,
    *,
    bins: Sequence[float],
    bootstrap: int = 1000,
    seed: int = 0,
    min_bin: int = 35,
    progress: Progress | None = None,
) -> BinsRun:
    """Per bin of the reviewed flags: share of gold labels that side with the LLM / original.

    ``progress`` is told the steps (reading, the bootstrap).
    """
    from benchcheck.labels.analysis import bin_agreement

    step(progress, f"reading {gold}")
    frame = _read_gold(gold, ("label", "llm_label", "confidence", "gold"))
    step(progress, f"agreement per bin: {bootstrap} bootstrap resamples")
    try:
        stats = bin_agreement(frame, bins=bins, n_resamples=bootstrap, seed=seed, min_bin=min_bin)
    except InputError as exc:
        raise _in_file(gold, exc) from None
    return BinsRun(tuple(stats), bootstrap, seed)


# ----------------------------------------------------------------------------- remedy


class RemedyOutcome(Protocol):
    """What ``benchcheck remedy`` returns: a :class:`RemedyRun`, or a ``SpanRemedyRun``.

    The latter with ``--spans`` (:class:`benchcheck.runs.span_remedy.SpanRemedyRun`).
    """

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck remedy --json``."""
        ...


@dataclass(frozen=True)
class RemedyRun:
    """The cleaned split, the random ablation of the same size, and the files written."""

    splits: Mapping[str, pl.DataFrame]
    source: str
    mode: str
    min_confidence: float
    seed: int
    result: RemedyResult | None = None

    def write(self, folder: str | Path, *, force: bool = False) -> RemedyResult:
        """Write ``cleaned`` and ``ablation_random`` in the input's format into ``folder``."""
        return write_remedy(
            self.splits,
            folder,
            source=self.source,
            mode=self.mode,
            min_confidence=self.min_confidence,
            seed=self.seed,
            force=force,
        )

    def to_json(self) -> dict[str, object]:
        """Return the canonical JSON of ``benchcheck remedy --json`` (after :meth:`write`)."""
        if self.result is None:
            raise UsageError("the remedy was not written: give {output}")
        return self.result.to_json()


def write_remedy(
    splits: Mapping[str, pl.DataFrame],
    out_dir: str | Path,
    *,
    source: str | Path,
    mode: str,
    min_confidence: float,
    seed: int,
    force: bool = False,
) -> RemedyResult:
    """Write ``cleaned`` and ``ablation_random`` in the input's format, never over the input.

    The files are staged and moved into place complete; existing ones are replaced only
    with ``force`` (:mod:`benchcheck.io.output`).
    """
    from benchcheck.io.output import Outputs

    out = Path(out_dir)
    from benchcheck.io.tables import write_rows
    from benchcheck.labels.remedies import RemedyResult, remedy_file_names

    names = remedy_file_names(source)
    earlier = ("cleaned.*", "ablation_random.*")  # an earlier run's, in another format
    folder = Outputs([source], force=force).folder(
        out, param="output", names=names, patterns=earlier
    )
    files: dict[str, str] = {}
    with folder:
        for key, name in zip(("cleaned", "ablation_random"), names, strict=True):
            write_rows(splits[key], folder.stage(name))
            files[key] = str(out / name)
    selected = tuple(splits["_selected"]["id"].to_list())
    return RemedyResult(
        mode,
        min_confidence,
        seed,
        splits["cleaned"].height + (len(selected) if mode == "filter" else 0),
        len(selected),
        selected,
        tuple(splits["_ablation"]["id"].to_list()),
        files,
    )


def run_remedy(
    data: str | Path,
    *,
    judgments: str | Path | None = None,
    flags: str | Path | None = None,
    min_confidence: float = 0.9,
    mode: str = "filter",
    seed: int = 0,
    label: str = "label",
    id_col: str | None = None,
    judges: Sequence[str] | None = None,
    prompts: Sequence[str] | None = None,
    output: str | Path | None = None,
    force: bool = False,
    spans: str | Path | None = None,
    scheme: str | None = None,
    progress: Progress | None = None,
) -> RemedyOutcome:
    """Filter or flip the disagreements of confidence ``min_confidence`` or more; ablate as many.

    With ``spans`` (corrected spans of a span review) it is the NER remedy instead:
    :func:`benchcheck.runs.span_remedy.run_span_remedy` on the CoNLL file ``data`` (``mode``
    ``correct`` or ``filter``, ``scheme`` forced when reading it), written into ``output``.

    The ablation does the same to as many random examples.

    The flags come from ``judgments`` (flagged here at every error score, the rule of
    ``benchcheck flag``) or from a flags file of ``benchcheck flag``: exactly one of the two.
    With ``output`` the two splits are written into that folder (:meth:`RemedyRun.write`).
    ``progress`` is told the steps (reading, flagging, the remedy, writing).
    """
    import polars as pl

    from benchcheck.io.tables import read_rows, scalar_strings
    from benchcheck.labels.remedies import apply_remedy

    if spans is not None:
        from benchcheck.runs.span_remedy import run_span_remedy

        if judgments is not None or flags is not None:
            raise UsageError("{spans} replaces {judgments} / {flags}: give only one of them")
        if output is None:
            raise UsageError("give {output}: the folder for the remedied corpus")
        step(progress, f"remedying {data} with {spans}")
        return run_span_remedy(data, spans, output=output, mode=mode, scheme=scheme, force=force)
    if scheme is not None:
        raise UsageError("{scheme} goes with {spans} (the NER remedy), and only with it")
    if (judgments is None) == (flags is None):
        raise UsageError("give exactly one of {judgments} or {flags}")
    step(progress, f"reading {data}")
    rows = read_rows(data)
    if label not in rows.columns:
        shown = [c for c in rows.columns if c != "__line__"]
        raise InputError(f"no label column {label!r}; the file has {shown}", path=data)
    if id_col is not None and id_col not in rows.columns:
        raise InputError(f"no id column {id_col!r}", path=data)
    idc = id_col or ("id" if "id" in rows.columns else None)
    ids = (
        rows[idc].cast(pl.String) if idc else pl.Series("id", [str(i) for i in range(rows.height)])
    )
    values = scalar_strings(rows, label, path=data, what="label")
    if values.null_count():  # a row without its label cannot be kept, flipped or dropped
        k = int(values.is_null().arg_true()[0])
        line = int(rows["__line__"][k]) if "__line__" in rows.columns else None
        raise InputError(f"missing value in column {label!r}", path=data, line=line)
    frame = pl.DataFrame({"id": ids, "label": values})
    if "__line__" in rows.columns:
        frame = frame.with_columns(rows["__line__"].alias("line"))
    labels: tuple[str, ...] | None = None
    if judgments is not None:
        from benchcheck.io.judgments import read_judgments
        from benchcheck.runs.flag import FlagOptions, flag_frames

        options = FlagOptions(
            0.0,
            (0.0, 1.0),
            tuple(judges) if judges else None,
            tuple(prompts) if prompts else None,
        )
        step(progress, f"reading {judgments}")
        judged = read_judgments(judgments)
        step(progress, "flagging: the judges' error posterior")
        run = flag_frames(
            judged,
            frame,
            options=options,
            source=str(data),
            judgments_source=str(judgments),
            progress=progress,
        )
        flagged, labels = run.flags, run.labels
    else:
        from benchcheck.labels.flags import normalise_flags

        assert flags is not None
        step(progress, f"reading {flags}")
        flagged = normalise_flags(
            read_rows(flags).with_columns(pl.col("id").cast(pl.String)), source=flags
        )
        need = {"id", "llm_label", "confidence", "disagree"}
        if not need <= set(flagged.columns):
            raise InputError(f"not a flags file: needs columns {sorted(need)}", path=flags)
    step(progress, f"remedy: {mode} the flags of confidence {min_confidence} or more")
    splits = apply_remedy(
        rows,
        flagged,
        label_col=label,
        id_col=idc,
        mode=mode,
        min_confidence=min_confidence,
        seed=seed,
        labels=labels,
        source=data,
        flags_source=flags,
    )
    remedy = RemedyRun(splits, str(data), mode, min_confidence, seed)
    if output is None:
        return remedy
    step(progress, f"writing {output}")
    return replace(remedy, result=remedy.write(output, force=force))


# ----------------------------------------------------------------------------- rerank


def run_rerank(
    gold: str | Path,
    scores: Mapping[str, str],
    *,
    positive: str = "1",
    cutoff: float = 0.5,
    bootstrap: int = 1000,
    seed: int = 0,
    progress: Progress | None = None,
) -> RerankResult:
    """Models scored on original and gold labels, their rank change, paired bootstraps.

    ``scores`` maps a model name to a table with ``id`` and ``score`` (P(positive)) and/or
    ``pred`` (a label); a score above ``cutoff`` predicts ``positive``. ``progress`` is
    told the steps (reading, the bootstrap).
    """
    import polars as pl

    from benchcheck.io.scores import read_model_scores
    from benchcheck.labels.remedies import rerank

    if not scores:
        raise UsageError("give at least one {scores} NAME=FILE")
    step(progress, f"reading {gold}")
    g = _read_gold(gold, ("id", "label", "gold"), filled=("id", "label"))
    g = g.filter(pl.col("gold").is_not_null())
    if g.height == 0:
        raise InputError("the gold file has no example with a gold label", path=gold)
    step(progress, "reading the models' scores")
    models = [read_model_scores(n, p) for n, p in scores.items()]
    step(progress, "scores on original and gold labels")
    return rerank(
        g["id"].cast(pl.String).to_list(),
        g["label"].cast(pl.String).to_list(),
        g["gold"].cast(pl.String).to_list(),
        models,
        positive=positive,
        threshold=cutoff,
        n_resamples=bootstrap,
        seed=seed,
        source=gold,
        progress=progress,
    )


# ----------------------------------------------------------------------------- agreement


def read_source(name: str, spec: str) -> dict[str, str]:
    """One label source ``FILE[#COLUMN]`` as {id: label} (column: NAME, NAME_label, label)."""
    from benchcheck.io.label_files import read_label_source

    path, _, column = spec.partition("#")
    return read_label_source(name, path, column or None)


def run_agreement(
    sources: Mapping[str, str],
    *,
    crowd: str | Path | None = None,
    groups: Mapping[str, Sequence[str]] | None = None,
    judgments: str | Path | None = None,
    truth: str = "gold",
    negative: str = "0",
    disagreement: tuple[str, str] = ("llm", "original"),
    crowd_model: str | None = None,
    alpha_level: str = "nominal",
    seed: int = 0,
    progress: Progress | None = None,
) -> AgreementReport:
    """Compare label sources (``NAME → FILE[#COLUMN]``), a crowd file and the judgments.

    ``crowd_model`` fits a crowd model to the crowd file; ``alpha_level`` and ``seed`` set
    Krippendorff's alpha (:func:`benchcheck.labels.analysis.agreement_report`).
    ``progress`` is told the steps (reading each input, comparing).
    """
    from benchcheck.io.judgments import read_judgments
    from benchcheck.io.label_files import read_crowd
    from benchcheck.labels.analysis import agreement_report

    if not sources and crowd is None:
        raise UsageError("give at least one {source} NAME=FILE or {crowd}")
    if crowd_model is not None and crowd is None:
        raise UsageError("{crowd_model} needs a {crowd} file")
    read = {}
    for n, s in sources.items():
        step(progress, f"reading {s}")
        read[n] = read_source(n, s)
    crowd_frame = None
    if crowd is not None:
        step(progress, f"reading {crowd}")
        crowd_frame = read_crowd(crowd)
    judged = None
    if judgments:
        step(progress, f"reading {judgments}")
        judged = read_judgments(judgments)
    step(progress, "comparing the label sources")
    return agreement_report(
        read,
        crowd=crowd_frame,
        groups=groups,
        judgments=judged,
        truth=truth,
        disagreement=disagreement,
        negative=negative,
        crowd_model=crowd_model,
        alpha_level=alpha_level,
        seed=seed,
    )


# ----------------------------------------------------------------------------- ensemble-curve


@dataclass(frozen=True)
class CurveRun:
    """ROC AUC against gold and error-detection F1 as the ensemble grows."""

    points: tuple[CurvePoint, ...]
    members: tuple[str, ...]
    unit: str
    repeats: int
    seed: int

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck ensemble-curve --json``."""
        return {
            "unit": self.unit,
            "repeats": self.repeats,
            "seed": self.seed,
            "members": list(self.members),
            "points": [p.to_dict() for p in self.points],
        }


def run_ensemble_curve(
    judgments: str | Path | pl.DataFrame,
    gold: str | Path,
    *,
    unit: str = "member",
    repeats: int = 50,
    seed: int = 0,
    positive: str | None = None,
    progress: Progress | None = None,
) -> CurveRun:
    """Grow the ensemble member by member (or judge by judge) and score each size on gold.

    ``judgments`` is a judgments file, or the frame of judgments a run has just made.
    ``progress`` is told the steps (reading, growing the ensemble).
    """
    import polars as pl

    from benchcheck.io.judgments import read_judgments
    from benchcheck.labels.analysis import ensemble_curve

    step(progress, f"reading {gold}")
    frame = _read_gold(gold, ("id", "label", "gold"), filled=("id", "label"))
    if not isinstance(judgments, pl.DataFrame):
        step(progress, f"reading {judgments}")
    judged = judgments if isinstance(judgments, pl.DataFrame) else read_judgments(judgments)
    source = None if isinstance(judgments, pl.DataFrame) else str(judgments)
    step(progress, f"growing the ensemble: {repeats} random orders per size")
    try:
        points, members = ensemble_curve(
            judged,
            frame,
            judgments_source=source,
            unit=unit,
            repeats=repeats,
            seed=seed,
            positive=positive,
        )
    except InputError as exc:
        raise _in_file(gold, exc) from None
    return CurveRun(tuple(points), tuple(members), unit, repeats, seed)
