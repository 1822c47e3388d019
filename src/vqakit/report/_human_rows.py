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


def human_note(names: list[str], rows: list[list], ranked_by: str) -> str | None:
    """A sentence for the reader where "Human (best)" is below "Human (mean)" in a column: the
    best row is one participant's whole row (the best in `ranked_by`), so in a column where
    another participant did better it can sit below the mean. None where it does not."""
    found = {row[0]: row for row in rows if row and row[0] in ("Human (mean)", "Human (best)")}
    if len(found) < 2:
        return None
    mean, best = found["Human (mean)"], found["Human (best)"]
    below = [
        names[i]
        for i in range(1, len(names))
        if isinstance(mean[i], int | float) and isinstance(best[i], int | float) and best[i] < mean[i] - 1e-9
    ]
    if not below:
        return None
    return (
        f"Human (best) is the row of the participant with the best {ranked_by}; in {', '.join(below)} "
        "another participant did better, so there it is below Human (mean)"
    )
