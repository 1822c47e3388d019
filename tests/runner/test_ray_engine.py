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
    for name in ("scores.jsonl", "samples/page-001.html"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes(), name
    for outcome in (local, distributed):  # times are each run's own
        assert outcome.results["usage"].pop("wall_s") > 0
        outcome.results["usage"].pop("latency_s")
    # how the frames were had is the local engine's count (its decode jobs); Ray's workers keep theirs
    assert local.results.pop("frames")["decoded"] > 0 and "frames" not in distributed.results
    assert local.results == distributed.results


def test_rag_on_ray_matches_local(tmp_path, local_ray):
    """Retrieval on Ray workers: each worker opens the index once and retrieves what the local
    engine retrieves (clips found by their descriptions with the packaged MiniLM)."""
    pytest.importorskip("sentence_transformers")
    bench = load_benchmark("sample")
    two_hop = [s for s in bench.samples if s.metadata.hop == 2]
    lines = []
    for s in two_hop:
        lines.append(
            {"sample_id": f"{s.id}:rewrite", "reply": json.dumps({"query": f"A video that {s.question}"})}
        )
        lines += [{"sample_id": f"{s.id}:caption:{c}", "reply": f"1. Clip {c}."} for c in bench.clips]
        lines.append({"sample_id": f"{s.id}:passage-queries", "reply": "no JSON here"})
        lines.append({"sample_id": s.id, "reply": json.dumps({"Answer": LETTERS[s.answer]})})
    replies = tmp_path / "replies.jsonl"
    replies.write_text("".join(json.dumps(line) + "\n" for line in lines))
    base = EvalConfig(
        bench="sample",
        method="rag",
        model=f"replay:{replies}",
        index=str(tmp_path / "index"),
        caption_frames=2,
        top_clips=2,
    )
    ids = {s.id for s in two_hop}
    local = run_eval(base, tmp_path / "local")
    distributed = run_eval(base.model_copy(update={"engine": "ray"}), tmp_path / "ray")
    assert distributed.ran == len(bench.samples)
    rows = {
        name: [r for r in without_timings(tmp_path / name) if r["sample_id"] in ids]
        for name in ("local", "ray")
    }
    assert rows["local"] == rows["ray"] and len(rows["ray"]) == 6
    assert all(
        r["retrieval"]["clip_source"] == "descriptions" and r["choice"] is not None for r in rows["ray"]
    )
    assert local.results["retrieval"] == distributed.results["retrieval"]


def test_an_endpoint_that_keeps_failing_stops_a_ray_run_too(tmp_path, local_ray):
    """A server that answers 503 (no wait asked) to everything: a task's requests trip its
    breaker, and the driver stops the run instead of sending the other batches."""
    from fake_server import FakeServer

    from vqakit.runner import RunStopped

    with FakeServer(default="503:0") as server:
        config = EvalConfig(
            bench="sample", model=f"openai-compatible:{server.url}#m", frames="uniform:1", engine="ray"
        )
        with pytest.raises(RunStopped, match=r"stopped: the last 20 requests to .* \(server: HTTP 503 from"):
            run_eval(config, tmp_path / "run")
        asked = len(server.requests)
    assert asked < 46 * 6  # far fewer than every sample's six attempts
