"""The ``adjust`` command: controlled dataset adjustment (Sec. 6.4 of the statistics paper)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli._app import app, console
from benchcheck.cli._common import ForceOpt, write_json
from benchcheck.data.columns import Columns
from benchcheck.io.output import Outputs
from benchcheck.io.source import DataSource


@app.command("adjust")
def adjust_cmd(
    data: Annotated[str, typer.Argument(help="Dataset folder, file or saved HF dataset.")],
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
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Folder to create (an empty one, or --force).")
    ],
    size: Annotated[
        int | None,
        typer.Option("--size", help="Instances per subset (default: the largest that works)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same subset).")] = 0,
    tolerance: Annotated[
        float, typer.Option("--tolerance", help="Largest accepted |achieved − target|.")
    ] = 0.02,
    task: Annotated[str, typer.Option("--task", help="ner, classification or pair.")] = "ner",
    text: Annotated[str | None, typer.Option("--text", help="Text column.")] = None,
    text_a: Annotated[str | None, typer.Option("--text-a", help="First text column.")] = None,
    text_b: Annotated[str | None, typer.Option("--text-b", help="Second text column.")] = None,
    label: Annotated[str | None, typer.Option("--label", help="Label column.")] = None,
    id_col: Annotated[str | None, typer.Option("--id", help="Id column.")] = None,
    label_names: Annotated[
        str | None, typer.Option("--label-names", help="Comma-separated names of label indices.")
    ] = None,
    scheme: Annotated[
        str | None, typer.Option("--scheme", help="Force the tagging scheme (NER).")
    ] = None,
    json_out: Annotated[
        str | None, typer.Option("--json", help="Also write the report here ('-' for stdout).")
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Build subsets of a split whose metric hits a target; write them in the input's format.

    One target writes OUTPUT/<split file>; several write OUTPUT/target_<value>/<split file>.
    The report (target vs achieved, how far lengths and entity types or labels moved) goes to
    OUTPUT/adjustment.json. Refuses, with the reason, when a target is out of reach.

    Example: benchcheck adjust data/ --split test --metric leakage_ratio --target 0.2 -o leak20/
    """
    from benchcheck.runs.adjust import run_adjust

    source = DataSource(
        data,
        task=task,
        columns=Columns(text=text, text_a=text_a, text_b=text_b, label=label, id=id_col),
        scheme=scheme,
        label_names=tuple(label_names.split(",")) if label_names else None,
    )
    outputs = Outputs(source.inputs, force=force)
    folder_out = outputs.folder(output, param="output", names=None)
    outputs.file(json_out, param="json")
    run = run_adjust(
        source,
        split=split,
        metric=metric,
        targets=target,
        size=size,
        seed=seed,
        tolerance=tolerance,
    )
    result = run.adjustment
    with folder_out:
        payload = run.write(folder_out)
    if json_out is not None:
        write_json(payload, json_out)
    if json_out != "-":
        console.print(
            f"{metric} on {split} (size {result.size}, seed {seed}; source value "
            f"{'–' if result.source_value is None else f'{result.source_value:.4f}'})"
        )
        for sub in payload["subsets"]:
            shift = sub["shift"]
            moved = ", ".join(
                f"{k} {v:.4f}"
                for k, v in shift.items()
                if k in ("length_ks", "entity_type_tvd", "label_tvd") and v is not None
            )
            console.print(
                f"  target {sub['target']:.4f} → achieved {sub['achieved']:.4f} "
                f"({sub['n']} instances; moved: {moved}) → {sub['file']}"
            )
