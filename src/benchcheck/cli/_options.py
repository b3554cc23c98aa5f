"""Options that several commands share, defined once: a parameter is then one line.

A command-specific option stays in its command; :func:`out` and :func:`arg` give the
``-o/--output`` option and a positional argument their command's own help in one line.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from benchcheck.data.columns import Columns
from benchcheck.io.formats import NerOptions, read_type_map

JsonOpt = Annotated[
    str | None, typer.Option("--json", help="Write the canonical JSON here ('-' for stdout).")
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Overwrite outputs that exist (never an input).")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed (same seed, same output).")]
TopOpt = Annotated[int, typer.Option("--top", help="Rows to show in the terminal.")]

# The dataset and its columns (benchcheck.data.columns.Columns).
DataArg = Annotated[
    str | None,
    typer.Argument(
        help="Dataset folder (train/dev/test files found by name), a file, or a saved HF dataset."
    ),
]
SplitOpt = Annotated[
    list[str] | None, typer.Option("--split", help="NAME=FILE; repeat for each split.")
]
TaskOpt = Annotated[str, typer.Option("--task", help="Task kind: ner, classification or pair.")]
TextOpt = Annotated[str | None, typer.Option("--text", help="Text column (classification).")]
TextAOpt = Annotated[
    str | None, typer.Option("--text-a", help="First text column (pair: premise, grounding).")
]
TextBOpt = Annotated[
    str | None, typer.Option("--text-b", help="Second text column (pair: hypothesis, claim).")
]
LabelOpt = Annotated[str | None, typer.Option("--label", help="Label column.")]
IdOpt = Annotated[str | None, typer.Option("--id", help="Id column.")]
LabelNamesOpt = Annotated[
    str | None, typer.Option("--label-names", help="Comma-separated names of label indices.")
]

# Reading NER files (benchcheck.io.formats.NerOptions).
SchemeOpt = Annotated[
    str | None,
    typer.Option(
        "--scheme",
        help="Force the tagging scheme: IOB1, IOB2, IOE1, IOE2, BIOES (IOBES), BILOU or BMES.",
    ),
]
StrictOpt = Annotated[
    bool, typer.Option("--strict", help="Reject invalid tag transitions instead of repairing them.")
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        help="NER file format (else detected from the extension and first record): "
        "conll, jsonl, cluener, doccano, label-studio, spacy or hf. Examples below.",
    ),
]
TypeMapOpt = Annotated[
    str | None,
    typer.Option(
        "--type-map",
        help='Rename entity types: a JSON object {"PER.NAM": "PER", ...} or @FILE.json.',
    ),
]
CoarseOpt = Annotated[
    bool,
    typer.Option("--coarse-types", help="Cut entity types at the first '.' (PER.NAM -> PER)."),
]
TokenizerOpt = Annotated[
    str,
    typer.Option(
        "--tokenizer",
        help="Offset formats: unicode (a token per CJK/Thai character, else words) or chars.",
    ),
]
AlignOpt = Annotated[
    str,
    typer.Option(
        "--align",
        help="Offset formats: spans off token boundaries are an error (strict), or are widened "
        "(expand) or narrowed (contract) and counted.",
    ),
]
OverlapsOpt = Annotated[
    str,
    typer.Option(
        "--overlaps",
        help="Offset formats: overlapping spans are an error, or keep-longest / keep-first.",
    ),
]

# Models' answers, judges, flags and reviews.
PredictionsOpt = Annotated[
    list[str] | None,
    typer.Option("--predictions", help="NAME=FILE: a model's answers (id and pred) on the data."),
]
JudgesOpt = Annotated[
    str | None, typer.Option("--judges", help="Comma-separated judges to keep (default: all).")
]
PromptsOpt = Annotated[
    str | None, typer.Option("--prompts", help="Comma-separated prompts to keep (default: all).")
]
JudgeSpecsOpt = Annotated[
    list[str] | None,
    typer.Option("--judge", help="backend:model (llama-cpp, openai, transformers, nli, vllm)."),
]
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", help="OpenAI-compatible server, e.g. .../v1.")
]
CacheOpt = Annotated[
    str | None, typer.Option("--cache", help="Judge cache (default: the user cache dir).")
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write a cache.")]
EngineOpt = Annotated[str, typer.Option("--engine", help="embedded, or ray.")]
AddressOpt = Annotated[
    str | None, typer.Option("--address", help="Ray cluster address (default: local).")
]
GoldOpt = Annotated[str, typer.Option("--gold", help="Gold file from `review import -o`.")]
GoldArg = Annotated[str, typer.Argument(help="Gold file from `review import -o`.")]
FlagsOpt = Annotated[
    str | None, typer.Option("--flags", help="Flags file from `benchcheck flag -o`.")
]
BinsOpt = Annotated[str, typer.Option("--bins", help="Confidence bin edges.")]
BootstrapOpt = Annotated[int, typer.Option("--bootstrap", help="Bootstrap resamples.")]
ResamplesOpt = Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")]
ConfidenceOpt = Annotated[float, typer.Option("--confidence", help="Confidence level.")]
ExpertsOpt = Annotated[int, typer.Option("--experts", help="Number of expert files.")]
PositiveOpt = Annotated[str | None, typer.Option("--positive", help="Positive label.")]
PrecisionOpt = Annotated[
    str | None,
    typer.Option(
        "--precision",
        help="P(the LLM label is right) of a flag: a number, or a `bins --json` file "
        "(default: measured from --gold).",
    ),
]
ErrorRateOpt = Annotated[
    str | None,
    typer.Option(
        "--error-rate",
        help="Error rate of the items no flag covers: a rate, ERRORS/SAMPLE, or an "
        "`error-rate --json` file.",
    ),
]
FailOnOpt = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        help="Exit 1 when any holds: NAME OP NUMBER, comma-separated; NAME a value "
        "(leakage_ratio), change(NAME), new_flags or fixed_flags.",
    ),
]

# Diagnostic suites.
SuiteOpt = Annotated[str, typer.Option("--suite", help="GLUE diagnostic TSV or JSONL suite.")]
TaxonomyOpt = Annotated[
    str | None,
    typer.Option("--taxonomy", help="TOML/JSON taxonomy replacing the GLUE one (coarse → tags)."),
]
LabelMapOpt = Annotated[
    str | None,
    typer.Option(
        "--label-map",
        help="Raw value → label, e.g. '0=entailment,1=neutral,2=contradiction'. Without it, "
        "integers are indices into the suite's label order.",
    ),
]


def out(help: str) -> Any:
    """Return the ``-o/--output`` option with a command's own help."""
    return typer.Option("-o", "--output", help=help)


def arg(help: str) -> Any:
    """Return a positional argument with a command's own help."""
    return typer.Argument(help=help)


def option_group(
    param: str, options: tuple[tuple[str, Any, Any], ...], build: Callable[..., Any]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command several options that it receives as one value, ``build(**options)``.

    ``options`` are (name, annotated type, default). They take the place of the parameter
    ``param`` in the signature typer reads (``__signature__``, annotations evaluated), so
    ``--help`` and the flags are those of plain options, in that place.
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(fn, eval_str=True)  # typer reads objects, not strings
        params = list(sig.parameters.values())
        at = [p.name for p in params].index(param)
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        added = [inspect.Parameter(n, kind, default=d, annotation=a) for n, a, d in options]

        @functools.wraps(fn)
        def command(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name, default) for name, _, default in options}
            return fn(*args, **{param: build(**given)}, **kwargs)

        signature = sig.replace(parameters=[*params[:at], *added, *params[at + 1 :]])
        command.__signature__ = signature  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
        return command

    return decorate


def _columns(
    text: str | None, text_a: str | None, text_b: str | None, label: str | None, id_col: str | None
) -> Columns:
    return Columns(text=text, text_a=text_a, text_b=text_b, label=label, id=id_col)


def _ner_reading(
    fmt: str | None,
    type_map: str | None,
    coarse_types: bool,
    tokenizer: str,
    align: str,
    overlaps: str,
) -> NerOptions:
    return NerOptions(fmt, tokenizer, align, overlaps, read_type_map(type_map), coarse_types)


#: ``columns: Columns``: the five table-column options (--text, --text-a, --text-b, --label, --id).
with_columns = option_group(
    "columns",
    (
        ("text", TextOpt, None),
        ("text_a", TextAOpt, None),
        ("text_b", TextBOpt, None),
        ("label", LabelOpt, None),
        ("id_col", IdOpt, None),
    ),
    _columns,
)
#: ``ner: NerOptions``: how NER files are read (--format, --type-map, --coarse-types,
#: --tokenizer, --align, --overlaps).
with_ner_reading = option_group(
    "ner",
    (
        ("fmt", FormatOpt, None),
        ("type_map", TypeMapOpt, None),
        ("coarse_types", CoarseOpt, False),
        ("tokenizer", TokenizerOpt, "unicode"),
        ("align", AlignOpt, "strict"),
        ("overlaps", OverlapsOpt, "error"),
    ),
    _ner_reading,
)
#: The defaults that commands decorated with :func:`with_columns` / :func:`with_ner_reading`
#: declare for the parameter the group fills.
DEFAULT_COLUMNS = Columns()
DEFAULT_NER = NerOptions()
