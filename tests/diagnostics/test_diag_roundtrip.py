import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.diagnostics import GLUE_TAXONOMY
from benchcheck.runs.diagnose import load_suite

LABELS = ["entailment", "neutral", "contradiction"]
words = st.text(alphabet="abcdefgh ", min_size=1, max_size=12).map(str.strip).filter(bool)
pairs = st.lists(
    st.tuples(
        words,
        words,
        st.sampled_from(LABELS),
        st.sampled_from(LABELS),
        st.lists(st.sampled_from(GLUE_TAXONOMY.fine_names), max_size=3, unique=True),
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda p: frozenset((p[0], p[1])),
).filter(lambda ps: all(a != b for a, b, *_ in ps))


def _owner(tag):
    return GLUE_TAXONOMY.coarse_of(tag)


@settings(max_examples=40, deadline=None)
@given(pairs)
def test_glue_tsv_directions_recovered(ps):
    cols = GLUE_TAXONOMY.coarse_names
    lines = ["\t".join([*cols, "Domain", "Premise", "Hypothesis", "Label"])]
    for a, b, fwd, bwd, tags in ps:
        cells = [";".join(t for t in tags if _owner(t) == c) for c in cols]
        lines.append("\t".join([*cells, "x", a, b, fwd]))
        lines.append("\t".join([*cells, "x", b, a, bwd]))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.tsv"
        path.write_text("\n".join(lines) + "\n")
        suite = load_suite(path)
    rows = suite.table.to_dicts()
    assert len(rows) == 2 * len(ps)
    for k, (a, b, fwd, bwd, tags) in enumerate(ps):
        f, r = rows[2 * k], rows[2 * k + 1]
        assert (f["direction"], r["direction"]) == ("forward", "backward")
        assert (f["text_a"], f["text_b"], r["text_a"]) == (a, b, b)
        assert f["pair_id"] == r["pair_id"] == str(2 * k)
        assert (f["label"], r["label"]) == (fwd, bwd)
        assert sorted(f["fine"]) == sorted(tags)
        assert set(f["coarse"]) == {_owner(t) for t in tags}


@settings(max_examples=40, deadline=None)
@given(pairs, st.data())
def test_jsonl_expansion(ps, data):
    drop = data.draw(st.lists(st.booleans(), min_size=len(ps), max_size=len(ps)))
    rows = [
        {
            "id": f"q{k}",
            "sentence1": a,
            "sentence2": b,
            "forward": fwd,
            "backward": None if dropped else bwd,
            "tags": tags,
        }
        for k, ((a, b, fwd, bwd, tags), dropped) in enumerate(zip(ps, drop, strict=True))
    ]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        suite = load_suite(path)
    assert suite.n == 2 * len(ps) - sum(drop)
    assert suite.n_pairs == len(ps)
    back = suite.table.filter(suite.table["direction"] == "backward").to_dicts()
    for r in back:
        k = int(r["pair_id"][1:])
        assert (r["text_a"], r["text_b"]) == (ps[k][1], ps[k][0])
