"""The public surface: every exported name resolves, and the package import stays light."""

import benchcheck


def test_every_exported_name_resolves():
    missing = [
        n for n in benchcheck.__all__ if n != "__version__" and getattr(benchcheck, n, None) is None
    ]
    assert missing == []


def test_unknown_name_raises_attribute_error():
    try:
        benchcheck.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_import_does_not_pull_heavy_dependencies(heavy_modules_after):
    heavy = ("sklearn", "scipy", "torch", "llama_cpp", "polars")
    assert heavy_modules_after("import benchcheck", heavy) == []
