"""The people's rows of a paper table (`vqakit table`): runs of participants' answers recorded
in `vqakit studio` are summarised the way papers report a human baseline, not listed as methods."""

from __future__ import annotations

from collections.abc import Callable

from vqakit.runs import RunFolder

Cells = list[float | None]


def _mean(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def human_rows(
    runs: list[RunFolder], cells: Callable[[RunFolder], Cells], *, each: bool = False, rank_by: int = -1
) -> list[list]:
    """One participant: a "Human" row. Several: "Human (mean)", each column's mean over the
    participants with a value there, and "Human (best)", the row of the participant with the
    highest value in cell `rank_by` (the headline accuracy; the last cell by default); with
    `each`, a "Human (NAME)" row per participant too."""
    if not runs:
        return []
    found = [(str(run.participant), cells(run)) for run in runs]
    if len(found) == 1:
        return [["Human", *found[0][1]]]
    rows = [[f"Human ({name})", *values] for name, values in found] if each else []
    mean = [_mean([values[i] for _, values in found]) for i in range(len(found[0][1]))]
    best = max(found, key=lambda item: -1.0 if item[1][rank_by] is None else item[1][rank_by])[1]
    return [*rows, ["Human (mean)", *mean], ["Human (best)", *best]]
