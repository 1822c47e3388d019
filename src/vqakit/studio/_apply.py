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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import yaml

from vqakit.benchmarks import load_benchmark
from vqakit.builders import check_benchmark_out
from vqakit.files import MARKER, link_or_copy, place_media, slug, staged_folder, write_text_atomic
from vqakit.runner import benchmark_hash
from vqakit.schema import CARD, SAMPLES, BenchmarkError, Problem, ReviewRecord, Sample, load_folder
from vqakit.studio._agreement import vote
from vqakit.studio._annotate import LOG as ANNOTATION_LOG
from vqakit.studio._review import (
    DROP_REASONS,
    Decision,
    EditError,
    ReviewStore,
    edited_sample,
    review_folder,
    sample_digest,
)

Policy = Literal["all", "any", "majority"]
POLICIES: tuple[Policy, ...] = ("all", "any", "majority")
CHANGES = "changes.md"
HISTORY = "history"  # review and annotation logs of earlier versions, for provenance only
WRITER = "review apply"  # the command, as the new folder's marker records it
_SKIPPED = {SAMPLES, CARD, CHANGES, ".lock", MARKER}  # MARKER: the source's, not this command's
_WORKING_STATE = {"review", ANNOTATION_LOG.parts[0]}  # the studio's folders: never carried


@dataclass
class Change:
    sample_id: str
    kind: str  # "drop", "edit" or "unapplied"
    votes: list[Decision]
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # edit: field -> (old, new)
    note: str = ""


@dataclass
class ApplyOutcome:
    folder: Path
    kept: int
    edited: int
    dropped: int
    unapplied: int
    reviewers: list[str]
    stale: list[Decision] = field(default_factory=list)  # made on an earlier version of their sample
    include_stale: bool = False  # whether the stale decisions were applied
    gone: int = 0  # decisions on samples no longer in the benchmark
    adjudicated: list[Change] = field(default_factory=list)  # samples an adjudicator decided
    history: str = ""  # where the applied review logs are kept in the new folder
    changes: list[Change] = field(default_factory=list)
    set_aside: dict[str, int] = field(default_factory=dict)  # log name -> lines set aside (not counted)


def _outcome(votes: list[Decision], policy: Policy) -> tuple[str, list[Decision]]:
    """("keep" | "drop" | "edit" | "unapplied", the decisions it follows)."""
    counted = Counter(vote(d) for d in votes)
    if policy == "any":
        drops = [d for d in votes if d.decision == "drop"]
        edits = [d for d in votes if d.decision == "edit"]
        return ("drop", drops) if drops else ("edit", edits) if edits else ("keep", votes)
    top, count = counted.most_common(1)[0]
    needed = len(votes) if policy == "all" else len(votes) // 2 + 1
    if count < needed:
        return "unapplied", votes
    chosen = [d for d in votes if vote(d) == top]
    return top.split(":", 1)[0], chosen


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
    votes = _votes(benchmark.samples, latest, source_hash, outcome)
    final = _final(benchmark.samples, store.adjudications(strict=True), source_hash, outcome)
    written = (benchmark.root / SAMPLES).read_text(encoding="utf-8").splitlines()
    samples: list[dict[str, Any]] = []
    for sample in benchmark.samples:
        if sample.id in final:
            kept = _adjudicated(sample, final[sample.id], votes.get(sample.id, []), outcome)
        else:
            kept = _decide(sample, votes.get(sample.id, []), policy, outcome)
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


def is_stale(decision: Decision, sample: Sample, source_hash: str) -> bool:
    """Whether the sample changed after the decision was made (without a recorded sample
    digest: whether it was made on another version of the benchmark)."""
    if decision.sample_hash is not None:
        return decision.sample_hash != sample_digest(sample)
    return decision.benchmark_hash != source_hash


def _applies(decision: Decision, sample: Sample | None, source_hash: str, outcome: ApplyOutcome) -> bool:
    """Whether a decision on `sample` (None: no longer in the benchmark) is applied; a stale one
    only with `outcome.include_stale`, and listed either way (counted in `outcome`)."""
    if sample is None:
        outcome.gone += 1
        return False
    if is_stale(decision, sample, source_hash):
        outcome.stale.append(decision)
        outcome.stale.sort(key=lambda d: (d.sample_id, d.person))
        return outcome.include_stale
    return True


def _votes(
    samples: list[Sample], latest: dict[str, dict[str, Decision]], source_hash: str, outcome: ApplyOutcome
) -> dict[str, list[Decision]]:
    """{sample id: the decisions that vote on it} (see `_applies`)."""
    by_id = {s.id: s for s in samples}
    votes: dict[str, list[Decision]] = {}
    for decisions in latest.values():
        for sample_id, decision in decisions.items():
            if _applies(decision, by_id.get(sample_id), source_hash, outcome):
                votes.setdefault(sample_id, []).append(decision)
    return votes


def _final(
    samples: list[Sample], adjudications: dict[str, Decision], source_hash: str, outcome: ApplyOutcome
) -> dict[str, Decision]:
    """{sample id: its adjudication} (see `_applies`)."""
    by_id = {s.id: s for s in samples}
    return {
        sample_id: decision
        for sample_id, decision in adjudications.items()
        if _applies(decision, by_id.get(sample_id), source_hash, outcome)
    }


def _adjudicated(
    sample: Sample, final: Decision, votes: list[Decision], outcome: ApplyOutcome
) -> Sample | None:
    """The sample as its adjudicator decided, whatever the reviewers' votes (listed beside it)."""
    change = Change(sample.id, final.decision, [final], note="adjudicated: final")
    outcome.adjudicated.append(Change(sample.id, final.decision, [final, *votes]))
    if final.decision == "drop":
        outcome.dropped += 1
        outcome.changes.append(change)
        return None
    outcome.kept += 1
    if final.decision == "keep":
        return sample
    try:
        edited = edited_sample(sample, final.edit or {})
    except EditError as error:
        outcome.unapplied += 1
        outcome.changes.append(
            Change(
                sample.id,
                "unapplied",
                [final],
                note=f"the adjudicator's edit makes an invalid sample: {error}",
            )
        )
        return sample
    before, after = sample.model_dump(mode="json"), edited.model_dump(mode="json")
    change.fields = {
        key: (_field(before, key), _field(after, key))
        for key in (final.edit or {})
        if _field(before, key) != _field(after, key)
    }
    if change.fields:
        outcome.edited += 1
        outcome.changes.append(change)
    return edited


def _decide(sample: Sample, votes: list[Decision], policy: Policy, outcome: ApplyOutcome) -> Sample | None:
    """The sample as the new version has it (None: dropped), counting what happened."""
    if not votes:
        outcome.kept += 1
        return sample
    kind, chosen = _outcome(votes, policy)
    if kind == "drop":
        outcome.dropped += 1
        outcome.changes.append(Change(sample.id, "drop", chosen))
        return None
    outcome.kept += 1
    if kind == "unapplied":
        outcome.unapplied += 1
        outcome.changes.append(Change(sample.id, "unapplied", votes, note="no agreement under this policy"))
        return sample
    if kind != "edit":
        return sample
    merged: dict[str, Any] = {}
    set_by: dict[str, str] = {}
    notes = []
    for decision in sorted(chosen, key=lambda d: d.time):
        for key, value in (decision.edit or {}).items():
            if key in merged and merged[key] != value:
                notes.append(f"{key}: {set_by[key]}'s value replaced by {decision.person}'s (later)")
            merged[key], set_by[key] = value, decision.person
    try:
        edited = edited_sample(sample, merged)
    except EditError as error:
        outcome.unapplied += 1
        outcome.changes.append(
            Change(sample.id, "unapplied", votes, note=f"the edits make an invalid sample: {error}")
        )
        return sample
    before, after = sample.model_dump(mode="json"), edited.model_dump(mode="json")
    fields = {
        key: (_field(before, key), _field(after, key))
        for key in merged
        if _field(before, key) != _field(after, key)
    }
    if not fields:
        return sample
    outcome.edited += 1
    outcome.changes.append(Change(sample.id, "edit", chosen, fields, "; ".join(notes)))
    return edited


def _field(data: dict[str, Any], key: str) -> Any:
    return (data.get("metadata") or {}).get(key) if key in ("category", "skills") else data.get(key)


def _who(decision: Decision) -> str:
    why = DROP_REASONS.get(decision.reason or "", decision.reason or "")
    parts = [p for p in (why, decision.note) if p]
    return f"{decision.person}" + (f" ({'; '.join(parts)})" if parts else "")


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 300 else text[:297] + "..."


def changes_text(card: Any, version: str, policy: Policy, outcome: ApplyOutcome) -> str:
    """changes.md: every drop and edit with who made it and why, and what was not applied."""
    lines = [
        f"# Review of {card.name} {card.version} -> {version}",
        "",
        f"Policy: {policy}. Reviewers: {', '.join(outcome.reviewers) or 'none'}. "
        f"{outcome.kept} samples kept ({outcome.edited} edited), {outcome.dropped} dropped, "
        f"{outcome.unapplied} with decisions not applied under this policy.",
    ]
    if outcome.gone:
        lines.append(f"{outcome.gone} decision(s) on samples no longer in the benchmark were not applied.")
    lines.append(
        f"The review logs applied are kept in `{outcome.history}/` (a record only: the studio does "
        "not read them)."
    )
    if outcome.set_aside:
        counted = ", ".join(f"{count} of {log}" for log, count in sorted(outcome.set_aside.items()))
        lines.append(
            f"Lines set aside as unreadable, not counted: {counted} (kept in `<person>.set-aside.jsonl` "
            f"beside each log, and in `{outcome.history}/review/`)."
        )
    for kind, title in (("drop", "Dropped"), ("edit", "Edited"), ("unapplied", "Not applied")):
        found = [c for c in outcome.changes if c.kind == kind]
        lines += ["", f"## {title} ({len(found)})", ""]
        if not found:
            lines.append("none")
        for change in found:
            if kind == "unapplied":
                votes = "; ".join(f"{d.decision} by {_who(d)}" for d in change.votes)
                lines.append(f"- `{change.sample_id}`: {votes} ({change.note})")
                continue
            lines.append(f"- `{change.sample_id}`: by {', '.join(_who(d) for d in change.votes)}")
            for key, (old, new) in change.fields.items():
                lines.append(f"  - {key}: {_shown(old)} -> {_shown(new)}")
            if change.note:
                lines.append(f"  - note: {change.note}")
    lines += ["", f"## Settled by an adjudicator ({len(outcome.adjudicated)})", ""]
    lines += [
        f"- `{c.sample_id}`: {c.votes[0].decision} by {_who(c.votes[0])} (final); the reviewers: "
        + ("; ".join(f"{d.decision} by {_who(d)}" for d in c.votes[1:]) or "none")
        for c in outcome.adjudicated
    ] or ["none"]
    title = (
        "Applied although the sample changed after the decision (--include-stale)"
        if outcome.include_stale
        else "Not applied: the sample changed after the decision (stale; --include-stale applies them)"
    )
    lines += ["", f"## {title} ({len(outcome.stale)})", ""]
    lines += [f"- {stale_line(d)}" for d in outcome.stale] or ["none"]
    return "\n".join(lines) + "\n"


def stale_line(decision: Decision) -> str:
    """One stale decision, for the command's output and changes.md."""
    return f"`{decision.sample_id}`: {decision.decision} by {_who(decision)}, made {decision.time}"
