"""Terminal summaries of adjust, convert and leakage, from their canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchcheck.report.numbers import num

__all__ = ["adjust_lines", "convert_lines", "leakage_lines"]


def adjust_lines(payload: Mapping[str, Any]) -> list[str]:
    """Render ``adjust``: the source value, then target → achieved and what moved, per subset."""
    source = payload["source_value"]
    out = [
        f"{payload['metric']} on {payload['split']} (size {payload['size']}, seed "
        f"{payload['seed']}; source value {'–' if source is None else f'{num(source, 4)}'})"
    ]
    for sub in payload["subsets"]:
        moved = ", ".join(
            f"{k} {num(v, 4)}"
            for k, v in sub["shift"].items()
            if k in ("length_ks", "entity_type_tvd", "label_tvd") and v is not None
        )
        out.append(
            f"  target {num(sub['target'], 4)} → achieved {num(sub['achieved'], 4)} "
            f"({sub['n']} instances; moved: {moved}) → {sub['file']}"
        )
    return out


def convert_lines(payload: Mapping[str, Any], root: str) -> list[str]:
    """Render ``convert``: sentences, tokens and shards per split, then the folder."""
    out = [
        f"{name}: {info['n_sentences']} sentences, {info['n_tokens']} tokens "
        f"in {info['n_shards']} shard(s)"
        for name, info in payload["splits"].items()
    ]
    return [*out, f"wrote {root}"]


def _pct(v: float | None) -> str:
    text = num(None if v is None else 100 * v, 2)
    return text if text == num(None) else f"{text}%"


def leakage_lines(payload: Mapping[str, Any], *, show: int) -> list[str]:
    """Render ``leakage``: the rates, then the first ``show`` contaminated items."""
    m, n, corpus = payload["metrics"], payload["n"], payload["corpus"]
    out = [
        f"{payload['n_items']} test items against {corpus['documents']} documents "
        f"in {corpus['files']} file(s); n = {n}",
        f"contaminated {_pct(m['contaminated_rate'])}: exact {_pct(m['exact_rate'])}, "
        f"normalised {_pct(m['normalised_rate'])}, {n}-gram {_pct(m['ngram_rate'])} "
        f"({payload['n_short_items']} items shorter than {n} words)",
    ]
    for i in [i for i in payload["items"] if i["contaminated"]][:show]:
        out.append(
            f"  {i['id']}: exact {i['exact_matches']}, normalised {i['normalised_matches']}, "
            f"{n}-gram overlap {num(i['ngram_overlap'], 2)}"
        )
    return out
