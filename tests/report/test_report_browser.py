"""The HTML report in a real headless browser (Debian's chromium driven by Playwright).

Opens the report from disk (file://), with every optional section present and hostile text
planted in the data: no console errors, no request but the file itself, the charts are
there, nothing planted executes, it renders as text, sorting and filtering work. Saves
screenshots (light and dark) to tests/_artifacts/ for a person to look at.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _report_planted import PWN_ATTR, PWN_SCRIPT, PWN_TABLE, PWN_URL, planted_results

from benchcheck.cli import main
from benchcheck.runs.audit import render_results

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "_artifacts"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

playwright = pytest.importorskip(
    "playwright.sync_api", reason="pip install -r requirements/report.txt"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/setup.d/50-browser.sh)"
)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("audit")
    summary = folder.with_name(folder.name + ".json")  # --json inside -o is refused (issue 29)
    assert main(["audit", "-o", str(folder), "--no-judge", "--json", str(summary)]) == 0
    base = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    page = folder / "planted.html"
    page.write_text(render_results(planted_results(base))[0], encoding="utf-8")
    return page


@pytest.fixture(scope="module")
def pw():
    with playwright.sync_playwright() as p:
        yield p


def _launch(pw, user_data: Path):
    """A fresh browser with a new, empty profile and no background networking."""
    return pw.chromium.launch_persistent_context(
        str(user_data),
        executable_path=str(CHROMIUM),
        headless=True,
        args=ARGS,
        viewport={"width": 1200, "height": 900},
    )


@pytest.fixture(scope="module")
def browser_page(pw, report_file: Path, tmp_path_factory: pytest.TempPathFactory):
    ctx = _launch(pw, tmp_path_factory.mktemp("chromium-profile"))
    page = ctx.new_page()
    log: dict[str, list] = {"console": [], "requests": [], "errors": [], "dialogs": []}
    page.on("console", lambda m: log["console"].append((m.type, m.text)))
    page.on("pageerror", lambda e: log["errors"].append(str(e)))
    page.on("dialog", lambda d: (log["dialogs"].append(d.message), d.dismiss()))
    ctx.on("request", lambda r: log["requests"].append(r.url))
    page.goto(report_file.as_uri())
    page.wait_for_load_state("load")
    yield page, log, report_file
    ctx.close()


def test_no_errors_no_network(browser_page) -> None:
    page, log, path = browser_page
    assert log["errors"] == []
    assert [c for c in log["console"] if c[0] == "error"] == []
    assert log["requests"] == [path.as_uri()]
    assert log["dialogs"] == []


def test_planted_text_does_not_execute(browser_page) -> None:
    page, _, _ = browser_page
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
    assert page.evaluate("document.querySelectorAll('a[href^=\"javascript\"]').length") == 0
    # exactly one script element: ours
    assert page.evaluate("document.scripts.length") == 1
    # and nothing created an svg with an onload handler
    assert page.evaluate("document.querySelectorAll('[onload], [onerror]').length") == 0


def test_planted_text_renders_as_text(browser_page) -> None:
    page, _, _ = browser_page
    table = page.inner_text("#flag-table")
    for planted in (PWN_SCRIPT, PWN_URL.split(" ")[0], PWN_ATTR):
        assert planted in table
    assert "</table>" in table  # the planted closing tag is text, not markup
    # the table is still one table with all its rows (the planted </table> did not end it)
    assert page.evaluate("document.querySelectorAll('#flag-table tbody tr').length") == 6
    # invisible / direction-changing characters are shown as visible marks
    assert "U+202E" in table and "U+200B" in table
    assert PWN_SCRIPT in page.title()
    assert PWN_TABLE in page.inner_text("#comparison-table")
    assert PWN_TABLE in page.inner_text("#fine-table")


def test_plots_present(browser_page) -> None:
    page, _, _ = browser_page
    n_svg = page.evaluate("document.querySelectorAll('svg.chart').length")
    assert n_svg >= 12
    for section in ("statistics", "comparison", "label-errors", "diagnostics"):
        assert page.evaluate(f"document.querySelectorAll('#{section} svg.chart').length") >= 1
    # every mark carries a tooltip
    assert page.evaluate("document.querySelectorAll('svg.chart rect.s0 > title').length") > 0
    # the diagnostic statement is visible
    assert "not comparable" in page.inner_text("#not-comparable")


def test_sort_and_filter(browser_page) -> None:
    page, _, _ = browser_page
    conf_col = "#flag-table thead th:nth-child(7)"
    read = "Array.from(document.querySelectorAll('#flag-table tbody tr')).map(r => parseFloat(r.cells[6].dataset.sort))"  # noqa: E501
    page.click(conf_col)
    up = page.evaluate(read)
    assert up == sorted(up)
    page.click(conf_col)
    down = page.evaluate(read)
    assert down == sorted(up, reverse=True)
    page.fill("input.filter", "plain text")
    visible = page.evaluate(
        "Array.from(document.querySelectorAll('#flag-table tbody tr'))"
        ".filter(r => !r.hidden).length"
    )
    assert visible == 2  # one row has it as text_a, one as text_b
    assert page.inner_text("#flag-count") == "2"
    page.fill("input.filter", "")


def test_screenshots(browser_page) -> None:
    page, _, _ = browser_page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    light = ARTIFACTS / "report-light.png"
    dark = ARTIFACTS / "report-dark.png"
    page.emulate_media(color_scheme="light")
    page.screenshot(path=str(light), full_page=True)
    page.emulate_media(color_scheme="dark")
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg != "rgb(255, 255, 255)"
    page.screenshot(path=str(dark), full_page=True)
    page.emulate_media(media="print", color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.querySelector('nav.toc')).display") == "none"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    page.emulate_media(media="screen", color_scheme="light")
    assert light.stat().st_size > 10_000 and dark.stat().st_size > 10_000


def test_bundled_report_opens(pw, tmp_path: Path, report_file: Path) -> None:
    """The unplanted report of the bundled samples also loads cleanly (copied elsewhere)."""
    plain = report_file.parent / "report.html"
    target = tmp_path / "moved" / "report.html"
    target.parent.mkdir()
    shutil.copy(plain, target)
    ctx = _launch(pw, tmp_path / "profile")
    page = ctx.new_page()
    bad: list[str] = []
    page.on("console", lambda m: bad.append(m.text) if m.type == "error" else None)
    requests: list[str] = []
    ctx.on("request", lambda r: requests.append(r.url))
    page.goto(target.as_uri())
    assert page.evaluate("document.querySelectorAll('svg.chart').length") >= 6
    ctx.close()
    assert bad == []
    assert requests == [target.as_uri()]


def test_csp_blocks_an_injected_script(pw, tmp_path: Path, report_file: Path) -> None:
    """Defence in depth: were escaping ever to fail, the CSP would still stop the script."""
    page_text = report_file.read_text(encoding="utf-8")
    broken = page_text.replace(
        "<footer>",
        '<script>window.__csp = 1</script><img src="https://example.invalid/x.png"><footer>',
        1,
    )
    target = tmp_path / "broken.html"
    target.write_text(broken, encoding="utf-8")
    ctx = _launch(pw, tmp_path / "profile")
    page = ctx.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    loaded: list[str] = []
    failed: list[tuple[str, str | None]] = []
    ctx.on("requestfinished", lambda r: loaded.append(r.url))
    ctx.on("requestfailed", lambda r: failed.append((r.url, r.failure)))
    page.goto(target.as_uri())
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__csp") == "undefined"
    # our own (hash-pinned) script still ran: the sortable headers got their tab stops
    assert page.evaluate("document.querySelector('table.sortable th').tabIndex") == 0
    ctx.close()
    assert any("Content Security Policy" in c for c in console)
    assert loaded == [target.as_uri()]
    assert failed == [("https://example.invalid/x.png", "csp")]  # blocked before any network


def test_long_texts_open_fast_behind_an_expander(pw, tmp_path: Path) -> None:
    """40 flagged pairs of 100,000 characters: a small page, expanders closed, filter works."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from report_long_texts_bench import results

    target = tmp_path / "long.html"
    target.write_text(render_results(results(40, 100_000))[0], encoding="utf-8")
    assert target.stat().st_size < 1.5 * 2**20
    ctx = _launch(pw, tmp_path / "profile")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(target.as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("document.querySelectorAll('#flag-table details').length") == 80
    assert page.evaluate("document.querySelectorAll('#flag-table details[open]').length") == 0
    cell = "#flag-table tbody tr:first-child td.text"
    before = page.evaluate(f"document.querySelector('{cell}').getBoundingClientRect().height")
    page.click(f"{cell} summary")
    assert page.evaluate(f"document.querySelector('{cell} details').open") is True
    after = page.evaluate(f"document.querySelector('{cell}').getBoundingClientRect().height")
    assert after > 5 * before  # the rest of the text is shown once opened
    page.fill("input.filter", "e39-none")
    assert page.inner_text("#flag-count") == "0"
    page.fill("input.filter", "")
    assert page.inner_text("#flag-count") == "40"
    ctx.close()
    assert errors == []
