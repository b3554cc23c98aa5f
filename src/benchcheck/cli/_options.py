"""Every command-line option once: parameter name → flag(s) and help (:data:`OPTIONS`).

Commands declare plain typed parameters (``seed: int = 0``); :func:`typer_signature` gives
each its flag and help from the table, so a parameter is one line and a name the table lacks
is an error at import. ``Annotated[T, "help"]`` gives an option its command's own help,
``Annotated[T, Arg()]`` (or ``Arg("help")``) makes it positional, and a parameter typed
:class:`~benchcheck.data.columns.Columns`, :class:`~benchcheck.io.formats.NerOptions` or
:class:`~benchcheck.runs.leakage.LeakageOptions` is an option group: several flags, one
typed value, declared once for every command that takes it. Library errors name parameters
(``{threshold}``); :func:`flag_for` shows them as the flag a user types.

>>> flag_for("json_out"), flag_for("text_a"), flag_for("output"), flag_for("id")
('--json', '--text-a', '-o/--output', '--id')
"""

from __future__ import annotations

import glob
import inspect
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple, get_args, get_origin

import typer

from benchcheck.data.columns import Columns
from benchcheck.data.mcq import McqColumns
from benchcheck.errors import UsageError
from benchcheck.io.formats import NerOptions, parse_pairs, read_type_map
from benchcheck.runs.leakage import LeakageOptions


class Opt(NamedTuple):
    """An option whose flag is not ``--name-with-dashes`` (its range is in :data:`RANGES`)."""

    help: str
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Arg:
    """Marks a positional argument; ``help`` replaces the table's."""

    help: str = ""


#: Parameter → help, or :class:`Opt`. An empty help: each command gives its own.
OPTIONS: dict[str, str | Opt] = {
    "ablation": "Ablation: random (same number of examples).",
    "actors": "Judge actors with --engine ray.",
    "adjudicator": "The expert whose label decides disagreements (--consensus adjudicator).",
    "address": "Ray cluster address (default: local).",
    "align": "Offset formats: spans off token boundaries are an error (strict), or are widened "
    "(expand) or narrowed (contract) and counted.",
    "all_values": Opt("List unchanged values in the JSON too.", ("--all",)),
    "alpha_level": "Krippendorff's alpha: nominal, or ordinal (numeric labels ranked).",
    "annotated": "The sample file with annotators' judgements filled in.",
    "annotations": "CSV/TSV/JSONL: id,annotator,label rows, or id + one column per annotator.",
    "answer_key": "Multiple-choice key column: an index, a letter or the option's text "
    "(default: answer, answerKey, label, ...).",
    "answers": "Models' answers to multiple-choice questions (repeatable): a long table "
    "(id, model, answer), a wide one (id + a column per model) or lm-eval samples_*.jsonl.",
    "anticipated": "Anticipated error rates for --plan, e.g. disputed=0.3,undisputed=0.02 "
    "(default: from the reviews so far).",
    "api_key_env": "Environment variable holding the API key.",
    "audit_sample": "Mix this many seeded random undisputed (not flagged) examples into the "
    "review, indistinguishable from the flags: error-rate then estimates the whole dataset's "
    "error rate and the flags' recall.",
    "base_url": "OpenAI-compatible server, e.g. .../v1.",
    "baseline": "An earlier results.json: add the diff against it.",
    "batch_mb": "Megabytes of corpus text held at once.",
    "bins": "Confidence bin edges.",
    "bootstrap": "Bootstrap resamples.",
    "cache": "Judge cache (default: the user cache dir).",
    "budget": "Flag the N highest error scores (replaces --flag-rule and --min-error-score).",
    "choices": "Multiple-choice options column: a list, {label, text} objects or a mapping "
    "(default: options, choices, endings).",
    "calibration": "none, contextual, prior (shift to the data's label shares), "
    "contextual+prior, labels (Platt scaling fitted out of fold to the data's own labels), or "
    "with --gold: platt, isotonic.",
    "chunk_mb": "CoNLL megabytes per shard, cut at blank lines (default 16).",
    "coarse_types": "Cut entity types at the first '.' (PER.NAM -> PER).",
    "combination": "--detector both: mean, rank or stack.",
    "compare": "NAME=PATH: another NER dataset, shown side by side.",
    "concurrency": "Requests in flight (openai).",
    "cutoff": "A model predicts positive where its score is above this.",
    "confidence": "Confidence level.",
    "no_content_free": "Leave out the content-free inputs 'N/A', '' and '[MASK]' (judged by "
    "default, 3 rows per judge × prompt, for `benchcheck flag --calibration contextual`).",
    "clean_below": "Items with a smaller overlap are clean (0: only those with none; default "
    "from --definition).",
    "consensus": "Disagreements: unanimous (unresolved), majority, adjudicator, or a crowd "
    "model (dawid-skene, glad, mace); a reconciled label always wins.",
    "corpus": "Corpus shards (Parquet, JSON lines, .gz/.zst): glob (quote it), file or "
    "folder; repeatable.",
    "corpus_id_column": "Id column of the corpus, shown with each match.",
    "crowd": "Crowd labels: id, annotator, label (long).",
    "crowd_model": "Crowd model on --crowd: dawid-skene, glad or mace (reviewer accuracies, "
    "label posteriors).",
    "data": "Dataset folder (train/dev/test files found by name), a file, or a saved HF dataset.",
    "datasets": "NAME=PATH for each dataset to compare.",
    "definition": "Contamination definition: llama2 (share of tokens in matched spans of 10+ "
    "tokens, up to 4 mismatches; clean < 0.2, dirty >= 0.8), gpt3 (dirty with any N-gram found, "
    "N the 5th percentile of item lengths in [8, 13]) or palm (dirty with 70% of 8-grams found).",
    "detector": "llm (the judge ensemble), trained (a model cross-validated on the data, with "
    "cleanlab) or both.",
    "dirty_from": "Items with at least this overlap are dirty (0: any overlap; default from "
    "--definition).",
    "disagreement": "Two sources whose disagreement is the subset.",
    "discontinuous": "brat: a discontinuous span (0 5;10 15) is an error, merged into one "
    "span from its first start to its last end, or dropped.",
    "draws": "Plausible labelings drawn.",
    "engine": "embedded, or ray (a shard folder from convert).",
    "error_rate": "Error rate of the items no flag covers: a rate, ERRORS/SAMPLE, or an "
    "`error-rate --json` file.",
    "errors": "Errors found.",
    "eval_path": Opt("Evaluation pair file or diagnostic suite.", ("--eval",)),
    "experts": "Number of expert files.",
    "fail_on": "Exit 1 when any holds: NAME OP NUMBER, comma-separated; NAME a value "
    "(leakage_ratio), change(NAME), new_flags or fixed_flags.",
    "features": "Trained detector: tfidf, embedding, tfidf+embedding.",
    "fine": Opt("Show fine tags.", ("--fine/--no-fine",)),
    "folds": "Tagger detector: folds of the out-of-fold CRF (each trained on the others).",
    "entity_disjoint": "Tagger detector: drop from each fold's training the sentences that "
    "mention an entity of the held-out fold (CrossWeigh).",
    "crossweigh": "Tagger detector: entity-disjoint k-fold runs beside the plain one "
    "(CrossWeigh); each token is scored by the view less sure of its gold label (default 0: "
    "off; helps where errors recur with their surface, docs/labels.md).",
    "flag_rule": "precision (default: the largest top set of disagreements whose expected "
    "precision is >= 0.5; on fewer than 100 judged examples every disagreement), threshold "
    "(disagree and error score >= --min-error-score; the rule when only --min-error-score "
    "is given) or cleanlab (confident learning's issues with error score >= --min-error-score).",
    "flags": "Flags file from `benchcheck flag -o`.",
    "fmt": Opt(
        "NER file format (else detected from the extension and first record): conll, jsonl, "
        "cluener, doccano, label-studio, spacy, pubtator, brat, medcat, spans-json or hf "
        "(an example of each: benchcheck stats --help).",
        ("--format",),
    ),
    "force": "Overwrite outputs that exist (never an input).",
    "gold": "Gold file from `review import -o`.",
    "group_col": Opt(
        "Multiple-choice group (subject) column (default: subject).", ("--group-column",)
    ),
    "group": "NAME=SRC1,SRC2,...: sources whose Fleiss' kappa to report.",
    "guidelines": "Review guidelines: TOML (task and a [labels] table of meanings) or a text "
    "file (the task). Default: the task's own (pair, classification or NER).",
    "id_col": Opt("Id column.", ("--id",)),
    "inclusive_end": "spans-json: span ends are inclusive (the last character's offset).",
    "instances": "Offset formats: one instance per document (record) or per sentence "
    "(default: sentence for pubtator, brat and medcat, document for the others).",
    "id_column": "Id column of the test file (default: id, else row).",
    "intersect": "Models answered different items: keep those all answered.",
    "irt": "IRT model: 2pl, 1pl or none.",
    "json_out": Opt("Write the canonical JSON here ('-' for stdout).", ("--json",)),
    "judge": "Judge for label-error flags: backend[:model] "
    "(default: the embedded llama.cpp model).",
    "judge_error": "bayes-platt: a prior on the judge's own confident-mistake rate, so that "
    "they are not counted as wrong labels: 'gold' (fitted on the --gold audit sample) or a "
    "Beta's 'a,b' (the embedded judge measured 2.34,13.21 on clean pairs; docs/labels.md). "
    "Default: none (every disagreement is a possible wrong label).",
    "judges": "Comma-separated judges to keep (default: all).",
    "judgments": "Judgments file.",
    "key": "Review key (default: key.jsonl beside them).",
    "label": "Label column.",
    "label_column": "Column holding the predicted label.",
    "label_map": "Raw value → label, e.g. '0=entailment, 1=neutral, 2=contradiction'. Without "
    "it, "
    "integers are indices into the suite's label order.",
    "label_names": "Comma-separated names of label indices.",
    "labels": "Comma-separated choices for the experts (default: seen).",
    "max_matches": "Matches listed per item.",
    "medcat_keep": "medcat: keep all annotations not deleted (reviewer-rejected ones listed), "
    "or only the correct ones.",
    "multi_type": "Document formats: a mention with several types keeps the first, becomes one "
    "span per type (all), or is an error.",
    "label_error_seconds": "NER: time budget of the label-error section's tagger per split, "
    "in seconds; each split is checked on its first sentences up to the tokens the tagger gets "
    "through in that time (0 skips the section).",
    "matrix": "Score matrix (id + one 0/1 column per model): item analysis.",
    "max_train": "Train on a seeded subset of this size.",
    "method": "Per-stratum interval of the stratified estimate: midp (near nominal) or exact "
    "(never below nominal, wider).",
    "metric": "accuracy or f1.",
    "min_length": "Shortest matched span in tokens (Llama 2's L; default: n).",
    "min_bin": "Warn on bins with fewer examples.",
    "min_confidence": "Act on flags whose confidence (the ensemble's probability of its own "
    "label) is at least this.",
    "min_error_score": "Minimum error score of a flag: the posterior probability that the "
    "original label is wrong (0.5: more likely wrong than right); given, it selects "
    "--flag-rule threshold unless another rule is named.",
    "min_discrimination": "Flag items at or below this discrimination.",
    "mode": "filter (default) or flip; correct or filter with --spans or --task mcq.",
    "n": "Tokens per n-gram (default from --definition).",
    "near_duplicates": "Add normalised and MinHash-LSH near-duplicates (slower).",
    "near_threshold": "Jaccard threshold of near-duplicates.",
    "ner": "The NER file (CoNLL) the span flags were flagged on: its sentences and gold "
    "spans make a Label Studio span review.",
    "negative": "Label of 'inconsistent' (strict vote).",
    "new": "The later results.json (omit to gate OLD alone).",
    "no_cache": "Do not read or write a cache.",
    "no_judge": "Skip label-error flags.",
    "offset_check": "Document formats: a mention whose text differs from the text at its "
    "offsets is an error, counted (warn), or moved to the whitespace-stripped span (trim).",
    "old": "The earlier results.json (or the only one).",
    "option_columns": "Multiple-choice options as one column per option, e.g. A,B,C,D.",
    "output": Opt("", ("-o", "--output")),
    "overlap": "tokens (share of an item's tokens inside matched spans) or ngram (share of "
    "its n-grams found); default from --definition.",
    "overlaps": "Offset formats: overlapping spans are an error, or keep-longest / keep-first.",
    "per_split": "Instances drawn from each split.",
    "plan": "Target width of the stratified interval: reviews per stratum needed.",
    "population": "Size of the whole dataset.",
    "positive": "Positive label.",
    "precision": "P(the LLM label is right) of a flag: a number, or a `bins --json` file "
    "(default: measured from --gold).",
    "pred_probs": "Your model's out-of-sample probabilities (.npy in data order, or a table "
    "with id and p_<label>): adds cleanlab's confident-learning flags and the overlap.",
    "predictions": "NAME=FILE: a model's answers (id and pred) on the data.",
    "price": Opt("Price per 1000 prompt tokens, for the cost.", ("--price-per-1k-tokens",)),
    "prompt_file": "User templates (TOML, a table per prompt: prompts.NAME).",
    "posterior": "How error_score is computed: bayes-platt (the posterior probability that the "
    "label is wrong, detector recalibrated jointly with the base rate of errors), bayes, "
    "dawid-skene, cleanlab, or none (the detector's probability of another label, kept as "
    "detector_error_score).",
    "prompts": "Comma-separated prompts to keep (default: all).",
    "question": "Multiple-choice question column (default: question, ctx, ...).",
    "rotations": "",
    "ray_cpus": "CPUs of a local Ray cluster.",
    "reconciled": "Reconciled labels (review_id,label).",
    "repeats": "Random subsets per ensemble size.",
    "resample_items": "Also resample items (test sampling error).",
    "resamples": "Bootstrap resamples.",
    "results": "The results.json written by benchcheck audit.",
    "reviewed": "Corrected spans of a span review (benchcheck review import -o): adds the "
    "Eq. 2 accuracy of each split from its reviewed sentences, with a Clopper-Pearson interval.",
    "sample": "Examples reviewed.",
    "scheme": "Force the tagging scheme: IOB1, IOB2, IOE1, IOE2, BIOES (IOBES), BILOU or BMES.",
    "scores": "Comma-separated model scores: adds Model Differentiation (Eq. 7).",
    "seed": "Random seed (same seed, same output).",
    "sentence_language": "Language of the sentence splitter for --instances sentence (an ISO "
    "code: en, es, zh, ...).",
    "semantic_duplicates": "Add embedding near-duplicates (offline all-MiniLM-L6-v2; "
    "'semantic' extra).",
    "semantic_threshold": "Cosine threshold of semantic duplicates.",
    "show": "Contaminated items to list.",
    "spans": "Corrected spans of a span review (benchcheck review import -o): remedy the "
    "CoNLL DATA's reviewed sentences instead of flagged examples.",
    "side": Opt("Which side the baseline sees: hypothesis or premise.", ("--input",)),
    "size": "Instances per subset (default: the largest that works).",
    "skip": "Mismatched positions a matched span may have (Llama 2: 4).",
    "source": "NAME=FILE[#COLUMN]: a label source (id + label).",
    "spacy_model": Opt("Predict with this spaCy pipeline instead.", ("--spacy",)),
    "span_fields": "spans-json: where each field is, e.g. 'text=full_text, spans=spans, "
    "start=start_position, end=end_position, type=entity_type' (also mention=, id=; dotted "
    "paths for nested fields, numbers for list items). medcat: type=FIELD (default cui).",
    "split": "NAME=FILE; repeat for each split.",
    "split_lists": Opt(
        "Divide one file's documents into splits by id lists, e.g. "
        "'train=train_pmids.txt, dev=dev_pmids.txt, test=test_pmids.txt'.",
        ("--split-by-list",),
    ),
    "strict": "Reject invalid tag transitions instead of repairing them.",
    "suite": "GLUE diagnostic TSV or JSONL suite.",
    "terms": "Words to explain (any case); none: every entry.",
    "swap_threshold": "'Could swap with' above this flip probability.",
    "target": "Target value; repeat for subsets of the same size.",
    "task": "Task kind: ner, classification, pair or mcq.",
    "taxonomy": "TOML/JSON taxonomy replacing the GLUE one (coarse → tags).",
    "test": "Test items: JSONL, CSV, TSV or Parquet with a text column.",
    "test_column": "Text column of the test file, if different.",
    "text": "Text column (classification).",
    "text_a": "First text column (pair: premise, grounding).",
    "text_b": "Second text column (pair: hypothesis, claim).",
    "text_column": "Text column of the corpus (and of the test file).",
    "timeout": "Seconds per request (openai): connect, reads and the whole answer.",
    "to_review": "Folder: the suspect items as a blind review package.",
    "tokenizer": "Offset formats: unicode (a token per CJK/Thai character, else words) or chars.",
    "tolerance": "Largest accepted |achieved − target|.",
    "target_precision": "Flag the largest top set whose expected precision (mean error "
    "score) is at least P (replaces --flag-rule and --min-error-score).",
    "top": "Rows to show in the terminal.",
    "train": "Training pair file.",
    "truth": "Source taken as truth for annotators.",
    "type_map": 'Rename entity types: a JSON object {"PER.NAM": "PER", ...} or @FILE.json.',
    "unit": "Grow by 'member' (judge×prompt) or 'judge'.",
    "judge_top": "--detector llm/both: the judge scores the tagger's N highest rows (default "
    "200: ~16 min for the embedded judge on 2 cores; 0: every row); the others keep the "
    "tagger's score, ranked after them, unflagged.",
    "verify": "--detector llm/both: candidates (the judge scores the tagger's candidate "
    "spans) or all (every other gold span too: a row of kind type or missing, source verify).",
    "verbalisers": "Answer tokens per label, e.g. 'no,yes'.",
}


class Range(NamedTuple):
    """The values an option accepts: integers or finite numbers between ``lo`` and ``hi``.

    >>> Range(0, 2**32 - 1).check("seed", -1)
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: seed must be an integer from 0 to 4,294,967,295, got -1
    >>> Range(0, 1, integer=False).check("threshold", float("nan"))
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: threshold must be a finite number from 0 to 1, got nan
    """

    lo: float | None = None
    hi: float | None = None
    integer: bool = True
    #: ``lo`` / ``hi`` themselves excluded (a confidence level is in (0, 1)).
    open_lo: bool = False
    open_hi: bool = False

    def text(self) -> str:
        """Say the rule in words: ``an integer from 1 to 1000``, ``a finite number above 0``."""
        kind = "an integer" if self.integer else "a finite number"
        lo, hi = _num(self.lo), _num(self.hi)
        if self.lo is not None and self.hi is not None and not self.open_lo and not self.open_hi:
            return f"{kind} from {lo} to {hi}"
        if self.lo is not None and self.hi is not None and self.open_lo and self.open_hi:
            return f"{kind} between {lo} and {hi}, both excluded"
        parts = []
        if self.lo is not None:
            parts.append(f"above {lo}" if self.open_lo else f"of at least {lo}")
        if self.hi is not None:
            parts.append(f"below {hi}" if self.open_hi else f"at most {hi}")
        return " and ".join([f"{kind} {parts[0]}", *parts[1:]]) if parts else kind

    def holds(self, value: float) -> bool:
        """Whether ``value`` is inside the range (and finite)."""
        if isinstance(value, bool) or not math.isfinite(value):
            return False
        if self.lo is not None and (value <= self.lo if self.open_lo else value < self.lo):
            return False
        return self.hi is None or (value < self.hi if self.open_hi else value <= self.hi)

    def check(self, param: str, value: Any) -> None:
        """Raise :class:`UsageError` naming ``{param}`` unless every value holds."""
        for item in value if isinstance(value, list | tuple) else [value]:
            # (one name can be a count in one command and files in another: --experts)
            if isinstance(item, int | float) and not self.holds(item):
                raise UsageError(f"{{{param}}} must be {self.text()}, got {item}")


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else f"{value:,}"


_COUNT = 100_000  # resamples, draws: beyond this an interval moves by less than its noise
_P = Range(0, 1, integer=False)

#: Parameter → the values it accepts, checked once when a command starts (one message per
#: rule). Counts have maxima a run can hold in memory on a laptop.
RANGES: dict[str, Range] = {
    "actors": Range(1, 1024),
    "audit_sample": Range(0, 10_000_000),
    "batch_mb": Range(1, 65_536),
    "budget": Range(0, None),
    "bootstrap": Range(1, _COUNT),
    "chunk_mb": Range(1, 4096),
    "clean_below": _P,
    "concurrency": Range(1, 1024),
    "cutoff": Range(None, None, integer=False),  # a score's scale is the model's
    "confidence": Range(0, 1, integer=False, open_lo=True, open_hi=True),
    "dirty_from": _P,
    "draws": Range(1, _COUNT),
    "errors": Range(0, None),
    "folds": Range(2, 100),
    "crossweigh": Range(0, 100),
    "experts": Range(1, 26),  # expert_a … expert_z
    "max_matches": Range(0, 1_000_000),
    "max_train": Range(1, None),
    "min_length": Range(1, 1000),
    "min_bin": Range(0, None),
    "min_discrimination": Range(-1, 1, integer=False),
    "n": Range(1, 1000),
    "near_threshold": _P,
    "per_split": Range(1, 10_000_000),
    "plan": Range(0, 1, integer=False, open_lo=True),
    "population": Range(1, None),
    "price": Range(0, None, integer=False),
    "ray_cpus": Range(1, 4096),
    "repeats": Range(1, 10_000),
    "resamples": Range(1, _COUNT),
    "sample": Range(1, None),
    "seed": Range(0, 2**32 - 1),
    "semantic_threshold": _P,
    "show": Range(0, 1_000_000),
    "size": Range(1, None),
    "skip": Range(0, 1000),
    "swap_threshold": _P,
    "target": Range(None, None, integer=False),
    "min_confidence": _P,
    "min_error_score": _P,
    "label_error_seconds": Range(0, 86_400, integer=False),
    "timeout": Range(0, 86_400, integer=False, open_lo=True),
    "tolerance": Range(0, None, integer=False),
    "target_precision": Range(0, 1, integer=False, open_lo=True),
    "top": Range(0, 1_000_000),
}


def check_ranges(values: dict[str, Any]) -> None:
    """Check each option value against :data:`RANGES` (the command line's one boundary)."""
    for param, value in values.items():
        rule = RANGES.get(param)
        if rule is not None and isinstance(value, int | float | list | tuple):
            rule.check(param, value)


#: Parameters whose values name files the command reads, and how a value names them:
#: ``path`` (the value), ``named`` (NAME=PATH), ``source`` (NAME=PATH[#COLUMN]), ``maybe``
#: (a path if one exists by that name, else a number: --precision 0.8), ``at`` (@PATH),
#: ``named-list`` (NAME=PATH,NAME=PATH: --split-by-list),
#: ``glob`` (a pattern, file or folder, expanded as the reader expands it). Each is claimed
#: as an input (and checked to be a readable regular file or folder) before any work.
READS: dict[str, str] = {
    "annotated": "path",
    "annotations": "path",
    "answers": "path",
    "baseline": "path",
    "cache": "path",
    "compare": "named",
    "corpus": "glob",
    "crowd": "path",
    "data": "path",
    "datasets": "named",
    "error_rate": "maybe",
    "eval_path": "path",
    "experts": "path",
    "flags": "path",
    "gold": "path",
    "judgments": "path",
    "key": "path",
    "matrix": "path",
    "ner": "path",
    "new": "path",
    "old": "path",
    "precision": "maybe",
    "pred_probs": "path",
    "predictions": "named",
    "prompt_file": "path",
    "reconciled": "path",
    "results": "path",
    "spans": "path",
    "reviewed": "path",
    "scores": "maybe",
    "source": "source",
    "split": "named",
    "split_lists": "named-list",
    "suite": "path",
    "taxonomy": "path",
    "test": "path",
    "train": "path",
    "type_map": "at",
}


def _named(value: str) -> str | None:
    name, sep, path = value.partition("=")
    return path if sep and name else None


def _paths(kind: str, value: str) -> Iterator[tuple[str, bool]]:
    """Yield the paths one option value names: (path, read deep: subfolders too)."""
    if value in ("", "-") or value.startswith("hf:"):
        return
    if kind == "path":
        yield value, False
    elif kind == "named-list":
        for item in _items(value):
            path = _named(item)
            if path is not None:
                yield path, False
    elif kind in ("named", "source"):
        path = _named(value)
        if path is not None:
            yield (path.partition("#")[0] if kind == "source" else path), False
    elif kind == "maybe":
        for path in (value, _named(value)):
            if path and os.path.lexists(path):
                yield path, False
    elif kind == "at" and value.startswith("@"):
        yield value[1:], False
    elif kind == "glob":
        if os.path.lexists(value):
            yield value, os.path.isdir(value)
        else:
            for path in sorted(glob.glob(value, recursive=True)):
                yield path, False


def declared_inputs(values: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every path the option ``values`` name as inputs (:data:`READS`), and the deep folders."""
    inputs: list[str] = []
    deep: list[str] = []
    for param, value in values.items():
        kind = READS.get(param)
        if kind is None or value is None:
            continue
        for item in value if isinstance(value, list | tuple) else [value]:
            if not isinstance(item, str):
                continue
            for path, is_deep in _paths(kind, item):
                inputs.append(path)
                if is_deep:
                    deep.append(path)
    return inputs, deep


def declared_globs(values: dict[str, Any]) -> list[str]:
    """Every glob pattern the option ``values`` read (:data:`READS` kind ``glob``).

    A value naming an existing file or folder is no pattern (its path is an input already).
    """
    out: list[str] = []
    for param, value in values.items():
        if READS.get(param) != "glob" or value is None:
            continue
        for item in value if isinstance(value, list | tuple) else [value]:
            if isinstance(item, str) and item and not os.path.lexists(item):
                out.append(item)
    return out


def _entry(name: str) -> Opt:
    entry = OPTIONS.get(name)
    if entry is None:
        raise TypeError(f"parameter {name!r} has no entry in benchcheck.cli._options.OPTIONS")
    return entry if isinstance(entry, Opt) else Opt(entry)


#: Library parameters whose command-line option has another name (``load(splits=...)`` is
#: ``--split NAME=FILE``, repeated).
LIBRARY_NAMES = {"splits": "split"}


def flag_for(param: str) -> str:
    """Return the command-line flag of a parameter (``--`` plus its name with dashes if new).

    >>> flag_for("splits"), flag_for("eval_path"), flag_for("text_a")
    ('--split', '--eval', '--text-a')
    """
    param = LIBRARY_NAMES.get(param, param)
    flags = _entry(param).flags if param in OPTIONS else ()
    return "/".join(flags) or "--" + param.replace("_", "-")


def _columns(
    text: str | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    id_col: str | None = None,
) -> Columns:
    return Columns(text=text, text_a=text_a, text_b=text_b, label=label, id=id_col)


def _items(value: str | None) -> list[str]:
    """Return the comma-separated items of an option's value."""
    return [item.strip() for item in (value or "").split(",") if item.strip()]


def _ner_reading(
    fmt: str | None = None,
    type_map: str | None = None,
    coarse_types: bool = False,
    tokenizer: str = "unicode",
    align: str = "strict",
    overlaps: str = "error",
    instances: str | None = None,
    sentence_language: str = "en",
    multi_type: str = "first",
    discontinuous: str = "error",
    offset_check: str = "error",
    span_fields: str | None = None,
    inclusive_end: bool = False,
    medcat_keep: str = "all",
    split_lists: str | None = None,
) -> NerOptions:
    return NerOptions(
        fmt,
        tokenizer,
        align,
        overlaps,
        read_type_map(type_map),
        coarse_types,
        multi_type=multi_type,
        discontinuous=discontinuous,
        offset_check=offset_check,
        instances=instances,
        sentence_language=sentence_language,
        span_fields=parse_pairs(_items(span_fields), "{span_fields}"),
        inclusive_end=inclusive_end,
        medcat_keep=medcat_keep,
        split_lists=parse_pairs(_items(split_lists), "{split_lists}"),
    )


def _contamination(
    definition: str = "llama2",
    overlap: str | None = None,
    n: int | None = None,
    min_length: int | None = None,
    skip: int | None = None,
    clean_below: float | None = None,
    dirty_from: float | None = None,
    near_threshold: Annotated[
        float | None,
        "Also find corpus documents whose token set has Jaccard similarity >= this with an "
        "item (MinHash-LSH, verified exactly; slower).",
    ] = None,
    max_matches: int = 3,
) -> LeakageOptions:
    return LeakageOptions(
        definition=definition,
        overlap=overlap,
        n=n,
        min_length=min_length,
        skip=skip,
        clean_below=clean_below,
        dirty_from=dirty_from,
        near_threshold=near_threshold,
        max_matches=max_matches,
    )


def _mcq_columns(
    question: str | None = None,
    choices: str | None = None,
    option_columns: str | None = None,
    answer_key: str | None = None,
    group_col: str | None = None,
) -> McqColumns:
    """Multiple-choice columns; the id column is the :class:`Columns` group's ``--id``."""
    return McqColumns(
        question=question,
        options=choices,
        option_columns=tuple(_items(option_columns)) or None,
        key=answer_key,
        group=group_col,
    )


#: Option groups: a parameter of this type takes the builder's parameters' place.
GROUPS: dict[type, Callable[..., Any]] = {
    Columns: _columns,
    McqColumns: _mcq_columns,
    NerOptions: _ner_reading,
    LeakageOptions: _contamination,
}
_KIND = inspect.Parameter.KEYWORD_ONLY


def _typer_parameter(param: inspect.Parameter, panel: str | None = None) -> inspect.Parameter:
    """``param`` annotated as typer reads it: its flag(s) and help from :data:`OPTIONS`.

    ``panel`` names the help panel the option is listed in (None: typer's "Options").
    """
    annotation, marks = param.annotation, []
    if get_origin(annotation) is Annotated:
        annotation, *marks = get_args(annotation)
    opt = _entry(param.name)
    own = next((m for m in marks if isinstance(m, str | Arg)), None)
    help = (own.help if isinstance(own, Arg) else own) or opt.help
    if not help:
        raise TypeError(f"parameter {param.name!r} needs its command's own help")
    if isinstance(own, Arg):
        info = typer.Argument(help=help)
    else:
        rule = RANGES.get(param.name)
        if rule is not None:
            help = f"{help} [{rule.text()}]"
        info = typer.Option(*opt.flags or [flag_for(param.name)], help=help, rich_help_panel=panel)
    return param.replace(annotation=Annotated[annotation, info], kind=_KIND)


def typer_signature(
    fn: Callable[..., Any],
    added: tuple[inspect.Parameter, ...] = (),
    panels: Mapping[str, Sequence[str]] | None = None,
) -> tuple[inspect.Signature, dict[str, tuple[Callable[..., Any], list[str]]]]:
    """Return the signature typer reads for ``fn`` (plus ``added``) and its option groups.

    ``added`` go before ``fn``'s own ``force``, if it has one, else last. ``panels`` lists
    the parameters of each help panel (``{"Inputs": ("data", "columns"), ...}``); naming an
    option group's parameter puts all of its options there.

    Groups are ``{parameter: (builder, the builder's parameters)}``: the command receives
    ``builder(**those options)`` as that parameter.
    """
    sig = inspect.signature(fn, eval_str=True)  # typer reads objects, not strings
    params: list[inspect.Parameter] = []
    groups: dict[str, tuple[Callable[..., Any], list[str]]] = {}
    given = list(sig.parameters.values())
    at = next((k for k, p in enumerate(given) if p.name == "force"), len(given))
    panel_of = {name: title for title, names in (panels or {}).items() for name in names}
    for param in [*given[:at], *added, *given[at:]]:  # --json, --force last, in this order
        build = GROUPS.get(param.annotation)
        panel = panel_of.get(param.name)
        if build is None:
            params.append(_typer_parameter(param, panel))
            continue
        members = list(inspect.signature(build, eval_str=True).parameters.values())
        if param.default != build():
            raise TypeError(f"{fn.__name__}: {param.name} must default to {build()!r}")
        groups[param.name] = (build, [p.name for p in members])
        params += [_typer_parameter(p, panel_of.get(p.name, panel)) for p in members]
    if panels:  # listed panel by panel, in the order given (typer draws them as they come)
        rank = {title: k for k, title in enumerate(panels)}
        params.sort(key=lambda p: rank.get(_panel(p) or "", len(rank)))
    return sig.replace(parameters=params), groups


def _panel(param: inspect.Parameter) -> str | None:
    """Return the help panel typer lists ``param`` in (None: its default one)."""
    return next(
        (
            m.rich_help_panel
            for m in get_args(param.annotation)[1:]
            if hasattr(m, "rich_help_panel")
        ),
        None,
    )
