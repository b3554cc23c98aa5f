"""The phenomenon taxonomy of a diagnostic suite (defined in :mod:`benchcheck.data.taxonomy`)."""

from benchcheck.data.taxonomy import GLUE_TAXONOMY, Taxonomy

__all__ = ["GLUE_TAXONOMY", "Taxonomy"]
