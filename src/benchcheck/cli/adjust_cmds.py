"""The ``adjust`` command: controlled dataset adjustment (Sec. 6.4 of the statistics paper)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli import _options as opt
from benchcheck.cli._common import command, emit
from benchcheck.data.columns import Columns
from benchcheck.io.output import Outputs
from benchcheck.io.source import DataSource


@command("adjust")
@opt.with_columns
def adjust_cmd(
    data: Annotated[str, opt.arg("Dataset folder, file or saved HF dataset.")],
    split: Annotated[str, typer.Option("--split", help="The split to draw the subset from.")],
    metric: Annotated[
        str,
        typer.Option(
            "--metric",
            help="unseen_entity_ratio, ambiguous_entity_share, leakage_ratio, "
            "entity_null_rate or label_imbalance_degree.",
        ),
    ],
    target: Annotated[
        list[float],
        typer.Option("--target", help="Target value; repeat for subsets of the same size."),
    ],
    output: Annotated[Path, opt.out("Folder to create (an empty one, or --force).")],
    size: Annotated[
        int | None,
        typer.Option("--size", help="Instances per subset (default: the largest that works)."),
    ] = None,
    seed: opt.SeedOpt = 0,
    tolerance: Annotated[
        float, typer.Option("--tolerance", help="Largest accepted |achieved − target|.")
    ] = 0.02,
    task: opt.TaskOpt = "ner",
    columns: Columns = opt.DEFAULT_COLUMNS,  # the five column options (opt.with_columns)
    label_names: opt.LabelNamesOpt = None,
    scheme: Annotated[
        str | None, typer.Option("--scheme", help="Force the tagging scheme (NER).")
    ] = None,
    json_out: opt.JsonOpt = None,
    force: opt.ForceOpt = False,
) -> None:
    """Build subsets of a split whose metric hits a target; write them in the input's format.

    One target writes OUTPUT/<split file>; several write OUTPUT/target_<value>/<split file>.
    The report (target vs achieved, how far lengths and entity types or labels moved) goes to
    OUTPUT/adjustment.json. Refuses, with the reason, when a target is out of reach.

    Example: benchcheck adjust data/ --split test --metric leakage_ratio --target 0.2 -o leak20/
    """
    from benchcheck.report.terminal.scale import adjust_lines
    from benchcheck.runs.adjust import AdjustTarget, run_adjust

    source = DataSource(
        data,
        task=task,
        columns=columns,
        scheme=scheme,
        label_names=tuple(label_names.split(",")) if label_names else None,
    )
    outputs = Outputs(source.inputs, force=force)
    folder_out = outputs.folder(output, param="output", names=None)
    outputs.file(json_out, param="json")
    request = AdjustTarget(split, metric, tuple(target), size, seed, tolerance)
    run = run_adjust(source, request)
    with folder_out:
        payload = run.write(folder_out)
    emit(payload, json_out, adjust_lines)
