#!/usr/bin/env bash
# Refresh requirements/constraints.txt: the exact package versions of a green run.
#
# When: after changing a requirement (pyproject.toml, requirements/*.txt), or to move the
# test environment to newer releases. How, in a clean clone:
#
#   python -m venv /tmp/lock-venv && . /tmp/lock-venv/bin/activate
#   BENCHCHECK_UNLOCKED=1 ./scripts/setup.sh      # the newest versions, no constraints
#   benchcheck audit -o /tmp/lock-report/ && python -m pytest -q   # must be green
#   ./scripts/lock.sh                              # writes requirements/constraints.txt
#
# then run benchmarks/stats_bench.py against the previous file's environment and commit
# the new file with what changed. Each pin carries the interpreter and platform it was
# resolved on as an environment marker, so another Python installs without the pins instead
# of failing on versions made for 3.11. Local version labels (torch's "+cpu") are dropped:
# the pin then matches the wheel of any index that serves that release.
set -euo pipefail
cd "$(dirname "$0")/.."
out=requirements/constraints.txt
python - "$out" <<'PY'
import platform
import re
import subprocess
import sys
from pathlib import Path

out = Path(sys.argv[1])
frozen = subprocess.run(
    [sys.executable, "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"],
    capture_output=True, text=True, check=True,
).stdout.splitlines()
marker = (
    f'python_version == "{sys.version_info.major}.{sys.version_info.minor}"'
    f' and sys_platform == "{sys.platform}" and platform_machine == "{platform.machine()}"'
)
pins = []
for line in frozen:
    match = re.fullmatch(r"([A-Za-z0-9._-]+)==([^+\s]+)(\+\S+)?", line.strip())
    if not match:
        raise SystemExit(f"lock.sh: cannot pin {line!r} (not NAME==VERSION)")
    pins.append(f"{match[1]}=={match[2]} ; {marker}")
header = [
    "# The exact versions of a green run of the README's commands (setup, audit, tests).",
    "# Made by scripts/lock.sh (never by hand); scripts/setup.sh installs with -c this file.",
    f"# Resolved on Python {platform.python_version()}, {sys.platform} {platform.machine()}.",
]
tmp = out.with_suffix(".tmp")
tmp.write_text("\n".join(header + sorted(pins, key=str.lower)) + "\n", encoding="utf-8")
tmp.replace(out)
print(f"lock.sh: {len(pins)} pins written to {out}")
PY
