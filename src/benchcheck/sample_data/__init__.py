"""Sample data bundled with benchcheck: see each folder's README for its source and licence.

ner, pair, diagnostic: written by the benchcheck authors, CC0. mcq: 48 MMLU questions (MIT)
with MMLU-Redux's annotation and 14 HELM models' answers (CC BY 4.0).
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
NER_SAMPLE = HERE / "ner"
PAIR_SAMPLE = HERE / "pair" / "sample.jsonl"
DIAGNOSTIC_SAMPLE = HERE / "diagnostic" / "suite.jsonl"
MCQ_SAMPLE = HERE / "mcq" / "questions.jsonl"
MCQ_ANSWERS = HERE / "mcq" / "answers.csv"
MCQ_EXPERTS = HERE / "mcq" / "experts.csv"
