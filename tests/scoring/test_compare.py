from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from vqakit.runner import EvalConfig, run_eval
from vqakit.scoring import mcnemar_exact, paired_bootstrap


def test_mcnemar_exact_known_values():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)  # 2 * (1/2)^6
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024)


def test_paired_bootstrap_brackets_the_difference():
    a = np.array([1, 0, 1, 0] * 10, dtype=float)
    b = np.array([1, 1, 1, 0] * 10, dtype=float)
    low, high = paired_bootstrap(a, b)
    assert low <= 0.25 <= high and low > 0


def test_compare_two_runs_on_the_sample(tmp_path):
    random_run = run_eval(EvalConfig(bench="sample", method="random"), tmp_path / "a").folder
    second = run_eval(EvalConfig(bench="sample", method="random", seed=1), tmp_path / "b").folder
    result = subprocess.run(
        [sys.executable, "-m", "vqakit", "compare", str(random_run), str(second), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    comparison = json.loads(result.stdout)
    overall = comparison["overall"]
    assert overall["n"] == 36
    assert overall["difference"] == pytest.approx(overall["accuracy_b"] - overall["accuracy_a"])
    assert (
        0 <= overall["mcnemar_p"] <= 1 and overall["ci95"][0] <= overall["difference"] <= overall["ci95"][1]
    )
    assert "category" in comparison["groups"]
    table = subprocess.run(
        [sys.executable, "-m", "vqakit", "compare", str(random_run), str(second)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "McNemar p" in table.stdout and "overall" in table.stdout
