"""The integrity audit (benchmarks/integrity_audit.py), bounded: a torn middle line and a
record of the wrong shape in the predictions (read by `report` and by `eval` resuming), the
issue's three `import table` cases and `eval --out` on a folder of the user's and on a
benchmark, one kill -9. It must print its three tables, with no line lost, no file deleted and
no process left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from integrity_checks import log_row_holds

ROOT = Path(__file__).resolve().parents[2]


def audit(tmp_path: Path, *args: str) -> tuple[str, dict[str, Any]]:
    """(what the audit printed, its tables' rows) of `benchmarks/integrity_audit.py ARGS`."""
    report = tmp_path / "audit.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/integrity_audit.py"), *args, "--json", str(report)],
        capture_output=True, text=True, timeout=900, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, json.loads(report.read_text())


def test_the_integrity_audit_finds_nothing_lost_deleted_or_left(tmp_path):
    printed, found = audit(
        tmp_path, "--logs", "predictions", "--positions", "middle", "--commands", "import table,eval",
        "--kills", "1",
    )  # fmt: skip
    for heading in ("## Logs", "## --out an existing folder", "## kill -9"):
        assert heading in printed
    assert [(row["log"], row["damage"]) for row in found["logs"]] == [
        ("predictions", "torn"), ("predictions (eval resume)", "torn"),
        ("predictions", "record"), ("predictions (eval resume)", "record"),
    ]  # fmt: skip
    for row in found["logs"]:
        log_row_holds(row)
    assert len(found["outs"]) == 5
    for row in found["outs"]:
        assert (row["exit"], row["deleted"], row["replaced"], row["added"]) == (2, 0, 0, 0), row
    assert [row["left 20 s"] for row in found["kills"]] == [0] and found["kills"][0]["workers"] >= 1


def test_the_studios_logs_are_read_like_every_log(tmp_path):
    """A damaged middle line of a person's review log (`vqakit review`, `review apply`) and of a
    participant's answers log (`vqakit report`): named, exit 1, kept; set aside on request."""
    _, found = audit(
        tmp_path, "--kinds", "review,answers", "--positions", "middle", "--commands", "none", "--kills", "0"
    )
    assert [(row["log"], row["verb"], row["damage"]) for row in found["logs"]] == [
        ("review", "review", "torn"), ("review (apply)", "review apply", "torn"),
        ("review", "review", "record"), ("review (apply)", "review apply", "record"),
        ("answers", "report", "torn"), ("answers", "report", "record"),
    ]  # fmt: skip
    for row in found["logs"]:
        log_row_holds(row)
    assert found["outs"] == [] and found["kills"] == []
