r"""Out-of-fold CRF tagger: token marginals for every sentence from a model that never saw it.

The sentences of one NER split are dealt into ``k`` folds (seeded; the sentences holding
entities are dealt apart from the others, so every fold has its share of them). For each fold
a linear-chain CRF (CRFsuite through ``sklearn-crfsuite``, trained by SGD with an L2
penalty, :class:`TaggerOptions`) is trained on the other ``k - 1`` folds and predicts the held-out
fold: per token the marginal probability of each BIO label (forward-backward) and the Viterbi
labelling. This is the out-of-sample ``pred_probs`` that confident learning needs
(Northcutt et al. 2021; cleanlab's ``token_classification``).

``entity_disjoint`` applies CrossWeigh's filter (Wang et al. 2019, "CrossWeigh: Training
Named Entity Tagger from Imperfect Annotations", §3.1): a fold's training set drops every
sentence that mentions an entity surface of the held-out fold, so that the tagger cannot
have memorised the (possibly wrong) label of a held-out mention. Where the filter leaves a
fold no training sentence with an entity (a small corpus whose entities all recur), that
fold trains on all the other folds, and :attr:`OofTagging.plain_fits` counts it.

**Two views** (``crossweigh``, issue 36). Beside the k-fold run (the *plain view*), the
k-fold is run ``crossweigh`` more times with the entity-disjoint filter over seeded fold
assignments (seeds ``seed … seed + crossweigh − 1``; CrossWeigh's repetition, §3.2), and
their marginals are averaged (the *entity-disjoint view*). Each token then takes the
marginals of the view that gives its gold label the smaller probability:

.. math:: p_t = \begin{cases} p^{\text{plain}}_t & p^{\text{plain}}_t(g_t) \le
          \bar p^{\text{disjoint}}_t(g_t) \\ \bar p^{\text{disjoint}}_t & \text{otherwise}
          \end{cases}

and its label is their arg-max (with ``crossweigh = 0``, the plain view's Viterbi label). So
``1 − min_t p_t(g_t)`` over a region (the detector's ``crf_score``) is the larger of the
two views' scores: the plain view finds an isolated slip against the many correct
occurrences it memorised; the entity-disjoint view, which cannot memorise, finds a surface
annotated wrongly wherever it recurs, as the real CoNLL-2003 errors often are. Measured on
the real CoNLL-2003 train/dev corrections (benchmarks/ner_real_candidates.py, sentence AP of
the whole detector): plain view 0.199; entity-disjoint view alone 0.229 (one run), 0.242
(three), but on planted errors it fell from 0.69 to 0.45 (MSRA test) and 0.59 to 0.47
(Japanese); both views, per token the less supporting: 0.237 (one entity-disjoint run),
0.244 (two), 0.247 (three); the two views' marginals averaged instead: 0.217 / 0.220 (one /
three). **Not the default** (``crossweigh = 0``): on planted errors (benchmarks/
ner_detect_bench.py, same draws) both views with one entity-disjoint run lowered the
detector's sentence AP from 0.684 to 0.503 (MSRA test) and from 0.581 to 0.496 (Japanese):
where an entity-disjoint fold loses most of its training sentences (characters of
recurring names in Chinese), its weak marginals dispute correct labels, and the per-token
minimum lets them outrank the plain view's evidence. The second view is for corpora whose
errors recur with their surface, as CoNLL-2003's do. CrossWeigh's own score, the share of
runs whose prediction disputes the gold, is kept per token (:attr:`OofTagging.disputes`).

Features are the standard CRF NER set (Lafferty et al. 2001; Ratinov & Roth 2009): the
lowercased token, its prefixes and suffixes up to 3 characters, its word shape, case and digit
flags, and the tokens and shapes at offsets -2 … +2 with the bigrams around the token. For
no-space scripts (CJK one character per token) the same window gives character unigrams and
bigrams, the usual character-tagger features (Peng et al. 2004). CRFsuite's trainers start
from zero weights and visit the sentences in a fixed order: training is deterministic and the
only random draw is the fold assignment (``seed``).

Written here (not in a library): the feature template, the fold dealing and the CrossWeigh
filter; CRFsuite does the training and inference.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck._progress import Progress, count
from benchcheck.errors import InputError, UsageError, require

__all__ = [
    "OUTSIDE",
    "OofTagging",
    "TaggerOptions",
    "bio_labels",
    "bio_spans",
    "deal_folds",
    "disjoint_training",
    "oof_tagging",
    "token_features",
    "word_shape",
]

OUTSIDE = "O"
#: Below this many tokens the folds train in this process: starting workers costs more.
PARALLEL_TOKENS = 100_000


@dataclass(frozen=True)
class TaggerOptions:
    """The out-of-fold tagger's settings (defaults measured in benchmarks/ner_detect_bench.py).

    ``algorithm``: CRFsuite's trainer; the default ``l2sgd`` (SGD with L2 penalty ``c2``)
    reached token F1 0.70 on 8k MSRA sentences in 10 epochs (12 s) where L-BFGS reached 0.39
    in 40 iterations (39 s). ``c1``/``c2``: L1/L2 penalties (``c1`` only with ``lbfgs``);
    ``max_iterations``: epochs (``l2sgd``) or iterations (``lbfgs``) per fold (30: mean AP
    on planted MSRA-test errors 0.58, against 0.54 with 15 epochs; time grows with epochs);
    ``min_freq``: features seen fewer times are dropped; ``n_jobs``: folds trained at once.

    ``entity_disjoint``: the plain view's folds filtered too; ``crossweigh``: the
    entity-disjoint runs of the second view (module docstring; 0: the plain view only).
    An entity-disjoint fold trains on fewer sentences: a run costs about a third of a plain
    one on CoNLL-2003 (≈ 28 s against ≈ 90 s, 2 cores).
    """

    folds: int = 5
    seed: int = 0
    entity_disjoint: bool = False
    crossweigh: int = 0
    algorithm: str = "l2sgd"
    c1: float | None = None
    c2: float = 1.0
    max_iterations: int = 30
    min_freq: int = 1
    n_jobs: int = 2


@dataclass(frozen=True)
class OofTagging:
    """Held-out predictions for every sentence.

    ``classes``: the BIO labels (``O`` first); ``marginals[s]``: a ``(len(s), len(classes))``
    array of marginal probabilities (per token the less supporting view's, module
    docstring); ``predicted[s]``: the labels (the plain Viterbi labels without a second
    view, else the marginals' arg-max); ``fold[s]``: the fold that held sentence ``s`` out of
    the plain view; ``disputes[s]``: per token, the runs (of ``runs``: the plain one and
    the entity-disjoint ones) whose Viterbi label is not the gold label; ``plain_fits``:
    entity-disjoint fits that fell back to the plain training set (module docstring).
    """

    classes: tuple[str, ...]
    marginals: tuple[np.ndarray, ...]
    predicted: tuple[tuple[str, ...], ...]
    fold: np.ndarray
    disputes: tuple[np.ndarray, ...] = ()
    runs: int = 1
    plain_fits: int = 0


def word_shape(word: str) -> str:
    """Collapsed word shape: ``X`` upper, ``x`` lower, ``d`` digit, ``C`` CJK/kana, else itself.

    >>> word_shape("McDonald's"), word_shape("2019"), word_shape("北京")
    ("XxXx'x", 'd', 'C')
    """
    out: list[str] = []
    for ch in word:
        if ch.isupper():
            c = "X"
        elif ch.islower():
            c = "x"
        elif ch.isdigit():
            c = "d"
        elif ch.isalpha():
            c = "C"  # letters without case: CJK, kana, Thai, ...
        else:
            c = ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def token_features(words: Sequence[str]) -> list[list[str]]:
    """CRF features of each token of one sentence (see the module docstring).

    >>> token_features(["New", "York"])[1][:6]
    ['b', 'w=york', 'sh=Xx', 'ti', 'p1=Y', 'p2=Yo']
    """
    low = [w.lower() for w in words]
    shapes = [word_shape(w) for w in words]
    n = len(words)
    out: list[list[str]] = []
    for i, w in enumerate(words):
        f = ["b", "w=" + low[i], "sh=" + shapes[i]]
        if w.istitle():
            f.append("ti")
        if w.isupper():
            f.append("up")
        if any(c.isdigit() for c in w):
            f.append("dg")
        if len(w) > 1:
            f += ["p1=" + w[:1], "p2=" + w[:2], "p3=" + w[:3]]
            f += ["s1=" + w[-1:], "s2=" + w[-2:], "s3=" + w[-3:]]
        for off in (-2, -1, 1, 2):
            j = i + off
            if 0 <= j < n:
                f.append(f"{off}w={low[j]}")
                f.append(f"{off}sh={shapes[j]}")
            elif off in (-1, 1):
                f.append("BOS" if off < 0 else "EOS")
        if i > 0:
            f.append(f"-1w|w={low[i - 1]}|{low[i]}")
        if i + 1 < n:
            f.append(f"w|+1w={low[i]}|{low[i + 1]}")
        if 0 < i < n - 1:
            f.append(f"-1w|+1w={low[i - 1]}|{low[i + 1]}")
        out.append(f)
    return out


def bio_labels(
    lengths: Sequence[int],
    sentence: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    types: Sequence[str],
) -> list[list[str]]:
    """IOB2 labels of every sentence from a span table (spans must not overlap).

    >>> bio_labels([3], np.array([0]), np.array([1]), np.array([3]), ["LOC"])
    [['O', 'B-LOC', 'I-LOC']]
    """
    out = [[OUTSIDE] * int(n) for n in lengths]
    for s, a, b, t in zip(sentence.tolist(), start.tolist(), end.tolist(), types, strict=True):
        row = out[s]
        if b > len(row):
            raise InputError(
                f"a span of sentence {s} ends at token {b}, after the sentence's {len(row)} tokens"
            )
        row[a] = "B-" + t
        for k in range(a + 1, b):
            row[k] = "I-" + t
    return out


def bio_spans(labels: Sequence[str]) -> list[tuple[int, int, str]]:
    """Spans ``(start, end exclusive, type)`` of an IOB2 labelling; a stray ``I-`` starts one.

    >>> bio_spans(["B-PER", "I-PER", "O", "I-LOC", "B-LOC"])
    [(0, 2, 'PER'), (3, 4, 'LOC'), (4, 5, 'LOC')]
    """
    spans: list[tuple[int, int, str]] = []
    cur: str | None = None
    begin = 0
    for i, lab in enumerate(labels):
        kind, _, typ = lab.partition("-")
        if kind == "I" and cur == typ:
            continue
        if cur is not None:
            spans.append((begin, i, cur))
            cur = None
        if kind in ("B", "I"):
            cur, begin = typ, i
    if cur is not None:
        spans.append((begin, len(labels), cur))
    return spans


def deal_folds(has_entity: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """Fold of each sentence: a seeded shuffle, dealt round-robin, entity sentences apart.

    Every fold gets ``⌊m/k⌋`` or ``⌈m/k⌉`` of the ``m`` sentences holding an entity, and
    likewise of the others.

    >>> deal_folds(np.array([True, True, False, False]), 2, 0).tolist()
    [0, 1, 0, 1]
    """
    rng = np.random.default_rng(seed)
    fold = np.empty(has_entity.size, dtype=np.int64)
    for group in (np.flatnonzero(has_entity), np.flatnonzero(~has_entity)):
        order = rng.permutation(group)
        fold[order] = np.arange(order.size) % folds
    return fold


def disjoint_training(fold: np.ndarray, surfaces: Sequence[frozenset[str]], k: int) -> np.ndarray:
    """CrossWeigh's filter: training sentences of fold ``k`` sharing no entity surface with it.

    >>> s = [frozenset({"Paris"}), frozenset({"Paris"}), frozenset(), frozenset({"Rome"})]
    >>> disjoint_training(np.array([0, 1, 1, 1]), s, 0).tolist()
    [2, 3]
    """
    held = set().union(*(surfaces[i] for i in np.flatnonzero(fold == k).tolist()))
    return np.array(
        [i for i in np.flatnonzero(fold != k).tolist() if not (surfaces[i] & held)], dtype=np.int64
    )


def _train_predict(
    words: Sequence[Sequence[str]],
    labels: Sequence[list[str]],
    test_words: Sequence[Sequence[str]],
    opts: TaggerOptions,
    seed: int,
    fold: int = 0,
    ticks: Any = None,
) -> tuple[list[str], list[list[dict[str, float]]], list[list[str]]]:
    """Train one fold's CRF and predict its held-out sentences (marginals and Viterbi).

    Features are made here, in the worker: words travel to a process more cheaply than
    feature strings. ``ticks`` (a callable, or a queue shared with the parent process) is
    given ``(fold, iteration)`` after each of CRFsuite's iterations (its trainer's
    ``on_iteration`` hook).
    """
    crfsuite = require("sklearn_crfsuite", "ner")
    from sklearn_crfsuite.trainer import LinePerIterationTrainer

    tell = getattr(ticks, "put", ticks)

    class Ticking(LinePerIterationTrainer):  # type: ignore[misc]
        """CRFsuite's trainer, telling each iteration's number (printing nothing).

        pycrfsuite's ``Trainer.message`` calls ``on_iteration`` only when verbose, which
        would print every hook: the log parser is read here instead.
        """

        def message(self, message: str) -> None:
            event = self.logparser.feed(message)
            if event == "iteration" and tell is not None:
                tell((fold, int(self.logparser.last_iteration["num"])))

    # CRFsuite's SGD shuffles the sentences with the C library's rand(): seed it here, in
    # the process that trains, so that a fold trains alike in any worker and any order.
    try:
        ctypes.CDLL(None).srand(ctypes.c_uint(seed))
    except (OSError, TypeError, AttributeError):  # no C library by that name (Windows)
        pass
    crf = crfsuite.CRF(
        algorithm=opts.algorithm,
        c1=opts.c1,
        c2=opts.c2,
        max_iterations=opts.max_iterations,
        min_freq=opts.min_freq,
        all_possible_transitions=True,
        trainer_cls=Ticking,
    )
    crf.fit([token_features(w) for w in words], labels)
    x_test = [token_features(w) for w in test_words]
    return list(crf.classes_), crf.predict_marginals(x_test), crf.predict(x_test)


class _IterationCount:
    """Count CRFsuite's iterations over the folds for ``progress``: (done, folds × most).

    In process the folds tell :meth:`tick` directly; from worker processes they put
    ``(fold, iteration)`` on a manager's queue, which a thread here reads. Every count goes
    through one lock, in order; a finished fold counts ``most`` iterations.
    """

    def __init__(self, progress: Progress | None, folds: int, most: int, processes: bool):
        import threading

        self.progress, self.total, self.most = progress, folds * most, most
        self.done = [0] * folds
        self.lock = threading.Lock()
        self.processes = processes and progress is not None
        self.sink: Any = None if progress is None else self.tick
        self.manager: Any = None
        self.reader: threading.Thread | None = None

    def __enter__(self) -> _IterationCount:
        count(self.progress, 0, self.total)
        if self.processes:
            import multiprocessing
            import threading

            # spawn, not fork: this process has threads (the progress bar's, polars'), and a
            # child forked while another thread holds a lock can hang on it forever
            self.manager = multiprocessing.get_context("spawn").Manager()
            self.sink = self.manager.Queue()
            self.reader = threading.Thread(target=self._read, daemon=True)
            self.reader.start()
        return self

    def _read(self) -> None:
        while (item := self.sink.get()) is not None:
            self.tick(item)

    def tick(self, item: tuple[int, int]) -> None:
        """Fold ``item[0]`` finished its iteration ``item[1]``."""
        fold, iteration = item
        with self.lock:
            if iteration <= self.done[fold]:
                return
            self.done[fold] = min(iteration, self.most)
            count(self.progress, sum(self.done), self.total)

    def finished(self, fold: int) -> None:
        """Fold ``fold`` is trained: it counts whole (SGD may stop before ``most``)."""
        if self.progress is not None:
            self.tick((fold, self.most))

    def __exit__(self, *exc: object) -> None:
        if self.reader is not None:
            self.sink.put(None)
            self.reader.join()
        if self.manager is not None:
            self.manager.shutdown()


def oof_tagging(
    words: Sequence[Sequence[str]],
    labels: Sequence[list[str]],
    surfaces: Sequence[frozenset[str]],
    opts: TaggerOptions,
    progress: Progress | None = None,
) -> OofTagging:
    """Out-of-fold marginals and Viterbi labels of every sentence (see the module docstring).

    ``progress`` is called with (iterations done, runs × folds × ``max_iterations``; runs:
    ``1 + crossweigh``) after each
    of CRFsuite's iterations in any fold (a fold that converges early counts whole when
    it ends), so that a long fold is not silent; in worker processes the iterations come
    back through a queue.

    ``labels`` are IOB2 labels per sentence; ``surfaces`` the entity surfaces of each
    sentence (used by ``entity_disjoint``). Needs at least ``folds`` sentences holding an
    entity (else :class:`UsageError` naming ``{folds}``), so that every training set has one.
    """
    joblib = require("joblib", "ner")
    n_entity = sum(1 for s in surfaces if s)
    if opts.folds < 2:
        raise UsageError(f"{{folds}} must be at least 2, got {opts.folds}")
    if n_entity < opts.folds:
        raise UsageError(
            f"the tagger detector needs at least {opts.folds} sentences with entities for "
            f"{{folds}} {opts.folds} (one per fold); the data has {n_entity}"
        )
    has_entity = np.array([bool(s) for s in surfaces], dtype=bool)
    n_runs = 1 + max(0, opts.crossweigh)
    # run 0: the plain view (its folds filtered only with entity_disjoint); runs 1 ...: the
    # entity-disjoint view, seeds seed ... seed + crossweigh - 1
    folds_of = [
        deal_folds(has_entity, opts.folds, opts.seed + max(0, r - 1)) for r in range(n_runs)
    ]
    jobs = []  # (run, fold, train, test)
    plain_fits = 0
    for r, fold in enumerate(folds_of):
        for k in range(opts.folds):
            test = np.flatnonzero(fold == k)
            train = np.flatnonzero(fold != k)
            if r > 0 or opts.entity_disjoint:
                disjoint = disjoint_training(fold, surfaces, k)
                if has_entity[disjoint].any():
                    train = disjoint
                else:
                    plain_fits += 1
            jobs.append((r, k, train, test))
    # CRFsuite holds the GIL while it trains: folds run in processes (or here, n_jobs=1).
    n_tokens = sum(len(w) for w in words)
    n_jobs = min(opts.n_jobs, len(jobs)) if n_tokens >= PARALLEL_TOKENS else 1
    with _IterationCount(progress, len(jobs), opts.max_iterations, n_jobs > 1) as ticks:
        tasks = (
            (
                [words[i] for i in tr.tolist()],
                [labels[i] for i in tr.tolist()],
                [words[i] for i in te.tolist()],
                opts,
                ((opts.seed + max(0, r - 1)) * 1_000 + k) % 2**32,
                j,
                ticks.sink,
            )
            for j, (r, k, tr, te) in enumerate(jobs)
        )
        if n_jobs == 1:
            done = (_train_predict(*task) for task in tasks)
        else:  # (in order, as they finish: the count moves while the others train)
            parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
            done = parallel(joblib.delayed(_train_predict)(*t) for t in tasks)
        runs: list[tuple[list[str], list[list[dict[str, float]]], list[list[str]]]] = []
        for run in done:
            ticks.finished(len(runs))
            runs.append(run)
    classes = sorted(
        {c for run in runs for c in run[0]} | {c for row in labels for c in row} | {OUTSIDE}
    )
    classes.remove(OUTSIDE)
    ordered = (OUTSIDE, *classes)
    col = {c: j for j, c in enumerate(ordered)}
    views = [[np.zeros((len(w), len(ordered)), dtype=np.float64) for w in words] for _ in "pd"]
    disputes = [np.zeros(len(w), dtype=np.int64) for w in words]
    viterbi: list[tuple[str, ...]] = [() for _ in words]
    for (r, _, _, test), (_, marg, pred) in zip(jobs, runs, strict=True):
        for i, m, p in zip(test.tolist(), marg, pred, strict=True):
            arr = views[min(r, 1)][i]
            for t, probs in enumerate(m):
                for lab, pr in probs.items():
                    arr[t, col[lab]] += pr
            disputes[i] += np.fromiter(
                (a != b for a, b in zip(p, labels[i], strict=True)), dtype=bool, count=len(p)
            )
            if r == 0:
                viterbi[i] = tuple(p)
    if n_runs == 1:
        marginals, predicted = views[0], tuple(viterbi)
    else:
        marginals = []
        for i, (plain, disjoint) in enumerate(zip(*views, strict=True)):
            disjoint /= n_runs - 1
            gold = np.array([col[g] for g in labels[i]], dtype=np.int64)
            rows = np.arange(gold.size)
            less = disjoint[rows, gold] < plain[rows, gold]
            marginals.append(np.where(less[:, None], disjoint, plain))
        predicted = tuple(tuple(ordered[j] for j in m.argmax(axis=1)) for m in marginals)
    return OofTagging(
        classes=ordered,
        marginals=tuple(marginals),
        predicted=predicted,
        fold=folds_of[0],
        disputes=tuple(disputes),
        runs=n_runs,
        plain_fits=plain_fits,
    )
