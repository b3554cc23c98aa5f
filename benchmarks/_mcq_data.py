"""MMLU-Redux v1 (Gema et al. 2024) with 14 HELM models' answers, built into ``_data``.

Source: the public GitHub repository ``aryopg/mmlu-redux`` (annotations CC BY 4.0, MMLU
text MIT), read from a local git directory (``--repo``; bring it with the ``fetch`` tool or
``git clone --bare``) at the pinned commit :data:`COMMIT`. Nothing of it is committed: the
built tables go to the git-ignored ``benchmarks/_data/``.

Only the **30 subjects of MMLU-Redux v1** (:data:`V1_SUBJECTS`, the ``CONFIGS`` list of the
repository's ``scripts/multi_experts_helm.py`` and the v1 release) are read. The 27 subjects
added in 2.0 are held out for an independent check: this module never opens their files.

Per subject:

* ``mmlu_redux/mmlu_<subject>.csv``: the experts' annotation. Parsing traps handled here:
  some files are ``;``-delimited (sniffed from the header), one has another column order
  (columns read by name), a stray empty column, an optional Mac-Roman encoding (UTF-8
  first), ~21 spellings of the 7 error types (:func:`error_kind`), experts' answers given
  as a digit or a letter, or empty / free text (then null).
* ``outputs/multi_expert_helm/<subject>.csv``: the same 100 questions in the same order
  with the 14 models' answers (letters). The order is checked against the question text.

``items.parquet``: ``id`` (``<subject>-<row:03d>``), ``subject``, ``question``, ``options``
(list of 4), ``key`` (0-based index), ``error`` (one of :data:`KINDS`), ``expert_answer``
(0-based index or null). ``answers.parquet``: the long table ``id``, ``model``, ``answer``
(letter A–D, null where the model's output names no option).
"""

from __future__ import annotations

import ast
import csv
import io
import re
import subprocess
from pathlib import Path

import polars as pl

DATA = Path(__file__).resolve().parent / "_data" / "mmlu_redux"
COMMIT = "4563cfa79b659d76716e5b6019f46bba85fa02db"
V1_SUBJECTS = (
    "business_ethics",
    "high_school_geography",
    "high_school_macroeconomics",
    "anatomy",
    "astronomy",
    "clinical_knowledge",
    "college_chemistry",
    "college_computer_science",
    "college_mathematics",
    "college_medicine",
    "college_physics",
    "conceptual_physics",
    "econometrics",
    "electrical_engineering",
    "formal_logic",
    "global_facts",
    "high_school_chemistry",
    "high_school_mathematics",
    "high_school_physics",
    "high_school_statistics",
    "high_school_us_history",
    "human_aging",
    "logical_fallacies",
    "machine_learning",
    "miscellaneous",
    "philosophy",
    "professional_accounting",
    "public_relations",
    "virology",
    "professional_law",
)
MODELS = (
    "anthropic_claude-3-5-sonnet-20240620",
    "anthropic_claude-3-opus-20240229",
    "meta_llama-3.1-405b-instruct-turbo",
    "openai_gpt-4o-2024-05-13",
    "qwen_qwen2.5-72b-instruct-turbo",
    "google_gemini-1.5-pro-001",
    "openai_gpt-4-0613",
    "qwen_qwen2-72b-instruct",
    "writer_palmyra-x-004",
    "openai_gpt-4-turbo-2024-04-09",
    "google_gemini-1.5-pro-preview-0409",
    "meta_llama-3.2-90b-vision-instruct-turbo",
    "meta_llama-3.1-70b-instruct-turbo",
    "mistralai_mistral-large-2407",
)
KINDS = (
    "ok",
    "wrong_groundtruth",
    "no_correct_answer",
    "multiple_correct_answers",
    "bad_question_clarity",
    "bad_options_clarity",
    "expert",
)
LETTERS = "ABCD"


def error_kind(raw: str) -> str:
    """One of :data:`KINDS` for the experts' spelling (case, spaces, underscores ignored).

    >>> error_kind("Wrong Groundtruth "), error_kind("No correct Answer"), error_kind("Ok")
    ('wrong_groundtruth', 'no_correct_answer', 'ok')
    """
    key = re.sub(r"[\s_]+", "_", raw.strip().lower())
    if key not in KINDS:
        raise ValueError(f"unknown MMLU-Redux error type {raw!r}")
    return key


def option_index(raw: str | None) -> int | None:
    """A 0-based option index from a digit (``"2"``) or a letter (``"C"``); else None.

    >>> option_index("2"), option_index(" c"), option_index(""), option_index("A or B")
    (2, 2, None, None)
    """
    text = (raw or "").strip().upper()
    if len(text) == 1 and text in "0123":
        return int(text)
    if len(text) == 1 and text in LETTERS:
        return LETTERS.index(text)
    return None


def _show(repo: Path, path: str) -> str:
    raw = subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"{COMMIT}:{path}"],
        capture_output=True,
        check=True,
    ).stdout
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("mac_roman")


def _rows(text: str) -> list[dict[str, str]]:
    header = text.split("\n", 1)[0]
    delim = ";" if header.count(";") > header.count(",") else ","
    return list(csv.DictReader(io.StringIO(text), delimiter=delim))


def _norm(text: str) -> str:
    return re.sub(r"\W+", "", text).lower()


def build(repo: Path, out: Path = DATA) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read the 30 v1 subjects from the git directory ``repo``; write and return both tables."""
    items: list[dict[str, object]] = []
    answers: list[dict[str, object]] = []
    for subject in V1_SUBJECTS:
        expert = _rows(_show(repo, f"mmlu_redux/mmlu_{subject}.csv"))
        helm = _rows(_show(repo, f"outputs/multi_expert_helm/{subject}.csv"))
        if len(expert) != len(helm):
            raise ValueError(f"{subject}: {len(expert)} annotated rows, {len(helm)} HELM rows")
        for i, (e, h) in enumerate(zip(expert, helm, strict=True)):
            if _norm(e["question"])[:80] != _norm(h["question"])[:80]:
                raise ValueError(f"{subject} row {i}: the HELM row is another question")
            options = ast.literal_eval(e["choices"])
            if len(options) != 4:
                raise ValueError(f"{subject} row {i}: {len(options)} options")
            key = int(e["answer"])
            item_id = f"{subject}-{i:03d}"
            items.append(
                {
                    "id": item_id,
                    "subject": subject,
                    "question": e["question"],
                    "options": [str(o) for o in options],
                    "key": key,
                    "error": error_kind(e["error_type"]),
                    "expert_answer": option_index(e.get("correct_answer")),
                }
            )
            for model in MODELS:
                letter = (h[model] or "").strip().upper()
                answers.append(
                    {"id": item_id, "model": model, "answer": letter if letter in LETTERS else None}
                )
    out.mkdir(parents=True, exist_ok=True)
    item_frame = pl.DataFrame(items, infer_schema_length=None)
    answer_frame = pl.DataFrame(
        answers, schema={"id": pl.Utf8, "model": pl.Utf8, "answer": pl.Utf8}
    )
    item_frame.write_parquet(out / "items.parquet")
    answer_frame.write_parquet(out / "answers.parquet")
    return item_frame, answer_frame


def load(repo: Path | None, out: Path = DATA) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The cached tables, built from ``repo`` first when missing (or when ``repo`` is given)."""
    if repo is not None:
        return build(repo, out)
    if not (out / "items.parquet").exists():
        raise FileNotFoundError(
            f"{out} is empty: pass --repo, a git directory of github.com/aryopg/mmlu-redux "
            f"holding commit {COMMIT}"
        )
    return pl.read_parquet(out / "items.parquet"), pl.read_parquet(out / "answers.parquet")
