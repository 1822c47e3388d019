"""End-to-end throughput of `vqakit eval` against a loopback server: frames decoded once, the
server kept busy, and what a re-run answered from the caches costs.

    python benchmarks/e2e_throughput.py                 # everything but the soak
    python benchmarks/e2e_throughput.py --quick         # shorter long video, fewer soak questions
    python benchmarks/e2e_throughput.py --only soak --soak 100000
    python benchmarks/e2e_throughput.py --compare-src /path/to/older/vqakit/src   # before/after

Every figure is a ratio against one measured in the same run. Sections (`--only` picks some):

- `encoder`: JPEG encoding of the fixture's frames at the size they are sent, simplejpeg
  (libjpeg-turbo) against Pillow: how vqakit's encoder was picked.
- `fixture`: 200 four-option questions over the five real videos of the sample benchmark (40 per
  video, `--frames uniform:16`, short side 448), a loopback OpenAI-compatible server that answers
  every request in 0.3 s, `--concurrency 16`. Rows: the first run (fresh caches), the same run in
  a new folder answered from the response cache, the first run without the frame store, and
  (with `--compare-src`) the first run of another vqakit source tree. Each row: questions/s
  against the server-bound ideal (concurrency / delay), the most and the mean requests the
  server had in flight, CPU seconds per question (of the run: the eval command's process and
  its decode workers, once its imports are done; and of the whole command), peak RSS of the
  process tree. The cached re-run is given as a ratio of the first run's CPU.
- `long`: a synthetic 30-minute 720p video (5 minutes with `--quick`; made once into
  .bench/videos) with 100 questions of 32 frames, each over its own 5-minute window: questions/s
  against the ideal, frames decoded against frames sent, and the run's wall time against the
  decode floor (the same distinct frames decoded by `vqakit.video.decode_frames` alone).
- `lmms`: lmms-eval 0.7.3 on the same server, questions, frame count and image size, through
  the task `vqakit export-bench --format lmms-eval` writes; the server's counters check that
  both sent the same requests.
- `soak`: N questions (100,000 by default, 10,000 with `--quick`) against a server that answers
  at once: peak RSS at 10% of the questions against at the end, run-folder bytes per question;
  the run is killed (-9) at 50% and restarted, and the seconds until it answers again are
  measured; then results and report.html are regenerated and timed.

The machine's load is printed with the results: timings on a busy machine are noisy. `--json
PATH` writes every figure.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
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
DELAY_S = 0.3
CHILD_MARK = "E2E-CHILD "

# The eval command as a child process: imports first, then the run, timed on its own.
CHILD = """
import json, os, sys, time
import aiohttp, numpy, av, PIL.Image
import vqakit.cli, vqakit.runner, vqakit.models, vqakit.video, vqakit.methods, vqakit.plugins
vqakit.plugins.load_plugins()
from vqakit.cli import main
before, started = os.times(), time.perf_counter()
code = 0
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit as stop:
    code = stop.code or 0
after = os.times()
fields = ("user", "system", "children_user", "children_system")
cpu = sum(getattr(after, k) - getattr(before, k) for k in fields)
wall = time.perf_counter() - started
print(MARK + json.dumps({"run_cpu_s": cpu, "run_wall_s": wall, "code": code}), flush=True)
""".replace("MARK", repr(CHILD_MARK))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


# --- fixtures ------------------------------------------------------------------------------


def write_bench(folder: Path, videos: dict[str, Path], questions: list[dict[str, Any]], frames: str) -> Path:
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
        "protocol": {"frames": frames, "short_side": 448},
    }
    (folder / "benchmark.yaml").write_text(yaml.safe_dump(card))
    (folder / "samples.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder


def fixture_questions(per_video: int = 40) -> list[dict[str, Any]]:
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
    window = min(300.0, 60.0 * minutes / 2)
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


# --- running the eval command ----------------------------------------------------------------


def run_eval_command(
    bench: Path, out: Path, server: ChatServer, cache: Path, *extra: str, src: Path | None = None
) -> dict[str, Any]:
    """`vqakit eval` as a child process: wall and CPU of the command and of the run alone, peak
    RSS of its process tree, and the server's counters."""
    env = {
        **os.environ,
        "VQAKIT_CACHE_DIR": str(cache),
        "PYTHONPATH": str(src or ROOT / "src"),
        "OMP_NUM_THREADS": "1",
    }
    model = f"openai-compatible:{server.url}#bench"
    args = [
        "eval",
        str(bench),
        "--model",
        model,
        "--concurrency",
        str(CONCURRENCY),
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
        raise SystemExit(f"the eval command failed:\n{output[-3000:]}")
    measured = json.loads(marked[-1][len(CHILD_MARK) :])
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "run_cpu_s": measured["run_cpu_s"],
        "run_wall_s": measured["run_wall_s"],
        "peak_rss_mib": peak / 2**20,
        "server": server.stats(),
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
    per_s = questions / found["wall_s"]
    server = found["server"]
    return {
        "run": name,
        "questions": questions,
        "wall_s": round(found["wall_s"], 2),
        "q_per_s": round(per_s, 2),
        "of_ideal": round(per_s / ideal, 3),
        "max_in_flight": server["max_in_flight"],
        "mean_in_flight": server["mean_in_flight"],
        "requests": server["requests"],
        "run_cpu_s_per_q": round(found["run_cpu_s"] / questions, 4),
        "cpu_s_per_q": round(found["cpu_s"] / questions, 4),
        "peak_rss_mib": round(found["peak_rss_mib"]),
        "server": server,
    }


def print_rows(rows: list[dict[str, Any]]) -> None:
    header = f"{'run':<34}{'wall s':>8}{'q/s':>8}{'/ideal':>8}{'max/mean in flight':>20}"
    header += f"{'run CPU s/q':>13}{'CPU s/q':>9}{'RSS MiB':>9}"
    print(header)
    for r in rows:
        flight = f"{r['max_in_flight']}/{r['mean_in_flight']:.1f}"
        print(
            f"{r['run']:<34}{r['wall_s']:>8.2f}{r['q_per_s']:>8.2f}{r['of_ideal']:>8.3f}{flight:>20}"
            f"{r['run_cpu_s_per_q']:>13.4f}{r['cpu_s_per_q']:>9.4f}{r['peak_rss_mib']:>9}"
        )


# --- sections --------------------------------------------------------------------------------


def section_encoder(work: Path, quick: bool) -> dict[str, Any]:
    import numpy as np

    from vqakit.models import encode_jpeg
    from vqakit.schema import Uniform
    from vqakit.video import Resize, sample_frames

    frames = []
    for video in VIDEOS:
        for frame in sample_frames(MEDIA / f"{video}.mp4", Uniform(4), resize=Resize(short_side=448)):
            from PIL import Image

            picture = Image.fromarray(frame.image)
            scale = min(1.0, 768 / max(picture.size))
            size = (round(picture.width * scale), round(picture.height * scale))
            frames.append(np.asarray(picture.resize(size, Image.Resampling.BICUBIC)))
    rounds = 10 if quick else 30
    times: dict[str, list[float]] = {}
    sizes: dict[str, int] = {}
    for encoder in ("pillow", "simplejpeg"):
        try:
            sizes[encoder] = sum(len(encode_jpeg(frame, 90, encoder=encoder)) for frame in frames)
            times[encoder] = []
        except ImportError:
            continue
    for round_ in range(rounds):  # interleaved, so that a busy spell slows both alike
        for encoder in sorted(times, reverse=bool(round_ % 2)):
            started = time.perf_counter()
            for frame in frames:
                encode_jpeg(frame, 90, encoder=encoder)
            times[encoder].append(1000 * (time.perf_counter() - started) / len(frames))
    found: dict[str, Any] = {"frames": len(frames), "rounds": rounds}
    print("\nJPEG encoding at the sent size (quality 90, 4:2:0), ms per frame (best and median round):")
    for encoder in ("pillow", "simplejpeg"):
        if encoder not in times:
            found[encoder] = None
            print(f"  {encoder:<11}not installed")
            continue
        ordered = sorted(times[encoder])
        median = ordered[len(ordered) // 2]
        found[encoder] = {"best_ms": ordered[0], "median_ms": median, "bytes": sizes[encoder]}
        print(f"  {encoder:<11}{ordered[0]:8.3f} {median:8.3f} ms  {sizes[encoder] / 2**10:8.0f} KiB")
    if found["pillow"] and found["simplejpeg"]:
        found["simplejpeg_speedup"] = found["pillow"]["median_ms"] / found["simplejpeg"]["median_ms"]
        print(f"  simplejpeg is {found['simplejpeg_speedup']:.2f}x Pillow's speed (median rounds)")
    return found


def section_fixture(work: Path, server: ChatServer, compare: Path | None) -> dict[str, Any]:
    questions = fixture_questions()
    bench = write_bench(work / "fixture", {v: MEDIA / f"{v}.mp4" for v in VIDEOS}, questions, "uniform:16")
    ideal = CONCURRENCY / DELAY_S
    cache = work / "cache-fixture"
    first = run_eval_command(bench, work / "runs/first", server, cache)
    cached = run_eval_command(bench, work / "runs/cached", server, cache)
    bare = run_eval_command(bench, work / "runs/bare", server, work / "cache-bare", "--no-frame-cache")
    rows = [
        row("first run", first, len(questions), ideal),
        row("re-run, new folder, from caches", cached, len(questions), ideal),
        row("first run, --no-frame-cache", bare, len(questions), ideal),
    ]
    if compare is not None:
        before = run_eval_command(bench, work / "runs/compare", server, work / "cache-compare", src=compare)
        rows.append(row(f"first run, {compare}"[:33], before, len(questions), ideal))
    print(
        f"\nFixture: {len(questions)} questions, 5 videos, uniform:16, concurrency {CONCURRENCY}, "
        f"server {DELAY_S}s a reply"
    )
    print(f"server-bound ideal {ideal:.1f} q/s")
    print_rows(rows)
    ratios = {
        "first_of_ideal": rows[0]["of_ideal"],
        "cached_run_cpu_of_first": cached["run_cpu_s"] / first["run_cpu_s"],
        "cached_cpu_of_first": cached["cpu_s"] / first["cpu_s"],
        "cached_wall_of_first": cached["wall_s"] / first["wall_s"],
        "max_in_flight_of_concurrency": first["server"]["max_in_flight"] / CONCURRENCY,
        "mean_in_flight_of_concurrency": first["server"]["mean_in_flight"] / CONCURRENCY,
    }
    if compare is not None:
        ratios["first_q_per_s_of_compared"] = rows[0]["q_per_s"] / rows[-1]["q_per_s"]
    print(
        f"cached re-run: CPU {100 * ratios['cached_run_cpu_of_first']:.1f}% of the first run's (run only), "
        f"{100 * ratios['cached_cpu_of_first']:.1f}% (whole command); "
        f"wall {100 * ratios['cached_wall_of_first']:.1f}%"
    )
    if compare is not None:
        print(f"first run: {ratios['first_q_per_s_of_compared']:.2f}x the questions/s of {compare}")
    return {"rows": rows, "ratios": ratios, "ideal_q_per_s": ideal}


def section_long(work: Path, server: ChatServer, quick: bool) -> dict[str, Any]:
    import numpy as np

    from vqakit.schema import Uniform
    from vqakit.video import Resize, decode_frames, frame_index

    minutes = 5 if quick else 30
    video = long_video(minutes)
    questions = long_questions(minutes)
    bench = write_bench(work / "long", {"long": video}, questions, "uniform:32")
    found = run_eval_command(bench, work / "runs/long", server, work / "cache-long")
    ideal = CONCURRENCY / DELAY_S
    result = row(f"{minutes}-min 720p, 100 q x 32 frames", found, len(questions), ideal)
    # the floor: the distinct frames those questions ask for, decoded once by the sampler alone
    index = frame_index(video)
    wanted: set[int] = set()
    from vqakit.schema import sample_times

    for q in questions:
        ref = q["videos"][0]
        wanted.update(
            index.frames_at(
                sample_times(Uniform(32, ref["start_s"], ref["end_s"]), index.duration_s)
            ).tolist()
        )
    started = time.perf_counter()
    decode_frames(index, np.asarray(sorted(wanted)), resize=Resize(short_side=448))
    floor = time.perf_counter() - started
    result["distinct_frames"] = len(wanted)
    result["frames_sent"] = 32 * len(questions)
    result["decode_floor_s"] = round(floor, 2)
    result["wall_of_floor"] = round(found["wall_s"] / floor, 2)
    print(
        f"\nLong video: {minutes} minutes of 720p (GOP 250), {len(questions)} questions x 32 frames "
        "in 5-minute windows"
    )
    print_rows([result])
    print(
        f"{len(wanted)} distinct frames for {32 * len(questions)} sent; decoding them alone (floor) takes "
        f"{floor:.1f} s: the whole run is {result['wall_of_floor']:.2f}x the floor"
    )
    return result


def section_soak(work: Path, questions: int) -> dict[str, Any]:
    """N questions against a server that answers at once: RSS as the questions go (one
    uninterrupted run), then the same questions into a new folder killed (-9) at 50% and
    restarted, then the results and report regenerated."""
    per_video = questions // len(VIDEOS)
    questions_list = fixture_questions(per_video)
    bench = write_bench(work / "soak", {v: MEDIA / f"{v}.mp4" for v in VIDEOS}, questions_list, "uniform:4")
    total = per_video * len(VIDEOS)
    env = {
        **os.environ,
        "VQAKIT_CACHE_DIR": str(work / "cache-soak"),
        "PYTHONPATH": str(ROOT / "src"),
        "OMP_NUM_THREADS": "1",
    }
    found: dict[str, Any] = {"questions": total, "rss_mib": {}, "tree_rss_mib": {}}
    marks = [total // 10, total // 4, total // 2, 3 * total // 4, total]

    def answered(out: Path) -> int:
        path = out / "predictions.jsonl"
        return path.read_bytes().count(b"\n") if path.exists() else 0

    with ChatServer(0.0) as server:

        def command(out: Path) -> list[str]:
            return [
                sys.executable, "-m", "vqakit", "eval", str(bench),
                "--model", f"openai-compatible:{server.url}#soak",
                "--concurrency", "32", "--short-side", "224", "--out", str(out),
            ]  # fmt: skip

        # 1. one uninterrupted run: the eval process's RSS (and its tree's) as questions are answered
        out = work / "runs/soak"
        started = time.perf_counter()
        child = psutil.Popen(command(out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        answering_peak = scoring_peak = 0.0
        while child.poll() is None:
            done = answered(out)
            try:
                own = child.memory_info().rss / 2**20
            except psutil.Error:
                break
            tree = tree_rss(child) / 2**20
            for mark in marks:
                if done >= mark and str(mark) not in found["rss_mib"]:
                    found["rss_mib"][str(mark)] = round(own, 1)
                    found["tree_rss_mib"][str(mark)] = round(tree, 1)
            if done < total:
                answering_peak = max(answering_peak, tree)
            else:
                scoring_peak = max(scoring_peak, tree)
            time.sleep(0.2)
        found["wall_s"] = round(time.perf_counter() - started, 1)
        found["q_per_s"] = round(total / found["wall_s"], 1)
        found["peak_rss_answering_mib"] = round(answering_peak, 1)
        found["peak_rss_scoring_mib"] = round(scoring_peak, 1)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        found["run_folder_bytes_per_q"] = round(size / total)

        # 2. the same questions into a new folder, killed -9 at 50% and started again
        again = work / "runs/soak-killed"
        first = psutil.Popen(command(again), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while answered(again) < total // 2 and first.poll() is None:
            time.sleep(0.05)
        for one in [*first.children(recursive=True), first]:
            with contextlib.suppress(psutil.Error):
                one.send_signal(signal.SIGKILL)
        first.wait()
        found["killed_at"] = answered(again)
        restart = time.perf_counter()
        second = psutil.Popen(command(again), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while answered(again) <= found["killed_at"] and second.poll() is None:
            time.sleep(0.02)
        found["resume_answers_after_s"] = round(time.perf_counter() - restart, 2)
        second.wait()
    ids = [json.loads(line)["sample_id"] for line in (again / "predictions.jsonl").read_text().splitlines()]
    found["after_resume_lines"], found["after_resume_distinct"] = len(ids), len(set(ids))

    # 3. results and report regenerated from the run folder
    regenerate = (
        "import sys, time; t = time.perf_counter()\n"
        "from vqakit.benchmarks import load_benchmark\nfrom vqakit.runner import write_scores\n"
        "from vqakit.runs import read_predictions\nfrom pathlib import Path\n"
        "out = Path(sys.argv[1]); bench = load_benchmark(sys.argv[2])\n"
        "write_scores(out, bench, bench.samples, read_predictions(out / 'predictions.jsonl'))\n"
        "print(time.perf_counter() - t)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", regenerate, str(out), str(bench)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found["regenerate_s"] = round(float(done.stdout.strip().splitlines()[-1]), 2)
    rss = found["rss_mib"]
    early, late = rss.get(str(total // 10)), rss.get(str(total))
    found["rss_end_of_10pct"] = round(late / early, 3) if early and late else None
    print(f"\nSoak: {total} questions, server answering at once, concurrency 32, uniform:4 at 224 px")
    print(f"  {found['q_per_s']} q/s; RSS of the eval process (MiB) by questions answered: {rss}")
    print(
        f"  RSS when all are answered / at 10%: {found['rss_end_of_10pct']}; "
        f"process tree: {found['tree_rss_mib']}"
    )
    print(
        f"  peak RSS of the tree while answering {found['peak_rss_answering_mib']} MiB, "
        f"while scoring and writing the report {found['peak_rss_scoring_mib']} MiB"
    )
    print(f"  {found['run_folder_bytes_per_q']} run-folder bytes per question")
    print(
        f"  killed -9 at {found['killed_at']}; the restarted run answered again after "
        f"{found['resume_answers_after_s']} s; {found['after_resume_lines']} lines, "
        f"{found['after_resume_distinct']} distinct samples"
    )
    print(f"  results.json, scores and report.html regenerated in {found['regenerate_s']} s")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5-minute long video, 10,000-question soak")
    parser.add_argument("--only", help="comma-separated sections: encoder, fixture, long, lmms, soak")
    parser.add_argument("--soak", type=int, help="soak questions (default 100000, 10000 with --quick)")
    parser.add_argument("--compare-src", type=Path, help="another vqakit src folder to run on the fixture")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args()
    sections = set((args.only or "encoder,fixture,long,lmms").split(","))
    results: dict[str, Any] = {"machine": {"load_before": load(), "cores": os.cpu_count()}}
    print(f"machine: {load()}")
    work = args.keep or Path(tempfile.mkdtemp(prefix="vqakit-e2e-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if "encoder" in sections:
            results["encoder"] = section_encoder(work, args.quick)
        if sections & {"fixture", "long", "lmms"}:
            with ChatServer(DELAY_S) as server:
                if "fixture" in sections:
                    results["fixture"] = section_fixture(work, server, args.compare_src)
                if "long" in sections:
                    results["long"] = section_long(work, server, args.quick)
                if "lmms" in sections:
                    from e2e_lmms import section_lmms

                    results["lmms"] = section_lmms(
                        work, server, fixture_questions, write_bench, run_eval_command, row
                    )
        if "soak" in sections:
            results["soak"] = section_soak(work, args.soak or (10_000 if args.quick else 100_000))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    results["machine"]["load_after"] = load()
    print(f"\nmachine: {load()}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
