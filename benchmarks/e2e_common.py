"""What the e2e benchmark scripts share: the fixtures, the eval command run as a child process
with its CPU, wall time and peak RSS, and the table rows (see e2e_throughput.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import yaml
from chat_server import ChatServer

ROOT = Path(__file__).resolve().parents[1]
MEDIA = ROOT / "src/vqakit/benchmarks/sample/media"
VIDEOS = ("pedestrians", "bigbuckbunny", "bikes", "world", "thanks")
CONCURRENCY = 16
WIDE = 64  # the second concurrency the fixture is run at
DELAY_S = 0.3
CHILD_MARK = "E2E-CHILD "

# The eval command as a child process: the command line's own imports first, then the run, timed
# on its own (what the run imports as it goes is the run's: vqakit imports where it needs). The
# command's exit status is the child's (click returns it from `main` in this mode, or raises
# SystemExit), after the timing line.
CHILD = """
import json, os, sys, time
import vqakit.cli
from vqakit.cli import main
before, started = os.times(), time.perf_counter()
try:
    returned = main(sys.argv[1:], standalone_mode=False)
    code = returned if isinstance(returned, int) else 0
except SystemExit as stop:
    code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
after = os.times()
fields = ("user", "system", "children_user", "children_system")
cpu = sum(getattr(after, k) - getattr(before, k) for k in fields)
wall = time.perf_counter() - started
print(MARK + json.dumps({"run_cpu_s": cpu, "run_wall_s": wall, "code": code}), flush=True)
sys.exit(code)
""".replace("MARK", repr(CHILD_MARK))


class RunFailed(Exception):
    """An eval the benchmark ran failed (its exit status, or errors in its results): the section
    stops, and no figure of it is printed."""


def check_results(out: Path, questions: int | None = None) -> dict[str, Any]:
    """The run's results.json, after checking that every question was answered without error."""
    path = out / "results.json"
    if not path.is_file():
        raise RunFailed(f"{out}: no results.json was written")
    results = json.loads(path.read_text())
    errors = results.get("errors") or {}
    if errors.get("n"):
        kinds = ", ".join(f"{kind} {count}" for kind, count in (errors.get("by_kind") or {}).items())
        raise RunFailed(f"{out}: {errors['n']} questions failed ({kinds or 'see predictions.jsonl'})")
    if questions is not None and answered(out) != questions:
        raise RunFailed(f"{out}: {answered(out)} of {questions} questions answered")
    return results


def answered(out: Path) -> int:
    """Questions answered so far in a run folder (lines of predictions.jsonl)."""
    path = out / "predictions.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


# --- fixtures ------------------------------------------------------------------------------


def write_bench(
    folder: Path, videos: dict[str, Path], questions: list[dict[str, Any]], frames: str, short_side: int = 448
) -> Path:
    (folder / "media").mkdir(parents=True, exist_ok=True)
    for name, source in videos.items():
        target = folder / "media" / f"{name}.mp4"
        if not target.exists():
            shutil.copy(source, target)
    card = {
        "name": folder.name,
        "version": "1",
        "license": "CC0-1.0",
        "description": "Benchmark fixture of benchmarks/e2e_throughput.py.",
        "protocol": {"frames": frames, "short_side": short_side},
    }
    (folder / "benchmark.yaml").write_text(yaml.safe_dump(card))
    (folder / "samples.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder


def fixture_questions(per_video: int = 40) -> list[dict[str, Any]]:
    """`per_video` four-option questions on each of the five videos."""
    return [
        {
            "id": f"{video}-{i:03d}",
            "videos": [{"path": f"media/{video}.mp4"}],
            "question": f"Question {i} about the {video} video: which of these happens in it?",
            "choices": [f"Option {letter} of question {i}" for letter in "ABCD"],
            "answer": i % 4,
        }
        for video in VIDEOS
        for i in range(per_video)
    ]


def long_video(minutes: int) -> Path:
    from vqakit.video import write_index_clip

    folder = ROOT / ".bench/videos"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"long_{minutes}min_1280x720_gop250.mp4"
    if not path.exists():
        print(f"making the {minutes}-minute 720p video once into {path} ...", flush=True)
        partial = path.with_suffix(".partial.mp4")
        write_index_clip(partial, seconds=60 * minutes, width=1280, height=720, gop=250, preset="ultrafast")
        partial.replace(path)
    return path


def long_questions(minutes: int, count: int = 100) -> list[dict[str, Any]]:
    """`count` questions in windows of a sixth of the video (5 minutes of 30), evenly apart: each
    window overlaps those of its ~20 neighbours, as in the 30-minute case, at any length."""
    window = 60.0 * minutes / 6
    step = (60.0 * minutes - window) / max(1, count - 1)
    return [
        {
            "id": f"long-{i:03d}",
            "videos": [
                {
                    "path": "media/long.mp4",
                    "start_s": round(i * step, 3),
                    "end_s": round(i * step + window, 3),
                }
            ],
            "question": f"Question {i}: what happens in this part of the video?",
            "choices": [f"Option {letter} of question {i}" for letter in "ABCD"],
            "answer": i % 4,
        }
        for i in range(count)
    ]


def child_env(src: Path | None = None, **more: str) -> dict[str, str]:
    """The environment of a vqakit child: `src` (default this tree's) on the path, bytecode
    compiled once and kept (a warm disk, as an installed package has: under .bench/pycache, the
    source folders stay clean), one BLAS thread."""
    env = {
        **os.environ,
        "PYTHONPATH": str(src or ROOT / "src"),
        "PYTHONPYCACHEPREFIX": str(ROOT / ".bench/pycache"),
        "OMP_NUM_THREADS": "1",
        **more,
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_eval_command(
    bench: Path,
    out: Path,
    server: ChatServer,
    cache: Path,
    *extra: str,
    src: Path | None = None,
    concurrency: int = CONCURRENCY,
) -> dict[str, Any]:
    """`vqakit eval` as a child process: wall and CPU of the command and of the run alone, peak
    RSS of its process tree, and the server's counters."""
    env = child_env(src, VQAKIT_CACHE_DIR=str(cache))
    model = f"openai-compatible:{server.url}#bench"
    args = [
        "eval",
        str(bench),
        "--model",
        model,
        "--concurrency",
        str(concurrency),
        "--out",
        str(out),
        *extra,
    ]
    server.reset()
    before = os.times()
    started = time.perf_counter()
    child = psutil.Popen(
        [sys.executable, "-c", CHILD, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    peak = 0
    while child.poll() is None:
        peak = max(peak, tree_rss(child))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    after = os.times()
    output = child.stdout.read().decode() if child.stdout else ""
    marked = [line for line in output.splitlines() if line.startswith(CHILD_MARK)]
    if child.returncode != 0 or not marked:
        raise RunFailed(
            f"`vqakit {' '.join(args[:2])}` exited with status {child.returncode}:\n{output[-3000:]}"
        )
    measured = json.loads(marked[-1][len(CHILD_MARK) :])
    results = check_results(out)
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "run_cpu_s": measured["run_cpu_s"],
        "run_wall_s": measured["run_wall_s"],
        "peak_rss_mib": peak / 2**20,
        "server": server.stats(),
        "frames": results.get("frames"),  # how the run had its frames (decoded, from the store)
        "output": output.strip().splitlines()[-1][:300],
    }


def tree_rss(process: psutil.Process) -> int:
    total = 0
    try:
        for one in [process, *process.children(recursive=True)]:
            try:
                total += one.memory_info().rss
            except psutil.Error:
                continue
    except psutil.Error:
        pass
    return total


def row(name: str, found: dict[str, Any], questions: int, ideal: float) -> dict[str, Any]:
    """A table row: questions/s of the whole command (start-up and scoring included) and while
    the server was busy (first request to last reply), each against the ideal."""
    per_s = questions / found["wall_s"]
    server = found["server"]
    busy = server.get("busy_s") or 0.0
    return {
        "run": name,
        "questions": questions,
        "wall_s": round(found["wall_s"], 2),
        "q_per_s": round(per_s, 2),
        "of_ideal": round(per_s / ideal, 3),
        "served_of_ideal": round(server["requests"] / busy / ideal, 3) if busy else None,
        "max_in_flight": server["max_in_flight"],
        "mean_in_flight": server["mean_in_flight"],
        "requests": server["requests"],
        "run_cpu_s_per_q": round(found["run_cpu_s"] / questions, 4),
        "cpu_s_per_q": round(found["cpu_s"] / questions, 4),
        "peak_rss_mib": round(found["peak_rss_mib"]),
        "server": server,
    }


def print_rows(rows: list[dict[str, Any]]) -> None:
    """`/ideal`: the whole command's questions/s (start-up and scoring included) against the
    ideal; `served`: the same while the server had requests (first request to last reply)."""
    header = f"{'run':<34}{'wall s':>8}{'q/s':>8}{'/ideal':>8}{'served':>8}{'max/mean in flight':>20}"
    header += f"{'run CPU s/q':>13}{'CPU s/q':>9}{'RSS MiB':>9}"
    print(header)
    for r in rows:
        flight = f"{r['max_in_flight']}/{r['mean_in_flight']:.1f}"
        served = f"{r['served_of_ideal']:.3f}" if r.get("served_of_ideal") is not None else "-"
        print(
            f"{r['run']:<34}{r['wall_s']:>8.2f}{r['q_per_s']:>8.2f}{r['of_ideal']:>8.3f}{served:>8}{flight:>20}"
            f"{r['run_cpu_s_per_q']:>13.4f}{r['cpu_s_per_q']:>9.4f}{r['peak_rss_mib']:>9}"
        )


def fixture_bench(
    work: Path, short_side: int = 448, name: str = "fixture", per_video: int = 40
) -> tuple[Path, list[dict[str, Any]]]:
    """The issue's fixture: 200 four-option questions, 40 on each of the five videos, uniform:16
    (frames at `short_side`, 448 by default); `per_video` questions on each instead."""
    questions = fixture_questions(per_video)
    videos = {v: MEDIA / f"{v}.mp4" for v in VIDEOS}
    return write_bench(work / name, videos, questions, "uniform:16", short_side), questions
