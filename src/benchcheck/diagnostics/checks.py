"""Construction checks on a diagnostic suite itself (methods.md section 3).

Per coarse category: the count and the share of each label (GLUE paper, Table 7 view);
both directions labelled; tags the taxonomy does not know; untagged examples; the label
distribution (beside the GLUE diagnostic's 42% / 35% / 23% for NLI labels); minimal sets
(pairs sharing a source sentence with different labels); duplicate pairs. Findings are
stated plainly; none of them is a universal pass/fail.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchcheck.diagnostics.suite import DiagnosticSuite

__all__ = ["GLUE_LABEL_SHARES", "SuiteChecks", "check_suite"]

#: Label distribution of the GLUE diagnostic dataset (Wang et al. 2018).
GLUE_LABEL_SHARES: dict[str, float] = {"entailment": 0.42, "neutral": 0.35, "contradiction": 0.23}


@dataclass(frozen=True)
class SuiteChecks:
    """Results of :func:`check_suite`; ``to_json()`` is the canonical form."""

    suite: Mapping[str, Any]
    label_distribution: Mapping[str, Any]
    categories: Mapping[str, Any]
    fine: Mapping[str, Any]
    directions: Mapping[str, Any]
    unknown_tags: Mapping[str, Any]
    untagged: Mapping[str, Any]
    minimal_sets: Mapping[str, Any]
    duplicates: Mapping[str, Any]
    findings: Sequence[Mapping[str, str]]

    @property
    def warnings(self) -> list[Mapping[str, str]]:
        """Findings at level ``warning``."""
        return [f for f in self.findings if f["level"] == "warning"]

    def to_json(self) -> dict[str, Any]:
        """JSON form, ``kind: check-suite``."""
        return {
            "kind": "check-suite",
            "suite": dict(self.suite),
            "label_distribution": dict(self.label_distribution),
            "categories": dict(self.categories),
            "fine": dict(self.fine),
            "directions": dict(self.directions),
            "unknown_tags": dict(self.unknown_tags),
            "untagged": dict(self.untagged),
            "minimal_sets": dict(self.minimal_sets),
            "duplicates": dict(self.duplicates),
            "findings": [dict(f) for f in self.findings],
        }


def _shares(labels: Sequence[str], names: Sequence[str]) -> dict[str, Any]:
    counts = Counter(labels)
    n = len(labels)
    return {
        "n": n,
        "counts": {lab: counts.get(lab, 0) for lab in names},
        "shares": {lab: (counts.get(lab, 0) / n if n else None) for lab in names},
    }


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().casefold())


def check_suite(suite: DiagnosticSuite, *, max_listed: int = 20) -> SuiteChecks:
    """Run the construction checks; lists of ids are cut at ``max_listed`` (counts are not)."""
    tab = suite.table
    names = list(suite.label_names)
    rows = list(tab.iter_rows(named=True))
    labels = [r["label"] for r in rows]
    findings: list[dict[str, str]] = []

    dist = _shares(labels, names)
    if set(names) == set(GLUE_LABEL_SHARES):
        dist["glue_reference_shares"] = dict(GLUE_LABEL_SHARES)

    categories = {}
    for c in suite.coarse_names():
        categories[c] = _shares([r["label"] for r in rows if c in r["coarse"]], names)
        if categories[c]["n"] == 0:
            findings.append(
                {
                    "level": "info",
                    "check": "categories",
                    "message": f"no example in coarse category {c!r}",
                }
            )
    fine = {
        t: _shares([r["label"] for r in rows if t in r["fine"]], names) for t in suite.fine_names()
    }

    # Directions: every pair should be labelled both ways.
    by_pair: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_pair.setdefault(r["pair_id"], []).append(r)
    both, only_fwd, only_bwd, unpaired = [], [], [], []
    for pid, members in by_pair.items():
        dirs = {m["direction"] for m in members}
        if {"forward", "backward"} <= dirs:
            both.append(pid)
        elif dirs == {"forward"}:
            only_fwd.append(pid)
        elif dirs == {"backward"}:
            only_bwd.append(pid)
        else:
            unpaired.append(pid)
    directions = {
        "n_pairs": len(by_pair),
        "both_labelled": len(both),
        "forward_only": only_fwd[:max_listed],
        "n_forward_only": len(only_fwd),
        "backward_only": only_bwd[:max_listed],
        "n_backward_only": len(only_bwd),
        "unpaired": unpaired[:max_listed],
        "n_unpaired": len(unpaired),
    }
    missing = len(only_fwd) + len(only_bwd) + len(unpaired)
    if missing:
        findings.append(
            {
                "level": "warning",
                "check": "directions",
                "message": f"{missing} of {len(by_pair)} pairs are not labelled in both "
                "directions (a row with no swapped partner counts as unpaired)",
            }
        )

    unknown: dict[str, dict[str, Any]] = {}
    for r in rows:
        for t in r["unknown"]:
            entry = unknown.setdefault(t, {"count": 0, "ids": [], "lines": []})
            entry["count"] += 1
            if len(entry["ids"]) < max_listed:
                entry["ids"].append(r["id"])
                entry["lines"].append(r["line"])
    if unknown:
        findings.append(
            {
                "level": "warning",
                "check": "unknown_tags",
                "message": f"{len(unknown)} tag(s) not in taxonomy "
                f"{suite.taxonomy.name!r}: {sorted(unknown)[:10]}",
            }
        )
    untagged_ids = [r["id"] for r in rows if not r["fine"] and not r["coarse"]]
    untagged = {"count": len(untagged_ids), "ids": untagged_ids[:max_listed]}
    if untagged_ids:
        findings.append(
            {
                "level": "info",
                "check": "untagged",
                "message": f"{len(untagged_ids)} example(s) carry no known tag; they "
                "count only in the overall score",
            }
        )

    # Minimal sets: pairs sharing a source sentence whose labels differ.
    by_source: dict[str, dict[str, tuple[str | None, str | None]]] = {}
    for pid, members in by_pair.items():
        fwd = next((m["label"] for m in members if m["direction"] == "forward"), None)
        bwd = next((m["label"] for m in members if m["direction"] == "backward"), None)
        if fwd is None and bwd is None:
            fwd = members[0]["label"]
        by_source.setdefault(_key(members[0]["source"]), {})[pid] = (fwd, bwd)
    sets: list[dict[str, list[Any]]] = []
    for pairs in by_source.values():
        if len(pairs) > 1 and len(set(pairs.values())) > 1:
            sets.append({"pairs": list(pairs), "labels": [[f, b] for f, b in pairs.values()]})
    in_sets = sum(len(s["pairs"]) for s in sets)
    minimal = {
        "n_sets": len(sets),
        "n_pairs_in_sets": in_sets,
        "share_of_pairs": in_sets / len(by_pair) if by_pair else None,
        "sets": sets[:max_listed],
    }

    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((_key(r["text_a"]), _key(r["text_b"])), []).append(r)
    dups = [g for g in groups.values() if len(g) > 1]
    conflicting = [g for g in dups if len({m["label"] for m in g}) > 1]
    duplicates = {
        "n_groups": len(dups),
        "n_conflicting": len(conflicting),
        "groups": [
            {
                "ids": [m["id"] for m in g],
                "lines": [m["line"] for m in g],
                "labels": [m["label"] for m in g],
            }
            for g in dups[:max_listed]
        ],
    }
    if dups:
        findings.append(
            {
                "level": "warning",
                "check": "duplicates",
                "message": f"{len(dups)} premise/hypothesis pair(s) occur more than "
                f"once, {len(conflicting)} with different labels",
            }
        )
    return SuiteChecks(
        suite=suite.summary(),
        label_distribution=dist,
        categories=categories,
        fine=fine,
        directions=directions,
        unknown_tags=unknown,
        untagged=untagged,
        minimal_sets=minimal,
        duplicates=duplicates,
        findings=findings,
    )
