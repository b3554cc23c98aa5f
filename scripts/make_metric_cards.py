"""Write one card per metric of the table into docs/metrics/ (run after changing a metric).

Each card is rendered from the metric table and the function's docstring, so the docs say
exactly what the code does; tests/docs/test_metric_cards.py fails when a card is stale.
Run: python scripts/make_metric_cards.py
"""

from __future__ import annotations

import inspect
from pathlib import Path

from benchcheck.metrics.spec import IndicatorShare, MetricSpec, SurfaceShare
from benchcheck.metrics.table import BY_NAME, METRICS

ROOT = Path(__file__).resolve().parent.parent / "docs" / "metrics"

SCOPES = {
    "split": "each split (and their mean over the splits present)",
    "cross": "a target split against reference splits ({references})",
    "pooled": "all splits pooled",
    "scores": "a list of model scores",
    "near_duplicates": "the near-duplicate analysis (`stats --near-duplicates`)",
    "semantic_duplicates": "the semantic-duplicate analysis (`stats --semantic-duplicates`)",
}


def _adjuster(spec: MetricSpec) -> str:
    a = spec.adjuster
    if a is None:
        return ""
    if isinstance(a, IndicatorShare):
        how = f"draws {a.marked} and other instances in the target proportion"
    elif isinstance(a, SurfaceShare):
        how = f"chooses sentences by their {a.marked} entity surfaces"
    else:
        how = "sets the label counts"
    command = f"`benchcheck adjust --metric {spec.name}`"
    return f"- adjustable: {command} {how} ([adjustment](adjustment.md))\n"


def card(name: str) -> str:
    """Render the Markdown card of one metric."""
    spec = BY_NAME[name]
    doc = inspect.cleandoc(spec.function.__doc__ or "").split(">>>")[0].strip()
    arrow = "↑ higher is better" if spec.better == "higher" else "↓ lower is better"
    refs = "every other split" if spec.references is None else " and ".join(spec.references)
    target = "stats: test" if spec.in_stats else "the split"
    scope = SCOPES[spec.scope].format(references=f"{target} against {refs}")
    reported = "" if spec.in_stats or spec.scope != "cross" else "- not in `stats` output\n"
    return (
        f"# {spec.title} (`{name}`)\n\n"
        f"- dimension: **{spec.dimension}**, {arrow}\n"
        f"- task kinds: {', '.join(spec.tasks)}\n"
        f"- computed on: {scope}\n"
        f"- definition: {spec.definition}\n"
        f"- null when not defined; it {spec.needs}\n"
        f"{reported}{_adjuster(spec)}\n"
        f"{doc}\n\n"
        f"Code: `{spec.function.__module__}.{spec.function.__name__}`.\n"
    )


def main() -> None:
    """Write every card and an index."""
    ROOT.mkdir(parents=True, exist_ok=True)
    lines = ["# Metric cards", "", "| metric | dimension | better |", "|---|---|---|"]
    for spec in METRICS:
        (ROOT / f"{spec.name}.md").write_text(card(spec.name), encoding="utf-8")
        lines.append(f"| [{spec.title}]({spec.name}.md) | {spec.dimension} | {spec.better} |")
    (ROOT / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
