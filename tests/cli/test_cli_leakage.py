"""`benchcheck leakage` end to end: the JSON contract, the score table, one-line errors."""

import gzip
import json

import polars as pl
import pytest

from benchcheck.cli import main

B = [f"b{k}" for k in range(1, 31)]
TEST = [
    {
        "id": "A",
        "text": "The quick brown fox jumps over the lazy dog near the old river bank.",
        "label": "x",
    },
    {"id": "B", "text": " ".join(B), "label": "y"},
    {"id": "C", "text": "FINE STRASSE", "label": "x"},
    {"id": "D", "text": " ".join(f"d{k}" for k in range(20)), "label": "y"},
]


def _workspace(tmp_path):
    (tmp_path / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TEST))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    docs1 = [TEST[0]["text"], "noise " + " ".join(w.upper() for w in B[2:20]) + " more", None]
    pl.DataFrame({"text": docs1, "url": ["u0", "u1", "u2"]}).write_parquet(corpus / "p0.parquet")
    docs2 = ["ﬁne Straße", "x " + " ".join(B[:12]) + " zz " + " ".join(B[13:30])]
    rows = "".join(json.dumps({"url": f"v{k}", "text": d}) + "\n" for k, d in enumerate(docs2))
    (corpus / "p1.jsonl.gz").write_bytes(gzip.compress(rows.encode()))
    (tmp_path / "m1.jsonl").write_text(
        "".join(json.dumps({"id": r["id"], "pred": "x"}) + "\n" for r in TEST)
    )
    (tmp_path / "m2.jsonl").write_text(
        "".join(
            json.dumps({"id": r["id"], "correct": c}) + "\n"
            for r, c in zip(TEST, [1, 1, 0, 0], strict=True)
        )
    )
    return tmp_path


def test_json_contract(tmp_path, capsys):
    ws = _workspace(tmp_path)
    out = ws / "leak.json"
    args = ["leakage", "--test", str(ws / "test.jsonl"), "--corpus", str(ws / "corpus")]
    args += ["--corpus-id-column", "url", "--predictions", f"m1={ws / 'm1.jsonl'}"]
    args += ["--predictions", f"m2={ws / 'm2.jsonl'}", "--json", str(out)]
    assert main(args) == 0
    p = json.loads(out.read_text())
    items = {i["id"]: i for i in p["items"]}
    assert [i["id"] for i in p["items"]] == ["A", "B", "C", "D"]
    assert {k: (v["overlap"], v["bucket"]) for k, v in items.items()} == {
        "A": (1.0, "dirty"),
        "B": (1.0, "dirty"),  # two spans: b3..b20, and b1..b30 across one mismatch ("zz")
        "C": (0.0, "clean"),  # 2 tokens: too short for a span, but a normalised copy
        "D": (0.0, "clean"),
    }
    assert items["B"]["matches"] == [
        {
            "file": str(ws / "corpus" / "p0.parquet"),
            "row": 1,
            "id": "u1",
            "offset": 1,
            "item_offset": 2,
            "length": 18,
        },
        {
            "file": str(ws / "corpus" / "p1.jsonl.gz"),
            "row": 1,
            "id": "v1",
            "offset": 1,
            "item_offset": 0,
            "length": 30,
        },
    ]
    assert (items["A"]["exact_matches"], items["C"]["normalised_matches"]) == (1, 1)
    assert items["A"]["subsets"] == ["not_clean", "dirty"]
    assert p["buckets"] == {"clean": 2, "not_clean": 2, "not_dirty": 2, "dirty": 2}
    assert p["corpus"] == {"files": 2, "documents": 4, "tokens": 14 + 20 + 2 + 31}
    assert p["histogram"]["counts"] == [2, 0, 0, 0, 0, 0, 0, 0, 0, 2]
    assert p["parameters"]["definition"] == "llama2" and p["parameters"]["skip"] == 4
    m1, m2 = p["scores"]["models"]
    assert (m1["model"], m1["score"], m1["subsets"]["clean"]["score"]) == ("m1", 0.5, 0.5)
    assert m2["subsets"]["dirty"]["score"] == 1.0 and m2["clean_minus_dirty"] == -1.0
    assert m2["rank"] == {"all": 1, "clean": 2, "dirty": 1} and p["scores"]["ranking_changes"]
    shown = capsys.readouterr().out
    assert "B: overlap 1.000 (dirty)" in shown and "m2: all 0.500" in shown


def test_definitions_and_overrides(tmp_path):
    ws = _workspace(tmp_path)
    base = ["leakage", "--test", str(ws / "test.jsonl"), "--corpus", str(ws / "corpus")]
    assert main([*base, "--definition", "gpt3", "--json", str(ws / "g.json")]) == 0
    g = json.loads((ws / "g.json").read_text())
    assert (g["parameters"]["overlap"], g["parameters"]["n"]) == ("ngram", 8)  # clamped up
    assert main([*base, "--skip", "0", "--json", str(ws / "s.json")]) == 0
    s = json.loads((ws / "s.json").read_text())
    assert s["parameters"]["definition"] == "llama2+custom"
    b = next(i for i in s["items"] if i["id"] == "B")
    assert b["overlap"] == 1.0 and b["n_matches"] == 3  # b1..b12 now ends at the mismatch


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda ws: ["--corpus", str(ws / "nowhere" / "*.parquet")], "no corpus files match"),
        (lambda ws: ["--text-column", "body"], "no column 'body'"),
        (
            lambda ws: [
                "--corpus",
                str(_cut(ws)),
            ],
            "compressed stream cut short",
        ),
        (lambda ws: ["--test", str(_empty_text(ws))], "bad.jsonl:2: empty text"),
        (lambda ws: ["--clean-below", "0.9", "--dirty-from", "0.1"], "--clean-below"),
        (lambda ws: ["--min-length", "5"], "--min-length must be at least --n"),
        (lambda ws: ["--predictions", f"m={ws / 'short.jsonl'}"], "no score for test item"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, spoil, message):
    ws = _workspace(tmp_path)
    (ws / "short.jsonl").write_text('{"id": "A", "correct": 1}\n')
    args = {"--test": str(ws / "test.jsonl"), "--corpus": str(ws / "corpus")}
    extra = spoil(ws)
    for k in range(0, len(extra), 2):
        args[extra[k]] = extra[k + 1]
    out = ws / "out.json"
    argv = ["leakage", *[x for kv in args.items() for x in kv], "--json", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()  # nothing half-written


def _cut(ws):
    data = gzip.compress(
        ("".join(json.dumps({"text": "x " * 500}) + "\n" for _ in range(300))).encode()
    )
    (ws / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    return ws / "cut.jsonl.gz"


def _empty_text(ws):
    (ws / "bad.jsonl").write_text('{"id": "1", "text": "fine"}\n{"id": "2", "text": "  "}\n')
    return ws / "bad.jsonl"


def test_terminal_prints_ids_and_model_names_as_written(tmp_path, capsys):
    """Ids and model names come from files: rich markup in them prints literally."""
    ws = _workspace(tmp_path)
    rows = [dict(r, id=f"[bold]{r['id']}[/bold]") for r in TEST]
    (ws / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    preds = "".join(json.dumps({"id": r["id"], "pred": "x"}) + "\n" for r in rows)
    (ws / "m1.jsonl").write_text(preds)
    args = ["leakage", "--test", str(ws / "test.jsonl"), "--corpus", str(ws / "corpus")]
    args += ["--predictions", f"[red]m1[/red]={ws / 'm1.jsonl'}", "--predictions"]
    args += [f"m3={ws / 'm1.jsonl'}"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "[bold]A[/bold]: overlap 1.000 (dirty)" in out
    assert "[red]m1[/red]" in out
