"""Size and load time of the HTML report when flagged examples carry very long texts.

Builds a results.json label-error section with ``--rows`` flagged pairs whose two texts
have ``--chars`` characters each (random words, a few invisible characters), renders it with
:func:`benchcheck.runs.audit.render_results` (timed), and opens the page from disk in
Debian's headless Chromium through Playwright, as ``tests/report/test_report_browser.py``
does: ``loadEventEnd`` of the navigation, median of ``--repeat`` fresh pages. Also reports
the time to filter the flag table by one word (the page's own script).

    python benchmarks/report_long_texts_bench.py --rows 40 --chars 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def results(rows: int, chars: int, seed: int = 0) -> dict[str, object]:
    """A results.json with ``rows`` flagged pairs of ``chars``-character texts."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(2000)] + ["\u200b", "<b>", "&amp;"]

    def text() -> str:
        out, n = [], 0
        while n < chars:
            w = rng.choice(words)
            out.append(w)
            n += len(w) + 1
        return " ".join(out)[:chars]

    examples = [
        {
            "rank": i + 1,
            "id": f"e{i}",
            "text_a": text(),
            "text_b": text(),
            "label": "1",
            "llm_label": "0",
            "confidence": 0.99 - i / 1000,
            "bin": "[0.95, 1]",
            "p_0": 0.99 - i / 1000,
            "p_1": 0.01 + i / 1000,
        }
        for i in range(rows)
    ]
    return {
        "schema_version": "1.0",
        "title": "long texts",
        "inputs": {},
        "analyses": [],
        "label_errors": {
            "dataset": {"source": "long.jsonl", "n": rows, "columns": {}},
            "judge": {"judge": "j", "weights_sha256": None, "prompts": ["p"], "members": 1},
            "text_columns": ["text_a", "text_b"],
            "summary": {
                "n": rows,
                "judged": rows,
                "disagreements": rows,
                "flagged": rows,
                "flag_rate": 1.0,
                "threshold": 0.5,
                "labels": ["0", "1"],
                "flagged_by_bin": {"[0.95, 1]": rows},
            },
            "bins": [0.5, 0.95, 1.0],
            "examples": examples,
            "examples_total": rows,
            "files": ["flagged.csv", "flagged.jsonl"],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--chars", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from benchcheck.runs.audit import render_results

    data = results(args.rows, args.chars)
    start = time.perf_counter()
    page_text = render_results(data)[0]
    render_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        path.write_text(page_text, encoding="utf-8")
        loads, filters = [], []
        with sync_playwright() as pw:
            for k in range(args.repeat):
                ctx = pw.chromium.launch_persistent_context(
                    str(Path(tmp) / f"profile{k}"),
                    executable_path=str(CHROMIUM),
                    headless=True,
                    args=ARGS,
                    viewport={"width": 1200, "height": 900},
                )
                page = ctx.new_page()
                page.goto(path.as_uri(), wait_until="load", timeout=120_000)
                loads.append(
                    page.evaluate(
                        "(() => { const n = performance.getEntriesByType('navigation')[0];"
                        " return n.loadEventEnd - n.startTime; })()"
                    )
                    / 1000
                )
                t = time.perf_counter()
                page.fill("input.filter", "w1999")
                page.evaluate("document.getElementById('flag-count').textContent")
                filters.append(time.perf_counter() - t)
                ctx.close()
    print(
        json.dumps(
            {
                "rows": args.rows,
                "chars_per_text": args.chars,
                "page_mb": round(path_size(page_text), 2),
                "render_s": round(render_s, 3),
                "load_s_median": round(statistics.median(loads), 3),
                "load_s_all": [round(x, 3) for x in loads],
                "filter_s_median": round(statistics.median(filters), 3),
            }
        )
    )


def path_size(text: str) -> float:
    """Megabytes of ``text`` as UTF-8."""
    return len(text.encode("utf-8")) / 2**20


if __name__ == "__main__":
    main()
