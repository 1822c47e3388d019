"""The `soak` section of e2e_throughput.py: many questions against a server that answers at once."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
from chat_server import ChatServer
from e2e_common import (
    MEDIA,
    ROOT,
    VIDEOS,
    RunFailed,
    answered,
    check_results,
    fixture_questions,
    tree_rss,
    write_bench,
)


def _start(command: list[str], env: dict[str, str], log: Path) -> psutil.Popen:
    """The eval command, its output kept in `log` (a pipe left unread could fill and stop it)."""
    with log.open("wb") as handle:
        return psutil.Popen(command, env=env, stdout=handle, stderr=subprocess.STDOUT)


def _finished(child: psutil.Popen, what: str, out: Path, questions: int | None, log: Path) -> dict[str, Any]:
    """The run's results, after checking that it exited cleanly and answered every question."""
    if child.wait() != 0:
        tail = log.read_text(errors="replace")[-2000:]
        raise RunFailed(f"{what} ({out}) exited with status {child.returncode}:\n{tail}")
    return check_results(out, questions)


def section_soak(work: Path, questions: int) -> dict[str, Any]:
    """N questions against a server that answers at once: RSS as the questions go (one
    uninterrupted run), then the same questions into a new folder, with a response cache of its
    own (cold: every answer is a real request), killed (-9) at 50% and restarted, then the
    results and report regenerated."""
    per_video = questions // len(VIDEOS)
    questions_list = fixture_questions(per_video)
    bench = write_bench(work / "soak", {v: MEDIA / f"{v}.mp4" for v in VIDEOS}, questions_list, "uniform:4")
    total = per_video * len(VIDEOS)

    def env(cache: str) -> dict[str, str]:
        return {
            **os.environ,
            "VQAKIT_CACHE_DIR": str(work / cache),
            "PYTHONPATH": str(ROOT / "src"),
            "OMP_NUM_THREADS": "1",
        }

    found: dict[str, Any] = {"questions": total, "rss_mib": {}, "tree_rss_mib": {}}
    marks = [total // 10, total // 4, total // 2, 3 * total // 4]

    with ChatServer(0.0) as server:

        def command(out: Path) -> list[str]:
            return [
                sys.executable, "-m", "vqakit", "eval", str(bench),
                "--model", f"openai-compatible:{server.url}#soak",
                "--concurrency", "32", "--short-side", "224", "--out", str(out),
            ]  # fmt: skip

        # 1. one uninterrupted run: the eval process's RSS (and its tree's) as questions are
        # answered; the 100% point is the last one taken while answering, before scoring starts
        out = work / "runs/soak"
        started = time.perf_counter()
        child = _start(command(out), env("cache-soak"), work / "soak.log")
        answering_peak = scoring_peak = 0.0
        last: tuple[int, float, float] | None = None  # (answered, own RSS, tree RSS) while answering
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
                last = (done, own, tree)
            else:
                scoring_peak = max(scoring_peak, tree)
            time.sleep(0.05)
        _finished(child, "the soak run", out, total, work / "soak.log")
        found["wall_s"] = round(time.perf_counter() - started, 1)
        found["q_per_s"] = round(total / found["wall_s"], 1)
        if last is not None:
            found["rss_mib"][str(total)] = round(last[1], 1)
            found["tree_rss_mib"][str(total)] = round(last[2], 1)
            found["end_of_answering_at"] = last[0]
        found["peak_rss_answering_mib"] = round(answering_peak, 1)
        found["peak_rss_scoring_mib"] = round(scoring_peak, 1)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        found["run_folder_bytes_per_q"] = round(size / total)

        # 2. the same questions into a new folder with its own (cold) caches, killed -9 at 50%
        # and started again: the restart answers with real requests, none from a cache
        again = work / "runs/soak-killed"
        killed = env("cache-soak-resume")
        first = _start(command(again), killed, work / "soak-killed.log")
        while answered(again) < total // 2 and first.poll() is None:
            time.sleep(0.05)
        if first.poll() is not None:
            raise RunFailed(f"the run to kill ({again}) ended by itself first, status {first.returncode}")
        for one in [*first.children(recursive=True), first]:
            with contextlib.suppress(psutil.Error):
                one.send_signal(signal.SIGKILL)
        first.wait()
        found["killed_at"] = answered(again)
        server.reset()
        restart = time.perf_counter()
        second = _start(command(again), killed, work / "soak-resumed.log")
        while answered(again) <= found["killed_at"] and second.poll() is None:
            time.sleep(0.02)
        found["resume_answers_after_s"] = round(time.perf_counter() - restart, 2)
        _finished(second, "the restarted run", again, None, work / "soak-resumed.log")
        found["resume_requests"] = server.stats()["requests"]
    left = total - found["killed_at"]
    # answers that came back just before the kill are in its cache, not yet in predictions.jsonl
    found["resume_from_cache"] = max(0, left - found["resume_requests"])
    if found["resume_requests"] < left // 2:
        raise RunFailed(
            f"the restarted run sent {found['resume_requests']} requests for the {left} questions "
            "left: the resume was not measured with real requests"
        )
    ids = [json.loads(line)["sample_id"] for line in (again / "predictions.jsonl").read_text().splitlines()]
    found["after_resume_lines"], found["after_resume_distinct"] = len(ids), len(set(ids))
    if found["after_resume_distinct"] != total:
        distinct = found["after_resume_distinct"]
        raise RunFailed(f"{again}: {distinct} of {total} questions answered after the resume")

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
        env=env("cache-soak"),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RunFailed(f"regenerating the results of {out} failed:\n{done.stderr[-2000:]}")
    found["regenerate_s"] = round(float(done.stdout.strip().splitlines()[-1]), 2)
    rss = found["rss_mib"]
    early, late = rss.get(str(total // 10)), rss.get(str(total))
    found["rss_end_of_10pct"] = round(late / early, 3) if early and late else None
    print(f"\nSoak: {total} questions, server answering at once, concurrency 32, uniform:4 at 224 px")
    print(
        f"  {found['q_per_s']} q/s; RSS of the eval process (MiB) by questions answered: {rss} "
        f"(the {total} point: the last taken while answering, at {found.get('end_of_answering_at')})"
    )
    print(
        f"  RSS at the end of answering / at 10%: {found['rss_end_of_10pct']}; "
        f"process tree: {found['tree_rss_mib']}"
    )
    print(
        f"  peak RSS of the tree while answering {found['peak_rss_answering_mib']} MiB, "
        f"while scoring and writing the report {found['peak_rss_scoring_mib']} MiB"
    )
    print(f"  {found['run_folder_bytes_per_q']} run-folder bytes per question")
    print(
        f"  killed -9 at {found['killed_at']} (a response cache of its own, cold); the restarted run "
        f"answered again after {found['resume_answers_after_s']} s, sending {found['resume_requests']} "
        f"requests ({found['resume_from_cache']} answers from before the kill were in its cache); "
        f"{found['after_resume_lines']} lines, {found['after_resume_distinct']} distinct samples"
    )
    print(f"  results.json, scores and report.html regenerated in {found['regenerate_s']} s")
    return found
