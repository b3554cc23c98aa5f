"""A small planted contamination case whose every number can be checked by hand.

Six test items of 20 distinct words each (every item its own vocabulary, so no n-gram is
shared by chance) and a corpus of four documents:

- ``d1``: whole inside document 0, between other words → overlap 20/20 = 1, dirty;
- ``d2``: document 1 is exactly the item → overlap 1, dirty, one exact match;
- ``h1``: its first 10 words open document 2, then 10 words of its own → overlap
  10/20 = 0.5 (Llama 2: one span of 10 tokens; the 10 words after it differ, and a span
  never ends on a mismatch) → not clean and not dirty;
- ``c1``, ``c2``, ``c3``: nowhere → overlap 0, clean.

Two models answer the labels: ``memo`` right on d1, d2, h1, c3 (wrong on c1, c2), ``honest``
right on h1, c1, c2, c3 (wrong on d1, d2): both 4/6 on all items; on the clean subset memo
1/3, honest 1; on the dirty subset memo 1, honest 0; clean − dirty −2/3 and +1; ranks on all
items tie (1, 1), on clean 2 and 1: the ranking changes.
"""

from __future__ import annotations

import json
from pathlib import Path

ITEMS = ("d1", "d2", "h1", "c1", "c2", "c3")
LABELS = {"d1": "x", "d2": "y", "h1": "x", "c1": "y", "c2": "x", "c3": "y"}
RIGHT = {
    "memo": {"d1", "d2", "h1", "c3"},
    "honest": {"h1", "c1", "c2", "c3"},
}
#: What the case plants, per item: (overlap share, bucket).
PLANTED = {
    "d1": (1.0, "dirty"),
    "d2": (1.0, "dirty"),
    "h1": (0.5, "between"),
    "c1": (0.0, "clean"),
    "c2": (0.0, "clean"),
    "c3": (0.0, "clean"),
}


def _words(item: str) -> list[str]:
    return [f"{item}w{k}" for k in range(20)]


def contamination_case(folder: Path) -> dict[str, Path]:
    """Write ``test.jsonl``, ``corpus/part-0.jsonl`` and ``memo.jsonl``/``honest.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"test": folder / "test.jsonl", "corpus": folder / "corpus" / "part-0.jsonl"}
    with paths["test"].open("w", encoding="utf-8") as f:
        for i in ITEMS:
            f.write(json.dumps({"id": i, "text": " ".join(_words(i)), "label": LABELS[i]}) + "\n")
    docs = [
        "intro words " + " ".join(_words("d1")) + " outro",
        " ".join(_words("d2")),
        " ".join(_words("h1")[:10]) + " " + " ".join(f"other{k}" for k in range(10)),
        "a document about nothing in particular",
    ]
    paths["corpus"].parent.mkdir(exist_ok=True)
    with paths["corpus"].open("w", encoding="utf-8") as f:
        for k, doc in enumerate(docs):
            f.write(json.dumps({"doc": f"doc{k}", "text": doc}) + "\n")
    for model, right in RIGHT.items():
        paths[model] = folder / f"{model}.jsonl"
        with paths[model].open("w", encoding="utf-8") as f:
            for i in ITEMS:
                wrong = "y" if LABELS[i] == "x" else "x"
                f.write(json.dumps({"id": i, "pred": LABELS[i] if i in right else wrong}) + "\n")
    return paths
