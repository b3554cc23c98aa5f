"""One function per command, each returning one frozen result with ``to_json()``.

``benchcheck X`` is ``run_X`` here (``review export`` → ``run_review_export``); the command
line, the audit and Python callers all call these, so every analysis exists once. A run
reads its inputs (through :mod:`benchcheck.io`), calls the pure layers
(:mod:`benchcheck.metrics`, :mod:`benchcheck.labels`, …), writes the outputs it is given —
and only those, through :mod:`benchcheck.io` (claimed by the caller, atomic:
:mod:`benchcheck.io.output`) — and returns a typed result; gates (``--fail-on``,
``check-suite --strict``) are part of that result. The audit is a run too
(:mod:`benchcheck.runs.audit`), made of sections. Each module imports what it needs when
called, so importing this package is cheap. ``tests/runs/test_runs_contract.py`` holds the
contract for every command.
"""
