"""Terminal summaries of adjust, convert and leakage, from their canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchcheck.report.numbers import num

__all__ = ["adjust_lines", "contamination_lines", "convert_lines", "leakage_lines"]


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


def _definition_line(p: Mapping[str, Any]) -> str:
    if p["overlap"] == "tokens":
        what = (
            f"share of tokens in matched spans of {p['min_length']}+ tokens "
            f"(first {p['n']} exact, up to {p['skip']} mismatches)"
        )
    else:
        what = f"share of {p['n']}-grams found"

    def cut(v: float, clean: bool) -> str:
        if v == 0:
            return "no overlap" if clean else "any overlap"
        return f"{'<' if clean else '>='} {num(v, 2)}"

    return (
        f"definition {p['definition']}: {what}; clean {cut(p['clean_below'], True)}, "
        f"dirty {cut(p['dirty_from'], False)}"
    )


def _scores_lines(scores: Mapping[str, Any]) -> list[str]:
    level = num(100 * scores["confidence"], 0)
    out = [
        f"scores (mean per item; clean - dirty with a {level}% bootstrap interval, "
        f"{scores['resamples']} resamples; Z as Llama 2's):"
    ]
    for m in scores["models"]:
        s = m["subsets"]

        def cell(name: str, s: Mapping[str, Any] = s) -> str:
            v = s[name]
            return f"{name} {num(v['score'], 3)} (n {v['n']}, Z {num(v['z'], 2)})"

        interval = m["interval"]
        ci = "" if interval is None else f" [{num(interval[0], 3)}, {num(interval[1], 3)}]"
        r = m["rank"]
        out.append(
            f"  {m['model']}: all {num(m['score'], 3)}; "
            + "; ".join(cell(k) for k in ("clean", "not_clean", "not_dirty", "dirty"))
            + f"; clean - dirty {num(m['clean_minus_dirty'], 3)}{ci}; rank all {r['all']}, "
            f"clean {num(r['clean'])}, dirty {num(r['dirty'])}"
        )
    if scores["ranking_changes"]:
        out.append("  the ranking on the clean subset differs from the ranking on all items")
    return out


def leakage_lines(payload: Mapping[str, Any], *, show: int) -> list[str]:
    """Render ``leakage``: definition, subsets, rates, histogram, worst items, scores.

    Lines are rich markup with every input-derived text escaped (item ids, file names and
    model names come from the user's files: ``[bold]`` in an id prints as written).
    """
    from rich.markup import escape

    return [escape(line) for line in _leakage_text(payload, show=show)]


def _leakage_text(payload: Mapping[str, Any], *, show: int) -> list[str]:
    m, corpus, b = payload["metrics"], payload["corpus"], payload["buckets"]
    part = payload["partition"]
    out = [
        f"{payload['n_items']} test items against {corpus['documents']} documents "
        f"({corpus['tokens']} tokens) in {corpus['files']} file(s)",
        _definition_line(payload["parameters"]),
        f"subsets: clean {b['clean']}, not clean {b['not_clean']}, not dirty {b['not_dirty']}, "
        f"dirty {b['dirty']} (clean {part['clean']} / between {part['between']} / dirty "
        f"{part['dirty']}; {payload['n_short_items']} items too short to match)",
        f"contaminated {_pct(m['contaminated_rate'])}: exact {_pct(m['exact_rate'])}, "
        f"normalised {_pct(m['normalised_rate'])}, any overlap {_pct(m['overlap_rate'])}"
        + (f", near {_pct(m['near_rate'])}" if "near_rate" in m else "")
        + f"; mean overlap {num(m['mean_overlap'], 3)}",
    ]
    hist = payload["histogram"]
    top = max(hist["counts"]) or 1
    for lo, hi, c in zip(hist["edges"][:-1], hist["edges"][1:], hist["counts"], strict=True):
        out.append(f"  {num(lo, 1)}-{num(hi, 1)} {'#' * round(30 * c / top):<30} {c}")
    worst = sorted(
        (
            i
            for i in payload["items"]
            if i["overlap"]
            or i["exact_matches"]
            or i["normalised_matches"]
            or i.get("near_matches")
        ),
        key=lambda i: (-i["overlap"], -i["exact_matches"], -i["normalised_matches"]),
    )
    for i in worst[:show]:
        first = i["matches"][0] if i["matches"] else None
        where = (
            f"; first at {first['file']} row {first['row']} token {first['offset']} "
            f"({first['length']} tokens)"
            if first
            else ""
        )
        out.append(
            f"  {i['id']}: overlap {num(i['overlap'], 3)} ({i['bucket']}), exact "
            f"{i['exact_matches']}, normalised {i['normalised_matches']}, "
            f"{i['n_matches']} span(s){where}"
        )
    if "scores" in payload:
        out += _scores_lines(payload["scores"])
    return out


def contamination_lines(payload: Mapping[str, Any], *, show: int) -> list[str]:
    """Render the audit's ``contamination`` as :func:`leakage_lines` (markup escaped).

    ``payload`` holds ``top_items`` (the most contaminated items) in place of ``items``.
    """
    return leakage_lines({**payload, "items": payload["top_items"]}, show=show)
