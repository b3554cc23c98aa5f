"""Library parameters → command-line flags: the one table behind every error message.

Library errors name parameters (``{threshold}``, see :class:`benchcheck.errors.UsageError`);
the command line shows them as the flag a user types. A parameter missing from
:data:`FLAGS` is shown as ``--`` plus its name with dashes, which is typer's own rule, so
the table lists only the names that differ from it.

>>> flag_for("json"), flag_for("text_a"), flag_for("output")
('--json', '--text-a', '-o/--output')
"""

from __future__ import annotations

#: Parameters whose flag is not ``--name-with-dashes``.
FLAGS: dict[str, str] = {
    "output": "-o/--output",
    "id": "--id",
    "id_col": "--id",
    "json_out": "--json",
    "near_duplicates": "--near-duplicates",
    "semantic_duplicates": "--semantic-duplicates",
}


def flag_for(param: str) -> str:
    """Return the command-line flag of a library parameter."""
    return FLAGS.get(param) or "--" + param.replace("_", "-")
