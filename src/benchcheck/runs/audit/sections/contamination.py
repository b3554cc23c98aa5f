"""Section ``contamination``: how far a corpus contains the audited table's items.

Key in ``results.json``: ``contamination``. With ``benchcheck audit --corpus``, the audit runs
:func:`benchcheck.runs.leakage.run_leakage` on the table (its ``text`` column, or ``text_a``
of a pair file, or ``--test-column``) or on a NER dataset's test split (each instance's
tokens joined by spaces; its id the instance's 0-based index in the split; the last split
when none is named ``test``) and keeps: the definition used and its n-gram
settings, the corpus read, the items in each of Llama 2's four subsets and in each bucket,
the dataset-level shares, the histogram of overlap shares (fixed bins: the ten deciles, the
last closed), the most contaminated items (at most :data:`TOP_ITEMS`, with their first
matches) and, with ``--predictions``, each model's score on the clean and the dirty subset
(a NER model's per-sentence exact match,
:func:`benchcheck.metrics.predictions.sentence_exact_match`), the difference with its
bootstrap interval and the ranks (Touvron et al. 2023, App. A.6; Brown et al. 2020, App.
C). Every value is the one ``benchcheck leakage --json`` gives for the same inputs (a table;
a NER split through its items and scores); only the item list is cut to the top.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from benchcheck.errors import UsageError
from benchcheck.io.typed import ABSENT, AbsentType, JsonResult
from benchcheck.report.html import card as card_html
from benchcheck.report.html import cards, esc, figure, num_cell, show_text
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.report.numbers import num, pct, short, thousands
from benchcheck.report.svg import hbars
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section

__all__ = [
    "TOP_ITEMS",
    "Contamination",
    "ContaminationResult",
    "ContaminationSection",
    "top_items",
]

#: The most contaminated items the section keeps (``benchcheck leakage --json`` has all).
TOP_ITEMS = 20

#: Llama 2's four (overlapping) subsets and the partition's buckets, as the report names them.
SUBSET_NAMES = {
    "clean": "clean",
    "not_clean": "not clean",
    "not_dirty": "not dirty",
    "dirty": "dirty",
}


@dataclass(frozen=True)
class Parameters(JsonResult):
    """The definition used, its n-gram settings, the cut-offs and the normalisation."""

    definition: str
    overlap: str
    n: int
    min_length: int
    skip: int
    clean_below: float
    dirty_from: float
    max_matches: int
    normalisation: str
    near: dict[str, float | int] | AbsentType = ABSENT


@dataclass(frozen=True)
class CorpusRead(JsonResult):
    """The corpus read: files, documents and tokens."""

    files: int
    documents: int
    tokens: int


@dataclass(frozen=True)
class Histogram(JsonResult):
    """Items per overlap bin: ``edges`` (11 fixed edges, 0 to 1) and ``counts`` (10 bins)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]


@dataclass(frozen=True)
class MatchRow(JsonResult):
    """A matched span: corpus file, record (0-based), id, token offsets and length."""

    file: str
    row: int
    offset: int
    item_offset: int
    length: int
    id: str | AbsentType = ABSENT


@dataclass(frozen=True)
class NearRow(JsonResult):
    """A near-duplicate corpus document and its Jaccard similarity with the item."""

    file: str
    row: int
    jaccard: float
    id: str | AbsentType = ABSENT


@dataclass(frozen=True)
class ItemRow(JsonResult):
    """One contaminated item, as ``benchcheck leakage --json`` lists it."""

    id: str
    n_tokens: int
    overlap: float
    bucket: str
    subsets: tuple[str, ...]
    exact_matches: int
    normalised_matches: int
    n_matches: int
    matches: tuple[MatchRow, ...]
    near_matches: int | AbsentType = ABSENT
    near: tuple[NearRow, ...] | AbsentType = ABSENT


@dataclass(frozen=True)
class SubsetScore(JsonResult):
    """One model on one subset: items, their mean overlap, the score and Llama 2's Z."""

    n: int
    mean_overlap: float | None
    score: float | None
    z: float | None
    z_fpc: float | None


@dataclass(frozen=True)
class Ranks(JsonResult):
    """A model's rank on all items, the clean and the dirty subset (1 = best)."""

    all: int
    clean: int | None
    dirty: int | None


@dataclass(frozen=True)
class ModelScores(JsonResult):
    """One model: score on all items and per subset, clean − dirty with its interval, ranks."""

    model: str
    score: float
    subsets: dict[str, SubsetScore]
    clean_minus_dirty: float | None
    interval: tuple[float, float] | None
    clean_vs_all: float | None
    rank: Ranks


@dataclass(frozen=True)
class Scores(JsonResult):
    """The score table: its interval's level, resamples and seed, and every model."""

    confidence: float
    resamples: int
    seed: int
    ranking_changes: bool
    models: tuple[ModelScores, ...]


@dataclass(frozen=True)
class Contamination(JsonResult):
    """The contamination of the table's items by the corpus (see the module doc).

    ``top_items`` holds the ``n_contaminated`` items with any overlap, exact, normalised or
    near match, most contaminated first, cut to :data:`TOP_ITEMS`.
    """

    test: str
    test_column: str
    corpus_patterns: tuple[str, ...]
    parameters: Parameters
    corpus: CorpusRead
    n_items: int
    n_short_items: int
    buckets: dict[str, int]
    partition: dict[str, int]
    metrics: dict[str, float | None]
    histogram: Histogram
    n_contaminated: int
    top_items: tuple[ItemRow, ...]
    scores: Scores | AbsentType = ABSENT


@dataclass(frozen=True)
class ContaminationResult(JsonResult):
    """The ``contamination`` section."""

    contamination: Contamination


def _contaminated(item: Mapping[str, Any]) -> bool:
    return bool(
        item["overlap"]
        or item["exact_matches"]
        or item["normalised_matches"]
        or item.get("near_matches")
    )


def top_items(items: list[dict[str, Any]], cap: int = TOP_ITEMS) -> list[dict[str, Any]]:
    """Return the contaminated items, most first: overlap, exact, normalised, near matches, spans.

    Ties keep the file order.

    >>> rows = [{"id": i, "overlap": o, "exact_matches": e, "normalised_matches": 0,
    ...          "n_matches": 0} for i, o, e in (("a", 0.0, 0), ("b", 0.5, 0), ("c", 0.5, 1))]
    >>> [r["id"] for r in top_items(rows)]
    ['c', 'b']
    """
    hit = [i for i in items if _contaminated(i)]
    hit.sort(
        key=lambda i: (
            -i["overlap"],
            -i["exact_matches"],
            -i["normalised_matches"],
            -(i.get("near_matches") or 0),
            -i["n_matches"],
        )
    )
    return hit[:cap]


def _shown_files(item: dict[str, Any]) -> dict[str, Any]:
    from benchcheck.runs.audit._paths import shown

    out = dict(item)
    for key in ("matches", "near"):
        if key in out:
            out[key] = [{**m, "file": shown(m["file"])} for m in out[key]]
    return out


class ContaminationSection(Section[ContaminationResult]):
    """Test-set contamination by a corpus: per-item overlap, subsets, clean/dirty scores."""

    name = "contamination"
    title = "Contamination by a corpus"
    anchor = "contamination"
    result = ContaminationResult
    card = Card(
        measures="Per item, the share of its tokens inside spans also found in the corpus "
        "(Llama 2: spans of 10+ tokens, up to 4 mismatches) or of its n-grams found (GPT-3, "
        "PaLM); Llama 2's clean / not clean / not dirty / dirty subsets; with predictions, each "
        "model's score on the clean and dirty subsets and the difference.",
        reading="An item near 1 is (nearly) in the corpus. A model that scores much higher on "
        "the dirty subset than on the clean one, with an interval away from 0, may have seen "
        "the test items; a ranking that changes on the clean subset is not settled by the "
        "whole test set. Short items (fewer tokens than a span) can show no overlap.",
        references=(
            "Touvron et al. 2023 (Llama 2), App. A.6",
            "Brown et al. 2020 (GPT-3), App. C",
            "Chowdhery et al. 2022 (PaLM), §8",
        ),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a corpus (``--corpus``) and a table or NER dataset to check."""
        if inputs.contamination is None:
            return "no --corpus given"
        if inputs.table is None and not (inputs.ner is not None and inputs.ner.given):
            return "no classification, pair or NER dataset given"
        return None

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[ContaminationResult]:
        """:func:`benchcheck.runs.leakage.run_leakage` on the items, cut to the top."""
        from benchcheck.io.canonical import jsonable
        from benchcheck.runs.audit._paths import shown
        from benchcheck.runs.leakage import LeakageEngine, run_leakage

        given = inputs.contamination
        assert given is not None
        test, column, label, models, computed = self._items(inputs)
        options = replace(given.options, seed=inputs.seed, resamples=inputs.resamples)
        result = run_leakage(
            test,
            list(given.corpus),
            text_column=given.text_column,
            test_column=column,
            id_column=inputs.table.columns.id if inputs.table is not None else None,
            corpus_id_column=given.corpus_id_column,
            label_column=label,
            predictions=models,
            item_scores=computed,
            options=options,
            engine=LeakageEngine(batch_mb=given.batch_mb),
        )
        payload = result.to_json()
        items = payload.pop("items")
        payload.update(
            test=shown(test if isinstance(test, str) else test.path),
            test_column=column,
            corpus_patterns=[shown(p) for p in given.corpus],
            n_contaminated=sum(_contaminated(i) for i in items),
            top_items=[_shown_files(i) for i in top_items(items)],
        )
        section = ContaminationResult.from_json(jsonable({"contamination": payload}))
        c = section.contamination
        detail = (
            f"{c.n_items} items, {c.buckets['dirty']} dirty, {c.buckets['clean']} clean "
            f"({c.parameters.definition})"
        )
        return Ran(section, detail)

    @staticmethod
    def _items(
        inputs: AuditInputs,
    ) -> tuple[Any, str, str | None, dict[str, str], dict[str, list[float]]]:
        """Return the items to check and how models are scored on them.

        A table: its path, column, label and prediction files. A NER dataset: its test split
        and each model's sentence exact match
        (:func:`benchcheck.metrics.predictions.sentence_exact_match`).
        """
        table, given = inputs.table, inputs.contamination
        assert given is not None
        if table is not None:
            column = given.test_column or (
                table.columns.text_a if table.kind == "pair" else table.columns.text
            )
            assert column is not None
            label = table.label if table.predictions else None
            return table.evaluated()[0], column, label, dict(table.predictions), {}
        from benchcheck.io.leakage import split_items
        from benchcheck.runs.audit.sections.statistics import ner_source

        ner = inputs.ner
        assert ner is not None
        if given.test_column is not None:
            raise UsageError(
                "{test_column} names a column of a table; a NER dataset's test split is "
                "checked by its tokens"
            )
        source = ner_source(ner)
        dataset = source.load()
        names = dataset.split_names
        name = "test" if "test" in names else names[-1]
        scores: dict[str, list[float]] = {}
        if ner.predictions:
            from benchcheck.io.load import read_predictions
            from benchcheck.metrics.predictions import sentence_exact_match, test_split

            gold = test_split(dataset)
            predicted = read_predictions(ner.predictions, scheme=source.scheme)
            scores = {m: sentence_exact_match(gold, split) for m, split in predicted.items()}
        return split_items(dataset[name]), f"tokens of split {name}", None, {}, scores

    # ------------------------------------------------------------------ renderings

    def html(self, result: ContaminationResult) -> str:
        """Render the headline numbers, the overlap histogram, the score table, the top items."""
        c = result.contamination
        p = c.parameters
        m = c.metrics
        parts = [
            f"<p>{esc(thousands(c.n_items))} items of {show_text(c.test)} (column "
            f"{show_text(c.test_column)}) against {esc(thousands(c.corpus.documents))} "
            f"documents ({esc(thousands(c.corpus.tokens))} tokens) in "
            f"{esc(thousands(c.corpus.files))} corpus file(s). {esc(_definition_text(p))}</p>",
            cards(
                [
                    card_html(f"{SUBSET_NAMES[s]} items", c.buckets[s], _subset_tip(s, p), digits=0)
                    for s in SUBSET_NAMES
                ]
                + [
                    card_html(
                        "mean overlap", m.get("mean_overlap"), "Mean overlap share of the items"
                    ),
                    card_html(
                        "contaminated rate",
                        m.get("contaminated_rate"),
                        "Share of items with any overlap, exact, normalised or near match",
                    ),
                ]
            ),
            "<h3>Overlap shares</h3>",
            figure(
                hbars(
                    [
                        (label, count, f"{label}: {count} items")
                        for label, count in _bins(c.histogram)
                    ],
                    label="overlap histogram",
                    vmax=max([1, *c.histogram.counts]),
                    label_width=110,
                ),
                f"Items per overlap share ({p.overlap}); clean below {short(p.clean_below)}, "
                f"dirty from {short(p.dirty_from)}.",
            ),
        ]
        if c.scores is not ABSENT:
            parts.append(_html_scores(c.scores))
        parts.append(_html_items(c))
        return "".join(parts)

    def markdown(self, result: ContaminationResult) -> list[str]:
        """Render the settings, subsets, histogram, score table and top items."""
        c = result.contamination
        p = c.parameters
        out = [
            f"## {self.title}\n",
            f"{thousands(c.n_items)} items of {md_text(c.test)} (column "
            f"{md_text(c.test_column)}) against {thousands(c.corpus.documents)} documents "
            f"({thousands(c.corpus.tokens)} tokens) in {thousands(c.corpus.files)} corpus "
            f"file(s). {md_text(_definition_text(p))}\n",
            md_table(
                ["subset", "items", "share"],
                [
                    [SUBSET_NAMES[s], str(c.buckets[s]), pct(_share(c.buckets[s], c.n_items), 1)]
                    for s in SUBSET_NAMES
                ],
                right=(1, 2),
            ),
            "### Overlap shares\n",
            md_table(
                ["overlap", "items"],
                [[label, str(count)] for label, count in _bins(c.histogram)],
                right=(1,),
            ),
        ]
        if c.scores is not ABSENT:
            s = c.scores
            out.append("### Scores on the clean and dirty subsets\n")
            out.append(
                md_table(
                    [
                        "model",
                        "all",
                        "clean",
                        "dirty",
                        "clean − dirty",
                        f"{pct(s.confidence)} interval",
                        "Z dirty",
                        "rank all",
                        "rank clean",
                        "rank dirty",
                    ],
                    [
                        [
                            md_text(r.model),
                            md_num(r.score, 3),
                            md_num(r.subsets["clean"].score, 3),
                            md_num(r.subsets["dirty"].score, 3),
                            md_num(r.clean_minus_dirty, 3),
                            _interval(r.interval),
                            md_num(r.subsets["dirty"].z, 2),
                            num(r.rank.all),
                            num(r.rank.clean),
                            num(r.rank.dirty),
                        ]
                        for r in s.models
                    ],
                    right=range(1, 10),
                )
            )
            out.append(_ranking_note(s) + "\n")
        out.append("### Most contaminated items\n")
        if c.top_items:
            out.append(
                md_table(
                    ["id", "tokens", "overlap", "bucket", "exact", "spans", "first match"],
                    [
                        [
                            md_text(i.id, limit=60),
                            str(i.n_tokens),
                            md_num(i.overlap, 3),
                            md_text(i.bucket),
                            str(i.exact_matches),
                            str(i.n_matches),
                            md_text(_first_match(i), limit=80),
                        ]
                        for i in c.top_items
                    ],
                    right=(1, 2, 4, 5),
                )
            )
            out.append(_items_note(c) + "\n")
        else:
            out.append("No item overlaps the corpus.\n")
        return out

    def terminal(self, result: ContaminationResult) -> list[Any]:
        """Render what ``benchcheck leakage`` prints, the five most contaminated items."""
        from benchcheck.report.terminal.scale import contamination_lines

        return [
            "[bold]contamination[/]",
            *contamination_lines(result.to_json()["contamination"], show=5),
        ]

    def notes(self, result: ContaminationResult) -> list[str]:
        """Say how many items were too short to show any overlap."""
        c = result.contamination
        if not c.n_short_items:
            return []
        p = c.parameters
        need = p.min_length if p.overlap == "tokens" else p.n
        return [
            f"contamination: {c.n_short_items} items have fewer than {need} tokens and can "
            "show no overlap (their overlap is 0)"
        ]


def _share(k: int, n: int) -> float | None:
    return k / n if n else None


def _definition_text(p: Parameters) -> str:
    what = (
        f"tokens inside matched spans of {p.min_length}+ tokens ({p.n}-gram anchors, up to "
        f"{p.skip} mismatches)"
        if p.overlap == "tokens"
        else f"{p.n}-grams found in the corpus"
    )
    return (
        f"Definition {p.definition}: an item's overlap is the share of its {what}; clean "
        f"below {short(p.clean_below)}, dirty from {short(p.dirty_from)}. Text normalised: "
        f"{p.normalisation}."
    )


def _subset_tip(subset: str, p: Parameters) -> str:
    rule = {
        "clean": f"overlap < {short(p.clean_below)}",
        "not_clean": f"overlap ≥ {short(p.clean_below)}",
        "not_dirty": f"overlap < {short(p.dirty_from)}",
        "dirty": f"overlap ≥ {short(p.dirty_from)}",
    }[subset]
    if subset == "clean" and p.clean_below == 0:
        rule = "no overlap at all"
    if subset == "dirty" and p.dirty_from == 0:
        rule = "any overlap"
    return f"Items with {rule} (Llama 2's subsets overlap)"


def _bins(h: Histogram) -> list[tuple[str, int]]:
    last = len(h.counts) - 1
    return [
        (
            f"[{short(h.edges[k])}, {short(h.edges[k + 1])}{']' if k == last else ')'}",
            h.counts[k],
        )
        for k in range(len(h.counts))
    ]


def _interval(interval: tuple[float, float] | None) -> str:
    return "—" if interval is None else f"[{num(interval[0])}, {num(interval[1])}]"


def _ranking_note(s: Scores) -> str:
    if s.ranking_changes:
        return "The ranking on the clean subset differs from the ranking on all items."
    return "The ranking on the clean subset is the ranking on all items."


def _first_match(i: ItemRow) -> str:
    if not i.matches:
        return "—"
    m = i.matches[0]
    where = f"{m.file} row {m.row}"
    if m.id is not ABSENT:
        where += f" (id {m.id})"
    return f"{where}, tokens {m.offset}–{m.offset + m.length}"


def _items_note(c: Contamination) -> str:
    shown = len(c.top_items)
    if shown < c.n_contaminated:
        return (
            f"The {shown} most contaminated of {c.n_contaminated} contaminated items "
            "(benchcheck leakage --json lists them all)."
        )
    return f"All {c.n_contaminated} contaminated items."


def _html_scores(s: Scores) -> str:
    level = pct(s.confidence)
    rows = []
    for r in s.models:
        clean, dirty = r.subsets["clean"], r.subsets["dirty"]
        rows.append(
            f"<tr><td>{show_text(r.model)}</td>"
            + num_cell(r.score, f"{r.model}: score on all items")
            + num_cell(clean.score, f"{r.model}: score on the {clean.n} clean items")
            + num_cell(dirty.score, f"{r.model}: score on the {dirty.n} dirty items")
            + num_cell(r.clean_minus_dirty, f"{r.model}: clean − dirty")
            + f'<td class="n">{esc(_interval(r.interval))}</td>'
            + num_cell(dirty.z, f"{r.model}: Llama 2's Z on the dirty subset", 2)
            + num_cell(r.rank.all, f"{r.model}: rank on all items", 0)
            + num_cell(r.rank.clean, f"{r.model}: rank on the clean subset", 0)
            + num_cell(r.rank.dirty, f"{r.model}: rank on the dirty subset", 0)
            + "</tr>"
        )
    return (
        "<h3>Scores on the clean and dirty subsets</h3>"
        '<div class="tablewrap"><table id="contamination-scores" class="sortable"><thead><tr>'
        '<th>model</th><th class="n">all</th><th class="n">clean</th><th class="n">dirty</th>'
        f'<th class="n">clean − dirty</th><th class="n">{esc(level)} interval</th>'
        '<th class="n">Z dirty</th><th class="n">rank all</th><th class="n">rank clean</th>'
        f'<th class="n">rank dirty</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f'</div><p class="sub">{esc(_ranking_note(s))} Interval: seeded percentile bootstrap '
        f"(seed {esc(num(s.seed))}, {esc(thousands(s.resamples))} resamples), the two subsets "
        "resampled independently.</p>"
    )


def _html_items(c: Contamination) -> str:
    if not c.top_items:
        return "<h3>Most contaminated items</h3><p>No item overlaps the corpus.</p>"
    rows = "".join(
        f"<tr><td>{show_text(i.id)}</td>"
        + num_cell(i.n_tokens, "tokens", 0)
        + num_cell(i.overlap, "overlap share")
        + f"<td>{esc(i.bucket)}</td>"
        + num_cell(i.exact_matches, "exact matches of the whole item", 0)
        + num_cell(i.normalised_matches, "normalised matches of the whole item", 0)
        + num_cell(i.n_matches, "matched spans", 0)
        + f"<td>{show_text(_first_match(i))}</td></tr>"
        for i in c.top_items
    )
    return (
        "<h3>Most contaminated items</h3>"
        '<div class="tablewrap"><table id="contamination-items" class="sortable"><thead><tr>'
        '<th>id</th><th class="n">tokens</th><th class="n">overlap</th><th>bucket</th>'
        '<th class="n">exact</th><th class="n">normalised</th><th class="n">spans</th>'
        f"<th>first match</th></tr></thead><tbody>{rows}</tbody></table></div>"
        f'<p class="sub">{esc(_items_note(c))}</p>'
    )
