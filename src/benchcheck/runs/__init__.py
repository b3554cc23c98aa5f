"""One function per command, each returning one frozen result with ``to_json()``.

The command line, the audit and Python callers all call these, so every analysis exists
once: a run reads its inputs (through :mod:`benchcheck.io`), calls the pure layers
(:mod:`benchcheck.metrics`, :mod:`benchcheck.labels`, …) and returns a typed result; writing
outputs and rendering are the caller's (:mod:`benchcheck.io.output`, :mod:`benchcheck.report`).
Each module imports what it needs when called, so importing this package is cheap.
"""
