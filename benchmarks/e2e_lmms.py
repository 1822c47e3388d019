"""The `lmms` section of e2e_throughput.py: lmms-eval 0.7.3 side by side with vqakit on the fixture.

The fixture is exported with `vqakit export-bench --format lmms-eval` (a task YAML and a utils.py
lmms-eval's own loader reads), then `python -m lmms_eval eval --model openai` runs it against the
same loopback server, with the same questions, frame count and image size as vqakit's first run.
The server's counters (requests, images per request, size of the first image) show whether both
sent the same requests. Needs the `peers` extra and the lmms-eval exporter; says so when either
is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
from e2e_common import CONCURRENCY, DELAY_S, ROOT, fixture_bench, row, run_eval_command, tree_rss


def _missing() -> str | None:
    try:
        import lmms_eval  # noqa: F401
    except ImportError:
        return "lmms-eval is not installed (pip install 'vqakit[peers]')"
    try:
        from vqakit.tables import export_benchmark  # noqa: F401
    except ImportError:
        return "this vqakit has no `export-bench --format lmms-eval` yet"
    return None


def section_lmms(work: Path, server: Any) -> dict[str, Any]:
    why = _missing()
    if why is not None:
        print(f"\nlmms-eval side by side: not run: {why}")
        return {"skipped": why}
    from vqakit.tables import export_benchmark

    bench, questions = fixture_bench(work)
    task = work / "lmms-task"
    export_benchmark(str(bench), "lmms-eval", task, frames="uniform:16")
    ideal = CONCURRENCY / DELAY_S
    ours = row(
        "vqakit first run",
        run_eval_command(bench, work / "runs/vs-lmms", server, work / "cache-vs"),
        len(questions),
        ideal,
    )
    env = {
        **os.environ,
        "OPENAI_API_KEY": "not-a-secret",
        "HF_HOME": str(work / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "PYTHONPATH": str(ROOT / "src"),
        "OMP_NUM_THREADS": "1",
    }
    name = next(task.glob("*.yaml")).stem
    command = [
        sys.executable, "-m", "lmms_eval", "eval", "--model", "openai",
        "--model_args", f"model=bench,base_url={server.url}",
        "--tasks", name, "--include_path", str(task), "--output_path", str(work / "lmms-out"),
    ]  # fmt: skip
    server.reset()
    before = os.times()
    started = time.perf_counter()
    child = psutil.Popen(command, env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peak = 0
    while child.poll() is None:
        peak = max(peak, tree_rss(child))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    after = os.times()
    output = child.stdout.read().decode() if child.stdout else ""
    if child.returncode != 0:
        print(f"\nlmms-eval failed:\n{output[-3000:]}")
        return {"failed": output[-3000:]}
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    theirs = row(
        "lmms-eval 0.7.3",
        {
            "wall_s": wall,
            "cpu_s": cpu,
            "run_cpu_s": cpu,
            "peak_rss_mib": peak / 2**20,
            "server": server.stats(),
        },
        len(questions),
        ideal,
    )
    same = {
        key: ours["server"][key] == theirs["server"][key]
        for key in ("requests", "images_per_request", "first_image_size")
    }
    found = {
        "vqakit": ours,
        "lmms_eval": theirs,
        "same_requests": same,
        "q_per_s_ratio": ours["q_per_s"] / theirs["q_per_s"],
        "peak_rss_ratio": ours["peak_rss_mib"] / max(1, theirs["peak_rss_mib"]),
    }
    print("\nSide by side with lmms-eval 0.7.3 (same server, questions, frames):")
    for one in (ours, theirs):
        server_seen = one["server"]
        print(
            f"  {one['run']:<18} {one['q_per_s']:7.2f} q/s  peak RSS {one['peak_rss_mib']:6} MiB  "
            f"requests {server_seen['requests']}, images/request {server_seen['images_per_request']}, "
            f"first image {server_seen['first_image_size']}"
        )
    print(
        f"  vqakit: {found['q_per_s_ratio']:.2f}x lmms-eval's questions/s, "
        f"{found['peak_rss_ratio']:.2f}x its peak RSS; same requests on the server's counters: {same}"
    )
    (work / "lmms.json").write_text(json.dumps(found, indent=1, default=str))
    return found
