"""runs.flag: flags from judgments, the data's own columns kept, one JSON for CLI and library."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.io.tables import read_rows
from benchcheck.runs.flag import FlagOptions, flag_frames, run_flag


def _judgments(p1: dict[str, list[float]]) -> pl.DataFrame:
    rows = []
    for i, values in p1.items():
        for k, v in enumerate(values):
            rows.append({"id": i, "judge": "m", "prompt": f"p{k}", "p_0": 1 - v, "p_1": v})
    return pl.DataFrame(rows)


def test_hand_computed_flags():
    # ensemble p_1: a 0.1 (label 1 → flag, confidence 0.9), b 0.7 (agrees), c 0.45 (label 1 →
    # disagrees, confidence 0.55), d 0.95 (label 0 → flag, confidence 0.95)
    j = _judgments({"a": [0.0, 0.2], "b": [0.6, 0.8], "c": [0.4, 0.5], "d": [0.9, 1.0]})
    data = pl.DataFrame(
        {"id": ["a", "b", "c", "d"], "text": ["w", "x", "y", "z"], "label": ["1", "1", "1", "0"]}
    )
    # the rule by hand on the detector's own score: posterior "none"
    run = flag_frames(
        j,
        data,
        options=FlagOptions(
            threshold=0.6, flag_rule="threshold", calibration="none", posterior="none"
        ),
    )
    flagged = run.flagged()
    assert flagged["id"].to_list() == ["d", "a"]
    assert flagged["rank"].to_list() == [1, 2]
    assert flagged["confidence"].to_list() == pytest.approx([0.95, 0.9])
    assert run.summary.disagreements == 3 and run.summary.flagged == 2
    js = run.to_json(top=1)
    assert [r["id"] for r in js["top"]] == ["d"]
    assert js["summary"]["flag_rate"] == 0.5
    only_p0 = flag_frames(
        j,
        data,
        options=FlagOptions(
            threshold=0.6,
            flag_rule="threshold",
            prompts=("p0",),
            calibration="none",
            posterior="none",
        ),
    )
    # p0 alone: a 0.0, b 0.6, c 0.4, d 0.9 → flags a (1.0), d (0.9), c (0.6)
    assert only_p0.flagged()["id"].to_list() == ["a", "d", "c"]


def test_flags_file_keeps_the_data_columns(tmp_path):
    data = tmp_path / "data.jsonl"
    rows = [
        {
            "uid": "x1",
            "grounding": "The sky is blue.",
            "generated_text": "It is blue.",
            "label": 1,
            "source": "wiki",
        },
        {
            "uid": "x2",
            "grounding": "Cats purr.",
            "generated_text": "Dogs purr.",
            "label": 1,
            "source": "web",
        },
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    j = _judgments({"x1": [0.9], "x2": [0.05]})
    j.write_parquet(tmp_path / "j.parquet")
    run = run_flag(
        tmp_path / "j.parquet",
        data,
        columns=Columns(text_a="grounding", text_b="generated_text", id="uid"),
        options=FlagOptions(posterior="none"),  # two examples: no base rate to estimate
    )
    cols = run.flags.columns
    assert cols[:5] == ["uid", "grounding", "generated_text", "label", "source"]
    assert {"id", "text_a", "text_b", "llm_label", "confidence", "error_score", "rank"} <= set(cols)
    assert run.flags["source"].to_list() == ["wiki", "web"]
    assert run.flagged()["uid"].to_list() == ["x2"]
    # The CLI writes the same table and refuses to write over the data or existing flags.
    out = tmp_path / "flags.jsonl"
    argv = [
        "flag",
        str(tmp_path / "j.parquet"),
        "--data",
        str(data),
        "--text-a",
        "grounding",
        "--text-b",
        "generated_text",
        "--id",
        "uid",
        "-o",
        str(out),
    ]
    assert main(argv) == 0
    written = read_rows(out)
    assert written.columns[:5] == cols[:5] and written["source"].to_list() == ["wiki", "web"]
    assert main(argv) == 2  # exists, no --force
    assert main([*argv, "--force"]) == 0
    before = data.read_bytes()
    assert main([*argv[:-1], str(data), "--force"]) == 2
    assert data.read_bytes() == before


def test_pred_probs_add_confident_learning():
    j = _judgments({str(i): [0.9 if i % 2 else 0.1] for i in range(40)})
    labels = ["1" if i % 2 else "0" for i in range(40)]
    labels[3] = "0"  # the judge and the model both say 1
    data = pl.DataFrame({"id": [str(i) for i in range(40)], "text": ["t"] * 40, "label": labels})
    probs = np.array([[0.05, 0.95] if i % 2 else [0.95, 0.05] for i in range(40)])
    run = flag_frames(j, data, pred_probs=probs, options=FlagOptions(posterior="none"))
    assert run.flags.filter(pl.col("cleanlab_issue"))["id"].to_list() == ["3"]
    assert run.confident_learning is not None and run.confident_learning.both == 1


def _bisect(logits: list[float], share: float) -> float:
    lo, hi = -50.0, 50.0
    for _ in range(200):
        mid = (lo + hi) / 2
        mean = sum(1 / (1 + math.exp(-(z + mid))) for z in logits) / len(logits)
        lo, hi = (mid, hi) if mean < share else (lo, mid)
    return (lo + hi) / 2


def test_default_prior_shift_and_error_score_by_hand():
    # a judge biased low: ensemble p_1 of 0.3 on label-1 pairs, 0.05 on label-0 pairs
    p1 = {f"e{i}": [0.3 if i % 2 else 0.05] for i in range(10)}
    p1["e9"] = [0.02]  # label 1, but the judge says clearly 0: the one error
    j = _judgments(p1)
    data = pl.DataFrame(
        {"id": list(p1), "text": ["t"] * 10, "label": ["1" if i % 2 else "0" for i in range(10)]}
    )
    # the detector's score 1 - P(label) by hand (posterior "none"; the posterior's own
    # tests are in tests/labels/test_labels_posterior.py)
    raw = flag_frames(j, data, options=FlagOptions(calibration="none", posterior="none"))
    assert raw.summary.flagged == 5  # every label-1 pair: the raw threshold over-flags
    run = flag_frames(j, data, options=FlagOptions(posterior="none"))  # prior shift to 0.5
    logits = [math.log(v[0] / (1 - v[0])) for v in p1.values()]
    d = _bisect(logits, 0.5)
    want = [1 / (1 + math.exp(-(z + d))) for z in logits]
    assert run.flags["p_1"].to_list() == pytest.approx(want, abs=1e-9)
    e = [w if lab == "0" else 1 - w for w, lab in zip(want, data["label"], strict=True)]
    assert run.flags["error_score"].to_list() == pytest.approx(e, abs=1e-9)
    assert run.flags["detector_error_score"].to_list() == pytest.approx(e, abs=1e-9)
    assert run.flagged()["id"].to_list() == ["e9"]
    # the default posterior keeps that score as detector_error_score
    post = flag_frames(j, data)
    assert post.flags["detector_error_score"].to_list() == pytest.approx(e, abs=1e-9)
    js = run.to_json()
    assert js["detector"]["calibration"]["params"]["ensemble"]["offset"][1] == pytest.approx(d)
    assert js["top"][0]["error_score"] == pytest.approx(e[9])


def test_trained_and_both_detectors_without_and_with_judgments():
    rng = np.random.default_rng(0)
    n = 60
    a = [f"Report {i}: the team scored {int(rng.integers(10, 99))} points." for i in range(n)]
    b, labels = [], []
    for i, text in enumerate(a):
        k = text.split("scored ")[1].split(" ")[0]
        if i % 2:
            b.append(f"The team scored {k} points.")
            labels.append("1")
        else:
            b.append(f"The team scored {int(k) + 3} points.")
            labels.append("0")
    labels[4] = "1"  # a planted error
    data = pl.DataFrame(
        {"id": [str(i) for i in range(n)], "text_a": a, "text_b": b, "label": labels}
    )
    run = flag_frames(None, data, options=FlagOptions(detector="trained", posterior="none"))
    assert {"trained_p_0", "trained_p_1", "error_score"} <= set(run.flags.columns)
    want = [1 - r[f"trained_p_{r['label']}"] for r in run.flags.iter_rows(named=True)]
    assert run.flags["error_score"].to_list() == pytest.approx(want)
    assert run.flagged()["id"][0] == "4"
    j = _judgments({str(i): [0.8 if i % 2 else 0.2] for i in range(n)})
    both = flag_frames(j, data, options=FlagOptions(detector="both", calibration="none"))
    row = both.flags.row(4, named=True)
    assert row["p_1"] == pytest.approx((row["llm_p_1"] + row["trained_p_1"]) / 2)
    with pytest.raises(Exception, match="needs a judgments file"):
        flag_frames(None, data, options=FlagOptions(detector="llm"))


def test_contextual_calibration_reads_the_content_free_rows(tmp_path):
    j = _judgments({"a": [0.3], "b": [0.6]})
    cf = pl.DataFrame(
        {
            "id": ["content-free:N/A", "content-free:"],
            "judge": ["m", "m"],
            "prompt": ["p0"] * 2,
            "p_0": [0.8, 0.6],
            "p_1": [0.2, 0.4],
            "content_free": ["N/A", ""],
        }
    )
    path = tmp_path / "j.csv"
    pl.concat([j.with_columns(pl.lit(None, pl.String).alias("content_free")), cf]).write_csv(path)
    data = tmp_path / "d.jsonl"
    data.write_text(
        '{"id": "a", "text": "x", "label": "1"}\n{"id": "b", "text": "y", "label": "0"}\n'
    )
    run = run_flag(path, data, options=FlagOptions(calibration="contextual"))
    w = (0.7, 0.3)  # mean content-free probabilities
    for i, p in (("a", 0.3), ("b", 0.6)):
        q = (p / w[1]) / ((1 - p) / w[0] + p / w[1])
        got = run.flags.filter(pl.col("id") == i)["p_1"][0]
        assert got == pytest.approx(q, abs=1e-12)
    assert run.flags.height == 2  # the content-free rows are not examples


def test_gold_file_fits_platt(tmp_path):
    p1 = {f"e{i}": [0.1 + 0.08 * i] for i in range(10)}
    j = _judgments(p1)
    data = pl.DataFrame({"id": list(p1), "text": ["t"] * 10, "label": ["0"] * 5 + ["1"] * 5})
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(
            json.dumps({"id": f"e{i}", "gold": "1" if i in (3, 6, 7, 8, 9) else "0"}) + "\n"
            for i in range(10)
        )
    )
    from benchcheck.runs.flag import read_gold_map

    g = read_gold_map(gold)
    run = flag_frames(j, data, options=FlagOptions(calibration="platt"), gold=g)
    from benchcheck.labels.calibration import fit_platt

    probs = np.array([[1 - v[0], v[0]] for v in p1.values()])
    cal = fit_platt(probs, [g[i] for i in p1], ["0", "1"])
    assert run.flags["p_1"].to_list() == pytest.approx(cal.apply(probs)[:, 1].tolist())


def _len_judge():
    """A judge with P(1) from the request's length: deterministic, no model."""
    from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore

    class LenJudge(Judge):
        identity = JudgeIdentity("stub", "len", "0" * 8)

        def score(self, requests, *, on_result=None):  # type: ignore[no-untyped-def]
            out = []
            for i, req in enumerate(requests):
                p = 0.15 + 0.7 * (len(str(req)) % 5) / 4
                s = JudgeScore.from_logprobs(("0", "1"), (math.log(1 - p), math.log(p)), 1, 0.0)
                if on_result:
                    on_result(i, s)
                out.append(s)
            return out

    return LenJudge()


def test_flag_reads_the_data_with_the_columns_it_was_judged_with(tmp_path, monkeypatch):
    # README: `judge data.jsonl --text-a grounding --text-b generated_text --label label -o
    # judgments.parquet` then `flag judgments.parquet --data data.jsonl`: the judgments carry
    # the column names, so neither the CLI nor the library needs them again (issue 33).
    import benchcheck as bc
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod
    from benchcheck.io.judgments import judged_columns
    from benchcheck.sample_data import PAIR_SAMPLE

    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: _len_judge())
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")
    data = tmp_path / "data.jsonl"
    data.write_bytes(PAIR_SAMPLE.read_bytes())
    j = tmp_path / "judgments.parquet"
    judge = ["judge", str(data), "--text-a", "grounding", "--text-b", "generated_text"]
    assert main([*judge, "--label", "label", "-o", str(j)]) == 0
    assert judged_columns(pl.read_parquet(j)) == Columns(
        text_a="grounding", text_b="generated_text", label="label"
    )
    out = tmp_path / "flags.jsonl"
    assert main(["flag", str(j), "--data", str(data), "-o", str(out)]) == 0
    flags = read_rows(out)
    assert flags.height == 20
    assert flags["text_a"].to_list() == flags["grounding"].to_list()
    # the same table as with the columns named again
    named = run_flag(j, data, columns=Columns(text_a="grounding", text_b="generated_text"))
    assert bc.flag(j, data).flags.equals(named.flags)
    # a name given wins over the recorded one (here: a column the data lacks)
    with pytest.raises(bc.InputError, match="nope"):
        bc.flag(j, data, columns=Columns(text_a="nope", text_b="generated_text"))
    # judgments without the record (made before issue 33) still need the names
    pl.read_parquet(j).drop("data_columns").write_parquet(tmp_path / "old.parquet")
    assert main(["flag", str(tmp_path / "old.parquet"), "--data", str(data)]) == 2
