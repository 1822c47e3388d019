from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from vqakit.runner import EvalConfig, run_eval
from vqakit.schema import Sample
from vqakit.scoring import compare_runs, mcnemar_exact, paired_bootstrap


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
    assert "McNemar p" in table.stdout and "MCQ accuracy" in table.stdout
    assert comparison["mcq"] == overall and comparison["open_ended"] is None  # one kind: overall is it
    # random choices on two-hop samples: the statement diagnostic, pooled and per registered group
    by_group = comparison["diagnostics_by_group"]
    assert set(by_group) == {"hop_grounding"}  # metadata groups (category, skills) break down accuracy only
    assert set(by_group["hop_grounding"]) == {"2-hop local", "2-hop temporal"}
    assert "chose a factual statement" in table.stdout and "hop_grounding: 2-hop local" in table.stdout


def test_diagnostics_compared_pooled_and_per_registered_group():
    samples = [
        Sample(
            id=f"s{i}",
            question="q",
            choices=["a", "b"],
            answer=0,
            metadata={"hop": 1, "grounding": "local" if i < 4 else "temporal", "category": "c"},
        )
        for i in range(6)
    ]
    a = [{"sample_id": s.id, "correct": True, "clip_hit": i % 2 == 0} for i, s in enumerate(samples)]
    b = [{"sample_id": s.id, "correct": i < 3, "clip_hit": i < 5} for i, s in enumerate(samples)]
    b[0]["clip_hit"] = None  # no value in one run: the sample is left out of the rate
    for row, kind in zip(a + b, ["factual", "counterfactual"] * 6, strict=True):
        row["statement"] = kind  # a `field=value` diagnostic: statement=factual
    result = compare_runs(samples, a, b)
    assert result["diagnostics"]["clip_hit"] == {
        "label": "gold clip retrieved",
        "n": 5,
        "rate_a": pytest.approx(2 / 5),
        "rate_b": pytest.approx(4 / 5),
    }
    families = result["diagnostics_by_group"]["hop_grounding"]
    assert families["1-hop local"]["clip_hit"]["n"] == 3
    assert families["1-hop local"]["clip_hit"]["rate_a"] == pytest.approx(1 / 3)
    assert families["1-hop temporal"]["clip_hit"] == {
        "label": "gold clip retrieved",
        "n": 2,
        "rate_a": 0.5,
        "rate_b": 0.5,
    }
    assert "category" not in result["diagnostics_by_group"]
    assert result["diagnostics"]["statement=factual"] == {
        "label": "chose a factual statement",
        "n": 6,
        "rate_a": 0.5,
        "rate_b": 0.5,
    }
    assert families["1-hop temporal"]["statement=factual"]["n"] == 2
    chosen = compare_runs(samples, a, b, diagnostics_by=("category",))["diagnostics_by_group"]
    assert chosen["category"]["c"]["clip_hit"]["n"] == 5
