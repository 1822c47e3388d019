"""`vqakit review apply`: a new benchmark version from the review decisions.

Each person's latest decision on a sample is their vote: keep, drop, or an edit (two edits with
the same new values are the same vote). The policy turns a sample's votes into what happens:

- `all`: a change is made when every reviewer of the sample made it;
- `any`: any drop drops the sample; otherwise every edit is applied, in the order they were
  made (where two edits set one field, the later one wins; the change list says so);
- `majority`: the vote of more than half of the sample's reviewers (no majority: unchanged).

Unreviewed samples stay as they are. The new folder holds every file of the old one (hard links
where possible) except the review logs; samples.jsonl and the card are rewritten, the card's
`review` field records the review, and `changes.md` lists every drop and edit with who made it
and why, and every decision the policy did not apply. The folder is validated (media too).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import yaml

from vqakit.benchmarks import load_benchmark
from vqakit.builders import write_benchmark_folder
from vqakit.files import link_or_copy
from vqakit.runner import benchmark_hash
from vqakit.schema import CARD, CLIPS, PASSAGES, SAMPLES, ReviewRecord, Sample
from vqakit.studio._review import DROP_REASONS, Decision, EditError, ReviewStore, edited_sample, review_folder

Policy = Literal["all", "any", "majority"]
POLICIES: tuple[Policy, ...] = ("all", "any", "majority")
CHANGES = "changes.md"
_SKIPPED = {SAMPLES, CARD, CHANGES, ".lock"}


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
    stale: int  # decisions made on another version of the benchmark
    changes: list[Change] = field(default_factory=list)


def _vote(decision: Decision) -> str:
    if decision.decision == "edit":
        return "edit:" + json.dumps(decision.edit, sort_keys=True)
    return decision.decision


def _outcome(votes: list[Decision], policy: Policy) -> tuple[str, list[Decision]]:
    """("keep" | "drop" | "edit" | "unapplied", the decisions it follows)."""
    counted = Counter(_vote(d) for d in votes)
    if policy == "any":
        drops = [d for d in votes if d.decision == "drop"]
        edits = [d for d in votes if d.decision == "edit"]
        return ("drop", drops) if drops else ("edit", edits) if edits else ("keep", votes)
    top, count = counted.most_common(1)[0]
    needed = len(votes) if policy == "all" else len(votes) // 2 + 1
    if count < needed:
        return "unapplied", votes
    chosen = [d for d in votes if _vote(d) == top]
    return top.split(":", 1)[0], chosen


def _media(source: Path) -> dict[str, Path]:
    """{name under media/: file} of every file in `source/media`, for the folder writer."""
    media = source / "media"
    found: dict[str, Path] = {}
    for folder, _, files in os.walk(media):
        for name in files:
            path = Path(folder) / name
            found[path.relative_to(media).as_posix()] = path
    return found


def _copy_tree(source: Path, out: Path, skip: set[Path]) -> None:
    """Every file of `source` under `out` (hard links where possible), but for `skip` and the
    media (placed by the folder writer, which validates them)."""
    for folder, names, files in os.walk(source):
        here = Path(folder)
        names[:] = [n for n in names if (here / n).resolve() not in skip and (here / n) != source / "media"]
        for name in files:
            path = here / name
            relative = path.relative_to(source)
            if str(relative) in _SKIPPED or path.resolve() in skip or path.is_symlink():
                continue
            (out / relative).parent.mkdir(parents=True, exist_ok=True)
            link_or_copy(path, out / relative)


def _jsonl(path: Path) -> list[dict[str, Any]] | None:
    if not path.is_file():
        return None
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def apply_review(
    bench: str | Path,
    out: str | Path,
    policy: Policy,
    *,
    review_dir: Path | None = None,
    version: str | None = None,
) -> ApplyOutcome:
    """Write the reviewed version of `bench` to `out` (which must not exist or be empty)."""
    if policy not in POLICIES:
        raise ValueError(f"policy {policy!r}: use {', '.join(POLICIES)}")
    benchmark = load_benchmark(bench)
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} exists and is not empty; choose a new folder for the reviewed version")
    source_hash = benchmark_hash(benchmark)
    folder = review_folder(bench, benchmark.root, review_dir)
    latest = ReviewStore(folder, source_hash).latest()
    ids = {s.id for s in benchmark.samples}
    votes: dict[str, list[Decision]] = {}
    for decisions in latest.values():
        for sample_id, decision in decisions.items():
            if sample_id in ids:
                votes.setdefault(sample_id, []).append(decision)
    stale = sum(1 for ds in latest.values() for d in ds.values() if d.benchmark_hash != source_hash)
    outcome = ApplyOutcome(out, 0, 0, 0, 0, sorted(latest), stale)
    written = (benchmark.root / SAMPLES).read_text(encoding="utf-8").splitlines()
    samples: list[dict[str, Any]] = []
    for sample in benchmark.samples:
        kept = _decide(sample, votes.get(sample.id, []), policy, outcome)
        if kept is sample:  # unchanged: the line as it was written
            samples.append(json.loads(written[benchmark.sample_lines[sample.id] - 1]))
        elif kept is not None:
            samples.append(kept.model_dump(mode="json", exclude_defaults=True))
    card = yaml.safe_load((benchmark.root / CARD).read_text(encoding="utf-8"))
    card["version"] = version or f"{benchmark.card.version}+review"
    card["review"] = ReviewRecord(
        source=f"{benchmark.card.name} {benchmark.card.version}",
        source_hash=source_hash,
        policy=policy,
        reviewers=outcome.reviewers,
        reviewed=len(votes),
        kept=outcome.kept,
        edited=outcome.edited,
        dropped=outcome.dropped,
        changes=CHANGES,
        date=datetime.now(UTC).isoformat(timespec="seconds"),
    ).model_dump(mode="json")
    out.mkdir(parents=True, exist_ok=True)
    _copy_tree(benchmark.root, out, {folder.resolve(), out.resolve()})
    write_benchmark_folder(
        out,
        card=card,
        samples=samples,
        clips=_jsonl(benchmark.root / CLIPS),
        passages=_jsonl(benchmark.root / PASSAGES),
        media=_media(benchmark.root),
    )
    (out / CHANGES).write_text(
        changes_text(benchmark.card, card["version"], policy, outcome), encoding="utf-8"
    )
    return outcome


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
    if outcome.stale:
        lines.append(f"{outcome.stale} decision(s) were made on another version of the benchmark.")
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
    return "\n".join(lines) + "\n"
