"""A diagnostic suite: examples (one per direction) with tags resolved against a taxonomy."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from benchcheck.data import Dataset
from benchcheck.diagnostics.taxonomy import GLUE_TAXONOMY, Taxonomy

__all__ = ["DiagnosticSuite", "suite_from_dataset"]


@dataclass(frozen=True)
class DiagnosticSuite:
    """Examples of a tagged suite, one row per direction.

    ``table`` has the reader's columns (``id``, ``pair_id``, ``direction``, ``text_a`` =
    premise, ``text_b`` = hypothesis, ``label``, ``tags``, ``source``, ``domain``, ``line``)
    plus, resolved through ``taxonomy``: ``fine`` (canonical fine tags; a tag from a GLUE
    TSV column that the taxonomy does not know keeps its spelling), ``fine_coarse`` (the
    coarse category of each fine tag: the TSV column, else the taxonomy's), ``coarse`` (coarse
    categories, once each) and ``unknown`` (tags the taxonomy does not know).
    """

    table: pl.DataFrame
    taxonomy: Taxonomy
    label_names: tuple[str, ...]
    source: str
    format: str

    @property
    def n(self) -> int:
        """Number of examples (directions)."""
        return self.table.height

    @property
    def ids(self) -> list[str]:
        """Example ids, in file order (the order row-ordered predictions follow)."""
        return self.table["id"].to_list()

    @property
    def n_pairs(self) -> int:
        """Number of sentence pairs."""
        return self.table["pair_id"].n_unique()

    def coarse_names(self) -> list[str]:
        """Coarse categories: the taxonomy's, then any extra ones the suite uses."""
        names = list(self.taxonomy.coarse_names)
        for row in self.table["coarse"].to_list():
            names.extend(c for c in row if c not in names)
        return names

    def fine_names(self) -> list[str]:
        """Fine tags used in the suite, in taxonomy order, then unknown ones as written."""
        used = {t for row in self.table["fine"].to_list() for t in row}
        ordered = [t for t in self.taxonomy.fine_names if t in used]
        return ordered + sorted(used - set(ordered))

    def summary(self) -> dict[str, object]:
        """Short JSON description of the suite."""
        return {
            "source": self.source,
            "format": self.format,
            "n_examples": self.n,
            "n_pairs": self.n_pairs,
            "labels": list(self.label_names),
            "taxonomy": self.taxonomy.name,
            "tag_groups": self.tag_groups(),
        }

    def tag_groups(self) -> dict[str, list[str]]:
        """Map each coarse category to the fine tags the suite uses under it."""
        groups: dict[str, list[str]] = {c: [] for c in self.coarse_names()}
        for fine, owners in zip(self.table["fine"].to_list(), self.table["fine_coarse"].to_list(),
                                strict=True):
            for tag, owner in zip(fine, owners, strict=True):
                if tag not in groups.setdefault(owner, []):
                    groups[owner].append(tag)
        order = {t: i for i, t in enumerate(self.fine_names())}
        return {c: sorted(v, key=lambda t: order.get(t, len(order))) for c, v in groups.items()}


def suite_from_dataset(dataset: Dataset, *, taxonomy: Taxonomy | None = None) -> DiagnosticSuite:
    """Resolve a diagnostic pair dataset (from :mod:`benchcheck.io.diagnostic`) into a suite."""
    tax = taxonomy or GLUE_TAXONOMY
    split = dataset["diagnostic"]
    fine_col, owner_col, coarse_col, unknown_col = [], [], [], []
    for tags, columns in zip(split.table["tags"].to_list(), split.table["tag_coarse"].to_list(),
                             strict=True):
        fine: list[str] = []
        owners: list[str] = []
        coarse: list[str] = []
        unknown: list[str] = []
        for tag, column in zip(tags, columns, strict=True):
            canon = tax.canonical(tag)
            if column is not None:  # GLUE TSV: the column names the coarse category
                cat = (tax.canonical(column) if tax.is_coarse(column) else None) or column
                if canon is None:
                    unknown.append(tag)
                if not tax.is_coarse(tag) and (canon or tag) not in fine:
                    fine.append(canon or tag)
                    owners.append(cat)
            elif canon is None:
                unknown.append(tag)
                continue
            elif tax.is_coarse(tag):
                cat = canon
            else:
                cat = tax.coarse_of(tag) or canon
                if canon not in fine:
                    fine.append(canon)
                    owners.append(cat)
            if cat not in coarse:
                coarse.append(cat)
        fine_col.append(fine)
        owner_col.append(owners)
        coarse_col.append(coarse)
        unknown_col.append(unknown)
    table = split.table.with_columns(
        pl.Series("fine", fine_col, dtype=pl.List(pl.String)),
        pl.Series("fine_coarse", owner_col, dtype=pl.List(pl.String)),
        pl.Series("coarse", coarse_col, dtype=pl.List(pl.String)),
        pl.Series("unknown", unknown_col, dtype=pl.List(pl.String)),
    )
    labels = dataset.label_names or tuple(sorted(set(table["label"].to_list())))
    return DiagnosticSuite(
        table=table,
        taxonomy=tax,
        label_names=tuple(labels),
        source=split.source,
        format=str(dataset.meta.get("format", "")),
    )
