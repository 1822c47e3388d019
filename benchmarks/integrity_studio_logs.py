"""The studio's logs in the integrity audit (see benchmarks/integrity_audit.py): a person's
review log (`review/<person>.jsonl`, read by `vqakit review` and `vqakit review apply`) and a
participant's answers log (`<run>/answers.jsonl`, read by `vqakit report`). Both are written
here by the audited source's own studio code (the `--src` first on `sys.path`), so the same
audit runs on a checkout from before the studio's logs went through the one log reader."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from integrity_common import SAMPLE, Audit

Verb = Callable[[], list[Any]]
Case = Callable[[str, str, Path, bytes, Verb], dict[str, Any]]  # (kind, where, log, damage, verb) -> row
DECISIONS = 8  # of the damaged person's; another person decides 4 of the same samples
ANSWERS = 8

# records of the wrong shape for the middle line: JSON objects a JSON-only reader would take
BAD_DECISION = b'{"decision": "nuke", "sample_id": 7}'
BAD_ANSWER = b'{"request_id": "x-0000001", "sample_id": 5}'


def sample_copy(audit: Audit, name: str) -> Path:
    """The sample benchmark, copied into the work folder (its review logs are written beside it)."""
    bench = audit.work / name
    shutil.copytree(SAMPLE, bench, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return bench


def reviewed(audit: Audit, name: str) -> Path:
    """A copy of the sample benchmark with two people's review logs, written by the studio's
    `ReviewStore`."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.runner import benchmark_hash
    from vqakit.studio._review import DecisionBody, ReviewStore, review_folder

    bench = sample_copy(audit, name)
    benchmark = load_benchmark(bench)
    store = ReviewStore(review_folder(bench, benchmark.root), benchmark_hash(benchmark))
    samples = benchmark.samples[:DECISIONS]
    for person, count in (("alice", DECISIONS), ("bob", DECISIONS // 2)):
        for number, sample in enumerate(samples[:count]):
            drop = (number + len(person)) % 3 == 0
            fields = {"decision": "drop", "reason": "ambiguous"} if drop else {"decision": "keep"}
            store.record(person, sample, DecisionBody(request_id=uuid.uuid4().hex, **fields))
    return bench


def review_cases(audit: Audit, damages: list[tuple[str, bytes]], case: Case) -> list[dict[str, Any]]:
    """alice's review log damaged at each place, read by `vqakit review` and by `review apply`."""
    rows = []
    for where, how in [*damages, ("middle", BAD_DECISION)]:
        bench = reviewed(audit, f"review-{where}-{len(how)}")
        rows.append(case("review", where, bench / "review/alice.jsonl", how, lambda b=bench: ["review", b]))
        bench = reviewed(audit, f"review-apply-{where}-{len(how)}")
        out = audit.work / f"reviewed-{where}-{len(how)}"
        apply = lambda b=bench, o=out: ["review", "apply", b, "--policy", "any", "--out", o]  # noqa: E731
        rows.append(case("review (apply)", where, bench / "review/alice.jsonl", how, apply))
    return rows


def answered(audit: Audit, name: str) -> Path:
    """A participant's run folder over the sample benchmark with `ANSWERS` answers, written by
    the studio's `ParticipantRun`."""
    from vqakit.studio import Studio, StudioSettings
    from vqakit.studio._answers import AnswerBody

    bench = sample_copy(audit, f"{name}-bench")
    studio = Studio(StudioSettings(folders=[str(bench)], runs=audit.work / name, limit=ANSWERS))
    run = studio.participant_run(studio.workspace(None), "p01")
    while (sample := run.next_sample()) is not None:
        given = {"text": "a ball"} if sample.choices is None else {"choice": sample.answer}
        run.record(sample.id, AnswerBody(request_id=uuid.uuid4().hex, elapsed_s=2.5, **given), None, "")
    return run.folder


def answers_cases(audit: Audit, damages: list[tuple[str, bytes]], case: Case) -> list[dict[str, Any]]:
    """The participant's answers log damaged at each place, read by `vqakit report`."""
    rows = []
    for where, how in [*damages, ("middle", BAD_ANSWER)]:
        run = answered(audit, f"answers-{where}-{len(how)}")
        rows.append(case("answers", where, run / "answers.jsonl", how, lambda r=run: ["report", r]))
    return rows
