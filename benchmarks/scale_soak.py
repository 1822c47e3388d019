"""A million questions: the peak memory of the whole `vqakit eval` command as the benchmark grows,
and how soon a run killed (-9) half way answers again.

    python benchmarks/scale_soak.py                    # 100k, 250k, 500k and 1M questions
    python benchmarks/scale_soak.py --sizes 20000,100000 --resume 100000 --then ''   # a quick look

Not run in CI (a million questions take tens of minutes); the suite keeps the 100k check
(tests/report/test_report_scale.py). Each size is a benchmark of its own (questions over the five
videos of the e2e fixture, seven categories, three skills), evaluated by one `vqakit eval`
command in a fresh run folder, as a user would: loading and checking the benchmark, running the
method, scoring, results.json, the report and its sample pages. By default the method is the
offline `random` baseline, so that the whole command is real and the model costs nothing;
`--server` sends every question to a loopback OpenAI-compatible server instead (benchmarks/
chat_server.py, answering at once: hours for a million). For each size it prints the peak RSS of
the eval process (its high-water mark, VmHWM) and of its process tree (sampled every 0.05 s),
wall and CPU time; then the same for `vqakit score RUN` and `vqakit report RUN` on the finished
run (`--then`), which judge and score every prediction again and write the report again.

Then the resume: the largest size again into a new folder, killed with SIGKILL (with its whole
process tree) once half of its questions are in predictions.jsonl, and the same command started
again: the time from that start to its first new answer on disk (wall time, and the CPU time the
command had used by then, which is what the wall time is on a machine nobody else uses), and the
check that the run ends with every question answered once. Everything is bounded: each command
has a time limit (`--timeout`), and the script stops at the first failure.
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
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import yaml
from e2e_common import MEDIA, ROOT, VIDEOS, RunFailed, answered, check_results, load

CATEGORIES = 7


def write_questions(folder: Path, count: int, frames: str = "uniform:4") -> Path:
    """A benchmark of `count` MCQ questions over the fixture's videos, written line by line."""
    (folder / "media").mkdir(parents=True, exist_ok=True)
    for video in VIDEOS:
        target = folder / "media" / f"{video}.mp4"
        if not target.exists():
            shutil.copy(MEDIA / f"{video}.mp4", target)
    card = {
        "name": folder.name,
        "version": "1",
        "license": "CC0-1.0",
        "description": "Benchmark of benchmarks/scale_soak.py: many questions over five videos.",
        "protocol": {"frames": frames, "short_side": 224},
    }
    (folder / "benchmark.yaml").write_text(yaml.safe_dump(card))
    with open(folder / "samples.jsonl", "w", encoding="utf-8") as out:
        for i in range(count):
            video = VIDEOS[i % len(VIDEOS)]
            question = {
                "id": f"q{i:07d}",
                "videos": [{"path": f"media/{video}.mp4"}],
                "question": f"Question {i} about the {video} video: which of these happens in it?",
                "choices": [f"Option {letter} of question {i}" for letter in "ABCD"],
                "answer": i % 4,
                "metadata": {"category": f"cat{i % CATEGORIES}", "skills": [f"skill{i % 3}"]},
            }
            out.write(json.dumps(question) + "\n")
    return folder


def high_water_mark(pid: int) -> int:
    """Bytes: the peak resident memory of process `pid` since its exec (VmHWM), 0 when gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Command:
    """One `vqakit eval` as a child process: its own peak RSS (`ru_maxrss`, from `wait4`), the
    peak RSS of its process tree (sampled), wall and CPU time."""

    def __init__(self, arguments: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("wb") as handle:
            command = [sys.executable, "-m", "vqakit", *arguments]
            # reaped by `exited` with wait4 (for its resource usage), never by Popen's own poll
            self._popen = subprocess.Popen(command, env=env, stdout=handle, stderr=subprocess.STDOUT)
        self.process = psutil.Process(self._popen.pid)
        self.started = time.perf_counter()
        self.tree_peak = self.own_peak = 0
        self._ended: tuple[int, Any] | None = None
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while not self._stop.is_set():
            total = 0
            with contextlib.suppress(psutil.Error):
                for one in [self.process, *self.process.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        total += one.memory_info().rss
            self.tree_peak = max(self.tree_peak, total)
            self.own_peak = max(self.own_peak, high_water_mark(self.process.pid))
            time.sleep(0.05)

    def exited(self) -> bool:
        """Whether the command has ended (reaping it, with its resource usage, if so)."""
        if self._ended is None:
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                self._ended = (status, usage)
        return self._ended is not None

    def kill(self) -> None:
        """SIGKILL to the command and every process under it."""
        with contextlib.suppress(psutil.Error):
            for one in [*self.process.children(recursive=True), self.process]:
                with contextlib.suppress(psutil.Error):
                    one.send_signal(signal.SIGKILL)
        self.wait(60)

    def wait(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while not self.exited():
            if time.monotonic() > deadline:
                self.kill()
                raise RunFailed(f"the command ran past {timeout:.0f} s (see {self.log})")
            time.sleep(0.2)
        self._stop.set()
        self._sampler.join()
        status, usage = self._ended  # type: ignore[misc]
        return {
            "code": os.waitstatus_to_exitcode(status),
            "wall_s": time.perf_counter() - self.started,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            # the process's own high-water mark (VmHWM, which exec starts afresh); ru_maxrss also
            # counts the parent's memory at the fork, which matters under a large parent (pytest)
            "own_peak_mib": (self.own_peak or usage.ru_maxrss * 1024) / 2**20,
            "tree_peak_mib": self.tree_peak / 2**20,
        }


def evaluate(bench: Path, out: Path, env: dict[str, str], model: list[str], timeout: float) -> dict[str, Any]:
    """The whole eval command on `bench` into `out`, checked: exit 0, every question answered."""
    command = Command(["eval", str(bench), *model, "--out", str(out)], env, out.with_suffix(".log"))
    found = command.wait(timeout)
    if found["code"] != 0:
        tail = out.with_suffix(".log").read_text(errors="replace")[-2000:]
        raise RunFailed(f"eval of {bench} exited with {found['code']}:\n{tail}")
    check_results(out, None)
    return found


def again(verb: str, out: Path, env: dict[str, str], timeout: float) -> dict[str, Any]:
    """`vqakit score RUN` or `vqakit report RUN` on a finished run (every prediction judged and
    scored again, or the report and its pages written again), checked: exit 0."""
    log = out.with_suffix(f".{verb}.log")
    found = Command([verb, str(out)], env, log).wait(timeout)
    if found["code"] != 0:
        tail = log.read_text(errors="replace")[-2000:]
        raise RunFailed(f"vqakit {verb} {out} exited with {found['code']}:\n{tail}")
    return found


def resume(bench: Path, out: Path, env: dict[str, str], model: list[str], total: int, timeout: float) -> dict:
    """Kill -9 the eval at half way, start it again: seconds until its first new answer."""
    arguments = ["eval", str(bench), *model, "--out", str(out)]
    first = Command(arguments, env, out.with_suffix(".killed.log"))
    deadline = time.monotonic() + timeout
    while answered(out) < total // 2:
        if first.exited():
            raise RunFailed(f"the run to kill ({out}) ended by itself first")
        if time.monotonic() > deadline:
            first.kill()
            raise RunFailed(f"the run to kill ({out}) did not reach half way in {timeout:.0f} s")
        time.sleep(0.02)
    first.kill()
    killed = answered(out)
    again = Command(arguments, env, out.with_suffix(".resumed.log"))
    cpu = 0.0
    while answered(out) <= killed:
        if again.exited():
            break
        with contextlib.suppress(psutil.Error):
            times = again.process.cpu_times()
            cpu = times.user + times.system
        if time.perf_counter() - again.started > timeout:
            again.kill()
            raise RunFailed(f"the restarted run ({out}) gave no new answer in {timeout:.0f} s")
        time.sleep(0.01)
    answers_after = time.perf_counter() - again.started
    found = again.wait(timeout)
    if found["code"] != 0:
        raise RunFailed(f"the restarted run exited with {found['code']} (see {again.log})")
    ids = set()
    lines = 0
    with open(out / "predictions.jsonl", "rb") as handle:
        for line in handle:
            ids.add(json.loads(line)["sample_id"])
            lines += 1
    if len(ids) != total:
        raise RunFailed(f"{out}: {len(ids)} of {total} questions answered after the resume")
    tail = out.with_suffix(".resumed.log").read_text(errors="replace").strip().splitlines()[-1:]
    return {"killed_at": killed, "answers_after_s": answers_after, "cpu_s": cpu, "lines": lines,
            "distinct": len(ids), "restart": found, "last_line": tail[0] if tail else ""}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,250000,500000,1000000", help="questions, comma-separated")
    parser.add_argument("--resume", type=int, help="the size killed at half way (default: the largest)")
    parser.add_argument("--server", action="store_true", help="a loopback model server instead of random")
    parser.add_argument("--work", type=Path, help="working folder (default: a temporary one, removed)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds each command may take")
    parser.add_argument(
        "--then",
        default="score,report",
        help="verbs run again on each finished run, their peak RSS measured too ('' for none)",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="scale-soak-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1"}
    env["VQAKIT_CACHE_DIR"] = str(work / "cache")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a warm start, as an installed package has: compiled once
    print(f"{load()}; work folder {work}", flush=True)
    with contextlib.ExitStack() as stack:
        model = ["--method", "random"]
        if args.server:
            from chat_server import ChatServer

            server = stack.enter_context(ChatServer(0.0))
            model = ["--model", f"openai-compatible:{server.url}#soak", "--concurrency", "32"]
        print(f"method: {'loopback server, answering at once' if args.server else 'random (offline)'}")
        verbs = [verb for verb in args.then.split(",") if verb]
        heads = f"{'questions':>10}  {'command':>7}  {'peak RSS':>10}  {'tree peak RSS':>14}"
        print(f"{heads}  {'wall':>8}  {'CPU':>8}")
        peaks: dict[int, float] = {}
        for size in sizes:
            bench = write_questions(work / f"bench-{size}", size)
            found = evaluate(bench, work / f"run-{size}", env, model, args.timeout)
            measured = [("eval", found)] + [
                (v, again(v, work / f"run-{size}", env, args.timeout)) for v in verbs
            ]
            for verb, command in measured:
                print(
                    f"{size:>10}  {verb:>7}  {command['own_peak_mib']:>6.0f} MiB  "
                    f"{command['tree_peak_mib']:>10.0f} MiB  "
                    f"{command['wall_s']:>7.0f}s  {command['cpu_s']:>7.0f}s",
                    flush=True,
                )
            peaks[size] = max(command["own_peak_mib"] for _, command in measured)
        if len(peaks) > 1:
            low, high = min(peaks), max(peaks)
            print(f"highest peak RSS at {high} / at {low} questions: {peaks[high] / peaks[low]:.2f}")
        size = args.resume or max(sizes)
        bench = work / f"bench-{size}"
        if not bench.is_dir():
            write_questions(bench, size)
        found = resume(bench, work / f"resume-{size}", env, model, size, args.timeout)
        print(
            f"resume: killed -9 at {found['killed_at']} of {size} answers; the same command answered again "
            f"{found['answers_after_s']:.2f} s after it started ({found['cpu_s']:.2f} s of CPU: the wall "
            f"time of a machine that is not shared); it ended with {found['distinct']} questions "
            f"answered ({found['lines']} lines), peak RSS {found['restart']['own_peak_mib']:.0f} MiB\n"
            f"  its last line: {found['last_line']}",
            flush=True,
        )
    print(load())
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except RunFailed as failed:
        sys.exit(f"scale soak failed: {failed}")
