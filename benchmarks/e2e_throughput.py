"""End-to-end throughput of `vqakit eval` against a loopback server: frames decoded once, the
server kept busy, and what a re-run answered from the caches costs.

    python benchmarks/e2e_throughput.py                 # everything but the soak
    python benchmarks/e2e_throughput.py --quick         # a smoke test: shorter long video, fewer questions
    python benchmarks/e2e_throughput.py --only soak --soak 100000
    python benchmarks/e2e_throughput.py --compare-src /path/to/older/vqakit/src   # before/after

Every figure is a ratio against one measured in the same run. Every vqakit child runs with its
bytecode compiled and kept (under .bench/pycache: a warm disk, as an installed package has), and
the fixture starts with an untimed two-question run that compiles it. Sections (`--only` picks
some):

- `encoder`: JPEG encoding of the fixture's frames at the size they are sent, simplejpeg
  (libjpeg-turbo) against Pillow: how vqakit's encoder was picked.
- `fixture`: 200 four-option questions over the five real videos of the sample benchmark (40 per
  video, `--frames uniform:16`, short side 448), a loopback OpenAI-compatible server that answers
  every request in 0.3 s, `--concurrency 16`; and 800 of them (160 per video) at
  `--concurrency 64`, the same number of server rounds. Rows: the first runs (fresh caches), the
  200 in a new folder answered from the response cache, the first run without the frame store,
  and (with `--compare-src`) the first run and cached re-run of another vqakit source tree. Each
  row: questions/s against the server-bound ideal (concurrency / delay) for the whole command
  (start-up, decoding the first frames and scoring included: `/ideal`) and while the server was
  busy (its first request to its last reply: `served`), the most and the mean requests the server
  had in flight, CPU seconds per question (of the run: the eval command's process and its decode
  workers, after the command line's imports; and of the whole command), peak RSS of the process
  tree. The cached re-run's CPU is given as a ratio of the first run's (and, with
  `--compare-src`, of the other tree's first run's).
- `long`: a synthetic 30-minute 720p video (5 minutes with `--quick`; made once into
  .bench/videos) with 100 questions of 32 frames, each over its own window of a sixth of the
  video (~20 overlapping any one): questions/s against the ideal, frames decoded (the run's
  results.json `frames` section) against frames sent, and the run's wall time against two
  references measured before and after it (the better kept): the decode floor (the same distinct
  frames decoded by `vqakit.video.decode_frames` alone) and that pass with each frame also made
  what vqakit sends (shrunk to 768 pixels and JPEG-encoded, work no run can skip while its frames
  stay byte for byte what they were); and the CPU seconds of both passes, the second spread over
  the machine's cores being a bound under which no run sending those frames can go.
- `lmms`: lmms-eval 0.7.3 on the same server, questions, frame count, image size and concurrency,
  through the task `vqakit export-bench --format lmms-eval` writes (frames pre-sized so that
  neither shrinks them; e2e_lmms.py says how); the server's counters must show the same
  requests, or no ratio is given. The one difference left, the image format (lmms-eval sends
  PNG), is printed with the bytes each sent.
- `soak`: N questions (100,000 by default, 10,000 with `--quick`) against a server that answers
  at once: RSS at 10% of the questions against at the end of answering (the last point before
  scoring starts; the peak while scoring is given apart), run-folder bytes per question; the
  same questions in a new folder with a cold response cache of their own are killed (-9) at 50%
  and restarted, and the seconds until the restart answers again (with real requests, counted
  by the server) are measured; then results and report.html are regenerated and timed.

Every eval is checked: one that exits with an error, or whose results.json counts failed
questions, stops its section with the reason instead of figures (the script then exits 1). The
machine's load is printed with the results: timings on a busy machine are noisy. `--json PATH`
writes every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from chat_server import ChatServer
from e2e_common import (
    CONCURRENCY,
    DELAY_S,
    MEDIA,
    VIDEOS,
    WIDE,
    RunFailed,
    fixture_bench,
    load,
    long_questions,
    long_video,
    print_rows,
    row,
    run_eval_command,
    write_bench,
)
from e2e_lmms import section_lmms
from e2e_soak import section_soak


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
    """First runs at concurrency 16 and 64 (the same number of server rounds: 200 questions at 16,
    800 at 64), the cached re-run, the run without the frame store, and another source tree."""
    bench, questions = fixture_bench(work)
    ideal = CONCURRENCY / DELAY_S
    cache = work / "cache-fixture"
    # bytecode compiled before anything is timed (a warm disk), and the server's first connection
    run_eval_command(bench, work / "runs/warm", server, work / "cache-warm", "--limit", "2")
    first = run_eval_command(bench, work / "runs/first", server, cache)
    cached = run_eval_command(bench, work / "runs/cached", server, cache)
    bare = run_eval_command(bench, work / "runs/bare", server, work / "cache-bare", "--no-frame-cache")
    wide_bench, wide_questions = fixture_bench(work, name="fixture-64", per_video=40 * WIDE // CONCURRENCY)
    wide = run_eval_command(wide_bench, work / "runs/wide", server, work / "cache-wide", concurrency=WIDE)
    rows = [
        row(f"first run, concurrency {CONCURRENCY}", first, len(questions), ideal),
        row(
            f"first run, concurrency {WIDE} ({len(wide_questions)} q)",
            wide,
            len(wide_questions),
            WIDE / DELAY_S,
        ),
        row("re-run, new folder, from caches", cached, len(questions), ideal),
        row("first run, --no-frame-cache", bare, len(questions), ideal),
    ]
    before = None
    if compare is not None:
        run_eval_command(
            bench, work / "runs/warm-compare", server, work / "cache-warm-c", "--limit", "2", src=compare
        )
        before = run_eval_command(bench, work / "runs/compare", server, work / "cache-compare", src=compare)
        before_cached = run_eval_command(
            bench, work / "runs/compare-cached", server, work / "cache-compare", src=compare
        )
        rows.append(row(f"first run, {compare}"[:33], before, len(questions), ideal))
        rows.append(row(f"re-run from caches, {compare}"[:33], before_cached, len(questions), ideal))
    print(
        f"\nFixture: 5 videos, uniform:16, server {DELAY_S}s a reply; {len(questions)} questions at "
        f"concurrency {CONCURRENCY} (ideal {ideal:.1f} q/s), {len(wide_questions)} at {WIDE} "
        f"(ideal {WIDE / DELAY_S:.1f} q/s)"
    )
    print_rows(rows)
    ratios = {
        "first_of_ideal": rows[0]["of_ideal"],
        "first_served_of_ideal": rows[0]["served_of_ideal"],
        "wide_of_ideal": rows[1]["of_ideal"],
        "wide_served_of_ideal": rows[1]["served_of_ideal"],
        "cached_run_cpu_of_first": cached["run_cpu_s"] / first["run_cpu_s"],
        "cached_cpu_of_first": cached["cpu_s"] / first["cpu_s"],
        "cached_wall_of_first": cached["wall_s"] / first["wall_s"],
        "max_in_flight_of_concurrency": first["server"]["max_in_flight"] / CONCURRENCY,
        "mean_in_flight_of_concurrency": first["server"]["mean_in_flight"] / CONCURRENCY,
        "wide_mean_in_flight_of_concurrency": wide["server"]["mean_in_flight"] / WIDE,
    }
    for r in rows[:2]:
        print(
            f"{r['run']}: {r['served_of_ideal']:.3f} of the ideal while the server was busy "
            f"(mean {r['mean_in_flight']:.1f} in flight), {r['of_ideal']:.3f} as a whole command "
            "(start-up and scoring included)"
        )
    print(
        f"cached re-run: CPU {100 * ratios['cached_run_cpu_of_first']:.1f}% of the first run's (run only), "
        f"{100 * ratios['cached_cpu_of_first']:.1f}% (whole command); "
        f"wall {100 * ratios['cached_wall_of_first']:.1f}%"
    )
    if before is not None:
        ratios["first_q_per_s_of_compared"] = rows[0]["q_per_s"] / rows[-2]["q_per_s"]
        ratios["first_cpu_of_compared"] = first["cpu_s"] / before["cpu_s"]
        ratios["cached_cpu_of_compared_first"] = cached["cpu_s"] / before["cpu_s"]
        print(
            f"against {compare}: first run {ratios['first_q_per_s_of_compared']:.2f}x its questions/s "
            f"with {100 * ratios['first_cpu_of_compared']:.0f}% of its CPU; the cached re-run takes "
            f"{100 * ratios['cached_cpu_of_compared_first']:.1f}% of its first run's CPU"
        )
    return {"rows": rows, "ratios": ratios, "ideal_q_per_s": ideal}


def section_long(work: Path, server: ChatServer, quick: bool) -> dict[str, Any]:
    import numpy as np

    from vqakit.models import sent_jpeg
    from vqakit.schema import Uniform, sample_times
    from vqakit.video import Resize, decode_frames, frame_index

    minutes = 5 if quick else 30
    video = long_video(minutes)
    questions = long_questions(minutes)
    bench = write_bench(work / "long", {"long": video}, questions, "uniform:32")
    index = frame_index(video)
    wanted: set[int] = set()
    for q in questions:
        ref = q["videos"][0]
        times = sample_times(Uniform(32, ref["start_s"], ref["end_s"]), index.duration_s)
        wanted.update(index.frames_at(times).tolist())
    numbers = np.asarray(sorted(wanted))
    resize = Resize(short_side=448)

    cpu_of: dict[str, float] = {}

    def timed(name: str, then: Any = None) -> float:
        """Wall seconds of one `decode_frames` call, its CPU seconds (all threads) kept in `cpu_of`
        (the least seen)."""
        cpu, started = os.times(), time.perf_counter()
        decode_frames(index, numbers, resize=resize, then=then)
        wall, after = time.perf_counter() - started, os.times()
        used = (after.user - cpu.user) + (after.system - cpu.system)
        cpu_of[name] = min(cpu_of.get(name, used), used)
        return wall

    def decode_alone() -> float:
        """The floor: the distinct frames the questions ask for, decoded once, in one call of the
        sampler (its threads on the cores), nothing else."""
        return timed("decode")

    def decode_and_make() -> float:
        """The same pass, each frame also made what vqakit sends (shrunk to 768 pixels, JPEG):
        the work a run cannot skip while its frames stay byte for byte what they were."""
        return timed("decode_and_make", lambda number, image: sent_jpeg(image, 768))

    floor_before, made_before = decode_alone(), decode_and_make()
    found = run_eval_command(bench, work / "runs/long", server, work / "cache-long")
    floor = min(floor_before, decode_alone())  # before and after the run: the better of the two
    made = min(made_before, decode_and_make())
    cores = os.cpu_count() or 1
    bound = cpu_of["decode_and_make"] / cores  # no run on these cores can be faster
    ideal = CONCURRENCY / DELAY_S
    result = row(f"{minutes}-min 720p, 100 q x 32 frames", found, len(questions), ideal)
    counted = found.get("frames")
    if not counted:
        raise RunFailed(f"{work / 'runs/long'}: results.json does not say how many frames were decoded")
    sent = sum(len(json.loads(line)["frames_s"]) for line in (work / "runs/long/predictions.jsonl").open())
    result["distinct_frames"] = len(wanted)
    result["frames_sent"] = sent
    result["frames_decoded"] = counted["decoded"]
    result["decoded_of_sent"] = round(counted["decoded"] / sent, 3)
    result["decode_floor_s"] = round(floor, 2)
    result["decode_and_make_s"] = round(made, 2)
    result["wall_of_floor"] = round(found["wall_s"] / floor, 2)
    result["wall_of_decode_and_make"] = round(found["wall_s"] / made, 2)
    result["decode_cpu_s"] = round(cpu_of["decode"], 1)
    result["decode_and_make_cpu_s"] = round(cpu_of["decode_and_make"], 1)
    result["cpu_bound_s"] = round(bound, 2)
    result["cpu_bound_of_floor"] = round(bound / floor, 2)
    result["wall_of_cpu_bound"] = round(found["wall_s"] / bound, 2)
    print(
        f"\nLong video: {minutes} minutes of 720p (GOP 250), {len(questions)} questions x 32 frames "
        f"in windows of {minutes / 6:g} minutes"
    )
    print_rows([result])
    print(
        f"frames decoded {counted['decoded']} (in {counted['jobs']} jobs) for {sent} sent: "
        f"{result['decoded_of_sent']:.3f} of them; the questions ask for {len(wanted)} distinct frames"
    )
    print(
        f"decoding those {len(wanted)} alone (floor) takes {floor:.1f} s: the whole run is "
        f"{result['wall_of_floor']:.2f}x the floor; decoding them and making each what is sent "
        f"(768-pixel JPEG) takes {made:.1f} s: the run is {result['wall_of_decode_and_make']:.2f}x that"
    )
    make_ms = (cpu_of["decode_and_make"] - cpu_of["decode"]) / len(wanted) * 1000
    print(
        f"CPU: the decode alone uses {cpu_of['decode']:.1f} s, decoding and making what is sent "
        f"{cpu_of['decode_and_make']:.1f} s ({make_ms:.1f} "
        f"ms a frame to make); spread over {cores} cores that is {bound:.1f} s, "
        f"{result['cpu_bound_of_floor']:.2f}x the floor, under which no run sending these frames can go: "
        f"the run is {result['wall_of_cpu_bound']:.2f}x that"
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke test: 5-minute long video, lmms-eval on 40 questions, 10,000-question soak",
    )
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
    failed: list[str] = []

    def section(name: str, run: Any, *arguments: Any) -> None:
        """Run a section; a failed eval in it stops it with its message instead of figures."""
        try:
            results[name] = run(*arguments)
        except RunFailed as failure:
            print(f"\n{name}: NOT MEASURED, no figure is given: {failure}", flush=True)
            results[name] = {"failed": str(failure)}
            failed.append(name)

    try:
        if "encoder" in sections:
            section("encoder", section_encoder, work, args.quick)
        if sections & {"fixture", "long", "lmms"}:
            with ChatServer(DELAY_S) as server:
                if "fixture" in sections:
                    section("fixture", section_fixture, work, server, args.compare_src)
                if "long" in sections:
                    section("long", section_long, work, server, args.quick)
                if "lmms" in sections:
                    section("lmms", section_lmms, work, server, 8 if args.quick else 40)
        if "soak" in sections:
            section("soak", section_soak, work, args.soak or (10_000 if args.quick else 100_000))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    results["machine"]["load_after"] = load()
    print(f"\nmachine: {load()}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str) + "\n")
    if failed:
        print(f"failed sections: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
