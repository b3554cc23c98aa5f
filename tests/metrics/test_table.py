"""The metric table: one place per metric, no import side effects, what stats reads from it."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from _ner_stats_reference import write_conll

import benchcheck.metrics
from benchcheck.data.model import Dataset, Split
from benchcheck.io.load import load
from benchcheck.metrics import compute, difficulty, reliability, table
from benchcheck.metrics.adjust import adjustable
from benchcheck.metrics.compute import compute_stats, split_value
from benchcheck.metrics.spec import STATS_SCOPES, MetricSpec, Preparation
from benchcheck.metrics.splits import split_overlap
from benchcheck.metrics.table import BY_NAME, METRICS, specs_for, stats_specs
from benchcheck.sample_data import NER_SAMPLE, PAIR_SAMPLE

PKG = Path(benchcheck.metrics.__file__).parent
#: The modules that hold metric functions: they must not know the table.
METRIC_MODULES = ["_common.py", "difficulty.py", "reliability.py", "text.py", "validity.py"] + [
    f"neardup/{p.name}" for p in (PKG / "neardup").glob("*.py")
]
#: The modules that read the table: they must not name a metric.
READERS = ["compute.py", "splits.py"] + [f"adjust/{p.name}" for p in (PKG / "adjust").glob("*.py")]


def S(text: str, tags: str):  # noqa: N802 - a sentence literal
    return tuple(text.split()), tuple(tags.split())


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_names_are_unique_and_the_lookup_is_read_only():
    assert list(BY_NAME) == [s.name for s in METRICS]
    with pytest.raises(TypeError):
        BY_NAME["x"] = METRICS[0]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        METRICS[0].name = "x"  # type: ignore[misc]


@pytest.mark.parametrize("module", METRIC_MODULES)
def test_metric_modules_import_nothing_from_the_table(module):
    forbidden = {f"benchcheck.metrics.{m}" for m in ("table", "spec", "registry", "compute")}
    assert not _imports(PKG / module) & forbidden


def test_importing_a_metric_module_registers_nothing():
    code = (
        "import sys; import benchcheck.metrics.difficulty, benchcheck.metrics.text, "
        "benchcheck.metrics.neardup; print(sorted(m for m in sys.modules "
        "if m.startswith('benchcheck.metrics.') and m.split('.')[-1] in "
        "('table', 'spec', 'registry', 'compute')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("module", READERS)
def test_readers_name_no_metric(module):
    """compute, splits and adjust dispatch on the table's fields, never on a metric's name."""
    tree = ast.parse((PKG / module).read_text(encoding="utf-8"))
    names = {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    assert not names & set(BY_NAME), module


def test_spec_fields_are_consistent():
    for spec in METRICS:
        assert spec.tasks and spec.title and spec.definition and spec.needs.startswith("needs ")
        assert "Edge rule" in (spec.function.__doc__ or ""), spec.name
        if spec.in_stats:
            assert spec.scope in STATS_SCOPES, spec.name
        if spec.scope == "cross":
            assert spec.references is None or spec.references, spec.name
    with pytest.raises(ValueError, match="stats cannot compute"):
        dataclasses.replace(BY_NAME["near_leakage_ratio"], in_stats=True)
    with pytest.raises(ValueError, match="only cross-split metrics have references"):
        dataclasses.replace(BY_NAME["redundancy"], references=("train",))


def test_stats_reports_the_table_in_its_order():
    ds = load(NER_SAMPLE)
    js = compute_stats(ds, scores={"a": 1.0, "b": 2.0}).to_json()
    specs = stats_specs("ner")
    expected = [s.name for s in specs if s.scope == "split"]
    expected += [s.name for s in specs if s.scope in ("cross", "pooled")]
    expected += [s.name for s in specs if s.scope == "scores"]
    assert list(js["metrics"]) == expected
    assert set(js["dimensions"]) == {s.name for s in specs}
    assert "ambiguous_entity_share" not in js["metrics"]  # an adjustment target only
    cols = {"text_a": "grounding", "text_b": "generated_text"}
    pair = compute_stats(load(PAIR_SAMPLE, task="pair", columns=cols))
    assert "label_conflict_ratio_across" in pair.metrics  # pooled: defined without a test split
    assert pair.metrics["leakage_ratio"] is None


def test_cross_metrics_take_splits_not_names():
    """Any split can be the target and any the reference: no split name is read."""
    a = Split("alpha", "-", pl.DataFrame({"xy_hash": [1, 2, 3, 4], "x_hash": [1, 2, 3, 9]}))
    b = Split("beta", "-", pl.DataFrame({"xy_hash": [2, 4], "x_hash": [2, 3]}))
    assert reliability.leakage_ratio(a, [b]) == 0.5
    assert reliability.text_leakage_ratio(a, [b]) == 0.5
    assert reliability.leakage_ratio(b, [a]) == 1.0
    assert reliability.leakage_ratio(a, []) is None  # no reference: undefined


def test_references_in(tmp_path):
    files = {n: write_conll(tmp_path / f"{n}.txt", [S("A b", "B-PER O")]) for n in ("dev", "test")}
    files["train"] = write_conll(tmp_path / "train.txt", [S("A b", "B-PER O")])
    ds = load(splits=files)
    names = ds.split_names
    leak, unseen = BY_NAME["leakage_ratio"], BY_NAME["unseen_entity_ratio"]
    assert [s.name for s in leak.references_in(ds, "test")] == ["train", "dev"]
    assert [s.name for s in leak.references_in(ds, "dev", among=["train"])] == ["train"]
    assert [s.name for s in unseen.references_in(ds, "train")] == []
    every = BY_NAME["ambiguous_entity_share"]
    assert [s.name for s in every.references_in(ds, "dev")] == [n for n in names if n != "dev"]


def test_e_star_is_computed_once_per_split(monkeypatch):
    calls: list[str] = []

    def counted(split: Split) -> int:
        calls.append(split.name)
        return difficulty.n_ambiguous(split)

    prep = Preparation("e_star", counted)
    patched = tuple(
        dataclasses.replace(s, prepared=(prep,)) if s.prepared else s for s in table.METRICS
    )
    assert sum(bool(s.prepared) for s in patched) == 2  # Eq. 5 and its variant
    monkeypatch.setattr(table, "METRICS", patched)
    ds = load(NER_SAMPLE)
    js = compute_stats(ds).to_json()
    assert sorted(calls) == sorted(ds.split_names)  # once per split, for both metrics
    for split in ds:  # and the shared value is the one each function computes alone
        row = js["splits"][split.name]
        assert row["entity_ambiguity_degree"] == difficulty.entity_ambiguity_degree(split)
        assert row["ambiguous_entity_ratio"] == difficulty.ambiguous_entity_ratio(split)


def test_split_value_shares_a_preparation():
    calls = []
    prep = Preparation("k", lambda split: calls.append(1) or split.n)
    spec = MetricSpec(
        name="m",
        function=lambda split, *, k: k / 2,
        dimension="difficulty",
        better="higher",
        tasks=("ner",),
        scope="split",
        title="m",
        definition="m",
        needs="needs nothing",
        prepared=(prep,),
    )
    split = Split("s", "-", pl.DataFrame({"a": [1, 2, 3, 4]}))
    store: dict = {}
    assert split_value(spec, split, store) == split_value(spec, split, store) == 2.0
    assert calls == [1]


def test_ambiguous_entity_share_by_hand(tmp_path):
    train = [S("Paris is big", "B-LOC O O"), S("Paris Hilton", "B-PER I-PER")]
    test = [
        S("Paris smiled", "B-PER O"),  # Paris: LOC in train, PER here -> ambiguous
        S("Bob met Ann", "B-PER O B-PER"),  # Bob, Ann: one type each
        S("Ann Bob", "B-PER B-ORG"),  # Bob: PER and ORG in test -> ambiguous
    ]
    files = {"train": write_conll(tmp_path / "train.txt", train)}
    files["test"] = write_conll(tmp_path / "test.txt", test)
    ds = load(splits=files)
    # Distinct test surfaces: Paris, Bob, Ann; ambiguous anywhere: Paris, Bob.
    assert difficulty.ambiguous_entity_share(ds["test"], [ds["train"]]) == 2 / 3
    # Within test alone Paris has one type: only Bob.
    assert difficulty.ambiguous_entity_share(ds["test"], []) == 1 / 3
    assert compute.dataset_value(BY_NAME["ambiguous_entity_share"], ds) == 2 / 3


def test_split_overlap_gives_each_split_its_earlier_references(tmp_path):
    train = [S("A b", "B-PER O"), S("C d", "B-LOC O")]
    dev = [S("A b", "B-PER O"), S("E f", "B-ORG O")]
    test = [S("E f", "B-ORG O"), S("C d", "B-LOC O"), S("G h", "B-PER O")]
    files = {n: write_conll(tmp_path / f"{n}.txt", v) for n, v in [("train", train), ("dev", dev)]}
    files["test"] = write_conll(tmp_path / "test.txt", test)
    ds = load(splits=files)
    dev_row, test_row = split_overlap(ds)["rows"]
    assert dev_row["against"] == ["train"] and dev_row["leakage_ratio"] == 1 / 2
    assert dev_row["unseen_entity_ratio"] == 1 / 2  # E
    assert test_row["against"] == ["train", "dev"] and test_row["leakage_ratio"] == 2 / 3
    assert test_row["unseen_entity_ratio"] == 2 / 3  # E (only in dev) and G
    stats = compute_stats(ds).metrics
    assert all(test_row[k] == stats[k] for k in test_row if k in stats)


def test_adjust_reads_its_metrics_from_the_table():
    assert adjustable() == [s.name for s in METRICS if s.adjuster is not None]
    assert adjustable("classification") == ["leakage_ratio", "label_imbalance_degree"]
    assert {s.name for s in specs_for("ner") if s.adjuster} == set(adjustable("ner"))


def test_pooled_metric_takes_every_split():
    rows = {"x_hash": [1, 1], "label": ["a", "b"]}
    one = Dataset(task="classification", splits={"only": Split("only", "-", pl.DataFrame(rows))})
    assert compute.dataset_value(BY_NAME["label_conflict_ratio_across"], one) == 1.0


def test_the_ambiguity_degree_is_drawn_in_the_direction_of_its_written_formula(tmp_path):
    """Eq. 5 as written (1 − e*/n) falls as ambiguity grows, the ratio variant rises: the
    difficulty dimension's "better" (harder) is lower for the one, higher for the other."""
    from benchcheck.io.conll import read_conll

    def split(name: str, second: str):
        path = tmp_path / name
        path.write_text(f"EU B-ORG\nsays O\n\nEU B-{second}\nsays O\n\nBonn B-LOC\n\n")
        return read_conll(str(path))

    clear, ambiguous = split("clear.conll", "ORG"), split("ambiguous.conll", "LOC")
    degree = difficulty.entity_ambiguity_degree
    ratio = difficulty.ambiguous_entity_ratio
    assert degree(clear) == 1.0 and degree(ambiguous) == pytest.approx(1 - 1 / 3)
    assert ratio(ambiguous) > ratio(clear)
    better = {m.name: m.better for m in METRICS}
    assert better["entity_ambiguity_degree"] == "lower"
    assert better["ambiguous_entity_ratio"] == "higher"
