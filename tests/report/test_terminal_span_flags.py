"""The span flags in the terminal: a table on wide terminals, a list on narrow ones; never cut.

The flag-spans payload here is written by hand (two flags, one with the longest kind).
"""

from __future__ import annotations

from rich.console import Console

from benchcheck.report.terminal.labels import WIDE_TABLE, span_flag_renderables

TEXT = "Rain is expected across [[ Jordan ]]LOC and Syria this week ."
PAYLOAD = {
    "n_gold_spans": 38,
    "n_pred_spans": 29,
    "by_kind": {"wrong_type": 1, "spurious_annotation": 1},
    "flagged": 2,
    "tagger": {"min_error_score": 0.9, "folds": 5},
    "top": [
        {"rank": 1, "kind": "wrong_type", "error_score": 0.998, "file": "train.txt", "line": 209,
         "document": 1, "gold_type": "PER", "pred_type": "LOC", "label": "PER",
         "llm_label": "LOC", "text": "Fans cheered when [[ {{ Jordan }}LOC ]]PER returned ."},
        {"rank": 2, "kind": "spurious_annotation", "error_score": 0.975,
         "file": "eng.testb", "line": 34, "document": 12, "gold_type": "LOC",
         "pred_type": None, "label": "LOC", "llm_label": None, "text": TEXT},
    ],
}  # fmt: skip


def _render(width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    with console.capture() as cap:
        for part in span_flag_renderables(PAYLOAD):
            console.print(part)
    return cap.get()


def test_narrow_terminals_list_each_flag_on_two_lines_nothing_cut() -> None:
    out = _render(80)
    assert "1. wrong_type · 0.998 · train.txt:209 (doc 1) · PER → LOC" in out
    assert "2. spurious_annotation · 0.975 · eng.testb:34 (doc 12) · LOC → O" in out
    assert f"   {TEXT}" in out  # the sentence indented under its flag, brackets kept
    assert "…" not in out and "┃ kind" not in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_wide_terminals_keep_the_table_with_whole_kinds() -> None:
    out = _render(WIDE_TABLE)
    assert "┃ kind" in out and "│ spurious_annotation │" in out and "eng.testb:34" in out
    assert "…" not in out
    lines = out.splitlines()
    flags = lines[next(i for i, x in enumerate(lines) if "Top 2 span flags" in x) + 1 :]
    table = [x.rstrip() for x in flags if x[:1] in "┏┃┡│└"]
    assert table and all(x.endswith(("┓", "┃", "┩", "│", "┘")) for x in table)  # not cropped
