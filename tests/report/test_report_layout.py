"""The report's layout in a real headless browser at a desktop and a phone width (issue 33, §9).

At 1,400 and 390 CSS pixels wide, with every ``<details>`` opened: the page does not scroll
sideways (``document.scrollingElement.scrollWidth <= innerWidth``), no section is wider than
its box, no element reaches past the viewport unless it sits inside a scroll container of
its own (a wide table scrolls in its own box), and no text sticks out of its box. Checked on
the report of the bundled samples with every optional section planted
(``_report_planted``) plus the embedded default judge's note (its strong-judge commands
were a ``<pre>`` 2,120 px wide), and on the plain bundled report. Screenshots of the
sections whose layout changed go to ``tests/_artifacts/`` (``layout-<section>-<width>.png``)
for a person to look at.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _report_planted import planted_results
from test_report_browser import ARTIFACTS, CHROMIUM, _launch

from benchcheck.cli import main
from benchcheck.io.judge_quality import default_judge_note, load_judge_quality
from benchcheck.runs.audit import render_results

playwright = pytest.importorskip(
    "playwright.sync_api", reason="pip install -r requirements/report.txt"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/setup.d/50-browser.sh)"
)

WIDTHS = (1400, 390)
#: The sections whose layout issue 33 changed: screenshots at both widths.
SHOWN = ("overview", "label-errors", "ner-label-errors", "mcq")

#: Every element that reaches past the viewport and is not inside a scroll container.
OVERFLOW_JS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  window.scrollTo(0, 0);
  const vw = document.documentElement.clientWidth;
  const scrolls = el => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
    }
    return false;
  };
  const where = el => {
    const s = el.closest('section, header, nav, footer');
    return s ? (s.id || s.tagName.toLowerCase()) : 'body';
  };
  const name = el => {
    const c = typeof el.className === 'string' ? el.className : el.className.baseVal;
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (c ? '.' + c : '');
  };
  const elements = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (scrolls(el)) continue;
    if (r.right > vw + 0.5 || r.left < -0.5) {
      elements.push([where(el), name(el), Math.round(r.left), Math.round(r.right)]);
      continue;
    }
    // text (no element of its own) sticking out of a box that does not scroll
    const inSvg = el.ownerSVGElement !== undefined && el.ownerSVGElement !== null;
    const o = getComputedStyle(el).overflowX;
    if (!inSvg && o === 'visible' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1
        && r.left + el.scrollWidth > vw + 0.5) {
      elements.push([where(el), name(el), Math.round(r.left), Math.round(r.left + el.scrollWidth)]);
    }
  }
  const sections = Array.from(document.querySelectorAll('section'))
    .filter(s => s.scrollWidth > s.clientWidth)
    .map(s => [s.id, s.scrollWidth, s.clientWidth]);
  return {
    inner: window.innerWidth,
    scroll: document.scrollingElement.scrollWidth,
    ids: Array.from(document.querySelectorAll('section')).map(s => s.id),
    elements: elements.slice(0, 40),
    sections,
  };
}"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("audit")
    summary = folder.with_name(folder.name + ".json")
    assert main(["audit", "-o", str(folder), "--no-judge", "--json", str(summary)]) == 0
    base = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    full = planted_results(base)
    backend, model = load_judge_quality()["judge"]["judge"].split(":", 1)
    full["label_errors"]["default_judge"] = default_judge_note(backend, model)
    page = folder / "every-section.html"
    page.write_text(render_results(full)[0], encoding="utf-8")
    return {"every-section": page, "bundled": folder / "report.html"}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    with playwright.sync_playwright() as pw:
        ctx = _launch(pw, tmp_path_factory.mktemp("chromium-profile"))
        yield ctx
        ctx.close()


def _measure(ctx, path: Path, width: int):
    page = ctx.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, page.evaluate(OVERFLOW_JS)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("report", ["every-section", "bundled"])
def test_no_horizontal_scroll(browser, reports: dict[str, Path], report: str, width: int) -> None:
    page, m = _measure(browser, reports[report], width)
    try:
        assert m["inner"] == width
        assert m["elements"] == [], m["elements"]
        assert m["sections"] == [], m["sections"]
        assert m["scroll"] <= m["inner"], m
        if report == "every-section":  # the check saw every section, the default judge's too
            assert {"overview", "statistics", "label-errors", "ner-label-errors", "mcq"} <= set(
                m["ids"]
            )
            assert page.evaluate("document.querySelectorAll('pre.commands code').length") == 3
    finally:
        page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_long_commands_wrap_one_block_each(browser, reports: dict[str, Path], width: int) -> None:
    """Each strong-judge command is its own block, wholly visible: wrapped, never cut."""
    page, _ = _measure(browser, reports["every-section"], width)
    try:
        boxes = page.evaluate(
            "Array.from(document.querySelectorAll('pre.commands code')).map(c => "
            "[c.scrollWidth, c.clientWidth, c.getBoundingClientRect().top])"
        )
        assert len(boxes) == 3
        assert all(sw <= cw for sw, cw, _ in boxes), boxes
        tops = [t for _, _, t in boxes]
        assert tops == sorted(tops) and len(set(tops)) == 3  # stacked, one per command
        # copying the block gives one command per line, as typed
        text = page.inner_text("pre.commands")
        assert text.splitlines()[1].startswith("benchcheck audit DATA")
        assert "--base-url http://127.0.0.1:8000/v1 -o report/" in text.splitlines()[1]
    finally:
        page.close()


def test_screenshots_of_the_changed_sections(browser, reports: dict[str, Path]) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page, _ = _measure(browser, reports["every-section"], width)
        try:
            for section in SHOWN:
                target = ARTIFACTS / f"layout-{section}-{width}.png"
                page.locator(f"section#{section}").screenshot(path=str(target))
                assert target.stat().st_size > 5_000
        finally:
            page.close()
