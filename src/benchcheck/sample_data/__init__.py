"""Sample data bundled with benchcheck (written by its authors, CC0): see each folder's README."""

from pathlib import Path

HERE = Path(__file__).resolve().parent
NER_SAMPLE = HERE / "ner"
PAIR_SAMPLE = HERE / "pair" / "sample.jsonl"
DIAGNOSTIC_SAMPLE = HERE / "diagnostic" / "suite.jsonl"
