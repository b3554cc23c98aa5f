#!/usr/bin/env bash
# A real headless browser for the HTML report's tests (tests/report/test_report_browser.py):
# Debian's chromium, driven by Playwright for Python (requirements/report.txt). Never
# `playwright install`: its browser download fails on machines without general network.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  echo "50-browser: chromium already installed"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "50-browser: not root; skipping chromium (the browser tests will be skipped)" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "50-browser: no apt-get; install chromium yourself (the browser tests will be skipped)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium
