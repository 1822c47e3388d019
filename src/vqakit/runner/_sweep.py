"""Sweeps: one run per value of one parameter, then accuracy against the value."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from vqakit.runner._config import EvalConfig
from vqakit.runner._run import RunOutcome, run_eval

SWEEPABLE = ("frames", "short_side", "prompt", "window_s", "top_clips")


def expand_values(parameter: str, text: str) -> list[Any]:
    """`uniform:0,1,8` -> ["uniform:0", "uniform:1", "uniform:8"]; `224,448` -> [224, 448]."""
    if parameter == "frames":
        kind, _, values = text.partition(":")
        if not values:
            raise ValueError(f"frames sweep {text!r}: use KIND:V1,V2,... such as uniform:0,1,8,16,64")
        return [f"{kind}:{value.strip()}" for value in values.split(",") if value.strip()]
    try:
        if parameter in ("short_side", "top_clips"):
            return [int(value) for value in text.split(",")]
        if parameter == "window_s":
            return [float(value) for value in text.split(",")]
    except ValueError:
        raise ValueError(f"{parameter} sweep {text!r}: use numbers separated by commas") from None
    return [value.strip() for value in text.split(",") if value.strip()]


def _folder_name(parameter: str, value: Any) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{parameter}={value}")


def run_sweep(
    base: EvalConfig, parameter: str, values: list[Any], out: str | Path
) -> list[tuple[Any, RunOutcome]]:
    if parameter not in SWEEPABLE:
        raise ValueError(f"cannot sweep {parameter!r}; sweepable: {', '.join(SWEEPABLE)}")
    out = Path(out)
    outcomes = []
    for value in values:
        config = base.model_copy(update={parameter: value})
        outcomes.append((value, run_eval(config, out / _folder_name(parameter, value))))
    table = [
        {
            "value": value,
            "folder": str(outcome.folder),
            **{k: outcome.results["overall"][k] for k in ("n", "accuracy", "ci95")},
        }
        for value, outcome in outcomes
    ]
    (out / "sweep.json").write_text(json.dumps({"parameter": parameter, "runs": table}, indent=1) + "\n")
    from vqakit.report import write_sweep_report

    write_sweep_report(out, parameter, table)
    return outcomes
