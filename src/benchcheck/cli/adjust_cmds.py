"""The ``adjust`` command: controlled dataset adjustment (Sec. 6.4 of the statistics paper)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchcheck.cli._common import claim_json, command, emit, output_claims, reporting
from benchcheck.cli._options import Arg
from benchcheck.data.columns import Columns
from benchcheck.io.source import DataSource


@command("adjust")
def adjust_cmd(
    data: Annotated[str, Arg("Dataset folder, file or saved HF dataset.")],
    split: Annotated[str, "The split to draw the subset from."],
    metric: Annotated[
        str,
        "unseen_entity_ratio, ambiguous_entity_share, leakage_ratio, entity_null_rate or "
        "label_imbalance_degree.",
    ],
    target: list[float],
    output: Annotated[Path, "Folder to create (an empty one, or --force)."],
    size: int | None = None,
    seed: int = 0,
    tolerance: float = 0.02,
    task: str = "ner",
    columns: Columns = Columns(),
    label_names: str | None = None,
    scheme: Annotated[str | None, "Force the tagging scheme (NER)."] = None,
) -> None:
    """Build subsets of a split whose metric hits a target; write them in the input's format.

    One target writes OUTPUT/<split file>; several write OUTPUT/target_<value>/<split file>.
    The report (target vs achieved, how far lengths and entity types or labels moved) goes to
    OUTPUT/adjustment.json. Refuses, with the reason, when a target is out of reach.

    Example: benchcheck adjust data/ --split test --metric leakage_ratio --target 0.2 -o leak20/
    """
    from benchcheck.report.terminal.scale import adjust_lines
    from benchcheck.runs.adjust import AdjustTarget, run_adjust

    labels = tuple(label_names.split(",")) if label_names else None
    source = DataSource(data, task=task, columns=columns, scheme=scheme, label_names=labels)
    outputs = output_claims(source.inputs)
    folder_out = outputs.folder(output, param="output", names=None)
    claim_json(outputs)
    target_ = AdjustTarget(split, metric, tuple(target), size, seed, tolerance)
    with reporting("adjust") as bar:
        run = run_adjust(source, target_, folder=folder_out, progress=bar)
    emit(run.to_json(), adjust_lines)
