"""Write one card per registered metric into docs/metrics/ (run after changing a metric).

Each card is rendered from the metric registry and the function's docstring, so the docs
say exactly what the code does; tests/docs/test_metric_cards.py fails when a card is stale.
Run: python scripts/make_metric_cards.py
"""

from __future__ import annotations

import inspect
from pathlib import Path

from benchcheck.metrics.registry import REGISTRY, _load

ROOT = Path(__file__).resolve().parent.parent / "docs" / "metrics"


def card(name: str) -> str:
    """Render the Markdown card of one metric."""
    spec = REGISTRY[name]
    doc = inspect.cleandoc(spec.function.__doc__ or "").split(">>>")[0].strip()
    arrow = "↑ higher is better" if spec.better == "higher" else "↓ lower is better"
    scope = {
        "split": "each split (and their mean over the splits present)",
        "cross": "the dataset as a whole (named splits)",
        "scores": "a list of model scores",
    }[spec.scope]
    return (
        f"# {spec.title} (`{name}`)\n\n"
        f"- dimension: **{spec.dimension}**, {arrow}\n"
        f"- task kinds: {', '.join(spec.tasks)}\n"
        f"- computed on: {scope}\n"
        f"- definition: {spec.definition}\n\n"
        f"{doc}\n\n"
        f"Code: `{spec.function.__module__}.{spec.function.__name__}`.\n"
    )


def main() -> None:
    """Write every card and an index."""
    _load()
    ROOT.mkdir(parents=True, exist_ok=True)
    lines = ["# Metric cards", "", "| metric | dimension | better |", "|---|---|---|"]
    for name, spec in REGISTRY.items():
        (ROOT / f"{name}.md").write_text(card(name), encoding="utf-8")
        lines.append(f"| [{spec.title}]({name}.md) | {spec.dimension} | {spec.better} |")
    (ROOT / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
