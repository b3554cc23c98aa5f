"""The distributed engine: the embedded plan on a Ray cluster (``--engine ray``).

- :mod:`benchcheck.engine.ray_engine`: shard folders (:mod:`benchcheck.io.shards`, written by
  ``benchcheck convert``) read and built with Ray Data;
- :mod:`benchcheck.engine.ray_judge`: judges as Ray actors.

Nothing below the run layer imports this package.
"""

from __future__ import annotations

from benchcheck.errors import UsageError

#: The engines ``--engine`` accepts.
ENGINES = ("embedded", "ray")


def load_with_engine(
    engine: str,
    data: str | None,
    *,
    split: list[str] | None = None,
    scheme: str | None = None,
    strict: bool = False,
    task: str = "ner",
    keep_tokens: bool = False,
    address: str | None = None,
    num_cpus: int | None = None,
):  # type: ignore[no-untyped-def]
    """Load ``data`` with a non-embedded engine; errors say what that engine reads."""
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if engine == "embedded":
        raise UsageError("the embedded engine loads through benchcheck.io.load")
    from benchcheck.io.shards import is_shard_folder

    if task != "ner" or split or data is None or not is_shard_folder(data):
        raise UsageError(
            "{engine} ray reads an NER shard folder, as benchcheck convert writes it; convert "
            "the data first, then pass that folder"
        )
    if keep_tokens:
        raise UsageError(
            "{engine} ray builds the statistics tables only; {predictions} and "
            "{near_duplicates} need the token table (use the embedded engine)"
        )
    from benchcheck.engine.ray_engine import read_shards_ray

    return read_shards_ray(data, scheme=scheme, strict=strict, address=address, num_cpus=num_cpus)
