"""Every command line of README.md and docs/*.md runs as written (issue 33, item 3; ``slow``).

Each shell block of the documents is a journey: its ``benchcheck`` lines run in order, as
written (``\\`` continuations joined, ``$VAR`` set by the block's ``VAR=…`` lines, its ``cp``
lines done), in a fresh folder of their own, through the real command line (in process:
``benchcheck.cli.main``), and each must exit 0. Before a block runs, its folder holds the
files its lines name and no earlier line of the block writes — tiny data made from the
bundled samples (:mod:`benchcheck.sample_data`) or generated here (:data:`SETUP`). Where a
person acts between two lines (experts fill their sheets, a reviewer exports Label Studio
JSON, crowd workers label), a stand-in writes what they would (:data:`BEFORE`). Where a
line calls a model — the embedded judge, ``openai:`` on a server, ``transformers:``,
``nli:``, ``llama-cpp:`` — the stand-in judge of tests/cli/test_journeys.py answers for it
(no network, no download; the embedded judge takes minutes): the line's options, files and
everything after the judge run for real, the backends themselves are tested in
tests/judges (the OpenAI client against a loopback server). A block's files that an
earlier block would have written (``data.parquet/`` for the Ray block) are made by running
that block's line in the setup. What no test can have is in :data:`PARSE_ONLY`, with the
reason; those lines are still parsed by ``tests/docs/test_doc_commands.py`` (the default
suite). Blocks indented under a list item run too (the blocks are read by
tests/docs/_doc_blocks.py, shared with the parse test), and a console transcript
(``$ benchcheck …`` and what it printed) must print the same numbers, in the same order, in a
terminal as wide as the paragraph before it says.

Minutes: runs only with BENCHCHECK_DOCS=1 (``.ci/run`` sets it).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _doc_blocks import ROOT, Block, doc_blocks  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "cli"))
sys.path.insert(0, str(ROOT / "tests" / "labels"))
sys.path.insert(0, str(ROOT / "tests" / "judges"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("BENCHCHECK_DOCS") != "1",
        reason="runs every documented command (minutes): BENCHCHECK_DOCS=1",
    ),
]

#: Lines that cannot run here, each with its reason ("document: command" prefix → reason).
PARSE_ONLY: dict[str, str] = {
    "judge data.jsonl --text-a premise --text-b hypothesis --engine ray --actors 2": "Ray's "
    "judge actors are processes of their own: the stand-in judge does not reach them, and "
    "the embedded judge they would load takes minutes",
    "stats data.parquet/ --engine ray --address auto": "joins a running Ray cluster "
    "(tests/engine/test_ray_cluster.py starts one; too slow for this suite)",
    "leakage --test test.jsonl --corpus /shared/corpus/ --engine ray --address auto": "joins "
    "a running Ray cluster over a shared file system",
}


# --------------------------------------------------------------------------- extraction


BLOCKS = doc_blocks()


# --------------------------------------------------------------------------- stand-ins


def _sample(name: str) -> Path:
    from benchcheck import sample_data

    return Path(sample_data.__file__).parent / name


def _ner_files(folder: Path, names: tuple[str, str, str]) -> None:
    """The NER sample's train, dev and test files under ``names`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for ours, theirs in zip(("train", "dev", "test"), names, strict=True):
        shutil.copy(_sample("ner") / f"{ours}.txt", folder / theirs)


#: The pair sample's planted wrong labels (src/benchcheck/sample_data/pair/README.md).
PLANTED = {"p08": "0", "p10": "1", "p18": "0"}


def _pair_rows() -> list[dict]:
    return [
        json.loads(line)
        for line in (_sample("pair") / "sample.jsonl").read_text(encoding="utf-8").splitlines()
    ]


def _pairs(path: Path, **columns: str) -> dict[str, str]:
    """The pair sample with its text columns also under other names; returns text → truth."""
    rows = _pair_rows()
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            extra = {new: r[old] for new, old in columns.items()}
            fh.write(json.dumps({**r, **extra}) + "\n")
    return {r["generated_text"]: PLANTED.get(r["id"], str(r["label"])) for r in rows}


def _synthetic_pairs(path: Path, n: int, a: str, b: str) -> dict[str, str]:
    """``n`` pairs with 5 % planted flips (the README test's case); returns text → truth."""
    from _labels_synth import make_case

    data, _, truth, _ = make_case(n, flip_rate=0.05, seed=7)
    data = data.rename({"text_a": a, "text_b": b})
    data.write_ndjson(path)
    return {t: str(v) for t, v in zip(data[b], truth, strict=True)}


class Ctx:
    """A block's folder, the stand-in judge's truth and what the stand-ins share."""

    def __init__(self, folder: Path, truth: dict[str, str]) -> None:
        self.folder = folder
        self.truth = truth  # the stand-in judge's: each text_b → its right label
        self.env: dict[str, str] = {}
        self.pending: list[str] = []  # commands a setup needs run with the stand-in judge
        self.after: Callable[[], None] | None = None  # then this


def _fill_expert_sheets(ctx: Ctx) -> None:
    """Two experts answer the truth (the second errs on every tenth); a reconciled file."""
    key = pl.read_ndjson("review/key.jsonl").filter(pl.col("review_id").is_not_null())
    data = {r["id"]: r for r in _read_jsonl(_data_file(ctx))}
    text_b = ctx.env["text_b"]
    answer = {
        rid: ctx.truth[str(data[i][text_b])]
        for rid, i in zip(key["review_id"], key["id"], strict=True)
    }
    for name, slip in (("expert_a", 0), ("expert_b", 10)):
        sheet = pl.read_csv(f"review/{name}.csv", infer_schema=False)
        labels = [
            answer[r] if not slip or k % slip else str(1 - int(answer[r]))
            for k, r in enumerate(sheet["review_id"])
        ]
        sheet.with_columns(pl.Series("label", labels)).write_csv(f"review/{name}.csv")
    pl.DataFrame({"review_id": list(answer), "label": list(answer.values())}).write_csv(
        "review/reconciled.csv"
    )


def _fill_mcq_sheets(ctx: Ctx) -> None:
    """Both experts answer C for the question every model answers C, A for the others."""
    key = pl.read_ndjson("review/key.jsonl").filter(pl.col("review_id").is_not_null())
    question = dict(zip(key["review_id"], key["id"], strict=True))
    for name in ("expert_a", "expert_b"):
        sheet = pl.read_csv(f"review/{name}.csv", infer_schema=False)
        labels = ["C" if question.get(r) == "q07" else "A" for r in sheet["review_id"]]
        sheet.with_columns(pl.Series("label", labels)).write_csv(f"review/{name}.csv")


def _fill_mcq_sample_sheet(ctx: Ctx) -> None:
    """The expert answers the sample's verdicts (its experts.csv, MMLU-Redux's annotation)."""
    import csv

    from benchcheck.sample_data import MCQ_EXPERTS

    with MCQ_EXPERTS.open(encoding="utf-8") as fh:
        verdict = {r["id"]: r["verdict"] for r in csv.DictReader(fh)}
    key = pl.read_ndjson("review/key.jsonl").filter(pl.col("review_id").is_not_null())
    question = dict(zip(key["review_id"], key["id"], strict=True))
    sheet = pl.read_csv("review/expert_a.csv", infer_schema=False)
    labels = [verdict[question[r]] for r in sheet["review_id"]]
    sheet.with_columns(pl.Series("label", labels)).write_csv("review/expert_a.csv")


def _data_file(ctx: Ctx) -> Path:
    return Path(ctx.env["data"])


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _label_studio_min(ctx: Ctx) -> None:
    """A reviewer keeps every pre-annotated span but retypes the first disputed one."""
    tasks = json.loads(Path("review/tasks.json").read_text(encoding="utf-8"))
    rows, changed = [], False
    for t in tasks:
        spans = [dict(r["value"]) for r in t["predictions"][0]["result"]]
        if not changed and spans:
            spans[0]["labels"] = ["ORG" if spans[0]["labels"][0] != "ORG" else "LOC"]
            changed = True
        d = t["data"]
        rows.append({**d, "id": t["id"], "label": spans, "annotator": 1, "annotation_id": t["id"]})
    Path("ls_min.json").write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")


def _label_studio_json(ctx: Ctx) -> None:
    """Label Studio's JSON export of the review package beside ``--key``: two reviewers.

    An item review (``review/``): both answer the truth, user 2 errs on every fifth task.
    A span review (``span_review/``): both keep every pre-annotated span.
    """
    folder = Path("span_review" if Path("span_review").exists() else "review")
    tasks = json.loads((folder / "tasks.json").read_text(encoding="utf-8"))
    key = {r["review_id"]: r for r in _read_jsonl(folder / "key.jsonl") if r.get("review_id")}
    data = (
        {} if folder.name == "span_review" else {r["id"]: r for r in _read_jsonl(_data_file(ctx))}
    )
    out = []
    for k, task in enumerate(tasks):
        results = []
        for user in (1, 2):
            if folder.name == "span_review":
                result = [dict(r) for r in task["predictions"][0]["result"]]
            else:
                right = ctx.truth[
                    str(data[key[task["data"]["review_id"]]["id"]][ctx.env["text_b"]])
                ]
                said = right if user == 1 or k % 5 else str(1 - int(right))
                value = {"choices": [said]}
                result = [
                    {"from_name": "label", "to_name": "text", "type": "choices", "value": value}
                ]
            results.append({"completed_by": user, "result": result, "was_cancelled": False})
        out.append({"id": k + 1, "data": task["data"], "annotations": results})
    Path("ls.json").write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")


def _annotate(ctx: Ctx) -> None:
    """Two annotators judge the sampled sentences (they disagree on every fifth)."""
    rows = _read_jsonl(Path("to_annotate.jsonl"))
    with open("annotated.jsonl", "w", encoding="utf-8") as fh:
        for k, row in enumerate(rows):
            judged = {"ann1": True, "ann2": k % 5 != 0}
            fh.write(json.dumps({**row, "annotations": judged}, ensure_ascii=False) + "\n")


def _crowd(ctx: Ctx) -> None:
    """Three crowd workers label the reviewed examples (long format; the third errs often)."""
    gold = _read_jsonl(Path("gold.jsonl"))
    with open("crowd.csv", "w", encoding="utf-8") as fh:
        fh.write("id,annotator,label\n")
        for k, row in enumerate(gold):
            right = str(row["gold"])
            for worker, slip in (("w1", 0), ("w2", 7), ("w3", 3)):
                label = right if not slip or k % slip else str(1 - int(right))
                fh.write(f"{row['id']},{worker},{label}\n")


def _model_scores(ctx: Ctx) -> None:
    """Two models' predictions on the data: one copies the labels, one predicts the truth."""
    text_b = ctx.env["text_b"]
    rows = _read_jsonl(_data_file(ctx))
    for name, pick in (("a", lambda r: str(r["label"])), ("b", lambda r: ctx.truth[r[text_b]])):
        with open(f"{name}.jsonl", "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({"id": r["id"], "pred": pick(r)}) + "\n")


#: Stand-ins that act between two lines: command → what runs just before it.
BEFORE: dict[str, Callable[[Ctx], None]] = {
    "review import review/expert_a.csv review/expert_b.csv --reconciled review/reconciled.csv "
    "-o gold.jsonl": _fill_expert_sheets,
    "review import review/expert_a.csv review/expert_b.csv -o gold.jsonl": _fill_mcq_sheets,
    "review import review/expert_a.csv -o gold.jsonl": _fill_mcq_sample_sheet,
    "accuracy annotated.jsonl": _annotate,
    "agreement --source 'original=gold.jsonl#label' --source 'llm=gold.jsonl#llm_label' "
    "--source gold=gold.jsonl --crowd crowd.csv": _crowd,
    "review import ls_min.json --key review/key.jsonl -o corrected.csv": _label_studio_min,
    "rerank --gold gold.jsonl --scores gpt4=a.jsonl --scores deberta=b.jsonl": _model_scores,
}


# --------------------------------------------------------------------------- setups


def _setup_stats(ctx: Ctx) -> None:
    _ner_files(Path("path/to/conll2003"), ("eng.train", "eng.testa", "eng.testb"))
    for name, ours in (("a.txt", "train"), ("b.txt", "dev"), ("c.txt", "test")):
        shutil.copy(_sample("ner") / f"{ours}.txt", name)
    # adjust's --size 1000 needs a test split of over 1,000 sentences: a generated corpus
    _synthetic_conll(Path("data"), {"train": 400, "dev": 100, "test": 1500})
    _ner_files(Path("data/conll"), ("train.txt", "dev.txt", "test.txt"))
    # WNUT-style: another corpus (the sample's tags, one entity type renamed)
    Path("data/wnut").mkdir(parents=True)
    for ours in ("train", "dev", "test"):
        text = (_sample("ner") / f"{ours}.txt").read_text(encoding="utf-8")
        Path(f"data/wnut/{ours}.txt").write_text(text.replace("-MISC", "-product"))
    # two taggers' predictions of the test split: the gold tags, one of them with errors
    test = Path("data/test.txt").read_text(encoding="utf-8").splitlines()
    Path("crf.txt").write_text("\n".join(_drop_every(test, 3)) + "\n")
    Path("bert.txt").write_text("\n".join(test) + "\n")
    _pairs(Path("pairs.jsonl"), premise="grounding", hypothesis="generated_text")


def _synthetic_conll(folder: Path, sizes: dict[str, int]) -> None:
    """A CoNLL corpus of generated sentences: entities drawn from pools that overlap between
    the splits (half of the test split's names are never seen in training)."""
    rng = np.random.default_rng(3)
    folder.mkdir(parents=True, exist_ok=True)
    shared = {t: [f"{t.title()}{k}" for k in range(40)] for t in ("per", "org", "loc")}
    words = ["the", "said", "on", "in", "visited", "met", "with", "from", "today", "again"]
    for split, n in sizes.items():
        own = {t: [f"{t.title()}{split}{k}" for k in range(200)] for t in shared}
        lines = ["-DOCSTART- -X- -X- O", ""]
        for _ in range(n):
            for _ in range(int(rng.integers(3, 9))):
                if rng.random() < 0.25:
                    t = str(rng.choice(list(shared)))
                    pool = shared[t] if split == "train" or rng.random() < 0.5 else own[t]
                    lines.append(f"{rng.choice(pool)} NNP B-NP B-{t.upper()}")
                else:
                    lines.append(f"{rng.choice(words)} NN I-NP O")
            lines.append("")
        (folder / f"{split}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _drop_every(lines: list[str], k: int) -> list[str]:
    """CoNLL lines with every ``k``-th entity tag turned to ``O`` (a weaker tagger)."""
    out, n = [], 0
    for line in lines:
        parts = line.split()
        if len(parts) >= 2 and parts[-1] != "O" and not line.startswith("-DOCSTART-"):
            n += 1
            if n % k == 0:
                line = " ".join([*parts[:-1], "O"])
        out.append(line)
    return out


def _setup_readme_labels(ctx: Ctx) -> None:
    # 300 pairs: enough for the README's --audit-sample 200
    ctx.truth.update(_synthetic_pairs(Path("data.jsonl"), 300, "grounding", "generated_text"))
    ctx.env.update(data="data.jsonl", text_b="generated_text")


def _setup_labels(ctx: Ctx) -> None:
    ctx.truth.update(_synthetic_pairs(Path("data.jsonl"), 300, "grounding", "generated"))
    ctx.env.update(data="data.jsonl", text_b="generated")
    shutil.copy("data.jsonl", "train.jsonl")
    shutil.copy(_sample("ner") / "test.txt", "test.conll")
    shutil.copy(_sample("ner") / "train.txt", "train.conll")
    # a tagger's predictions of test.conll: every third entity tag missed
    test = Path("test.conll").read_text(encoding="utf-8").splitlines()
    Path("pred.conll").write_text("\n".join(_drop_every(test, 3)) + "\n", encoding="utf-8")


def _setup_sample_tree(ctx: Ctx) -> None:
    """The bundled samples where a checkout has them (``src/benchcheck/sample_data``)."""
    sample = Path("src/benchcheck")
    sample.mkdir(parents=True)
    shutil.copytree(_sample("."), sample / "sample_data")
    shutil.copy(_sample("ner") / "train.txt", "train.txt")  # the console transcript's


def _setup_label_studio(ctx: Ctx) -> None:
    """docs/labels.md's Label Studio steps: the review package of step 1, then the export."""
    _setup_labels(ctx)
    ctx.pending += [
        "judge data.jsonl --text-a grounding --text-b generated --label label -o j.parquet",
        "flag j.parquet --data data.jsonl --min-error-score 0.5 -o flags.jsonl",
        "review export flags.jsonl --audit-sample 100 --seed 1 -o review/",  # step 1
    ]
    ctx.after = lambda: _label_studio_json(ctx)


def _setup_label_studio_spans(ctx: Ctx) -> None:
    """The NER span review's step 1 (the block above), then Label Studio's JSON export."""
    _setup_labels(ctx)
    ctx.pending += [
        "flag-spans test.conll --predictions pred.conll -o span_flags.jsonl",
        "review export span_flags.jsonl --ner test.conll --seed 1 -o span_review/",
    ]
    ctx.after = lambda: _label_studio_json(ctx)


def _setup_judges(ctx: Ctx) -> None:
    ctx.truth.update(
        _pairs(Path("data.jsonl"), premise="grounding", hypothesis="generated_text",
               a="grounding", b="generated_text")
    )  # fmt: skip


def _setup_diagnostics(ctx: Ctx) -> None:
    """The sample suite as JSONL and as a GLUE TSV, models' predictions, an NLI training set."""
    from benchcheck.diagnostics.taxonomy import GLUE_TAXONOMY as tax

    shutil.copy(_sample("diagnostic") / "suite.jsonl", "suite.jsonl")
    suite = _read_jsonl(Path("suite.jsonl"))
    head = [*tax.coarse_names, "Domain", "Premise", "Hypothesis", "Label"]
    rows, gold = [], []
    for r in suite:
        coarse: dict[str, list[str]] = {c: [] for c in tax.coarse_names}
        for tag in r["tags"]:
            if not tax.is_coarse(tag):
                coarse[tax.coarse_of(tag)].append(tag)
        sides = [(r["sentence1"], r["sentence2"], r["forward"])]
        if r.get("backward"):
            sides.append((r["sentence2"], r["sentence1"], r["backward"]))
        for premise, hypothesis, label in sides:
            cells = [";".join(coarse[c]) for c in tax.coarse_names]
            rows.append([*cells, r.get("domain", ""), premise, hypothesis, label])
            gold.append(label)
    Path("diagnostic-full.tsv").write_text(
        "\n".join("\t".join(row) for row in [head, *rows]) + "\n", encoding="utf-8"
    )
    other = {"entailment": "neutral", "neutral": "contradiction", "contradiction": "entailment"}
    bert = [g if k % 4 else other[g] for k, g in enumerate(gold)]
    Path("bert.tsv").write_text(
        "index\tprediction\n" + "".join(f"{k}\t{p}\n" for k, p in enumerate(bert))
    )
    with open("rob.jsonl", "w") as fh:
        for k, g in enumerate(gold):
            fh.write(json.dumps({"id": k, "prediction": g if k % 3 else other[g]}) + "\n")
    # an NLI training set whose hypotheses carry label cues (as SNLI's do)
    rng = np.random.default_rng(0)
    cue = {"entailment": "someone", "neutral": "tall", "contradiction": "nobody"}
    words = ["man", "woman", "dog", "street", "park", "ball", "runs", "sits", "reads", "eats"]

    def nli(n: int) -> list[dict]:
        out = []
        for _ in range(n):
            label = str(rng.choice(list(cue)))
            body = " ".join(rng.choice(words, 5))
            hyp = body + (f" {cue[label]}" if rng.random() < 0.7 else "")
            out.append({"premise": f"a {body} today", "hypothesis": hyp, "label": label})
        return out

    pl.DataFrame(nli(300)).write_ndjson("snli_train.jsonl")
    Path("data/nli").mkdir(parents=True)
    pl.DataFrame(nli(300)).write_ndjson("data/nli/train.jsonl")
    pl.DataFrame(nli(100)).write_ndjson("data/nli/test.jsonl")
    # three annotators of the suite (wide: one column each), the third careless
    ids = [f"{r['id']}:{d}" for r in suite for d in ("forward", "backward") if r.get(d)]
    labels = {f"{r['id']}:{d}": r[d] for r in suite for d in ("forward", "backward") if r.get(d)}
    ann = {
        "id": ids,
        "a1": [labels[i] for i in ids],
        "a2": [labels[i] if k % 5 else other[labels[i]] for k, i in enumerate(ids)],
        "a3": [labels[i] if k % 2 else other[labels[i]] for k, i in enumerate(ids)],
    }
    pl.DataFrame(ann).write_csv("ann.csv")


def _setup_items(ctx: Ctx) -> None:
    """A 60-question pair test set, 6 models' answers from a 2PL, the label review's files."""
    rng = np.random.default_rng(0)
    k, m = 60, 6
    theta = np.linspace(-1.5, 1.5, m)
    b = rng.normal(0, 1, k)
    x = (rng.random((k, m)) < 1 / (1 + np.exp(-1.7 * (theta[None, :] - b[:, None])))).astype(int)
    labels = rng.choice(["0", "1"], k)
    ids = [f"q{i}" for i in range(k)]
    rows = [
        {"id": ids[i], "text_a": f"premise {i}", "text_b": f"claim {i} ends", "label": labels[i]}
        for i in range(k)
    ]
    pl.DataFrame(rows).write_ndjson("test.jsonl")
    names = ["llama", "m1", "m2", "m3", "m4", "gpt4"]
    for j, name in enumerate(names):
        pred = np.where(x[:, j] == 1, labels, np.where(labels == "1", "0", "1"))
        if name in ("gpt4", "llama"):
            file = {"gpt4": "g.jsonl", "llama": "l.jsonl"}[name]
            pl.DataFrame({"id": ids, "pred": pred.tolist()}).write_ndjson(file)
    pl.DataFrame({"id": ids, **{n: x[:, j] for j, n in enumerate(names)}}).write_parquet(
        "correct.parquet"
    )
    # the label review of test.jsonl (the README's label-error block): flags and gold labels
    truth = {r["text_b"]: (r["label"] if i % 30 else str(1 - int(r["label"]))) for i, r in
             enumerate(rows)}  # fmt: skip
    ctx.truth.update(truth)
    ctx.env.update(data="test.jsonl", text_b="text_b")
    prep = Path("_prep")
    prep.mkdir()
    steps = [
        f"judge test.jsonl --text-a text_a --text-b text_b --label label -o {prep}/j.parquet",
        f"flag {prep}/j.parquet --data test.jsonl --min-error-score 0.5 -o flags.jsonl",
        f"review export flags.jsonl --experts 2 --audit-sample 10 --seed 1 -o {prep}/review",
    ]
    ctx.pending = steps  # run by the test once the stand-in judge knows the truth
    ctx.after = lambda: _finish_items(ctx, prep)


def _finish_items(ctx: Ctx, prep: Path) -> None:
    from benchcheck.cli import main

    here = Path.cwd()
    os.chdir(prep)
    try:
        shutil.copy(here / "test.jsonl", "test.jsonl")
        ctx.env["data"] = "test.jsonl"
        _fill_expert_sheets(ctx)
    finally:
        os.chdir(here)
    cmd = (
        f"review import {prep}/review/expert_a.csv {prep}/review/expert_b.csv --reconciled "
        f"{prep}/review/reconciled.csv -o gold.jsonl"
    )
    assert main(shlex.split(cmd)) == 0, cmd
    # two audits of the test set (judged: the flag rate), before and after a change
    for name in ("old", "new"):
        argv = ["audit", "test.jsonl", "--text-a", "text_a", "--text-b", "text_b", "-o", name]
        assert main(argv) == 0


def _setup_mcq(ctx: Ctx) -> None:
    """40 four-option questions keyed A, one with a wrong key (every model says C), 8 models."""
    rows = [
        {
            "id": f"q{i:02d}",
            "question": f"Question {i}?",
            "choices": json.dumps(["a", "b", "c", "d"]),
            "answer": "A",
            "subject": "s1" if i < 20 else "s2",
        }
        for i in range(40)
    ]
    pl.DataFrame(rows).write_csv("mmlu_test.csv")
    lines = ["id,model,answer"]
    for i in range(40):
        for j in range(8):
            a = "C" if i == 7 else ("B" if (i * 7 + j * 3) % 11 == 0 else "A")
            lines.append(f"q{i:02d},m{j},{a}")
    Path("answers.csv").write_text("\n".join(lines) + "\n")


def _setup_mcq_journey(ctx: Ctx) -> None:
    """docs/mcq.md's journey reads ``test.jsonl``: the same questions, as JSONL."""
    _setup_mcq(ctx)
    pl.read_csv("mmlu_test.csv").write_ndjson("test.jsonl")


def _setup_mcq_review(ctx: Ctx) -> None:
    _setup_mcq(ctx)
    ctx.pending.append("flag --data mmlu_test.csv --task mcq --answers answers.csv -o flags.jsonl")


def _setup_mcq_audited(ctx: Ctx) -> None:
    _setup_mcq(ctx)
    ctx.pending.append("audit mmlu_test.csv --task mcq --answers answers.csv -o report/")


def _setup_convert(ctx: Ctx) -> None:
    _ner_files(Path("data"), ("train.txt", "dev.txt", "test.txt"))


def _setup_ray_stats(ctx: Ctx) -> None:
    _setup_convert(ctx)
    ctx.pending.append("convert data/ -o data.parquet/")  # the block above, run once


def _zstd_jsonl(path: Path, rows: list[dict]) -> None:
    import pyarrow as pa

    with pa.CompressedOutputStream(str(path), "zstd") as out:
        out.write("".join(json.dumps(r) + "\n" for r in rows).encode("utf-8"))


def _setup_contamination(ctx: Ctx) -> None:
    """A 30-question test set, a corpus of two zstd shards holding 6 of its questions."""
    test = [{"id": f"t{i}", "question": f"what is the capital number {i} of the land", "text":
             f"what is the capital number {i} of the land", "label": str(i % 2)}
            for i in range(30)]  # fmt: skip
    pl.DataFrame(test).write_ndjson("test.jsonl")
    Path("shards").mkdir()
    for k in range(2):
        docs = [{"text": f"web page {k}.{j} says hello to the world"} for j in range(50)]
        docs += [{"text": "quiz: " + test[3 * k + j]["text"] + " answered"} for j in range(3)]
        _zstd_jsonl(Path(f"shards/part-{k}.jsonl.zst"), docs)
    for name, slip in (("a", 3), ("b", 5)):
        with open(f"{name}.jsonl", "w") as fh:
            for i, r in enumerate(test):
                pred = r["label"] if i % slip else str(1 - int(r["label"]))
                fh.write(json.dumps({"id": r["id"], "pred": pred}) + "\n")


def _setup_report(ctx: Ctx) -> None:
    """Every input of docs/report.md's audits."""
    _ner_files(Path("data/conll2003"), ("train.txt", "dev.txt", "test.txt"))
    Path("data/wnut").mkdir(parents=True)
    for ours in ("train", "dev", "test"):
        text = (_sample("ner") / f"{ours}.txt").read_text(encoding="utf-8")
        Path(f"data/wnut/{ours}.txt").write_text(text.replace("-MISC", "-product"))
    test = (_sample("ner") / "test.txt").read_text(encoding="utf-8").splitlines()
    Path("a.conll").write_text("\n".join(_drop_every(test, 3)) + "\n")
    Path("b.conll").write_text("\n".join(test) + "\n")
    documents = ROOT / "tests" / "io" / "fixtures" / "documents"
    shutil.copy(documents / "corpus.pubtator", "cdr.pubtator")
    shutil.copy(documents / "train_ids.txt", "train.txt")
    shutil.copy(documents / "test_ids.txt", "test.txt")
    ctx.truth.update(_pairs(Path("data/mnbm.jsonl")))
    here = Path.cwd()
    Path("_c").mkdir()
    os.chdir("_c")
    try:
        _setup_contamination(ctx)
    finally:
        os.chdir(here)
    for name in ("test.jsonl", "a.jsonl", "b.jsonl"):
        shutil.move(f"_c/{name}", name)
    shutil.move("_c/shards", "shards")
    shutil.copy(_sample("diagnostic") / "suite.jsonl", "suite.jsonl")
    shutil.copy(_sample("diagnostic") / "overlap_baseline_predictions.jsonl", "preds.jsonl")


#: What a block's folder holds before its first line: (document, its first command's start).
SETUP: dict[tuple[str, str], Callable[[Ctx], None]] = {
    ("README.md", "stats path/to/conll2003/"): _setup_stats,
    ("README.md", "judge data.jsonl"): _setup_readme_labels,
    ("docs/labels.md", "judge data.jsonl"): _setup_labels,
    ("docs/labels.md", "flag-spans train.txt"): _setup_sample_tree,
    ("docs/judges.md", "judge data.jsonl"): _setup_judges,
    ("docs/judges.md", "audit data.jsonl"): _setup_judges,
    ("docs/labels.md", "flag-spans test.conll"): _setup_labels,
    ("docs/labels.md", "review import ls.json --key review/"): _setup_label_studio,
    ("docs/labels.md", "review import ls.json --key span_review/"): _setup_label_studio_spans,
    ("README.md", "diagnose"): _setup_diagnostics,
    ("docs/diagnostics.md", "diagnose"): _setup_diagnostics,
    ("README.md", "items"): _setup_items,
    ("docs/mcq.md", "audit '$S/questions.jsonl' --task mcq"): _setup_sample_tree,
    ("docs/mcq.md", "flag --data mmlu_test.csv"): _setup_mcq,
    ("docs/mcq.md", "review export flags.jsonl"): _setup_mcq_review,
    ("docs/mcq.md", "flag --data test.jsonl --task mcq"): _setup_mcq_journey,
    ("docs/mcq.md", "audit mmlu_test.csv --task mcq"): _setup_mcq,
    ("docs/mcq.md", "items mmlu_test.csv --task mcq"): _setup_mcq,
    ("docs/mcq.md", "review export report/mcq_flags.jsonl"): _setup_mcq_audited,
    ("docs/mcq.md", "judge mmlu_test.csv --task mcq"): _setup_mcq,
    ("docs/scale.md", "convert data/"): _setup_convert,
    ("docs/scale.md", "stats data.parquet/ --engine ray"): _setup_ray_stats,
    ("docs/scale.md", "leakage --test test.jsonl --corpus 'shards/"): _setup_contamination,
    ("docs/report.md", "audit -o report/"): _setup_report,
}


def _setup_of(block: Block) -> Callable[[Ctx], None] | None:
    first = block.commands()[0]
    found = [f for (doc, start), f in SETUP.items() if doc == block.doc and first.startswith(start)]
    assert len(found) <= 1, block.name
    return found[0] if found else None


# --------------------------------------------------------------------------- running


@pytest.fixture
def stand_in_judge(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    """Every judge spec gets the stand-in judge of the journeys (no model, no network)."""
    from test_journeys import StandInJudge

    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod

    truth: dict[str, str] = {}
    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: StandInJudge(truth, 0.999))
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")
    return truth


def _outputs(argv: list[str]) -> list[str]:
    """The files and folders a command line names as its outputs (``-o``, ``--json``)."""
    return [
        value
        for flag, value in zip(argv, argv[1:], strict=False)
        if flag in ("-o", "--output", "--json", "--to-review") and value != "-"
    ]


def _expand(text: str, env: dict[str, str]) -> str:
    return re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: env[m.group(1) or m.group(2)], text)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs_as_written(block, tmp_path, monkeypatch, stand_in_judge, capsys):
    from benchcheck.cli import main

    folder = tmp_path / "run"
    folder.mkdir()
    monkeypatch.chdir(folder)
    ctx = Ctx(folder, stand_in_judge)
    setup = _setup_of(block)
    if setup is not None:
        setup(ctx)
    for command in ctx.pending:
        assert main(shlex.split(command)) == 0, command
    if ctx.after is not None:
        ctx.after()
    if block.lang == "console":  # a transcript: the terminal width it states
        found = re.search(r"(\d+)\s+columns wide", _before(block))
        assert found, f"{block.name}: say how wide the transcript's terminal is"
        monkeypatch.setenv("COLUMNS", found.group(1))
    shell: dict[str, str] = {}
    failures = []
    for k, (where, kind, text) in enumerate(block.lines):
        if kind == "set":
            name, _, value = text.partition("=")
            shell[name] = _expand(value, shell)
            continue
        if kind == "cp":
            src, dst = shlex.split(_expand(text, shell))
            shutil.copy(src, dst)
            continue
        if kind != "benchcheck":
            continue
        command = _expand(text, shell)
        if command in PARSE_ONLY:
            continue
        if command in BEFORE:
            BEFORE[command](ctx)
        capsys.readouterr()
        code = main(shlex.split(command))
        said = capsys.readouterr()
        if code == 0:  # and it wrote what it names
            missing = [path for path in _outputs(shlex.split(command)) if not Path(path).exists()]
            if missing:
                failures.append(f"{where}: benchcheck {command}: wrote no {missing}")
                break
        if code != 0:
            tail = [*said.out.strip().splitlines()[-6:], *said.err.strip().splitlines()[-3:]]
            failures.append(f"{where}: benchcheck {command}: exit {code}: " + "\n".join(tail))
            break  # the next lines need this one's output
        shown = _printed(block.lines[k + 1 :])
        if shown is not None and _numbers(shown) != _numbers(said.out):
            failures.append(
                f"{where}: benchcheck {command}: prints other numbers than the transcript "
                f"{_numbers(shown)}:\n{said.out}"
            )
    assert not failures, "\n".join(failures)


def _before(block: Block) -> str:
    """The paragraph of the document just before ``block`` (its words joined by spaces)."""
    lines = (ROOT / block.doc).read_text(encoding="utf-8").splitlines()[: block.line - 1]
    while lines and not lines[-1].strip():
        lines.pop()
    start = len(lines)
    while start and lines[start - 1].strip():
        start -= 1
    return " ".join(lines[start:])


def _printed(rest: list[tuple[str, str, str]]) -> str | None:
    """The output a console transcript shows after its command (None: not a transcript)."""
    shown = []
    for _, kind, text in rest:
        if kind != "output":
            break
        shown.append(text)
    return "\n".join(shown) if shown else None


def _numbers(text: str) -> list[str]:
    """The numbers of a command's output, in order (a table's widths and wrapping aside)."""
    return re.findall(r"\d+(?:\.\d+)?", text)


def test_the_parse_only_lines_are_few_and_documented():
    lines = {text for b in BLOCKS for _, kind, text in b.lines if kind == "benchcheck"}
    assert set(PARSE_ONLY) <= lines, set(PARSE_ONLY) - lines  # none stale
    assert len(PARSE_ONLY) <= 8 and all(len(why.split()) >= 5 for why in PARSE_ONLY.values())
    assert len(lines) >= 60  # the extraction found the documents' commands
