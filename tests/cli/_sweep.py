"""A generated bad-input sweep over every command: a table of commands × inputs × bad variants.

Each command has a valid invocation on a shared workspace (:func:`build_workspace`: the
bundled samples and a seeded label-error case run through flag, review and import). A case
copies the command's inputs into its own folder, spoils one input with one variant
(:data:`GENERIC` for every file, plus the variants its format lists), leaves the
command's outputs in place from an earlier run (``previous`` content) and runs the command
with ``--force``, in process. The outcome is one of:

- ``clean``: exit code 2, stderr is one line ``error: ...`` naming the spoilt file (or its
  folder), no traceback, and every output still holds its previous content;
- ``traceback``: an exception escaped the command;
- ``silent``: exit code 0 on a spoilt input;
- ``unclear``: exit code 2 but not one line naming the file;
- ``wrong exit``: any other exit code;
- ``lost``: an output was changed or removed (counted whatever the exit code).

``python tests/cli/_sweep.py`` runs the whole sweep and prints the counts in the issue's
form (tried / clean / tracebacks / silent accepts / lost).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent
PREVIOUS = b"previous content of an earlier run\n"


# ----------------------------------------------------------------------------- variants


def _lines(data: bytes) -> list[bytes]:
    return data.decode("utf-8").splitlines(keepends=True) and [
        line.encode("utf-8") for line in data.decode("utf-8").splitlines(keepends=True)
    ]


def _jsonl_rows(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8")


def _truncate(data: bytes) -> bytes:
    """Cut in the middle of the line at 60% of the file (as a killed writer leaves it)."""
    mark = int(len(data) * 0.6)
    start = data.rfind(b"\n", 0, mark) + 1
    end = data.find(b"\n", mark)
    end = len(data) if end < 0 else end
    while end - start < 4 and end < len(data):  # a short or blank line: take the next one
        start = end + 1
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
    return data[: start + max(1, (end - start) // 2)]


def _binary(data: bytes) -> bytes:
    import random

    rng = random.Random(len(data))
    return bytes(rng.randrange(256) for _ in range(2048)) + b"\x00\x00PK\x03\x04"


GENERIC: dict[str, Callable[[bytes], bytes | None]] = {
    "missing": lambda d: None,  # the file is removed
    "folder": lambda d: b"",  # replaced by a folder (handled by the runner)
    "empty": lambda d: b"",
    "binary": _binary,
    "truncated": _truncate,
    "utf16": lambda d: d.decode("utf-8").encode("utf-16"),
}


def _set(rows: list[dict], k: int, **values: object) -> list[dict]:
    rows = [dict(r) for r in rows]
    rows[k].update(values)
    return rows


def _table_variant(name: str, *, id: str = "id", label: str = "label"):  # noqa: A002
    """JSONL table variants; ``id``/``label`` name the columns they spoil."""

    def apply(data: bytes) -> bytes:
        rows = _jsonl_rows(data)
        if name == "not-json":
            lines = data.splitlines(keepends=True)
            return b"".join([*lines[:2], b'{"id": "x", "text": \n', *lines[2:]])
        if name == "not-object":
            lines = data.splitlines(keepends=True)
            return b"".join([*lines[:2], b"[1, 2, 3]\n", *lines[2:]])
        if name == "label-list":
            return _jsonl(_set(rows, 1, **{label: [1, 0]}))
        if name == "label-object":
            return _jsonl(_set(rows, 1, **{label: {"value": 1}}))
        if name == "label-nan":
            return _jsonl(_set(rows, 1, **{label: math.nan}))
        if name == "dup-id":
            return _jsonl([*rows, dict(rows[0])])
        if name == "ids-other":
            return _jsonl([{**r, id: 1000 + k} for k, r in enumerate(rows)])
        if name == "no-label-col":
            return _jsonl([{k: v for k, v in r.items() if k != label} for r in rows])
        if name == "dup-key":  # the label given twice in one line (a reader keeps one)
            lines = data.splitlines(keepends=True)
            extra = f', "{label}": {json.dumps(rows[1].get(label))}}}'
            return b"".join([lines[0], lines[1].rstrip().rstrip(b"}") + extra.encode() + b"\n",
                             *lines[2:]])  # fmt: skip
        if name == "null-id":
            return _jsonl(_set(rows, 1, **{id: None}))
        if name == "deep":
            lines = data.splitlines(keepends=True)
            return b"".join([lines[0], b'{"x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n",
                             *lines[1:]])  # fmt: skip
        raise KeyError(name)

    return apply


def _judgments_variant(name: str):
    def apply(data: bytes) -> bytes:
        import polars as pl

        frame = pl.read_parquet(io.BytesIO(data))
        if name == "p-nan":
            frame = frame.with_columns(
                pl.when(pl.int_range(pl.len()) == 3)
                .then(float("nan"))
                .otherwise(pl.col("p_0"))
                .alias("p_0")
            )
        elif name == "p-over-1":
            frame = frame.with_columns(
                pl.when(pl.int_range(pl.len()) == 3).then(1.5).otherwise(pl.col("p_0")).alias("p_0")
            )
        elif name == "p-not-normalised":
            frame = frame.with_columns((pl.col("p_0") * 0.5).alias("p_0"))
        elif name == "ids-other":
            frame = frame.with_columns(pl.col("id").str.replace("e", "x"))
        elif name == "dup-row":
            frame = pl.concat([frame, frame.head(1)])
        elif name == "no-judge-col":
            frame = frame.drop("judge")
        else:
            raise KeyError(name)
        buf = io.BytesIO()
        frame.write_parquet(buf)
        return buf.getvalue()

    return apply


def _text_variant(name: str):
    def apply(data: bytes) -> bytes:
        lines = data.splitlines(keepends=True)
        if name == "ragged":
            return b"".join([*lines[:2], lines[1].rstrip(b"\r\n") + b",extra,cells\n", *lines[2:]])
        if name == "unclosed-quote":
            return b"".join([*lines[:2], b'x,"never closed\n', *lines[2:]])
        if name == "one-column":
            return b"".join([*lines[:3], b"lonely\n", *lines[3:]])
        if name == "nul-bytes":
            return data[:40] + b"\x00\x00\x00" + data[40:]
        raise KeyError(name)

    return apply


def _json_variant(name: str):
    def apply(data: bytes) -> bytes:
        if name == "not-object":
            return b"[1, 2, 3]\n"
        if name == "no-schema":
            return b'{"title": "no schema_version here"}\n'
        if name == "not-json":
            return data[: len(data) // 2]
        raise KeyError(name)

    return apply


def _field_variant(name: str, key: str, value: object):
    """Set ``key`` of the second JSONL row to ``value``."""

    def apply(data: bytes) -> bytes:
        return _jsonl(_set(_jsonl_rows(data), 1, **{key: value}))

    return apply


def _mcq_variant(name: str):
    """Multiple-choice questions (JSONL: ``options`` a list, ``answer`` a letter) spoilt."""

    def apply(data: bytes) -> bytes:
        rows = _jsonl_rows(data)
        if name == "key-out-of-range":  # a letter past the question's four options
            return _jsonl(_set(rows, 1, answer="E"))
        if name == "key-names-no-option":
            return _jsonl(_set(rows, 1, answer="an answer that is no option"))
        if name == "one-option":
            return _jsonl(_set(rows, 1, options=["the only option"]))
        if name == "options-not-list":
            return _jsonl(_set(rows, 1, options=7))
        if name == "options-gap":  # an empty option between two present ones
            return _jsonl(_set(rows, 1, options=["a", None, "c", "d"], answer="A"))
        raise KeyError(name)

    return apply


def _mcq_answers_variant(name: str):
    """The models' answers (CSV long table ``id,model,answer``) spoilt."""

    def apply(data: bytes) -> bytes:
        lines = data.decode("utf-8").splitlines(keepends=True)
        if name == "answer-outside":  # a model answering past the question's options
            head, *rows = lines
            i, m, _ = rows[1].rstrip("\n").split(",")
            return "".join([head, rows[0], f"{i},{m},F\n", *rows[2:]]).encode("utf-8")
        if name == "ids-other":  # every answer for a question the data does not hold
            head, *rows = lines
            return "".join([head, *("x" + r for r in rows)]).encode("utf-8")
        if name == "dup-row":  # one question × model answered twice
            return "".join([*lines[:3], lines[2], *lines[3:]]).encode("utf-8")
        if name == "no-model-col":
            return "".join(",".join(x.rstrip("\n").split(",")[::2]) + "\n" for x in lines).encode()
        raise KeyError(name)

    return apply


# ----------------------------------------------------------------------------- table


@dataclass(frozen=True)
class Slot:
    """One input of a command: its placeholder, its workspace file, and extra variants."""

    name: str
    source: str
    variants: dict[str, Callable[[bytes], bytes | None]] = field(default_factory=dict)
    inner: str | None = None  # a folder input: the file inside it that is spoilt
    text: bool = True  # a text format (utf16 applies)


@dataclass(frozen=True)
class Command:
    """A valid invocation: argv with ``{slot}`` placeholders and its outputs."""

    name: str
    argv: tuple[str, ...]
    slots: tuple[Slot, ...]
    outputs: dict[str, str] = field(default_factory=dict)  # placeholder → "file" | "dir"


def _tv(*names: str, **kw: str) -> dict[str, Callable[[bytes], bytes | None]]:
    return {n: _table_variant(n, **kw) for n in names}


DATA = Slot(
    "data",
    "data.jsonl",
    _tv(
        "not-json",
        "not-object",
        "label-list",
        "label-object",
        "label-nan",
        "dup-id",
        "no-label-col",
        "dup-key",
        "null-id",
        "deep",
    ),
)
PAIR = Slot(
    "pair",
    "pair.jsonl",
    _tv("not-json", "not-object", "label-list", "label-nan", "dup-id", "dup-key", "deep"),
)
JUDGMENTS = Slot(
    "judgments",
    "j.parquet",
    {
        n: _judgments_variant(n)
        for n in ("p-nan", "p-over-1", "p-not-normalised", "ids-other", "dup-row", "no-judge-col")
    },
    text=False,
)
FLAGS = Slot(
    "flags", "flags.jsonl", _tv("not-json", "dup-id", "not-object", "dup-key", "null-id", "deep")
)
GOLD = Slot(
    "gold",
    "gold.jsonl",
    _tv("not-json", "label-list", "dup-id", "not-object", "dup-key", "null-id", "deep"),
)
GOLD_JOINED = Slot(
    "gold", "gold.jsonl", _tv("not-json", "label-list", "dup-id", "ids-other", "not-object")
)
SCORES = Slot(
    "scores",
    "a.jsonl",
    {
        **_tv("not-json", "dup-id", "ids-other"),
        "score-over-1": _field_variant("score-over-1", "score", 1.7),
        "score-nan": _field_variant("score-nan", "score", math.nan),
        "score-text": _field_variant("score-text", "score", "high"),
    },
)
NER = Slot(
    "ner",
    "ner",
    {"one-column": _text_variant("one-column"), "nul-bytes": _text_variant("nul-bytes")},
    inner="test.txt",
)
CONLL = Slot(
    "conll",
    "ner/test.txt",
    {"one-column": _text_variant("one-column"), "nul-bytes": _text_variant("nul-bytes")},
)
SUITE = Slot(
    "suite",
    "suite.jsonl",
    {
        **_tv("not-json", "dup-id", "not-object"),
        "label-typo": _field_variant("label-typo", "forward", "entailmnet"),
        "label-list": _field_variant("label-list", "forward", ["neutral"]),
    },
)
PREDS = Slot(
    "preds",
    "preds.jsonl",
    {
        **_tv("not-json", "dup-id", "ids-other"),
        "label-unknown": _field_variant("label-unknown", "prediction", "maybe"),
    },
)
RESULTS = Slot(
    "results",
    "results.json",
    {n: _json_variant(n) for n in ("not-object", "no-schema", "not-json")},
)
SAMPLE = Slot(
    "sample",
    "annotated.jsonl",
    {
        **_tv("not-json", "dup-id", "not-object"),
        "bad-judgement": _field_variant("bad-judgement", "annotations", {"a": "maybe", "b": True}),
    },
)
EXPERT = Slot(
    "expert",
    "review/expert_a.csv",
    {"ragged": _text_variant("ragged"), "unclosed-quote": _text_variant("unclosed-quote")},
)
ANNOT = Slot("annot", "annotations.jsonl", _tv("not-json", "not-object"))
TEST_ITEMS = Slot("test_items", "test_items.jsonl", _tv("not-json", "not-object"))
CORPUS = Slot("corpus", "corpus.parquet", text=False)
TRAIN_PAIRS = Slot(
    "train_pairs", "train_pairs.jsonl", _tv("not-json", "label-list", "label-nan", "not-object")
)
SRC = Slot("source", "gold.jsonl", _tv("not-json", "label-list", "dup-id", "not-object"))
ANSWERS = Slot(
    "answers",
    "pa.jsonl",
    {
        **_tv("not-json", "dup-id", "ids-other", "not-object", label="pred"),
        "pred-list": _field_variant("pred-list", "pred", ["1"]),
    },
)
MCQ = Slot(
    "mcq",
    "mcq.jsonl",
    {
        **_tv("not-json", "not-object", "dup-id", "null-id", label="answer"),
        **{
            n: _mcq_variant(n)
            for n in (
                "key-out-of-range",
                "key-names-no-option",
                "one-option",
                "options-not-list",
                "options-gap",
            )
        },
    },
)
MCQ_ANSWERS = Slot(
    "mcq_answers",
    "mcq_answers.csv",
    {
        "ragged": _text_variant("ragged"),
        "unclosed-quote": _text_variant("unclosed-quote"),
        **{
            n: _mcq_answers_variant(n)
            for n in ("answer-outside", "ids-other", "dup-row", "no-model-col")
        },
    },
)
MCQ_GOLD = Slot(
    "mcq_gold",
    "mcq_gold.jsonl",
    {
        **_tv("not-json", "not-object", "dup-id", "null-id", label="gold"),
        "gold-not-a-verdict": _field_variant("gold-not-a-verdict", "gold", "maybe"),
    },
)
OLD_RESULTS = Slot(
    "old", "results.json", {n: _json_variant(n) for n in ("not-object", "no-schema", "not-json")}
)

PAIR_COLS = ("--task", "pair", "--text-a", "grounding", "--text-b", "generated_text")
MCQ_ARGS = ("--task", "mcq", "--answers", "{mcq_answers}")
COMMANDS: tuple[Command, ...] = (
    Command("stats ner", ("stats", "{ner}", "--json", "{out_json}"), (NER,), {"out_json": "file"}),
    Command(
        "stats pair",
        ("stats", "{pair}", *PAIR_COLS, "--json", "{out_json}"),
        (PAIR,),
        {"out_json": "file"},
    ),
    Command(
        "compare", ("compare", "a={ner}", "--json", "{out_json}"), (NER,), {"out_json": "file"}
    ),
    Command("sample", ("sample", "{ner}", "-o", "{out_jsonl}"), (NER,), {"out_jsonl": "file"}),
    Command(
        "accuracy",
        ("accuracy", "{sample}", "--json", "{out_json}"),
        (SAMPLE,),
        {"out_json": "file"},
    ),
    Command(
        "audit", ("audit", "{ner}", "--no-judge", "-o", "{out_dir}"), (NER,), {"out_dir": "dir"}
    ),
    Command("convert", ("convert", "{ner}", "-o", "{out_dir}"), (NER,), {"out_dir": "newdir"}),
    Command(
        "leakage",
        ("leakage", "--test", "{test_items}", "--corpus", "{corpus}", "--json", "{out_json}"),
        (TEST_ITEMS, CORPUS),
        {"out_json": "file"},
    ),
    Command(
        "adjust",
        (
            "adjust",
            "{ner}",
            "--split",
            "test",
            "--metric",
            "leakage_ratio",
            "--target",
            "0.2",
            "-o",
            "{out_dir}",
        ),
        (NER,),
        {"out_dir": "dir"},
    ),
    Command(
        "flag",
        ("flag", "{judgments}", "--data", "{data}", "-o", "{out_jsonl}", "--json", "{out_json}"),
        (JUDGMENTS, DATA),
        {"out_jsonl": "file", "out_json": "file"},
    ),
    Command(
        "review export",
        ("review", "export", "{flags}", "-o", "{out_dir}"),
        (FLAGS,),
        {"out_dir": "dir"},
    ),
    Command(
        "review import",
        ("review", "import", "{expert}", "--key", "review/key.jsonl", "-o", "{out_jsonl}"),
        (EXPERT,),
        {"out_jsonl": "file"},
    ),
    Command(
        "error-rate",
        ("error-rate", "{gold}", "--json", "{out_json}"),
        (GOLD,),
        {"out_json": "file"},
    ),
    Command(
        "bins",
        ("bins", "{gold}", "--bootstrap", "100", "--json", "{out_json}"),
        (GOLD,),
        {"out_json": "file"},
    ),
    Command(
        "remedy",
        ("remedy", "{data}", "--judgments", "{judgments}", "-o", "{out_dir}"),
        (DATA, JUDGMENTS),
        {"out_dir": "dir"},
    ),
    Command(
        "rerank",
        (
            "rerank",
            "--gold",
            "{gold}",
            "--scores",
            "a={scores}",
            "--bootstrap",
            "100",
            "--json",
            "{out_json}",
        ),
        (GOLD_JOINED, SCORES),
        {"out_json": "file"},
    ),
    Command(
        "agreement",
        (
            "agreement",
            "--source",
            "original={source}#label",
            "--source",
            "gold={source}",
            "--json",
            "{out_json}",
        ),
        (SRC,),
        {"out_json": "file"},
    ),
    Command(
        "ensemble-curve",
        (
            "ensemble-curve",
            "{judgments}",
            "--gold",
            "{gold}",
            "--repeats",
            "2",
            "--json",
            "{out_json}",
        ),
        (JUDGMENTS, GOLD_JOINED),
        {"out_json": "file"},
    ),
    Command(
        "flag-spans",
        ("flag-spans", "{conll}", "--predictions", "ner/test.txt", "-o", "{out_jsonl}"),
        (CONLL,),
        {"out_jsonl": "file"},
    ),
    Command(
        "judge",
        (
            "judge",
            "{pair}",
            "--text-a",
            "grounding",
            "--text-b",
            "generated_text",
            "--label",
            "label",
            "--judge",
            "openai:m",
            "--base-url",
            "{server}",
            "--no-cache",
            "-o",
            "{out_parquet}",
        ),
        (PAIR,),
        {"out_parquet": "file"},
    ),
    Command(
        "report", ("report", "{results}", "-o", "{out_html}"), (RESULTS,), {"out_html": "file"}
    ),
    Command(
        "diagnose",
        (
            "diagnose",
            "--suite",
            "{suite}",
            "--predictions",
            "base={preds}",
            "--resamples",
            "100",
            "--json",
            "{out_json}",
        ),
        (SUITE, PREDS),
        {"out_json": "file"},
    ),
    Command(
        "check-suite",
        ("check-suite", "{suite}", "--json", "{out_json}"),
        (SUITE,),
        {"out_json": "file"},
    ),
    Command(
        "human",
        (
            "human",
            "--suite",
            "{suite}",
            "--annotations",
            "{annot}",
            "--resamples",
            "100",
            "--json",
            "{out_json}",
        ),
        (SUITE, ANNOT),
        {"out_json": "file"},
    ),
    Command(
        "items",
        (
            "items",
            "{data}",
            "--predictions",
            "a={answers}",
            "--predictions",
            "b=pb.jsonl",
            "-o",
            "{out_dir}",
            "--json",
            "{out_json}",
        ),
        (DATA, ANSWERS),
        {"out_dir": "dir", "out_json": "file"},
    ),
    Command(
        "rank",
        (
            "rank",
            "{data}",
            "--predictions",
            "a={answers}",
            "--predictions",
            "b=pb.jsonl",
            "--gold",
            "{gold}",
            "--json",
            "{out_json}",
        ),
        (DATA, ANSWERS, GOLD_JOINED),
        {"out_json": "file"},
    ),
    Command(
        "diff",
        ("diff", "{old}", "results.json", "--json", "{out_json}"),
        (OLD_RESULTS,),
        {"out_json": "file"},
    ),
    Command(
        "stats mcq",
        ("stats", "{mcq}", "--task", "mcq", "--json", "{out_json}"),
        (MCQ,),
        {"out_json": "file"},
    ),
    Command(
        "flag mcq",
        ("flag", "--data", "{mcq}", *MCQ_ARGS, "-o", "{out_jsonl}", "--json", "{out_json}"),
        (MCQ, MCQ_ANSWERS),
        {"out_jsonl": "file", "out_json": "file"},
    ),
    Command(
        "items mcq",
        ("items", "{mcq}", *MCQ_ARGS, "--intersect", "-o", "{out_dir}", "--json", "{out_json}"),
        (MCQ, MCQ_ANSWERS),
        {"out_dir": "dir", "out_json": "file"},
    ),
    Command(
        "error-rate mcq",
        ("error-rate", "{mcq_gold}", "--task", "mcq", "--json", "{out_json}"),
        (MCQ_GOLD,),
        {"out_json": "file"},
    ),
    Command(
        "remedy mcq",
        ("remedy", "{mcq}", "--task", "mcq", "--gold", "{mcq_gold}", "-o", "{out_dir}"),
        (MCQ, MCQ_GOLD),
        {"out_dir": "dir"},
    ),
    Command(
        "rerank mcq",
        ("rerank", "--gold", "{mcq_gold}", *MCQ_ARGS, "--bootstrap", "100", "--json", "{out_json}"),
        (MCQ_GOLD, MCQ_ANSWERS),
        {"out_json": "file"},
    ),
    Command(
        "artifacts",
        (
            "artifacts",
            "--train",
            "{train_pairs}",
            "--eval",
            "{suite}",
            "--text-a",
            "premise",
            "--text-b",
            "hypothesis",
            "--resamples",
            "100",
            "--json",
            "{out_json}",
        ),
        (TRAIN_PAIRS, SUITE),
        {"out_json": "file"},
    ),
)

_SUFFIX = {
    "out_json": ".json",
    "out_jsonl": ".jsonl",
    "out_parquet": ".parquet",
    "out_html": ".html",
    "out_dir": "",
}


# ----------------------------------------------------------------------------- workspace


def build_workspace(folder: Path) -> Path:
    """Every valid input of :data:`COMMANDS`, made by running the commands themselves."""
    import numpy as np
    import polars as pl

    from benchcheck.cli import main
    from benchcheck.diagnostics import sample_predictions_path
    from benchcheck.sample_data import (
        DIAGNOSTIC_SAMPLE,
        MCQ_ANSWERS,
        MCQ_EXPERTS,
        MCQ_SAMPLE,
        NER_SAMPLE,
        PAIR_SAMPLE,
    )

    sys.path.insert(0, str(HERE.parent / "labels"))
    from _labels_synth import make_case, write_jsonl

    folder.mkdir(parents=True, exist_ok=True)
    old = Path.cwd()
    os.chdir(folder)
    try:
        shutil.copytree(NER_SAMPLE, "ner", ignore=shutil.ignore_patterns("README*"))
        shutil.copy(PAIR_SAMPLE, "pair.jsonl")
        shutil.copy(DIAGNOSTIC_SAMPLE, "suite.jsonl")
        shutil.copy(sample_predictions_path(), "preds.jsonl")
        shutil.copy(MCQ_SAMPLE, "mcq.jsonl")
        shutil.copy(MCQ_ANSWERS, "mcq_answers.csv")
        data, j, truth, _ = make_case(60, flip_rate=0.2, seed=3)
        write_jsonl(data, Path("data.jsonl"))
        j.write_parquet("j.parquet")
        rng = np.random.default_rng(0)
        score = np.where(rng.random(60) < 0.8, truth, 1 - truth) * 0.6 + rng.random(60) * 0.4
        write_jsonl(pl.DataFrame({"id": data["id"], "score": score}), Path("a.jsonl"))
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            steps = [
                ["flag", "j.parquet", "--data", "data.jsonl", "-o", "flags.jsonl"],
                ["review", "export", "flags.jsonl", "-o", "review", "--seed", "1"],
                ["audit", "ner", "--no-judge", "-o", "audit"],
                ["sample", "ner", "-o", "sample.jsonl", "--per-split", "5"],
            ]
            for argv in steps:
                assert main(argv) == 0, argv
            key = {r["review_id"]: r["id"] for r in pl.read_ndjson("review/key.jsonl").to_dicts()}
            truth_of = dict(zip(data["id"].to_list(), [str(t) for t in truth], strict=True))
            for name in ("expert_a", "expert_b"):
                sheet = pl.read_csv(f"review/{name}.csv", infer_schema=False)
                labels = [truth_of[key[r]] for r in sheet["review_id"]]
                sheet.with_columns(pl.Series("label", labels)).write_csv(f"review/{name}.csv")
            assert (
                main(
                    [
                        "review",
                        "import",
                        "review/expert_a.csv",
                        "review/expert_b.csv",
                        "-o",
                        "gold.jsonl",
                    ]
                )
                == 0
            )
            _mcq_gold(MCQ_EXPERTS)
        shutil.copy("audit/results.json", "results.json")
        rows = [json.loads(x) for x in Path("sample.jsonl").read_text().splitlines()]
        for k, r in enumerate(rows):
            r["annotations"] = {"a": True, "b": k % 3 != 0}
        Path("annotated.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        suite = [json.loads(x) for x in Path("suite.jsonl").read_text().splitlines()]
        ann = []
        for r in suite:
            for d in ("forward", "backward"):
                if r.get(d):
                    ann += [
                        {"id": f"{r['id']}:{d}", "annotator": a, "label": r[d]} for a in ("x", "y")
                    ]
        Path("annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ann))
        pairs = [
            {"premise": r["sentence1"], "hypothesis": r["sentence2"], "label": r["forward"]}
            for r in suite
        ] * 3
        Path("train_pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pairs))
        Path("test_items.jsonl").write_text(
            "".join(
                json.dumps({"id": f"t{i}", "text": r["sentence1"]}) + "\n"
                for i, r in enumerate(suite)
            )
        )
        pl.DataFrame(
            {"text": [r["sentence1"] for r in suite[:5]] + ["other text"] * 5}
        ).write_parquet("corpus.parquet")
        for name, acc in (("pa", 0.9), ("pb", 0.7)):
            lab = data["label"].to_numpy()
            pred = np.where(rng.random(lab.size) < acc, lab, 1 - lab)
            write_jsonl(
                pl.DataFrame({"id": data["id"], "pred": [str(x) for x in pred]}),
                Path(f"{name}.jsonl"),
            )
    finally:
        os.chdir(old)
    return folder


def _mcq_gold(experts: Path) -> None:
    """``mcq_gold.jsonl``: the MCQ sample's flags reviewed by its experts' verdicts."""
    import csv

    import polars as pl

    from benchcheck.cli import main

    argv = ["flag", "--data", "mcq.jsonl", "--task", "mcq", "--answers", "mcq_answers.csv"]
    assert main([*argv, "--min-error-score", "0.25", "-o", "mcq_flags.jsonl"]) == 0
    argv = ["review", "export", "mcq_flags.jsonl", "--labels", "A,B,C,D,none,several,unclear"]
    assert main([*argv, "--experts", "1", "--audit-sample", "5", "--seed", "1", "-o", "mrev"]) == 0
    with experts.open(encoding="utf-8") as fh:
        verdict = {r["id"]: r["verdict"] for r in csv.DictReader(fh)}
    key = pl.read_ndjson("mrev/key.jsonl").filter(pl.col("review_id").is_not_null())
    question = dict(zip(key["review_id"], key["id"], strict=True))
    sheet = pl.read_csv("mrev/expert_a.csv", infer_schema=False)
    labels = [verdict[question[r]] for r in sheet["review_id"]]
    sheet.with_columns(pl.Series("label", labels)).write_csv("mrev/expert_a.csv")
    assert main(["review", "import", "mrev/expert_a.csv", "-o", "mcq_gold.jsonl"]) == 0


# ----------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Case:
    """One command with one input spoilt by one variant (``variant=None``: the valid run)."""

    command: Command
    slot: Slot | None
    variant: str | None

    @property
    def id(self) -> str:
        if self.slot is None:
            return f"{self.command.name} [valid]"
        return f"{self.command.name} {self.slot.name}:{self.variant}"


def cases() -> list[Case]:
    """Every case: each command's valid run, then each input × each applicable variant."""
    out = []
    for cmd in COMMANDS:
        out.append(Case(cmd, None, None))
        for slot in cmd.slots:
            names = [n for n in GENERIC if slot.text or n != "utf16"]
            if slot.inner is not None:  # a dataset folder without that split is valid
                names = [n for n in names if n not in ("missing", "folder")]
            for name in [*names, *slot.variants]:
                out.append(Case(cmd, slot, name))
    return out


@dataclass
class Outcome:
    """What one case did."""

    kind: str
    rc: int | None
    stderr: str
    detail: str = ""


def _snapshot(path: Path) -> object:
    if path.is_dir():
        return {
            str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()
        }
    return path.read_bytes() if path.exists() else None


def run_case(case: Case, workspace: Path, folder: Path, server: str = "") -> Outcome:
    """Run one case in ``folder`` (created); classify what happened.

    ``server`` is the base URL of an OpenAI-compatible server for ``judge``.
    """
    from benchcheck.cli import main

    folder.mkdir(parents=True)
    cmd = case.command
    # every input of the command, copied from the workspace (the review key too)
    shutil.copytree(workspace / "review", folder / "review")
    for shared in ("pb.jsonl", "results.json"):  # inputs named as they are in the argv
        shutil.copy(workspace / shared, folder / shared)
    shutil.copy(workspace / "ner" / "test.txt", folder / "preds_ner.txt")
    (folder / "ner").mkdir(exist_ok=True)
    shutil.copy(workspace / "ner" / "test.txt", folder / "ner" / "test.txt")
    paths: dict[str, str] = {}
    spoilt: Path | None = None
    for slot in cmd.slots:
        src = workspace / slot.source
        dst = folder / ("in_" + slot.name + (src.suffix if src.is_file() else ""))
        if slot.source.startswith("review/"):
            dst = folder / slot.source
        if src.is_dir():
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst)
        elif dst != folder / slot.source:
            shutil.copy(src, dst)
        paths[slot.name] = str(dst)
        if case.slot is slot and case.variant is not None:
            target = dst / slot.inner if slot.inner else dst
            spoilt = target
            make = GENERIC.get(case.variant) or slot.variants[case.variant]
            new = make(target.read_bytes())
            if case.variant == "folder":
                target.unlink()
                target.mkdir()
            elif new is None:
                target.unlink()
            else:
                target.write_bytes(new)
    outputs = {}
    for name, kind in cmd.outputs.items():
        out = folder / f"{name}{_SUFFIX[name]}"
        if kind == "newdir":  # a command that only ever creates its folder
            pass
        elif kind == "dir":
            out.mkdir()
            (out / "previous.txt").write_bytes(PREVIOUS)
            for produced in (
                "results.json",
                "cleaned.jsonl",
                "key.jsonl",
                "expert_a.csv",
                "manifest.json",
                "report.html",
            ):
                (out / produced).write_bytes(PREVIOUS)
        else:
            out.write_bytes(PREVIOUS)
        outputs[name] = out
    before = {n: _snapshot(p) for n, p in outputs.items()}
    names = {**paths, **{n: str(p) for n, p in outputs.items()}, "server": server}
    argv = [a.format(**names) for a in cmd.argv]
    argv.append("--force")
    err, out_text = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(folder)
    rc: int | None = None
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out_text):
            rc = main(argv)
    except BaseException as exc:  # noqa: BLE001 - the sweep records any escape
        return Outcome("traceback", None, err.getvalue(), f"{type(exc).__name__}: {exc}"[:300])
    finally:
        os.chdir(old)
    stderr = err.getvalue()
    if case.variant is None:
        return Outcome("valid" if rc == 0 else "broken", rc, stderr, out_text.getvalue()[-300:])
    if rc == 0:
        return Outcome("silent", rc, stderr)
    lost = [n for n, p in outputs.items() if _snapshot(p) != before[n]]
    if lost:
        return Outcome("lost", rc, stderr, f"outputs changed: {lost}")
    if rc != 2:
        return Outcome("wrong exit", rc, stderr)
    lines = [x for x in stderr.strip().splitlines() if x.strip()]
    assert spoilt is not None
    names = {spoilt.name, spoilt.parent.name} if case.slot and case.slot.inner else {spoilt.name}
    if (
        len(lines) != 1
        or not lines[0].startswith("error:")
        or not any(n in lines[0] for n in names)
        or "Traceback" in stderr
    ):
        return Outcome("unclear", rc, stderr)
    return Outcome("clean", rc, stderr)


def summary(outcomes: dict[str, Outcome]) -> dict[str, int]:
    """Counts in the issue's form."""
    kinds = [o.kind for o in outcomes.values() if o.kind not in ("valid", "broken")]
    return {
        "tried": len(kinds),
        "clean": kinds.count("clean"),
        "tracebacks": kinds.count("traceback"),
        "silent accepts": kinds.count("silent"),
        "unclear messages": kinds.count("unclear"),
        "wrong exit codes": kinds.count("wrong exit"),
        "lost": kinds.count("lost"),
    }


if __name__ == "__main__":
    import tempfile

    sys.path.insert(0, str(HERE.parent / "judges"))
    from judges_fault_server import FaultServer

    with tempfile.TemporaryDirectory() as tmp, FaultServer() as fault:
        ws = build_workspace(Path(tmp) / "ws")
        results = {}
        for k, case in enumerate(cases()):
            results[case.id] = run_case(case, ws, Path(tmp) / f"case{k}", fault.base_url)
    for name, o in results.items():
        if o.kind not in ("clean", "valid"):
            print(f"{o.kind:10} {name}: rc={o.rc} {o.detail} {o.stderr.strip()[:300]!r}")
    print(json.dumps(summary(results)))
