"""``benchcheck flag-spans``: entity spans where a model disagrees with the gold annotation.

Without a model (``predictions``/``spacy_model``) the out-of-fold tagger is the model
(:mod:`benchcheck.labels.ner_detect`) and, with ``detector`` ``llm`` or ``both``, the judges
score its candidate spans (:mod:`benchcheck.labels.ner_judge`); ``verify="all"`` puts every
other gold span to the judges as well. Each row of that path carries ``error_score``,
``rank``, ``kind``, ``split``, ``sentence``, ``start``/``end``, the gold and proposed spans
and types, the members' scores (``tagger_score``, ``llm_score``, ``tagger_confidence``,
``token_issue``, ``sentence_quality``), ``sentence_error_score``, ``flagged`` and
``source`` (``tagger``: a disagreement of the tagger; ``verify``: a gold span the tagger
does not dispute, verified by the judges).

A **corpus folder** (``train``/``dev``/``test`` files, named as the folder reader names them:
``eng.testa`` is dev, ``eng.testb`` test) is read whole: one tagger over all its sentences,
each flag with its ``split``, ``file``, ``sentence`` (0-based in that file), ``line`` and
``document``; the splits must share one tagging scheme (:func:`read_corpus_folder`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck._progress import step
from benchcheck.errors import InputError, JudgeError, UsageError
from benchcheck.runs.judging import JudgeSetup, Progress

if TYPE_CHECKING:
    import polars as pl

    from benchcheck.data.model import Split
    from benchcheck.labels.ner_detect import TaggerFlags

__all__ = [
    "DETECTORS",
    "KINDS",
    "CorpusParts",
    "SpanFlagsRun",
    "read_corpus_folder",
    "run_flag_spans",
]

#: ``--detector`` values of the no-model path.
DETECTORS = ("tagger", "llm", "both")

#: The kinds of span disagreement, in the order they are counted.
KINDS = ("wrong_type", "wrong_boundary", "missing_annotation", "spurious_annotation")
_TABLES = (".jsonl", ".csv", ".tsv", ".parquet")


@dataclass(frozen=True)
class SpanFlagsRun:
    """Span flags of one NER file, in the review format (``review export`` reads it)."""

    gold: str
    n_gold_spans: int
    n_pred_spans: int
    flags: pl.DataFrame
    review: pl.DataFrame
    by_kind: Mapping[str, int] = field(default_factory=dict)
    output: str | None = None
    #: ``model`` (the user's predictions or spaCy), ``tagger`` (out-of-fold CRF), ``llm``
    #: (its candidates scored by the judges) or ``both`` (the two scores combined).
    detector: str = "model"
    #: The tagger's settings, threshold and counts (no-model path), with ``judge`` (judges,
    #: framings, judgements computed / cached, wall seconds; ``verify`` and, with ``all``,
    #: ``verified_spans`` and ``verify_requests`` / ``verify_computed``: the judgements of
    #: those spans, all and computed in this run) for ``llm`` and ``both``.
    tagger: Mapping[str, Any] | None = None

    def to_json(self, *, top: int = 10, output: str | None = None) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck flag-spans --json``."""
        output = output if output is not None else self.output
        out: dict[str, Any] = {
            "gold": self.gold,
            "n_gold_spans": self.n_gold_spans,
            "n_pred_spans": self.n_pred_spans,
            "flags": int(self.flags.height),
            "by_kind": dict(self.by_kind),
            "detector": self.detector,
        }
        from benchcheck.labels.ner_flags import GLOSSARY

        out["glossary"] = GLOSSARY
        shown = ["rank", "id", "label", "llm_label", "kind", "text"]
        shown += [c for c in ("gold_type", "pred_type") if c in self.review.columns]
        if self.tagger is not None:
            out["tagger"] = dict(self.tagger)
            out["flagged"] = int(self.review["flagged"].sum())
            shown += ["error_score", "sentence"]
            shown += [
                c
                for c in (
                    "error_logit",
                    "split",
                    "file",
                    "line",
                    "document",
                    "tagger_score",
                    "llm_score",
                    "source",
                )
                if c in self.review.columns
            ]
        out["top"] = self.review.head(top).select(shown).to_dicts()
        if output is not None:
            out["output"] = output
        return out


def run_flag_spans(
    gold: str | Path,
    *,
    predictions: str | Path | None = None,
    spacy_model: str | None = None,
    label_map: str | None = None,
    scheme: str | None = None,
    output: str | Path | None = None,
    folds: int = 5,
    seed: int = 0,
    entity_disjoint: bool = False,
    crossweigh: int = 0,
    min_error_score: float | None = None,
    max_iterations: int | None = None,
    detector: str = "tagger",
    setup: JudgeSetup | None = None,
    combination: str = "mean",
    verify: str = "candidates",
    judge_top: int | None = None,
    progress: Progress | None = None,
) -> SpanFlagsRun:
    """Compare the gold spans with a model's: CoNLL predictions, a span table, spaCy, or none.

    At most one of ``predictions`` (CoNLL with the same tokens, or a table of
    ``sentence, start, end, type[, confidence]``) and ``spacy_model``. ``label_map``
    (``MODEL=TYPE,...``) renames the model's types. With neither, an out-of-fold CRF trained
    on the file itself is the model (:func:`benchcheck.labels.ner_detect.tagger_flags`:
    ``folds``, ``seed``, ``entity_disjoint``, ``crossweigh``; flags have an ``error_score`` and are
    ``flagged`` from ``min_error_score``). With ``output`` the span flags are written there in
    the review format (:func:`benchcheck.io.tables.write_rows`).

    ``detector`` (no model given): ``tagger``; ``llm`` — the tagger's candidates scored by
    the judges of ``setup`` (:func:`benchcheck.labels.ner_judge.judge_span_flags`, cached);
    ``both`` — the two scores combined by ``combination`` (``mean`` or ``rank``).
    ``verify``: ``candidates`` (the tagger's disagreements only) or ``all`` (every other gold
    span as well, :func:`benchcheck.labels.ner_judge.verify_flags`; ``llm``/``both`` only).
    ``judge_top``: the judge scores only the tagger's ``judge_top`` highest rows (``None``:
    :data:`~benchcheck.labels.ner_judge.JUDGE_TOP`; 0: every row); the others keep the
    tagger's score, rank after them and are not flagged
    (:func:`~benchcheck.labels.ner_judge.rescore_flags`).
    """
    import polars as pl

    from benchcheck.io.conll import read_conll
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.ner_flags import (
        compare_spans,
        parse_label_map,
        spacy_spans,
        span_review_frame,
        spans_from_split,
    )

    if predictions is not None and spacy_model is not None:
        raise UsageError("give at most one of {predictions} or {spacy}")
    if detector not in DETECTORS:
        raise UsageError(f"{{detector}}: expected tagger, llm or both, got {detector!r}")
    from benchcheck.labels.ner_judge import COMBINATIONS, VERIFY

    if combination not in COMBINATIONS:
        raise UsageError(f"{{combination}}: expected mean or rank, got {combination!r}")
    if verify not in VERIFY:
        raise UsageError(f"{{verify}}: expected candidates or all, got {verify!r}")
    if verify == "all" and (predictions is not None or spacy_model is not None):
        raise UsageError(
            "{verify} all is for the tagger's path with {detector} llm or both "
            "(no {predictions}/{spacy})"
        )
    if verify == "all" and detector == "tagger":
        raise UsageError("{verify} all needs {detector} llm or both: the judge verifies the spans")
    if judge_top is not None and judge_top < 0:
        raise UsageError(
            f"{{judge_top}}: expected 0 (every row) or a positive count, got {judge_top}"
        )
    if judge_top is not None and detector == "tagger":
        raise UsageError("{judge_top} is for {detector} llm or both")
    tagger_only = {
        "folds": folds != 5,
        "entity_disjoint": entity_disjoint,
        "crossweigh": crossweigh != 0,
        "detector": detector != "tagger",
    }
    if predictions is not None or spacy_model is not None:
        used = [k for k, v in tagger_only.items() if v]
        if used or min_error_score is not None:
            name = used[0] if used else "min_error_score"
            raise UsageError(
                f"{{{name}}} is for the tagger detector (no {{predictions}}/{{spacy}})"
            )
    scheme = scheme.upper() if scheme else None
    step(progress, f"reading {gold}")
    corpus: CorpusParts | None = None
    if Path(gold).is_dir():
        if predictions is not None or spacy_model is not None:
            raise InputError(
                "is a corpus folder, read by the tagger path only; {predictions} or {spacy} go "
                "with one NER file",
                path=gold,
            )
        corpus = read_corpus_folder(gold, scheme=scheme)
        split = corpus.split
    else:
        split = read_conll(gold, scheme=scheme)
    if split.tokens is None:
        raise InputError("not an NER file", path=gold)
    if predictions is None and spacy_model is None:
        return _tagger_run(
            split,
            str(gold),
            corpus=corpus,
            folds=folds,
            seed=seed,
            entity_disjoint=entity_disjoint,
            crossweigh=crossweigh,
            min_error_score=min_error_score,
            max_iterations=max_iterations,
            output=output,
            detector=detector,
            setup=setup or JudgeSetup(),
            combination=combination,
            verify=verify,
            judge_top=judge_top,
            progress=progress,
        )
    mapping = parse_label_map(label_map)
    if spacy_model is not None:
        pred = spacy_spans(split.tokens, spacy_model, label_map=mapping)
    elif Path(str(predictions)).suffix.lower() in _TABLES:
        pred = read_rows(str(predictions))
        missing = [c for c in ("sentence", "start", "end", "type") if c not in pred.columns]
        if missing:
            raise InputError(f"predicted spans lack column(s) {missing}", path=predictions)
    else:
        other = read_conll(str(predictions), scheme=scheme)
        _same_tokens(split, other, str(predictions))
        pred = spans_from_split(other)
        if mapping:
            pred = pred.with_columns(pl.col("type").replace(mapping))
    try:
        flags = compare_spans(spans_from_split(split), pred)
        review = span_review_frame(split.tokens, flags)
    except InputError as exc:  # a bad predicted span: name the file it came from
        if exc.path is not None:
            raise
        where = predictions if predictions is not None else gold
        raise InputError(exc.message, path=where, line=exc.line, got=exc.got) from None
    if output is not None:
        from benchcheck.io.tables import write_rows

        write_rows(review, output)
    return SpanFlagsRun(
        gold=str(gold),
        n_gold_spans=int(split.spans.height) if split.spans is not None else 0,
        n_pred_spans=int(pred.height),
        flags=flags,
        review=review,
        by_kind={k: int((flags["kind"] == k).sum()) for k in KINDS},
        output=None if output is None else str(output),
    )


@dataclass(frozen=True)
class CorpusParts:
    """The splits of a corpus folder read as one: the combined split and where each part is.

    ``names`` / ``files`` / ``offsets``: each part's split name, file and first sentence in
    the combined split (train, dev, test, then others as found).
    """

    split: Split
    names: tuple[str, ...]
    files: tuple[str, ...]
    offsets: tuple[int, ...]

    def part_of(self, sentences: Any) -> Any:
        """Return the part index of each combined-split sentence index."""
        import numpy as np

        return np.searchsorted(np.asarray(self.offsets), np.asarray(sentences), side="right") - 1


def read_corpus_folder(folder: str | Path, *, scheme: str | None = None) -> CorpusParts:
    """Read every split file of a corpus folder (CoNLL) and join them into one split.

    A file is a split when its name says which (:func:`benchcheck.data.model.split_name_of`:
    ``train``, ``dev``/``valid``/``testa``, ``test``/``testb``); hidden files and files of
    other names are not read. Raises :class:`~benchcheck.errors.InputError` naming the folder
    when no file names a split, two name the same one, or the splits use different tagging
    schemes (a part whose own scheme fits it without a violation but the corpus' scheme,
    chosen on all parts, does not: e.g. IOB1 train with IOB2 test); a bad file is named by
    its own reader.
    """
    from benchcheck.data.model import in_split_order, split_name_of
    from benchcheck.io.conll import read_conll
    from benchcheck.io.shards import combine_splits

    folder = Path(folder)
    found: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        name = split_name_of(path)
        if path.name.startswith(".") or not path.is_file() or name is None:
            continue
        if name in found:
            raise InputError(
                f"two files look like the {name!r} split: {found[name].name} and {path.name}",
                path=folder,
            )
        found[name] = path
    if not found:
        raise InputError(
            "no NER split file: expected file names containing train, dev/valid/testa or "
            "test/testb",
            path=folder,
        )
    found = in_split_order(found)
    parts = [read_conll(path, name=name, scheme=scheme) for name, path in found.items()]
    for path, part in zip(found.values(), parts, strict=True):
        if part.tokens is None:
            raise InputError("not an NER file", path=path)
    if scheme is None and len(parts) > 1 and _mixed_schemes(parts):
        named = ", ".join(
            f"{n} ({Path(p.source).name}) {p.scheme}" for n, p in zip(found, parts, strict=True)
        )
        raise InputError(
            f"mixed tagging schemes across splits: {named}; expected one scheme in every split",
            path=folder,
        )
    combined = combine_splits(parts, scheme=scheme)
    offsets, at = [], 0
    for part in parts:
        offsets.append(at)
        at += part.n
    return CorpusParts(
        split=combined,
        names=tuple(found),
        files=tuple(str(p) for p in found.values()),
        offsets=tuple(offsets),
    )


def _mixed_schemes(parts: list[Split]) -> bool:
    """Whether the parts' tags fit no one scheme together.

    Their prefix letters fit no scheme (``E-``/``S-`` beside IOB1's letters), or a part
    reads without a violation under its own scheme but not under the scheme chosen on all
    parts (an IOB2 part, ``B-`` after ``O``, beside IOB1 parts).
    """
    from benchcheck.data.schemes import SCHEMES, best_scheme, fitting_schemes

    letters = sorted({c for p in parts for c in p.tag_letters})
    if not fitting_schemes(letters):
        return True
    total = {k: sum(p.scheme_violations.get(k, 0) for p in parts) for k in SCHEMES}
    used = best_scheme(total)
    return any(
        p.scheme != used
        and p.scheme_violations.get(used, 0) > 0
        and p.scheme_violations.get(str(p.scheme), 1) == 0
        for p in parts
    )


def _tagger_run(
    split: Split,
    gold: str,
    *,
    corpus: CorpusParts | None = None,
    folds: int,
    seed: int,
    entity_disjoint: bool,
    crossweigh: int,
    min_error_score: float | None,
    max_iterations: int | None,
    output: str | Path | None,
    detector: str = "tagger",
    setup: JudgeSetup | None = None,
    combination: str = "mean",
    verify: str = "candidates",
    judge_top: int | None = None,
    progress: Progress | None = None,
) -> SpanFlagsRun:
    """Run the out-of-fold tagger path of :func:`run_flag_spans` (one split, its own model)."""
    from benchcheck.labels.ner_detect import MIN_ERROR_SCORE, tagger_flags
    from benchcheck.labels.ner_flags import span_review_frame, spans_from_split
    from benchcheck.labels.ner_tagger import TaggerOptions

    assert split.tokens is not None
    base = TaggerOptions()
    opts = TaggerOptions(
        folds=folds,
        seed=seed,
        entity_disjoint=entity_disjoint,
        crossweigh=crossweigh,
        max_iterations=max_iterations or base.max_iterations,
    )
    from benchcheck.labels.ner_judge import LLM_MIN_ERROR_SCORE

    default = MIN_ERROR_SCORE if detector == "tagger" else LLM_MIN_ERROR_SCORE
    threshold = default if min_error_score is None else min_error_score
    place = _places(split, gold, corpus)
    documents = place.tagger_documents
    step(progress, f"out-of-fold tagger ({opts.folds} folds, {split.n:,} sentences)")
    try:
        found = tagger_flags(
            split.tokens,
            spans_from_split(split),
            split.n,
            options=opts,
            min_error_score=threshold,
            progress=progress,
            documents=documents,
        )
    except InputError as exc:
        if exc.path is not None:
            raise
        raise InputError(exc.message, path=gold, line=exc.line, got=exc.got) from None
    import polars as pl

    flags = found.flags
    expected = _expected(found.flags, split.n, None if corpus is None else place)
    judged: dict[str, Any] | None = None
    if detector != "tagger":
        flags, judged = _judge_flags(
            split,
            flags,
            setup or JudgeSetup(),
            detector,
            combination,
            threshold,
            progress,
            found=found if verify == "all" else None,
            judge_top=judge_top,
        )
    at = flags["sentence"].cast(pl.Int64)
    where = [place.table[c].gather(at) for c in ("split", "file", "line")]
    if place.table["document"].null_count() < place.table.height:
        where.append(place.table["document"].gather(at))
    flags = flags.with_columns(where)
    review = span_review_frame(
        split.tokens, flags, gold=spans_from_split(split), proposed=found.pred
    )
    if corpus is not None:  # sentences of their own file; ids unique over the splits
        local = place.table["sentence"].gather(at)
        flags = flags.with_columns(local)
        rest = review["id"].str.replace(r"^\d+", "")  # ":<gold>|<proposed>"
        review = review.with_columns(
            local, (review["split"] + "/" + local.cast(pl.String) + rest).alias("id")
        )
    if output is not None:
        from benchcheck.io.tables import write_rows

        write_rows(review, output)
    return SpanFlagsRun(
        gold=gold,
        n_gold_spans=int(split.spans.height) if split.spans is not None else 0,
        n_pred_spans=int(found.pred.height),
        flags=flags,
        review=review,
        by_kind={k: int((flags["kind"] == k).sum()) for k in KINDS},
        output=None if output is None else str(output),
        detector=detector,
        tagger={
            "folds": opts.folds,
            "seed": opts.seed,
            "entity_disjoint": opts.entity_disjoint,
            "crossweigh": opts.crossweigh,
            "plain_fits": found.tagging.plain_fits,
            "algorithm": opts.algorithm,
            "c2": opts.c2,
            "max_iterations": opts.max_iterations,
            "min_error_score": threshold,
            "sentences": split.n,
            "token_issues": found.n_token_issues,
            "expected_errors": expected,
            **({} if judged is None else {"judge": judged}),
        },
    )


def _expected(flags: pl.DataFrame, n: int, place: _Places | None) -> dict[str, Any]:
    """Return the expected wrong sentences (:mod:`benchcheck.labels.ner_expected`), by split.

    Computed from the tagger's own ``error_logit`` (the calibration's input), whatever the
    detector; with a corpus folder ``by_split`` holds each split's count.
    """
    from benchcheck.labels.ner_expected import expected_errors, sentence_logits

    z = sentence_logits(flags, n)
    out = expected_errors(z).to_json()
    if place is not None:
        names = place.table["split"].to_numpy()
        out["by_split"] = {
            name: expected_errors(z[names == name]).to_json()
            for name in dict.fromkeys(names.tolist())
        }
    return out


@dataclass(frozen=True)
class _Places:
    """Where each sentence of the tagged split is, and the tagger's document ids.

    ``table``: per sentence ``split``, ``file``, ``sentence`` (in its file), ``line`` and
    ``document`` (null where the file has no ``-DOCSTART-``); ``tagger_documents``: the ids
    the document member groups by (unique over the files; None: no document anywhere).
    """

    table: pl.DataFrame
    tagger_documents: Any


def _places(split: Split, gold: str, corpus: CorpusParts | None) -> _Places:
    """Where each sentence of ``split`` is: its file, 0-based sentence there, line, document."""
    import numpy as np
    import polars as pl

    from benchcheck.io.conll import sentence_documents

    lines = split.table["line"].cast(pl.Int64).to_numpy()
    names: tuple[str, ...]
    files: tuple[str, ...]
    offsets: tuple[int, ...]
    if corpus is None:
        names, files, offsets = (split.name,), (str(gold),), (0,)
    else:
        names, files, offsets = corpus.names, corpus.files, corpus.offsets
    bounds = [*offsets, split.n]
    part = np.repeat(np.arange(len(names)), np.diff(bounds))
    local = np.arange(split.n) - np.asarray(offsets)[part]
    document = np.full(split.n, -1, dtype=np.int64)
    tagger = np.arange(split.n, dtype=np.int64) + 1  # no document: each sentence its own
    any_docs, base = False, split.n + 1
    for file, lo, hi in zip(files, bounds[:-1], bounds[1:], strict=True):
        docs = sentence_documents(file, lines[lo:hi])
        if docs is None:
            continue
        any_docs = True
        document[lo:hi] = docs
        tagger[lo:hi] = docs + base
        base += int(docs.max(initial=0)) + 1
    table = pl.DataFrame(
        {
            "split": np.asarray(names, dtype=object)[part].tolist(),
            "file": np.asarray(files, dtype=object)[part].tolist(),
            "sentence": local,
            "line": lines,
            "document": pl.Series(document).replace(-1, None),
        },
        schema={
            "split": pl.String,
            "file": pl.String,
            "sentence": pl.Int64,
            "line": pl.Int64,
            "document": pl.Int64,
        },
    )
    return _Places(table=table, tagger_documents=tagger if any_docs else None)


def _judge_flags(
    split: Split,
    flags: pl.DataFrame,
    setup: JudgeSetup,
    detector: str,
    combination: str,
    threshold: float,
    progress: Progress | None,
    *,
    found: TaggerFlags | None = None,
    judge_top: int | None = None,
) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Score the tagger's flags with the judges; ``error_score`` becomes the detector's.

    Only the tagger's ``judge_top`` highest rows go to the judges (``None``: the default
    :data:`~benchcheck.labels.ner_judge.JUDGE_TOP`; 0: every row); the rest keep the tagger's
    score, ranked after the judged rows, unflagged, ``llm_score`` empty.

    With ``found`` (the tagger's result, ``--verify all``) every gold span no flag holds is
    judged too and becomes a row (:func:`benchcheck.labels.ner_judge.verify_flags`, scored
    with the tagger's marginals and gold labels), ``sentence_quality`` from its sentence
    table.
    """
    import time

    import numpy as np
    import polars as pl

    from benchcheck.labels.ner_detect import _sentence_words
    from benchcheck.labels.ner_flags import spans_from_split
    from benchcheck.labels.ner_judge import (
        FRAMINGS,
        JUDGE_TOP,
        combine_scores,
        judge_spans,
        rescore_flags,
        unverified_gold,
        verify_flags,
    )

    assert split.tokens is not None and split.spans is not None
    words = _sentence_words(split.tokens, split.n)
    types = sorted(set(split.spans["type"].cast(pl.String).to_list()))
    gold = spans_from_split(split)
    verify = None if found is None else unverified_gold(flags, gold)
    top = JUDGE_TOP if judge_top is None else judge_top
    candidates = flags.height
    flags = flags.sort("rank")  # the tagger's order: its highest rows are judged
    band = flags if top == 0 or candidates <= top else flags.head(top)
    start = time.perf_counter()
    step(progress, "loading the judges")
    try:
        with setup.open() as (judges, store):
            step(progress, "judging the candidate spans")
            judged = judge_spans(
                band, words, types, judges, verify=verify, cache=store, progress=progress
            )
            cache = None if store is None else str(store.path)
    except JudgeError as exc:  # unreachable server, missing weights: the options are wrong
        raise UsageError(f"{{judge}} could not judge the spans: {exc}") from None
    wall = time.perf_counter() - start
    llm = judged.llm_score
    rows = judged.rows
    tail = np.full(candidates - band.height, np.nan)
    flags = flags.with_columns(
        pl.Series("llm_score", np.concatenate([llm, tail]), dtype=pl.Float64).fill_nan(None)
    )
    if verify is not None:
        assert found is not None
        extra = verify_flags(verify, judged, found.tagging, found.gold_labels, types).join(
            found.sentences.select("sentence", "sentence_quality"),
            on="sentence",
            how="left",
            maintain_order="left",
        )
        flags = pl.concat([flags, extra], how="diagonal_relaxed")
    is_judged = flags["llm_score"].is_not_null().to_numpy()
    tagger = flags["error_score"].to_numpy()
    score = tagger.copy()  # rows left unjudged keep the tagger's score
    llm_judged = flags["llm_score"].to_numpy()[is_judged]
    score[is_judged] = (
        llm_judged
        if detector == "llm"
        else combine_scores(tagger[is_judged], llm_judged, combination)
    )
    flags = rescore_flags(flags, score, min_error_score=threshold, judged=is_judged)
    computed = 0 if rows.height == 0 else int((~rows["cached"]).sum())
    info: dict[str, Any] = {
        "judges": list(setup.specs),
        "framings": [t.name for t in FRAMINGS],
        "judgements": int(rows.height),
        "computed": computed,
        "cached": int(rows.height) - computed,
        "wall_seconds": wall,
        "cache": cache,
        "verify": "candidates" if verify is None else "all",
        "judge_top": top,
        "candidate_rows": candidates,
        "judged_rows": band.height,
    }
    if verify is not None:
        mine = rows.filter(pl.col("verify")) if rows.height else rows
        info["verified_spans"] = int(verify.height)
        info["verify_requests"] = int(mine.height)
        info["verify_computed"] = 0 if mine.height == 0 else int((~mine["cached"]).sum())
    if detector == "both":
        info["combination"] = combination
    return flags, info


def _same_tokens(gold: Split, other: Split, path: str) -> None:
    a, b = gold.tokens, other.tokens
    assert a is not None and b is not None
    if a.height != b.height or gold.n != other.n:
        raise InputError(
            f"predictions have {other.n} sentences / {b.height} tokens; the gold file "
            f"{gold.source} has {gold.n} / {a.height}",
            path=path,
        )
    diff = (a["token"] != b["token"]) | (a["sentence"] != b["sentence"])
    if diff.any():
        k = int(diff.arg_true()[0])
        s = int(b["sentence"][k])
        line = int(other.table["line"][s]) + int(b["position"][k])
        raise InputError(
            f"token differs from the gold file {gold.source}",
            path=path,
            line=line,
            got=b["token"][k],
        )
