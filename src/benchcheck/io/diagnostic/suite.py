"""Readers for phenomenon-tagged diagnostic suites and for model predictions on them.

Two suite formats, both read into a ``pair`` :class:`~benchcheck.data.Dataset` with one split,
``diagnostic``, one row per *direction* (methods.md section 3):

- **GLUE diagnostic TSV** (``diagnostic-full.tsv``): columns ``Lexical Semantics``,
  ``Predicate-Argument Structure``, ``Logic``, ``Knowledge``, ``Domain``, ``Premise``,
  ``Hypothesis``, ``Label``; fine tags ``;``-separated inside each coarse column; one row per
  direction. Rows are paired by swapping premise and hypothesis: the first row of a pair is
  ``forward``, its swap ``backward``; a row without a swapped partner has no direction.
  Any other column than ``id``/``index``, ``Domain``, ``Premise``, ``Hypothesis`` and
  ``Label`` is read as a coarse category, so other domains' suites fit the same form.
  Example ids are the 0-based row numbers (GLUE's ``index``) unless an ``id``/``index``
  column exists.
- **JSONL**: ``{"id", "sentence1", "sentence2", "forward", "backward", "tags": [...],
  "domain"}``, expanded to two examples with ids ``<id>:forward`` (sentence 1 is the
  premise) and ``<id>:backward``; a ``null`` backward label leaves only the forward example.

The split's table has the columns ``id``, ``pair_id``, ``direction`` (``forward``,
``backward`` or null), ``text_a`` (premise), ``text_b`` (hypothesis), ``label``, ``tags``
(fine tags as written), ``tag_coarse`` (the coarse column each tag came from, null in
JSONL), ``source`` (the pair's sentence 1), ``domain`` and ``line``. Tags are resolved
against a taxonomy later, in :mod:`benchcheck.diagnostics`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from benchcheck.data.model import Dataset, Split
from benchcheck.data.taxonomy import Taxonomy
from benchcheck.errors import InputError
from benchcheck.io._text import HugeNumber, json_int
from benchcheck.io.diagnostic._rows import (
    _cell,
    _read_delimited,
    _read_jsonl_objects,
    _split_tags,
)

#: Label order of the three-way NLI task (also the index order of GLUE/MNLI models).
NLI_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")


_META = {"id", "index", "domain", "premise", "hypothesis", "label", "sentence1", "sentence2"}


_SCHEMA: dict[str, Any] = {
    "id": pl.String,
    "pair_id": pl.String,
    "direction": pl.String,
    "text_a": pl.String,
    "text_b": pl.String,
    "label": pl.String,
    "tags": pl.List(pl.String),
    "tag_coarse": pl.List(pl.String),
    "source": pl.String,
    "domain": pl.String,
    "line": pl.Int64,
}


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=_SCHEMA)


def _check_labels(rows: list[dict[str, Any]], path: Path) -> None:
    """Refuse a suite that mixes NLI labels with others (a typo such as ``entailmnet``).

    A suite whose labels are all NLI labels is an NLI suite; one with none of them is a
    suite of another task (``safe``/``unsafe``); a mix is an error naming the first line
    whose label is not one of the three.
    """
    labels = {r["label"] for r in rows}
    if not labels & set(NLI_LABELS) or labels <= set(NLI_LABELS):
        return
    bad = next(r for r in rows if r["label"] not in NLI_LABELS)
    raise InputError(
        f"label is not one of the NLI labels {', '.join(NLI_LABELS)}, which the suite's other "
        "labels are",
        path=path,
        line=bad["line"],
        got=bad["label"],
    )


def _dataset(rows: list[dict[str, Any]], path: Path, fmt: str) -> Dataset:
    _check_labels(rows, path)
    table = _frame(rows)
    split = Split(name="diagnostic", source=str(path), table=table)
    return Dataset(
        task="pair",
        splits={"diagnostic": split},
        name=path.stem,
        label_names=suite_label_names(table["label"].to_list()),
        meta={"format": fmt},
    )


def suite_label_names(labels: Sequence[str | None]) -> tuple[str, ...]:
    """Label order of a suite: the NLI order when every label is an NLI label, else sorted.

    >>> suite_label_names(["neutral", "entailment"])
    ('entailment', 'neutral', 'contradiction')
    >>> suite_label_names(["unsafe", "safe"])
    ('safe', 'unsafe')
    """
    seen = {lab for lab in labels if lab is not None}
    if seen <= set(NLI_LABELS):
        return NLI_LABELS
    return tuple(sorted(seen))


def _norm_label(value: str) -> str:
    text = value.strip()
    return text.casefold() if text.casefold() in NLI_LABELS else text


def read_glue_diagnostic_tsv(path: str | Path) -> Dataset:
    """Read the GLUE diagnostic TSV (one row per direction; see the module docstring)."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    header, rows = _read_delimited(path, "\t")
    lower = [h.casefold() for h in header]
    for need in ("premise", "hypothesis", "label"):
        if need not in lower:
            raise InputError(
                f"no column {need.capitalize()!r}; the GLUE diagnostic TSV has Premise, "
                f"Hypothesis, Label and one column per coarse category; the file has {header}",
                path=path,
                line=1,
            )
    col = {name: lower.index(name) for name in _META if name in lower}
    coarse_cols = [(i, h) for i, h in enumerate(header) if h.casefold() not in _META and h]
    id_col = col.get("id", col.get("index"))
    out: list[dict[str, Any]] = []
    waiting: dict[tuple[str, str], list[int]] = {}
    seen_ids: set[str] = set()
    for number, (line, cells) in enumerate(rows):
        if len(cells) < len(header):
            cells = cells + [""] * (len(header) - len(cells))
        if len(cells) > len(header):
            raise InputError(
                f"expected {len(header)} tab-separated columns, found {len(cells)}",
                path=path,
                line=line,
            )
        premise = _cell(cells[col["premise"]])
        hypothesis = _cell(cells[col["hypothesis"]])
        label = _cell(cells[col["label"]])
        if premise is None or hypothesis is None:
            raise InputError("empty Premise or Hypothesis", path=path, line=line)
        if label is None:
            raise InputError(
                "empty Label: a diagnostic suite needs gold labels", path=path, line=line
            )
        ex_id = str(number) if id_col is None else (_cell(cells[id_col]) or str(number))
        if ex_id in seen_ids:
            raise InputError("ids must be unique", path=path, line=line, got=ex_id)
        seen_ids.add(ex_id)
        tags: list[str] = []
        coarse: list[str] = []
        for i, name in coarse_cols:
            for tag in _split_tags(cells[i]):
                tags.append(tag)
                coarse.append(name)
        row = {
            "id": ex_id,
            "pair_id": ex_id,
            "direction": None,
            "text_a": premise,
            "text_b": hypothesis,
            "label": _norm_label(label),
            "tags": tags,
            "tag_coarse": coarse,
            "source": premise,
            "domain": _cell(cells[col["domain"]]) if "domain" in col else None,
            "line": line,
        }
        partner = waiting.get((hypothesis, premise))
        if partner and premise != hypothesis:
            first = out[partner.pop(0)]
            first["direction"] = "forward"
            row.update(direction="backward", pair_id=first["pair_id"], source=first["text_a"])
        else:
            waiting.setdefault((premise, hypothesis), []).append(len(out))
        out.append(row)
    if not out:
        raise InputError("no examples after the header", path=path)
    return _dataset(out, path, "glue-tsv")


def read_diagnostic_jsonl(path: str | Path) -> Dataset:
    """Read our JSONL suite form, expanding each pair into forward and backward examples."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for line, obj in _read_jsonl_objects(path):
        for key in ("id", "sentence1", "sentence2", "forward"):
            if _cell(obj.get(key)) is None:
                raise InputError(
                    f"missing {key!r}; expected {{id, sentence1, sentence2, forward, backward, "
                    "tags, domain}",
                    path=path,
                    line=line,
                )
        pair_id = str(obj["id"]).strip()
        if pair_id in seen:
            raise InputError("ids must be unique", path=path, line=line, got=pair_id)
        seen.add(pair_id)
        raw_tags = obj.get("tags", [])
        if isinstance(raw_tags, str):
            tags = _split_tags(raw_tags)
        elif isinstance(raw_tags, list) and all(isinstance(t, str) for t in raw_tags):
            tags = [t.strip() for t in raw_tags if t.strip()]
        else:
            raise InputError("'tags' must be a list of strings", path=path, line=line, got=raw_tags)
        s1, s2 = str(obj["sentence1"]).strip(), str(obj["sentence2"]).strip()
        domain = _cell(obj.get("domain"))
        for direction, premise, hypothesis in (("forward", s1, s2), ("backward", s2, s1)):
            raw = obj.get(direction)
            if isinstance(raw, list | dict):
                kind = "a list" if isinstance(raw, list) else "an object"
                raise InputError(
                    f"{direction!r} must be one label (a string), not {kind}",
                    path=path,
                    line=line,
                    got=raw,
                )
            label = _cell(raw)
            if label is None:
                continue
            out.append(
                {
                    "id": f"{pair_id}:{direction}",
                    "pair_id": pair_id,
                    "direction": direction,
                    "text_a": premise,
                    "text_b": hypothesis,
                    "label": _norm_label(label),
                    "tags": tags,
                    "tag_coarse": [None] * len(tags),
                    "source": s1,
                    "domain": domain,
                    "line": line,
                }
            )
    return _dataset(out, path, "jsonl")


def read_diagnostic(path: str | Path) -> Dataset:
    """Read a suite: ``.tsv`` as the GLUE diagnostic TSV, ``.jsonl``/``.json`` as our JSONL."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        return read_glue_diagnostic_tsv(path)
    if suffix in (".jsonl", ".ndjson", ".json"):
        return read_diagnostic_jsonl(path)
    raise InputError(
        "unknown suite format; expected .tsv (GLUE diagnostic) or .jsonl (benchcheck form)",
        path=path,
    )


def looks_like_suite(path: str | Path) -> bool:
    """Whether a file's first line is a GLUE diagnostic header or a benchcheck suite row."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        with path.open(encoding="utf-8-sig") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError):
        return False
    if suffix == ".tsv":
        cols = {c.strip().casefold() for c in first.split("\t")}
        return {"premise", "hypothesis", "label"} <= cols
    if suffix in (".jsonl", ".ndjson", ".json"):
        try:
            obj = json.loads(first, parse_int=json_int)
        except (json.JSONDecodeError, HugeNumber):  # the reader names a huge number's line
            return False
        return isinstance(obj, dict) and {"sentence1", "sentence2", "forward"} <= set(obj)
    return False


def load_taxonomy(path: str | Path) -> Taxonomy:
    """Read a taxonomy from a TOML or JSON file (see the module docstring for the form)."""
    from benchcheck.io._text import loads_json, nested_too_deeply, read_text_file

    path = Path(path)
    if not path.exists():
        raise InputError("taxonomy file not found", path=path)
    text = read_text_file(path)
    try:
        if path.suffix.lower() == ".toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            data = loads_json(text, path)
    except InputError:
        raise
    except RecursionError:
        raise nested_too_deeply(path) from None
    except Exception as exc:  # noqa: BLE001 - tomllib and json raise different errors
        line = getattr(exc, "lineno", None)
        raise InputError(f"cannot parse taxonomy: {exc}", path=path, line=line) from None
    if not isinstance(data, dict):
        raise InputError("expected a mapping of coarse category → list of tags", path=path)
    name = str(data.get("name", path.stem))
    raw = data.get("categories", {k: v for k, v in data.items() if k not in ("name", "aliases")})
    aliases = data.get("aliases", {})
    if not isinstance(raw, dict) or not raw:
        raise InputError("expected [categories] mapping coarse category → list of tags", path=path)
    for coarse, tags in raw.items():
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise InputError(
                f"category {coarse!r}: expected a list of tag names", path=path, got=tags
            )
    try:
        tax = Taxonomy.from_mapping(raw, name=name)
        return Taxonomy(tax.categories, name, {str(k): str(v) for k, v in aliases.items()})
    except ValueError as exc:
        raise InputError(str(exc), path=path) from None
