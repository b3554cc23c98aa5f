"""Every metric of the table has an up-to-date card in docs/metrics/."""

import importlib.util
from pathlib import Path

import pytest

from benchcheck.metrics.table import BY_NAME

ROOT = Path(__file__).resolve().parents[2]


def _cards_module():
    spec = importlib.util.spec_from_file_location(
        "make_metric_cards", ROOT / "scripts" / "make_metric_cards.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_card_is_current(name):
    path = ROOT / "docs" / "metrics" / f"{name}.md"
    assert path.exists(), f"no card for {name}: run python scripts/make_metric_cards.py"
    assert path.read_text(encoding="utf-8") == _cards_module().card(name), (
        f"{path.name} is stale: run python scripts/make_metric_cards.py"
    )
