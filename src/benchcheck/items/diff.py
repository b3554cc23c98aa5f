"""Two audits of one dataset compared, and gates that turn an audit into a CI exit code.

:func:`diff_results` compares two ``results.json`` objects (before/after cleaning, two
releases): every numeric value's change, flags fixed and new, and a significance test where
one applies. What a ``results.json`` allows: it holds *aggregates* (a ratio, a count, an
interval), not the instances, so a bootstrap over instances is not possible from it.
Tests are therefore run on counts:

* a share of instances whose count is known (``flag_rate`` = flagged / n; the per-split
  ``duplicate_ratio``, ``entity_null_rate``, ``text_a/b_duplicate_ratio`` of
  ``n_instances``; ``leakage_ratio``, ``text_leakage_ratio``, ``text_a/b_leakage_ratio``
  of the test split's ``n_instances``): Fisher's exact test on the two 2×2 counts
  (``scipy.stats.fisher_exact``, two-sided). It treats the audits as independent samples,
  which is conservative when they share instances (positively correlated shares);
* flags, when both audits list every flagged id and have the same number of examples: the
  exact McNemar test (``scipy.stats.binomtest(fixed, fixed + new, 0.5)``) on the flags
  fixed and new — a paired test over the same instances, preferred to Fisher's;
* anything else (means, standard deviations, R_K, kappas): no test (``test`` is ``null``
  with the reason); where both audits give an interval, ``intervals_overlap`` is reported
  as a description, not a test.

:func:`evaluate_gates` reads ``--fail-on`` expressions: comma-separated ``NAME OP NUMBER``
with ``OP`` one of ``> >= < <= == !=``; ``NAME`` is a value of the (new) audit — a dotted
path (``stats.metrics.leakage_ratio``) or its last part(s) when that names one value
(``leakage_ratio``: the shortest path ending so wins, the dataset-level one over a split's;
a tie is an error naming the candidates) — or ``change(NAME)`` (new − old, needs two
audits), or ``new_flags`` / ``fixed_flags``. A gate *fails* when its comparison is true
(``leakage_ratio>0.01`` fails an audit that leaks more than 1%). A gate on a value that is
``null`` fails too (fail closed); one on a name the audit lacks is an error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchcheck.errors import UsageError

__all__ = [
    "DiffResult",
    "Gate",
    "GateResult",
    "MetricChange",
    "diff_results",
    "evaluate_gates",
    "flatten",
    "parse_gates",
]

#: Sections of results.json that are not measurements (skipped when flattening).
_SKIP = {"schema_version", "title", "inputs", "analyses", "dimensions", "examples", "files", "diff"}
#: Per-split shares of the split's instances.
SPLIT_SHARES = (
    "duplicate_ratio",
    "entity_null_rate",
    "text_a_duplicate_ratio",
    "text_b_duplicate_ratio",
)
#: Dataset-level shares of the test split's instances.
TEST_SHARES = (
    "leakage_ratio",
    "text_leakage_ratio",
    "text_a_leakage_ratio",
    "text_b_leakage_ratio",
)
_OPS = {
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
_GATE = re.compile(
    r"^\s*(?P<name>[A-Za-z_][\w.()\[\]|:-]*?)\s*(?P<op>>=|<=|==|!=|>|<)\s*(?P<num>[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)\s*$"
)


def flatten(results: Mapping[str, Any]) -> dict[str, float | None]:
    """Every numeric value of a results object by dotted path (lists and text skipped).

    >>> flatten({"stats": {"metrics": {"a": 0.5, "b": None}, "task": "ner"}, "inputs": {"x": 1}})
    {'stats.metrics.a': 0.5, 'stats.metrics.b': None}
    """
    out: dict[str, float | None] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                if not prefix and k in _SKIP:
                    continue
                if k in ("examples", "dimensions"):
                    continue
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, bool):
            return
        elif isinstance(value, (int, float)):
            out[prefix] = float(value) if math.isfinite(value) else None
        elif value is None and prefix.count(".") >= 1:
            out[prefix] = None

    walk("", results)
    return out


@dataclass(frozen=True)
class MetricChange:
    """One value in both audits (either side ``None`` when absent or undefined)."""

    path: str
    old: float | None
    new: float | None
    better: str | None
    test: str | None
    p_value: float | None
    why: str | None
    intervals_overlap: bool | None = None

    @property
    def change(self) -> float | None:
        """``new - old`` where both are defined."""
        if self.old is None or self.new is None:
            return None
        return self.new - self.old

    def to_json(self) -> dict[str, Any]:
        """Return the entry of ``diff --json``."""
        rel = None
        if self.change is not None and self.old not in (None, 0.0):
            rel = self.change / abs(self.old)  # type: ignore[arg-type]
        worse = None
        if self.change is not None and self.better in ("higher", "lower") and self.change != 0:
            worse = (self.change < 0) if self.better == "higher" else (self.change > 0)
        return {
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "change": self.change,
            "relative_change": rel,
            "better": self.better,
            "worse": worse,
            "test": self.test,
            "p_value": self.p_value,
            "why_no_test": self.why,
            "intervals_overlap": self.intervals_overlap,
        }


@dataclass(frozen=True)
class DiffResult:
    """Two audits compared: changed values, flags fixed and new, notes."""

    metrics: tuple[MetricChange, ...]
    flags: dict[str, Any] | None
    same_dataset: bool | None
    notes: tuple[str, ...] = field(default=())

    def values(self) -> dict[str, float | None]:
        """``path → change`` (for ``change(NAME)`` gates)."""
        return {m.path: m.change for m in self.metrics}

    def to_json(self, *, changed_only: bool = False) -> dict[str, Any]:
        """Return the ``diff`` object (``changed_only``: leave out values that did not change)."""
        rows = [
            m
            for m in self.metrics
            if not changed_only or m.change != 0 or m.old is None or m.new is None
        ]
        return {
            "same_dataset": self.same_dataset,
            "n_values": len(self.metrics),
            "n_changed": sum(1 for m in self.metrics if m.change not in (0.0, None)),
            "metrics": [m.to_json() for m in rows],
            "flags": self.flags,
            "notes": list(self.notes),
        }


def _better(results: Mapping[str, Any], path: str) -> str | None:
    parts = path.split(".")
    key = parts[-1]
    for section in ("stats", "table_stats"):
        dims = (results.get(section) or {}).get("dimensions") or {}
        if parts[0] == section and key in dims:
            return str(dims[key].get("better"))
    return None


def _share_count(results: Mapping[str, Any], path: str, value: float) -> tuple[int, int] | None:
    """``(count, n)`` behind a share of instances, or None when the path is not one."""
    parts = path.split(".")
    if path == "label_errors.summary.flag_rate":
        s = results["label_errors"]["summary"]
        return int(s["flagged"]), int(s["n"])
    if len(parts) == 4 and parts[0] in ("stats", "table_stats") and parts[1] == "splits":
        if parts[3] in SPLIT_SHARES:
            n = results[parts[0]]["splits"][parts[2]].get("n_instances")
            if isinstance(n, int) and n > 0:
                return int(round(value * n)), n
    if len(parts) == 3 and parts[0] in ("stats", "table_stats") and parts[1] == "metrics":
        if parts[2] in TEST_SHARES:
            test = (results[parts[0]].get("splits") or {}).get("test") or {}
            n = test.get("n_instances")
            if isinstance(n, int) and n > 0:
                return int(round(value * n)), n
    return None


def _intervals(results: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    """Intervals a results object carries, keyed by the path of their point value."""
    out: dict[str, tuple[float, float]] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping):
            ci = value.get("ci")
            if (
                isinstance(ci, list)
                and len(ci) == 2
                and all(isinstance(v, (int, float)) for v in ci)
            ):
                for point in ("r_k", "cronbach_alpha", "kappa"):
                    if isinstance(value.get(point), (int, float)):
                        out[f"{prefix}.{point}"] = (float(ci[0]), float(ci[1]))
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)

    walk("", results)
    return out


def _flag_ids(results: Mapping[str, Any]) -> tuple[set[str], bool, int] | None:
    le = results.get("label_errors")
    if not le:
        return None
    ids = {str(e.get("id")) for e in le.get("examples") or []}
    complete = int(le.get("examples_total") or 0) == len(ids)
    return ids, complete, int((le.get("summary") or {}).get("n") or 0)


def diff_results(old: Mapping[str, Any], new: Mapping[str, Any]) -> DiffResult:
    """Compare two results objects (see the module docstring for the tests)."""
    from scipy.stats import binomtest, fisher_exact

    a, b = flatten(old), flatten(new)
    notes: list[str] = []
    same = None
    in_old, in_new = old.get("inputs") or {}, new.get("inputs") or {}
    if in_old and in_new:
        same = in_old == in_new
        if not same:
            notes.append(
                "the audits name different inputs (expected for before/after cleaning); "
                "check they are audits of one dataset"
            )
    flags = None
    fo, fn = _flag_ids(old), _flag_ids(new)
    mcnemar: tuple[float, int, int] | None = None
    if fo is not None and fn is not None:
        (ids_o, comp_o, n_o), (ids_n, comp_n, n_n) = fo, fn
        fixed, added = sorted(ids_o - ids_n), sorted(ids_n - ids_o)
        complete = comp_o and comp_n
        flags = {
            "fixed": fixed,
            "new": added,
            "n_fixed": len(fixed),
            "n_new": len(added),
            "n_still_flagged": len(ids_o & ids_n),
            "complete": complete,
        }
        if not complete:
            notes.append(
                "an audit lists only its first flagged examples: flags fixed/new are counted "
                "among the listed ones"
            )
        if complete and n_o == n_n and n_o > 0 and fixed + added:
            p = binomtest(len(fixed), len(fixed) + len(added), 0.5).pvalue
            mcnemar = (float(p), len(fixed), len(added))
    ci_o, ci_n = _intervals(old), _intervals(new)
    rows = []
    for path in list(a) + [p for p in b if p not in a]:
        va, vb = a.get(path), b.get(path)
        test = p_value = why = None
        if va is None or vb is None:
            why = "not defined in both audits"
        elif path == "label_errors.summary.flag_rate" and mcnemar is not None:
            test, p_value = "mcnemar_exact", mcnemar[0]
        else:
            ca, cb = _share_count(old, path, va), _share_count(new, path, vb)
            if ca is not None and cb is not None:
                table = [[ca[0], ca[1] - ca[0]], [cb[0], cb[1] - cb[0]]]
                test, p_value = "fisher_exact", float(fisher_exact(table).pvalue)
            else:
                why = "an aggregate without its instance counts: no test from results.json"
        overlap = None
        if path in ci_o and path in ci_n:
            (lo1, hi1), (lo2, hi2) = ci_o[path], ci_n[path]
            overlap = not (hi1 < lo2 or hi2 < lo1)
        rows.append(MetricChange(path, va, vb, _better(new, path), test, p_value, why, overlap))
    return DiffResult(tuple(rows), flags, same, tuple(notes))


@dataclass(frozen=True)
class Gate:
    """One ``--fail-on`` expression: fail when ``value OP threshold`` holds."""

    text: str
    name: str
    op: str
    threshold: float
    change: bool


@dataclass(frozen=True)
class GateResult:
    """A gate evaluated: the path it resolved to, the value, and whether it failed."""

    gate: Gate
    path: str | None
    value: float | None
    failed: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        """Return the entry of ``gates`` in the JSON."""
        return {
            "expression": self.gate.text,
            "path": self.path,
            "value": self.value,
            "failed": self.failed,
            "reason": self.reason,
        }


def parse_gates(text: str) -> tuple[Gate, ...]:
    """Parse comma-separated gate expressions.

    >>> gates = parse_gates("leakage_ratio>0.01, change(flag_rate)>=0")
    >>> [(g.name, g.op, g.threshold, g.change) for g in gates]
    [('leakage_ratio', '>', 0.01, False), ('flag_rate', '>=', 0.0, True)]
    """
    gates = []
    for part in (p for p in text.split(",") if p.strip()):
        m = _GATE.match(part)
        if not m:
            raise UsageError(
                f"{{fail_on}}: cannot read {part.strip()!r}; expected NAME OP NUMBER with OP one "
                "of > >= < <= == != (e.g. leakage_ratio>0.01 or change(flag_rate)>0)"
            )
        name = m["name"]
        change = name.startswith("change(") and name.endswith(")")
        if change:
            name = name[len("change(") : -1]
        threshold = float(m["num"])
        if not math.isfinite(threshold):
            raise UsageError(
                f"{{fail_on}}: {part.strip()!r}: the number {m['num']} is not finite (a gate "
                "on it can never or always hold); expected a finite number"
            )
        gates.append(Gate(part.strip(), name, m["op"], threshold, change))
    if not gates:
        raise UsageError("{fail_on} holds no expression")
    return tuple(gates)


def _resolve(name: str, values: Mapping[str, float | None]) -> str:
    if name in values:
        return name
    hits = [p for p in values if p.endswith("." + name)]
    if not hits:
        raise UsageError(f"{{fail_on}}: no value named {name!r} in the audit")
    depth = min(p.count(".") for p in hits)
    best = sorted(p for p in hits if p.count(".") == depth)
    if len(best) > 1:
        raise UsageError(
            f"{{fail_on}}: {name!r} names several values ({', '.join(best[:6])}); give a "
            "longer path"
        )
    return best[0]


def evaluate_gates(
    gates: Sequence[Gate],
    results: Mapping[str, Any],
    diff: DiffResult | None = None,
) -> tuple[GateResult, ...]:
    """Evaluate gates on ``results`` (the new audit) and, for ``change(...)``, on ``diff``.

    >>> g = parse_gates("leakage_ratio>0.01")
    >>> r = evaluate_gates(g, {"stats": {"metrics": {"leakage_ratio": 0.25}}})
    >>> r[0].path, r[0].failed
    ('stats.metrics.leakage_ratio', True)
    """
    values = flatten(results)
    counters: dict[str, float | None] = {}
    if diff is not None and diff.flags is not None:
        counters = {
            "new_flags": float(diff.flags["n_new"]),
            "fixed_flags": float(diff.flags["n_fixed"]),
        }
    out = []
    for g in gates:
        if g.name in ("new_flags", "fixed_flags"):
            if diff is None:
                raise UsageError(f"{{fail_on}}: {g.name} needs two audits (a diff)")
            if g.name not in counters:
                raise UsageError(f"{{fail_on}}: {g.name}: the audits hold no label-error flags")
            path, value = g.name, counters[g.name]
        elif g.change:
            if diff is None:
                raise UsageError(f"{{fail_on}}: change({g.name}) needs two audits (a diff)")
            changes = diff.values()
            path = _resolve(g.name, changes)
            value = changes[path]
        else:
            path = _resolve(g.name, values)
            value = values[path]
        if value is None:
            out.append(GateResult(g, path, None, True, "value undefined (null): failed closed"))
            continue
        failed = bool(_OPS[g.op](value, g.threshold))
        verdict = "failed" if failed else "passed"
        out.append(
            GateResult(
                g,
                path,
                value,
                failed,
                f"{value:g} {g.op} {g.threshold:g}: {verdict}"
                if failed
                else f"not ({value:g} {g.op} {g.threshold:g}): passed",
            )
        )
    return tuple(out)
