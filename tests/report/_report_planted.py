"""Shared helpers for the report tests: a results.json with every section and planted text."""

from __future__ import annotations

import copy
from typing import Any

PWN_SCRIPT = "<script>window.__pwned = 1</script>"
PWN_TABLE = '</td></tr></table><img src=x onerror="window.__pwned = 2">'
PWN_URL = '<a href="javascript:window.__pwned=3">click</a> javascript:window.__pwned=3'
PWN_ATTR = '"><svg onload="window.__pwned = 4">'
ODD = "مرحبا \u202eevil\u202c zero\u200bwidth Z\u0338\u0360 😀 \x00nul"
PLANTED = (PWN_SCRIPT, PWN_TABLE, PWN_URL, PWN_ATTR, ODD)


def planted_results(base: dict[str, Any]) -> dict[str, Any]:
    """Add every optional section to ``base`` (a real audit's results), with planted text."""
    r = copy.deepcopy(base)
    r["title"] = "planted " + PWN_SCRIPT
    r["inputs"]["evil"] = PWN_URL
    stats = r["stats"]
    stats["notes"] = [PWN_SCRIPT, ODD]
    stats["dataset"] = PWN_ATTR
    types = r["entity_types"]
    types["types"].append(PWN_ATTR)
    for split in types["splits"].values():
        split["counts"][PWN_ATTR] = 1
        split["shares"][PWN_ATTR] = 0.01
    stats["model_scores"] = {PWN_SCRIPT: 91.5, "model b": 90.1}
    r["comparison"] = {"datasets": {"sample": stats, PWN_TABLE: copy.deepcopy(stats)}}
    examples = []
    texts = [PWN_SCRIPT, PWN_TABLE, PWN_URL, PWN_ATTR, ODD, "plain text"]
    for i, t in enumerate(texts):
        conf = 0.99 - 0.07 * i
        examples.append(
            {
                "rank": i + 1,
                "id": f"x{i}" if i else PWN_SCRIPT,
                "text_a": t,
                "text_b": texts[-1 - i],
                "label": "1",
                "llm_label": "0",
                "confidence": conf,
                "bin": "[0.95, 1]"
                if conf >= 0.95
                else "[0.9, 0.95)"
                if conf >= 0.9
                else "[0.8, 0.9)"
                if conf >= 0.8
                else "[0.7, 0.8)",
                "p_0": conf,
                "p_1": 1 - conf,
            }
        )
    r["label_errors"] = {
        "dataset": {"source": PWN_URL, "n": 40, "columns": {"text_a": PWN_TABLE, "text_b": "b"}},
        "judge": {
            "judge": "llama-cpp:" + PWN_ATTR,
            "weights_sha256": None,
            "prompts": ["nli", PWN_SCRIPT],
            "members": 2,
        },
        "text_columns": ["text_a", "text_b"],
        "summary": {
            "n": 40,
            "judged": 40,
            "disagreements": 8,
            "flagged": 6,
            "flag_rate": 0.15,
            "threshold": 0.5,
            "flagged_by_bin": {
                "[0.5, 0.6)": 0,
                "[0.6, 0.7)": 0,
                "[0.7, 0.8)": 1,
                "[0.8, 0.9)": 2,
                "[0.9, 0.95)": 1,
                "[0.95, 1]": 2,
            },
            "labels": ["0", "1"],
        },
        "bins": [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0],
        "examples": examples,
        "examples_total": len(examples),
        "files": ["flagged.csv", "flagged.jsonl"],
    }
    r["error_rate"] = {
        "errors": 4,
        "sample": 6,
        "population": 40,
        "error_rate": 4 / 6,
        "ci": [0.22, 0.96],
        "ci_fpc": [0.3, 0.92],
        "confidence": 0.95,
        "fpc": 0.93,
        "lower_bound": 0.3,
        "population_errors_lower": 12,
    }
    r["bin_agreement"] = {
        "bootstrap": 100,
        "seed": 0,
        "bins": [
            {
                "bin": "[0.8, 0.9)",
                "n": 2,
                "with_llm": 0.5,
                "with_llm_ci": [0.0, 1.0],
                "with_original": 0.5,
                "with_original_ci": [0.0, 1.0],
                "warning": PWN_SCRIPT,
            },
            {
                "bin": "[0.95, 1]",
                "n": 2,
                "with_llm": 1.0,
                "with_llm_ci": [1.0, 1.0],
                "with_original": 0.0,
                "with_original_ci": [0.0, 0.0],
                "warning": None,
            },
        ],
    }
    r["ensemble_curve"] = {
        "unit": "member",
        "repeats": 5,
        "seed": 0,
        "members": ["j/nli", "j/" + PWN_SCRIPT],
        "points": [
            {
                "size": s,
                "n_subsets": 5,
                "roc_auc_mean": 0.6 + 0.05 * s,
                "roc_auc_ci": [0.5 + 0.05 * s, 0.7 + 0.05 * s],
                "f1_mean": 0.4 + 0.06 * s,
                "f1_ci": [0.3 + 0.06 * s, 0.5 + 0.06 * s],
            }
            for s in (1, 2, 3, 4)
        ],
    }
    diag = r["diagnostics"]
    model = next(iter(diag["models"].values()))
    planted_model = copy.deepcopy(model)
    planted_model["fine"][PWN_TABLE] = copy.deepcopy(next(iter(model["fine"].values())))
    diag["models"][PWN_SCRIPT] = planted_model
    diag["labels"] = [*diag["labels"][:-1], PWN_ATTR]
    r["contamination"] = _contamination()
    r["mcq"] = _mcq()
    return r


def _mcq() -> dict[str, Any]:
    """The multiple-choice section with planted text in questions, options, ids and groups."""
    long_question = "Which of the following statements about " + "the planted text " * 40 + "?"
    flags = [
        {
            "rank": i + 1,
            "id": f"q{i}" if i else PWN_SCRIPT,
            "group": PWN_ATTR if i % 2 else "virology",
            "question": [long_question, PWN_TABLE, ODD, "plain"][i],
            "options": [PWN_URL, "b", "a very long option " * 12, "None of the above"],
            "key": "A",
            "proposed_answer": "C",
            "support": 0.9 - 0.1 * i,
            "error_score": 0.95 - 0.1 * i,
            "kind": ["wrong_key", "ambiguous", "no_correct", "wrong_key"][i],
            "votes": {"A": 1.0, "B": 0.0, "C": 12.0, "D": 1.25},
        }
        for i in range(4)
    ]
    group = {"n": 100, "expected_wrong_keys": 5.5, "rate": 0.055, "ci": [0.02, 0.12]}
    return {
        "data": PWN_URL,
        "n_questions": 200,
        "n_groups": 2,
        "structure": {
            "n_questions": 200,
            "counts": {"duplicate_options": 1, "all_or_none_of_the_above": 3},
            "n_rows": 2,
            "rows": [
                {
                    "split": "test",
                    "id": PWN_SCRIPT,
                    "line": 4,
                    "check": "duplicate_options",
                    "options": ["B", "C"],
                },
                {
                    "split": "test",
                    "id": ODD,
                    "line": 9,
                    "check": "all_or_none_of_the_above",
                    "options": ["D"],
                },
            ],
        },
        "near_duplicates": {
            "threshold": 0.8,
            "compared": "question and options",
            "n_clusters": 1,
            "n_questions_in_clusters": 2,
            "n_clusters_keys_differ": 1,
            "near_duplicate_ratio": 0.005,
            "clusters": [
                {
                    "split": "test",
                    "size": 2,
                    "ids": [PWN_TABLE, "q-" + "x" * 120],
                    "key_texts": [PWN_ATTR, "a long key text " * 10],
                    "same_key": False,
                }
            ],
        },
        "answers": {
            "files": [PWN_URL],
            "models": ["m1", PWN_SCRIPT],
            "soft": False,
            "missing_answers": 0,
            "detector": "dawid_skene_one_coin_key_annotator_tempered",
            "threshold": 0.5,
            "effective_models": 1.7,
            "confidence": 0.95,
            "counts": {"wrong_key": 2, "ambiguous": 1, "no_correct": 1},
            "overall": {"group": "", **group, "n": 200, "flagged": 4},
            "by_group": [
                {"group": "virology", **group, "flagged": 2},
                {"group": PWN_ATTR, **group, "flagged": 2},
            ],
            "n_flags": 4,
            "flags": flags,
            "n_disputed_not_flagged": 1,
            "disputed_not_flagged": [{**flags[0], "rank": 5, "kind": "ok", "error_score": 0.3}],
            "flags_file": "mcq_flags.jsonl",
        },
        "not_run": [PWN_SCRIPT],
    }


def _contamination() -> dict[str, Any]:
    """The contamination section with planted ids, files, columns and model names."""
    subset = {"n": 1, "mean_overlap": 1.0, "score": 1.0, "z": 1.5, "z_fpc": None}
    model = {
        "model": PWN_SCRIPT,
        "score": 0.5,
        "subsets": {s: subset for s in ("clean", "not_clean", "not_dirty", "dirty")},
        "clean_minus_dirty": 0.0,
        "interval": None,
        "clean_vs_all": 0.0,
        "rank": {"all": 1, "clean": 1, "dirty": None},
    }
    match = {"file": PWN_TABLE, "row": 0, "id": ODD, "offset": 0, "item_offset": 0, "length": 12}
    return {
        "test": PWN_URL,
        "test_column": PWN_ATTR,
        "corpus_patterns": [PWN_TABLE],
        "parameters": {
            "definition": "llama2",
            "overlap": "tokens",
            "n": 10,
            "min_length": 10,
            "skip": 4,
            "clean_below": 0.2,
            "dirty_from": 0.8,
            "max_matches": 3,
            "normalisation": PWN_SCRIPT,
        },
        "corpus": {"files": 1, "documents": 3, "tokens": 40},
        "n_items": 2,
        "n_short_items": 1,
        "buckets": {"clean": 1, "not_clean": 1, "not_dirty": 1, "dirty": 1},
        "partition": {"clean": 1, "between": 0, "dirty": 1},
        "metrics": {"exact_rate": 0.5, "contaminated_rate": 0.5, "mean_overlap": 0.5},
        "histogram": {"edges": [k / 10 for k in range(11)], "counts": [1] + [0] * 8 + [1]},
        "n_contaminated": 1,
        "top_items": [
            {
                "id": PWN_SCRIPT,
                "n_tokens": 12,
                "overlap": 1.0,
                "bucket": "dirty",
                "subsets": ["not_clean", "dirty"],
                "exact_matches": 1,
                "normalised_matches": 1,
                "n_matches": 1,
                "matches": [match],
            }
        ],
        "scores": {
            "confidence": 0.95,
            "resamples": 10,
            "seed": 0,
            "ranking_changes": False,
            "models": [model],
        },
    }
