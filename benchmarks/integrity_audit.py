"""Integrity audit: a damaged line in each log, `--out` on folders the user owns, kill -9 mid-run.
Prints the three tables of issue 26's "Done when".

    python benchmarks/integrity_audit.py                      # every case, 10 kill -9s (minutes)
    python benchmarks/integrity_audit.py --quick              # one line per log, 2 kills
    python benchmarks/integrity_audit.py --src /path/to/src   # audit another checkout (before/after)
    python benchmarks/integrity_audit.py --logs review,answers --commands none --kills 0   # some parts

Every command runs as `python -m vqakit ...` in a subprocess with `--src` first on PYTHONPATH
(default: this checkout's), against loopback servers (`tests/models/fake_server.py`) and the
repository's examples; nothing leaves the machine.

1. Logs (predictions, judgments, the judges' batch journal, a build's journal, a person's review
   log, a participant's answers log: `integrity_studio_logs.py`): a valid log, one
   complete line replaced at its start, middle or end (a torn line, `{}`-like records, fields of
   the wrong kind), then the verb that reads it, without and with `--set-aside-bad-lines`.
   "kept": the log's lines afterwards; "lost": lines of the damaged log found neither in the log
   nor in its quarantine file (`*.set-aside.jsonl`) afterwards. Lost must be 0.
2. `--out` an existing folder of the user's (a video under media/, a samples.jsonl, notes): the
   files deleted, replaced and added there, and the exit code; plus the issue's three
   `import table` cases. Deleted must be 0.
3. kill -9 of `vqakit eval` mid-run with decode workers, N times: the processes of its process
   group left 3 s and 20 s after each kill. Left must be 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from itertools import takewhile
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS / "models"), str(TESTS)]  # the loopback server and checks of the tests

from fake_server import FakeServer  # noqa: E402 - the loopback OpenAI-compatible server of the tests
from integrity_common import ROOT, SAMPLE, Audit, egofact_inputs  # noqa: E402
from integrity_outs import audit_outs  # noqa: E402
from integrity_studio_logs import answers_cases, review_cases  # noqa: E402

from integrity_checks import group_members  # noqa: E402

POSITIONS = ("start", "middle", "end")
SET_ASIDE = "--set-aside-bad-lines"


# --- 1. logs ---------------------------------------------------------------------------------


TORN = b""  # the damage of the case: the line cut short (its first 30 bytes), newline kept


def damage(path: Path, where: str, bad: bytes) -> int:
    """Replace the first, middle or last complete line of `path` with `bad` (`TORN`: with its own
    first 30 bytes); its number."""
    lines = path.read_bytes().splitlines(keepends=True)
    number = {"start": 1, "middle": len(lines) // 2 + 1, "end": len(lines)}[where]
    lines[number - 1] = (bad or lines[number - 1][:30]) + b"\n"
    path.write_bytes(b"".join(lines))
    return number


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines() if path.exists() else []


def quarantined(log: Path) -> list[bytes]:
    """The lines moved out of `log` into its quarantine file, as they were."""
    import base64

    aside = log.with_name(log.name.removesuffix(".jsonl") + ".set-aside.jsonl")
    held = []
    for line in lines_of(aside):
        entry = json.loads(line)
        held.append(base64.b64decode(entry["base64"]) if "base64" in entry else entry["text"].encode())
    return held


def lost(before: list[bytes], log: Path) -> int:
    """Lines of `before` found neither in `log` nor in its quarantine file now."""
    now = Counter(line.rstrip(b"\r") for line in [*lines_of(log), *quarantined(log)])
    wanted = Counter(line.rstrip(b"\r") for line in before if line.strip())
    return sum(max(0, count - now[line]) for line, count in wanted.items())


def copy_run(run: Path, name: str) -> Path:
    """A copy of the run folder beside it (its config names the benchmark relative to it)."""
    copy = run.with_name(name)
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns(".lock"))
    return copy


def log_case(
    audit: Audit, kind: str, where: str, log: Path, bad: bytes, verb: Callable[[], list[Any]]
) -> dict[str, Any]:
    number = damage(log, where, bad)
    before = lines_of(log)
    code, text = audit.run(*verb())
    row = {"log": kind, "where": f"{where} (line {number})", "damage": "torn" if bad == TORN else "record",
           "verb": " ".join(takewhile(lambda a: isinstance(a, str) and a[:1] != "-", verb())),
           "lines": len(before), "exit": code, "named": f"{log.name}:{number}" in text,
           "kept": len(lines_of(log)), "lost": lost(before, log)}  # fmt: skip
    code, text = audit.run(*verb(), SET_ASIDE)
    row.update({"aside exit": code, "set aside": len(quarantined(log)), "lost after": lost(before, log)})
    return row


def sixty(audit: Audit) -> tuple[Path, list[Any]]:
    """A 60-sample benchmark (30% of the recorded replies right), and a finished run of it."""
    bench = audit.work / "sixty"
    (bench / "media").mkdir(parents=True)
    shutil.copy(SAMPLE / "media/thanks.mp4", bench / "media/thanks.mp4")
    (bench / "benchmark.yaml").write_text(
        "name: sixty\nversion: '1'\nlicense: CC0-1.0\ndescription: Sixty.\nprotocol:\n  frames: uniform:2\n"
    )
    samples, replies = [], []
    for i in range(60):
        samples.append({"id": f"q{i:02d}", "videos": [{"path": "media/thanks.mp4"}], "question": f"Q{i}?",
                        "choices": ["a", "b", "c", "d"], "answer": 0})  # fmt: skip
        replies.append({"sample_id": f"q{i:02d}", "reply": "A" if i % 10 < 3 else "B"})
    (bench / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    (audit.work / "replies.jsonl").write_text("".join(json.dumps(r) + "\n" for r in replies))
    runs = audit.work / "runs"
    args = ["eval", bench, "--model", f"replay:{audit.work / 'replies.jsonl'}", "--method", "blind"]
    code, text = audit.run(*args, "--out", runs / "sixty")
    assert code == 0, text
    return runs / "sixty", args


def judged(audit: Audit) -> Path:
    run = audit.work / "runs/judged"
    with FakeServer(default="ok:Answer: B") as model, FakeServer(default="ok:yes - the same") as judge:
        code, text = audit.run(
            "eval", "sample", "--model", f"openai-compatible:{model.url}#m", "--frames", "uniform:1",
            "--judge", f"open=openai-compatible:{judge.url}#j", "--out", run,
        )  # fmt: skip
    assert code == 0, text
    return run


def write_batch_journal(run: Path) -> None:
    """Two batches in the run's journal: one ended with its replies, one outstanding."""
    from vqakit.models import BatchJournal, Completion
    from vqakit.models._batch_journal import Intent, SubmittedBatch

    journal = BatchJournal(run / "judge_batches.jsonl", run / "judge_batch_results.jsonl")
    for number, keys in ((1, ("k1", "k2")), (2, ("k3",))):
        intent = Intent.new("openai", "openai:judge", {key: {"body": number} for key in keys})
        journal.add_intent(intent)
        journal.add_submitted(SubmittedBatch(f"batch-{number}", "openai", "openai:judge", keys, intent.id))
    journal.add_results("batch-1", {"k1": Completion("yes", "j"), "k2": Completion("no", "j")}, "completed")


LOGS = ("predictions", "judgments", "batch journal", "build journal", "review", "answers")


def audit_logs(
    audit: Audit, positions: tuple[str, ...], kinds: tuple[str, ...] = LOGS
) -> list[dict[str, Any]]:
    """Each log kind with a torn line at each position, and a record of the wrong shape in the
    middle (which a JSON-only reader would take)."""
    damages = [(where, TORN) for where in positions]
    rows = []
    if "predictions" in kinds or "batch journal" in kinds:
        run, eval_args = sixty(audit)
    if "predictions" in kinds:
        bad = b'{"sample_id": "q00", "method": "blind", "odd": 1}'
        for where, how in [*damages, ("middle", bad)]:
            copy = copy_run(run, f"pred-{where}-{len(how)}")
            rows.append(log_case(audit, "predictions", where, copy / "predictions.jsonl", how, report(copy)))
            copy = copy_run(run, f"resume-{where}-{len(how)}")
            resume = lambda c=copy: [*eval_args, "--out", c]  # noqa: E731 - the same eval, resumed
            rows.append(
                log_case(audit, "predictions (eval resume)", where, copy / "predictions.jsonl", how, resume)
            )
    if "judgments" in kinds:
        source = judged(audit)
        for where, how in [*damages, ("middle", b'{"kind": "open"}')]:
            copy = copy_run(source, f"judged-{where}-{len(how)}")
            rows.append(log_case(audit, "judgments", where, copy / "judgments.jsonl", how, report(copy)))
    if "batch journal" in kinds:
        for where, how in [*damages, ("middle", b'{"event": "submitted", "batch": 7}')]:
            copy = copy_run(run, f"batches-{where}-{len(how)}")
            write_batch_journal(copy)
            rows.append(
                log_case(audit, "batch journal", where, copy / "judge_batches.jsonl", how, report(copy))
            )
    if "build journal" in kinds:
        rows += build_journal_cases(
            audit, [*damages, ("middle", b'{"key": "caption:x:1", "result": 1, "odd": 1}')]
        )

    def case(kind: str, where: str, log: Path, bad: bytes, verb: Callable[[], list[Any]]) -> dict[str, Any]:
        return log_case(audit, kind, where, log, bad, verb)

    if "review" in kinds:
        rows += review_cases(audit, damages, case)
    if "answers" in kinds:
        rows += answers_cases(audit, damages, case)
    return rows


def build_journal_cases(audit: Audit, damages: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """`vqakit build egofact` resuming from a damaged journal; its model refuses at once, so a
    build that gets past its journal ends (`aside exit` is the build's own outcome then)."""
    from vqakit.builders import BuildJournal

    rows = []
    with FakeServer(default="400") as refusing:
        for where, how in damages:
            folder = audit.work / f"build-{where}-{len(how)}"
            build = [*egofact_inputs(folder), "--llm", f"openai-compatible:{refusing.url}#m"]
            journal = BuildJournal(folder / "out/build")
            for number in range(5):
                journal.put(
                    BuildJournal.key("caption", f"item{number}", "request"), {"text": f"step {number}"}
                )
            verb = lambda b=build, f=folder: [*b, "--out", f / "out"]  # noqa: E731
            rows.append(log_case(audit, "build journal", where, folder / "out/build/calls.jsonl", how, verb))
    return rows


def report(run: Path) -> Callable[[], list[Any]]:
    return lambda: ["report", run]


# --- 3. kill -9 ------------------------------------------------------------------------------


def audit_kills(audit: Audit, rounds: int) -> list[dict[str, Any]]:
    rows = []
    with FakeServer(default="ok:Answer: B", delay_s=0.2) as server:
        server.httpd.handle_error = lambda request, address: None  # replies to a killed client: no traceback
        for number in range(rounds):
            out = audit.work / f"killed-{number}"
            env = {**audit.env, "VQAKIT_CACHE_DIR": str(audit.work / f"kill-cache-{number}")}
            command = [sys.executable, "-m", "vqakit", "eval", "sample", "--model",
                       f"openai-compatible:{server.url}#m", "--frames", "uniform:64", "--concurrency", "2",
                       "--no-frame-cache", "--out", str(out)]  # fmt: skip  (64 frames: decode workers start)
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                       cwd=audit.work, start_new_session=True)  # fmt: skip
            wanted, deadline = 2 + 3 * (number % 5), time.monotonic() + 180
            predictions = out / "predictions.jsonl"
            while process.poll() is None and time.monotonic() < deadline:
                done = predictions.read_bytes().count(b"\n") if predictions.exists() else 0
                if len(group_members(process.pid)) >= 3 and done >= wanted:
                    break
                time.sleep(0.05)
            at_kill = group_members(process.pid)
            if process.poll() is not None:
                ended = f"eval ended (exit {process.returncode}) before it was killed"
                raise SystemExit(f"kill round {number}: {ended}")
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            killed, left_3 = time.monotonic(), None
            while group_members(process.pid) and time.monotonic() - killed < 20:
                if left_3 is None and time.monotonic() - killed >= 3:
                    left_3 = len(group_members(process.pid))
                time.sleep(0.1)
            left = group_members(process.pid)
            rows.append({"round": number + 1, "at kill": len(at_kill),
                         "workers": sum("spawn_main" in c for c in at_kill),
                         "left 3 s": len(left) if left_3 is None else left_3, "left 20 s": len(left),
                         "gone after s": None if left else round(time.monotonic() - killed, 1)})  # fmt: skip
            if left:
                os.killpg(process.pid, signal.SIGKILL)  # the audit leaves nothing behind itself
    return rows


# --- tables ----------------------------------------------------------------------------------


def markdown(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(none)"
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += [
        "| " + " | ".join("-" if row.get(k) is None else str(row.get(k)) for k in keys) + " |" for row in rows
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the vqakit source to audit")
    parser.add_argument("--quick", action="store_true", help="the middle line only, five commands, 2 kills")
    parser.add_argument("--positions", help=f"comma-separated, of {','.join(POSITIONS)}")
    parser.add_argument(
        "--logs",
        "--kinds",
        dest="logs",
        help=f"comma-separated log kinds (default: all; none: no log table), of: {', '.join(LOGS)}",
    )
    parser.add_argument(
        "--commands", help="comma-separated commands of the --out table (default: all; none: no --out table)"
    )
    parser.add_argument("--kills", type=int, help="kill -9 rounds (default 10; 2 with --quick)")
    parser.add_argument("--json", type=Path, help="also write the three tables' rows here")
    arguments = parser.parse_args()
    sys.path.insert(0, str(arguments.src.resolve()))  # this process writes journals with the same code
    positions = ("middle",) if arguments.quick else POSITIONS
    positions = tuple(arguments.positions.split(",")) if arguments.positions else positions
    kinds = tuple(arguments.logs.split(",")) if arguments.logs else LOGS
    unknown = set(kinds) - {*LOGS, "none"}
    if unknown:
        parser.error(f"--logs: unknown log kind(s) {', '.join(sorted(unknown))}; of: {', '.join(LOGS)}")
    commands = (
        {"import table", "import videomme", "eval", "export-bench", "frames"} if arguments.quick else None
    )
    commands = set(arguments.commands.split(",")) if arguments.commands else commands
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="vqakit-integrity-") as folder:
        audit = Audit(arguments.src.resolve(), Path(folder).resolve())
        logs = audit_logs(audit, positions, kinds)
        outs = [] if commands == {"none"} else audit_outs(audit, commands)
        kills = audit_kills(
            audit, arguments.kills if arguments.kills is not None else (2 if arguments.quick else 10)
        )
    print("## Logs: one damaged line, then the verb that reads the log\n\n" + markdown(logs))
    print(f"\nlines lost: {sum(r['lost'] + r['lost after'] for r in logs)} in {len(logs)} cases")
    print("\n## --out an existing folder the command did not write\n\n" + markdown(outs))
    print(f"\nfiles deleted: {sum(r['deleted'] for r in outs)}, replaced: {sum(r['replaced'] for r in outs)}")
    print(f"\n## kill -9 of `vqakit eval` mid-run, {len(kills)} times\n\n" + markdown(kills))
    print(f"\nprocesses left after {len(kills)} kill -9s: {sum(r['left 20 s'] for r in kills)}")
    print(f"\n{arguments.src}: {time.perf_counter() - started:.0f} s")
    if arguments.json:
        arguments.json.write_text(json.dumps({"logs": logs, "outs": outs, "kills": kills}, indent=1))


if __name__ == "__main__":
    main()
