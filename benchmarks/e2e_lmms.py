"""The `lmms` section of e2e_throughput.py: lmms-eval 0.7.3 side by side with vqakit on the fixture.

The fixture is exported with `vqakit export-bench --format lmms-eval` (a task YAML and a utils.py
lmms-eval's own loader reads), then `python -m lmms_eval eval --model openai` runs it against the
same loopback server, with the same questions, frame count, image size and concurrency as
vqakit's run:

- concurrency: lmms-eval's openai model sends up to `num_concurrent` requests at once (32 by
  default); it is given vqakit's `--concurrency`. It builds each request's payload (the frames
  from the task, encoded) in its dispatch loop before sending it, so where building is slower
  than the server it keeps fewer in flight: the server's count is printed for both.
- image size: lmms-eval sends each frame the task gives it whole (as PNG; it only shrinks an image
  over `max_size_in_mb`, 20 MB), while vqakit shrinks frames to its 768-pixel longer side. The
  fixture of this section is therefore sampled at the largest short side (at most 448) at which
  every fixture video's frames are within 768 pixels: the task's frames are pre-sized, and both
  send every frame at the same size.
- what still differs: the format. lmms-eval 0.7.3 always encodes PNG (lossless, several times the
  bytes); vqakit sends JPEG at quality 90. The output says so, with the bytes each sent.

The server's counters (requests, images per request, size of the first image) must be the same
for both runs; if they are not, the section says "not the same work" and gives no ratio. Needs the
`peers` extra and the lmms-eval exporter; says so when either is missing.
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
from e2e_common import (
    CONCURRENCY,
    DELAY_S,
    MEDIA,
    ROOT,
    VIDEOS,
    RunFailed,
    fixture_bench,
    row,
    run_eval_command,
    tree_rss,
)

VQAKIT_MAX_SIDE = 768  # the longer side vqakit shrinks sent images to (`Model(image_max_side=768)`)
SAME = ("requests", "images_per_request", "first_image_size")  # the server's counters both must match


class NotSameWork(RunFailed):
    """The two runs did not send the same requests: their speeds cannot be compared."""


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


def shared_short_side() -> int:
    """The largest short side (at most the fixture's 448) at which every fixture video's frames
    have their longer side within vqakit's cap, so that vqakit sends them unshrunk."""
    from vqakit.video import Resize, probe

    sizes = [probe(MEDIA / f"{video}.mp4").display_size for video in VIDEOS]
    side = 448

    def fits(side: int) -> bool:
        return all(max(Resize(short_side=side).output_size(*size)) <= VQAKIT_MAX_SIDE for size in sizes)

    while side > 1 and not fits(side):
        side -= 1
    return side


def _lmms_eval(task: Path, work: Path, server: Any) -> dict[str, Any]:
    """lmms-eval's run of the exported task: wall, CPU and peak RSS of its process tree."""
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
    model_args = f"model=bench,base_url={server.url},num_concurrent={CONCURRENCY}"
    command = [
        sys.executable, "-m", "lmms_eval", "eval", "--model", "openai", "--model_args", model_args,
        "--tasks", name, "--include_path", str(task), "--output_path", str(work / "lmms-out"),
    ]  # fmt: skip
    server.reset()
    before = os.times()
    started = time.perf_counter()
    log = work / "lmms-eval.log"
    with log.open("wb") as handle:
        child = psutil.Popen(command, env=env, cwd=work, stdout=handle, stderr=subprocess.STDOUT)
    peak = 0
    while child.poll() is None:
        peak = max(peak, tree_rss(child))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    after = os.times()
    output = log.read_text(errors="replace")
    if child.returncode != 0:
        raise RunFailed(f"lmms-eval exited with status {child.returncode}:\n{output[-3000:]}")
    if "LMMS_EVAL_REQUEST_FAILED" in output or "attempts failed" in output:
        raise RunFailed(f"lmms-eval's requests failed:\n{output[-3000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    stats = server.stats()
    return {"wall_s": wall, "cpu_s": cpu, "run_cpu_s": cpu, "peak_rss_mib": peak / 2**20, "server": stats}


def section_lmms(work: Path, server: Any, per_video: int = 40) -> dict[str, Any]:
    """Both tools on the fixture (`per_video` questions on each video: 40, the issue's 200)."""
    why = _missing()
    if why is not None:
        print(f"\nlmms-eval side by side: not run: {why}")
        return {"skipped": why}
    from vqakit.tables import export_benchmark

    side = shared_short_side()
    bench, questions = fixture_bench(work, short_side=side, name="fixture-lmms", per_video=per_video)
    task = work / "lmms-task"
    export_benchmark(str(bench), "lmms-eval", task, frames="uniform:16")
    ideal = CONCURRENCY / DELAY_S
    ours = row(
        "vqakit first run",
        run_eval_command(bench, work / "runs/vs-lmms", server, work / "cache-vs"),
        len(questions),
        ideal,
    )
    theirs = row("lmms-eval 0.7.3", _lmms_eval(task, work, server), len(questions), ideal)
    seen = {key: (ours["server"][key], theirs["server"][key]) for key in SAME}
    differ = {key: pair for key, pair in seen.items() if pair[0] != pair[1]}
    if differ:
        lines = "\n".join(f"  {key}: vqakit {a}, lmms-eval {b}" for key, (a, b) in differ.items())
        raise NotSameWork(f"not the same work: the server saw different requests, no ratio is given\n{lines}")
    found = {
        "short_side": side,
        "vqakit": ours,
        "lmms_eval": theirs,
        "same_requests": {key: a for key, (a, _) in seen.items()},
        "q_per_s_ratio": ours["q_per_s"] / theirs["q_per_s"],
        "peak_rss_ratio": ours["peak_rss_mib"] / max(1, theirs["peak_rss_mib"]),
        "bytes_ratio": ours["server"]["bytes"] / max(1, theirs["server"]["bytes"]),
    }
    print(
        f"\nSide by side with lmms-eval 0.7.3 (same server, questions, 16 frames at short side {side}, "
        f"concurrency {CONCURRENCY} for both):"
    )
    for one in (ours, theirs):
        server_seen = one["server"]
        print(
            f"  {one['run']:<18} {one['q_per_s']:7.2f} q/s  peak RSS {one['peak_rss_mib']:6} MiB  "
            f"max in flight {server_seen['max_in_flight']}, requests {server_seen['requests']}, "
            f"images/request {server_seen['images_per_request']}, "
            f"first image {server_seen['first_image_size']}, {server_seen['bytes'] / 2**20:.1f} MiB received"
        )
    print(
        f"  vqakit: {found['q_per_s_ratio']:.2f}x lmms-eval's questions/s, "
        f"{found['peak_rss_ratio']:.2f}x its peak RSS; the server's counters match ({', '.join(SAME)})"
    )
    if theirs["server"]["max_in_flight"] < CONCURRENCY:
        print(
            f"  lmms-eval was given num_concurrent={CONCURRENCY}, and the server saw at most "
            f"{theirs['server']['max_in_flight']} of its requests at once: its dispatch loop builds each "
            "request (the task's frames, encoded) before sending it, one at a time"
        )
    print(
        "  still different: the image format. lmms-eval 0.7.3 always sends PNG (lossless), vqakit JPEG "
        f"at quality 90: vqakit's requests carried {found['bytes_ratio']:.2f}x lmms-eval's bytes"
    )
    (work / "lmms.json").write_text(json.dumps(found, indent=1, default=str))
    return found
