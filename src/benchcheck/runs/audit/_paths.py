"""How ``results.json`` shows the paths an audit read: as given, sample files by package path."""

from __future__ import annotations

from pathlib import Path

__all__ = ["shown"]


def shown(path: str | Path) -> str:
    """Show a path as written in results: bundled sample files as ``benchcheck:sample_data/...``.

    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> shown(NER_SAMPLE / "test.txt"), shown("data/my.conll")
    ('benchcheck:sample_data/ner/test.txt', 'data/my.conll')
    """
    from benchcheck.metrics.compute import display_source
    from benchcheck.sample_data import HERE

    try:
        Path(path).resolve().relative_to(HERE)
    except ValueError:
        return str(path)
    return display_source(str(Path(path).resolve()))
