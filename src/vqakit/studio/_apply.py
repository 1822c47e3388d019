"""`vqakit review apply`: a new benchmark version from the review decisions.

Each person's latest decision on a sample is their vote: keep, drop, or an edit (two edits with
the same new values are the same vote). The policy turns a sample's votes into what happens:

- `all`: a change is made when every reviewer of the sample made it;
- `any`: any drop drops the sample; otherwise every edit is applied, in the order they were
  made (where two edits set one field, the later one wins; the change list says so);
- `majority`: the vote of more than half of the sample's reviewers (no majority: unchanged).

Where an adjudicator decided a sample (adjudicate mode of the studio), that decision is final
whatever the policy: the reviewers' votes are listed beside it in changes.md. A review log with a
line that cannot be read stops the command (`BadLogLines` naming each file and line): a lost
vote could change what the policy decides. With `set_aside_bad_lines` such lines are first moved
into `<person>.set-aside.jsonl` beside their log (kept, listed, counted in changes.md, and
carried into the history with the logs).

Unreviewed samples stay as they are. A decision is stale when the sample changed after it was
made (the sample digest recorded with it differs from the sample's now; a decision recorded
without a digest is stale when it was made on another version of the benchmark): a stale
decision is not a vote unless `include_stale`, and is listed either way.

The new folder is built in a staging folder beside `out` and renamed into place only once it
validates (media too): a failure leaves nothing behind. It holds every file of the old one
(hard links where possible) except the working state of the studio: the review logs and the
annotation log (`annotate/`), which belong to the old version (the next save in annotate mode
would rewrite samples.jsonl from that log and undo the review). For provenance, the review logs
that were applied (and the annotation log, if any) are kept under
`history/<old version>-<hash>/`, which nothing reads as live state. samples.jsonl and the card
are rewritten, the card's `review` field records the review, and `changes.md` lists every drop
and edit with who made it and why, every decision the policy did not apply, and every stale one.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from vqakit.benchmarks import load_benchmark
from vqakit.builders import check_benchmark_out
from vqakit.files import MARKER, link_or_copy, place_media, slug, staged_folder, write_text_atomic
from vqakit.runner import benchmark_hash
from vqakit.schema import CARD, SAMPLES, BenchmarkError, Problem, ReviewRecord, load_folder
from vqakit.studio._annotate import LOG as ANNOTATION_LOG
from vqakit.studio._changes import changes_text
from vqakit.studio._decide import (
    POLICIES,
    ApplyOutcome,
    Policy,
    adjudicated,
    decide,
    final_decisions,
    votes_by_sample,
)
from vqakit.studio._review import ReviewStore, review_folder

CHANGES = "changes.md"
HISTORY = "history"  # review and annotation logs of earlier versions, for provenance only
WRITER = "review apply"  # the command, as the new folder's marker records it
_SKIPPED = {SAMPLES, CARD, CHANGES, ".lock", MARKER}  # MARKER: the source's, not this command's
_WORKING_STATE = {"review", ANNOTATION_LOG.parts[0]}  # the studio's folders: never carried


def _media(source: Path) -> dict[str, Path]:
    """{name under media/: file} of every file in `source/media`, for `place_media`."""
    media = source / "media"
    found: dict[str, Path] = {}
    for folder, _, files in os.walk(media):
        for name in files:
            path = Path(folder) / name
            found[path.relative_to(media).as_posix()] = path
    return found


def _copy_tree(source: Path, out: Path, skip: set[Path]) -> None:
    """Every file of `source` under `out` (hard links where possible), but for `skip`, the
    studio's working state (review/, annotate/), symbolic links and the media (placed by
    `place_media`, which resolves and checks them)."""
    for folder, names, files in os.walk(source):
        here = Path(folder)
        names[:] = [
            n
            for n in names
            if (here / n).resolve() not in skip
            and (here / n) != source / "media"
            and not (here == source and n in _WORKING_STATE)
        ]
        for name in files:
            path = here / name
            relative = path.relative_to(source)
            if str(relative) in _SKIPPED or path.resolve() in skip or path.is_symlink():
                continue
            (out / relative).parent.mkdir(parents=True, exist_ok=True)
            link_or_copy(path, out / relative)


def _keep_history(out: Path, review_logs: Path, source: Path) -> None:
    """The applied review logs (`<person>.jsonl`) and the annotation log, if any, under `out`."""
    logs = sorted(review_logs.glob("*.jsonl")) if review_logs.is_dir() else []
    for path in logs:
        if path.is_file() and not path.is_symlink():
            (out / "review").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, out / "review" / path.name)  # a copy: the old log may grow
    annotation = source / ANNOTATION_LOG
    if annotation.is_file() and not annotation.is_symlink():
        (out / ANNOTATION_LOG).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(annotation, out / ANNOTATION_LOG)


def apply_review(
    bench: str | Path,
    out: str | Path,
    policy: Policy,
    *,
    review_dir: Path | None = None,
    version: str | None = None,
    include_stale: bool = False,
    set_aside_bad_lines: bool = False,
    on_note: Callable[[str], None] | None = None,
) -> ApplyOutcome:
    """Write the reviewed version of `bench` to `out` (new, empty, or an earlier `review apply`
    output; never inside the benchmark or its review logs: `OutFolderRefused` otherwise), all
    at once: nothing is left in or beside `out` when it fails (BenchmarkError: the new version
    does not validate; InputError: a media file cannot be placed; `BadLogLines`: a line of a
    review log cannot be read, unless `set_aside_bad_lines`, each move said to `on_note`)."""
    from vqakit.video import VideoMediaChecker

    if policy not in POLICIES:
        raise ValueError(f"policy {policy!r}: use {', '.join(POLICIES)}")
    benchmark = load_benchmark(bench)
    out = Path(out)
    folder = review_folder(bench, benchmark.root, review_dir)
    claimed = check_benchmark_out(out, WRITER, inputs=[benchmark.root, folder])
    source_hash = benchmark_hash(benchmark)
    store = ReviewStore(folder, source_hash)
    if set_aside_bad_lines:
        for moved in store.set_aside_bad_lines():
            if on_note is not None:
                on_note(str(moved))
    latest = store.latest(strict=True)
    outcome = ApplyOutcome(out, 0, 0, 0, 0, sorted(latest), include_stale=include_stale)
    outcome.set_aside = store.lines_set_aside()
    votes = votes_by_sample(benchmark.samples, latest, source_hash, outcome)
    final = final_decisions(benchmark.samples, store.adjudications(strict=True), source_hash, outcome)
    written = (benchmark.root / SAMPLES).read_text(encoding="utf-8").splitlines()
    samples: list[dict[str, Any]] = []
    for sample in benchmark.samples:
        if sample.id in final:
            kept = adjudicated(sample, final[sample.id], votes.get(sample.id, []), outcome)
        else:
            kept = decide(sample, votes.get(sample.id, []), policy, outcome)
        if kept is sample:  # unchanged: the line as it was written
            samples.append(json.loads(written[benchmark.sample_lines[sample.id] - 1]))
        elif kept is not None:
            samples.append(kept.model_dump(mode="json", exclude_defaults=True))
    card = yaml.safe_load((benchmark.root / CARD).read_text(encoding="utf-8"))
    card["version"] = version or reviewed_version(benchmark.card.version)
    card["review"] = ReviewRecord(
        source=f"{benchmark.card.name} {benchmark.card.version}",
        source_hash=source_hash,
        policy=policy,
        reviewers=outcome.reviewers,
        reviewed=len(set(votes) | set(final)),
        kept=outcome.kept,
        edited=outcome.edited,
        dropped=outcome.dropped,
        changes=CHANGES,
        date=datetime.now(UTC).isoformat(timespec="seconds"),
    ).model_dump(mode="json")
    outcome.history = f"{HISTORY}/{slug(str(benchmark.card.version), 40, empty='version')}-{source_hash[:8]}"
    with staged_folder(out, claimed, WRITER) as stage:
        _copy_tree(benchmark.root, stage, {folder.resolve(), out.resolve(), stage.resolve()})
        _keep_history(stage / outcome.history, folder, benchmark.root)
        place_media(stage, _media(benchmark.root))  # resolved to real files, checked, linked
        write_text_atomic(stage / SAMPLES, "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples))
        write_text_atomic(stage / CARD, yaml.safe_dump(card, sort_keys=False))
        (stage / CHANGES).write_text(
            changes_text(benchmark.card, card["version"], policy, outcome), encoding="utf-8"
        )
        try:
            load_folder(stage, VideoMediaChecker())  # media opened and probed too
        except BenchmarkError as error:  # said of the old folder: its files are at fault
            problems = [_named(p, stage, benchmark.root) for p in error.problems]
            raise BenchmarkError(benchmark.root, problems) from None
    return outcome


def reviewed_version(version: str) -> str:
    """The version a review gives by default: `1.0` -> `1.0+review`, `1.0+review` ->
    `1.0+review.2`, ...; never the source's, so runs of the two never share a folder."""
    base, _, count = version.partition("+review")
    if base == version:
        return f"{version}+review"
    number = int(count.removeprefix(".")) if count.removeprefix(".").isdigit() else 1
    return f"{base}+review.{number + 1}"


def _named(problem: Problem, stage: Path, source: Path) -> Problem:
    """The problem with the staging folder's paths named as the old folder's files, which they
    are links of."""
    return replace(problem, message=problem.message.replace(f"{stage}/", f"{source}/"))
