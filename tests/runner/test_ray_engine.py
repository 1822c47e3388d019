"""The ray engine on a local Ray instance gives the same run as the local engine."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray")

from vqakit.benchmarks import load_benchmark  # noqa: E402
from vqakit.runner import EvalConfig, run_eval  # noqa: E402
from vqakit.scoring import LETTERS  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def without_timings(folder):
    rows = [json.loads(line) for line in (folder / "predictions.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("latency_s")
    return sorted(rows, key=lambda row: row["sample_id"])


def test_same_outputs_as_local(tmp_path, local_ray):
    bench = load_benchmark("sample")
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps(
                {
                    "sample_id": s.id,
                    "reply": f"Answer: {LETTERS[(s.answer + i) % len(s.choices)]}"
                    if s.is_mcq
                    else "an answer",
                }
            )
            + "\n"
            for i, s in enumerate(bench.samples)
        )
    )
    base = EvalConfig(
        bench="sample", method="direct", model=f"replay:{replies}", frames="uniform:2", limit=12
    )
    local = run_eval(base, tmp_path / "local")
    distributed = run_eval(base.model_copy(update={"engine": "ray"}), tmp_path / "ray")
    assert distributed.ran == 12
    assert without_timings(tmp_path / "local") == without_timings(tmp_path / "ray")
    for name in ("scores.jsonl", "results.json", "report.html"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes(), name
    assert local.results == distributed.results
