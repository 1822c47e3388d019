"""`--engine ray --ray-address` on a real multi-host Ray cluster: a head and two worker hosts in
network namespaces (`netns_cluster`), sharing the benchmark, run and cache folders through the
filesystem. A 20,000-question eval spreads over both workers; one worker host is killed
mid-run; the run finishes with every sample recorded once, and its numbers equal a local run's.
The model is a loopback-style server in the head's namespace (`cluster_server.py`) that counts
requests per host."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from netns_cluster import NamespaceCluster, usable

from system_needs import require_system
from vqakit.video import write_index_clip

QUESTIONS = 20_000
pytestmark = [pytest.mark.slow]


@pytest.fixture(autouse=True)
def namespaces_usable() -> None:
    """CI runs as root with iproute2 (.ci/run installs it): there, no namespaces is a failure."""
    require_system(usable())


def make_bench(folder: Path) -> Path:
    for name, seed in (("one", 1), ("two", 2)):
        write_index_clip(folder / "media" / f"{name}.mp4", seconds=2, width=64, height=48, gop=10, seed=seed)
    (folder / "benchmark.yaml").write_text(
        "name: cluster\nversion: '1'\nlicense: CC0-1.0\ndescription: Many questions on two clips.\n"
        "protocol: {frames: 'uniform:2', short_side: 32}\n"
    )
    lines = [
        json.dumps(
            {
                "id": f"q{i:05d}",
                "videos": [{"path": f"media/{'one' if i % 3 else 'two'}.mp4"}],
                "question": f"What is shown in clip number {i}?",
                "choices": ["a", "b", "c", "d"],
                "answer": i % 4,
            }
        )
        for i in range(QUESTIONS)
    ]
    (folder / "samples.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def lines(folder: Path) -> int:
    path = folder / "predictions.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def comparable(results: dict) -> dict:
    """Results less what differs by how replies and frames were had: times, replies the run
    found in the shared response cache (batches sent again after the kill find their first
    answers), and the local engine's count of frames decoded (`frames`)."""
    usage = dict(results["usage"])
    for key in ("wall_s", "latency_s", "cached_calls"):
        usage.pop(key, None)
    return {**{key: value for key, value in results.items() if key != "frames"}, "usage": usage}


def test_eval_on_a_namespace_cluster_survives_a_dead_worker(tmp_path):
    bench = make_bench(tmp_path / "bench")
    cluster = NamespaceCluster({"VQAKIT_CACHE_DIR": str(tmp_path / "cache")}).start()
    try:
        url = cluster.serve()
        model = f"openai-compatible:{url}#m"
        common = [sys.executable, "-m", "vqakit", "eval", str(bench), "--model", model, "--concurrency", "32"]
        driver = cluster.popen(
            "h", *common, "--engine", "ray", "--ray-address", cluster.head, "--out", str(tmp_path / "ray"),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 300
        while lines(tmp_path / "ray") < QUESTIONS // 4 and driver.poll() is None:
            assert time.monotonic() < deadline, "no progress on the cluster"
            time.sleep(0.2)
        assert driver.poll() is None, driver.communicate()[0][-3000:]
        killed_at = lines(tmp_path / "ray")
        assert cluster.kill("a") > 0 and killed_at < QUESTIONS  # worker host a is gone mid-run
        output, _ = driver.communicate(timeout=400)
        assert driver.returncode == 0, output[-3000:]
        counts = cluster.server_counts(url)
        # the local run: same questions, same server, its own cache (every reply asked again)
        local = cluster.run(
            "h", *common, "--out", str(tmp_path / "local"), capture_output=True, text=True, timeout=600,
            env={**cluster.env, "VQAKIT_CACHE_DIR": str(tmp_path / "local-cache")},
        )  # fmt: skip
        assert local.returncode == 0, local.stdout[-2000:] + local.stderr[-2000:]
    finally:
        cluster.close()
    # both worker hosts answered; the head (no CPUs for tasks) only served the local run
    assert counts.get(cluster.address["a"], 0) > 0 and counts.get(cluster.address["b"], 0) > 0
    assert cluster.address["h"] not in counts
    recorded = [json.loads(line) for line in (tmp_path / "ray/predictions.jsonl").read_text().splitlines()]
    assert len(recorded) == QUESTIONS  # nothing lost, nothing twice
    assert len({r["sample_id"] for r in recorded}) == QUESTIONS
    assert not any(r["error"] for r in recorded)
    results = {name: json.loads((tmp_path / name / "results.json").read_text()) for name in ("ray", "local")}
    assert comparable(results["ray"]) == comparable(results["local"])
    assert results["ray"]["overall"]["n"] == QUESTIONS
    for name in ("scores.jsonl",):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
