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
from e2e_common import MEDIA, ROOT, VIDEOS, fixture_questions, tree_rss, write_bench


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
