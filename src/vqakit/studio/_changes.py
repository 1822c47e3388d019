"""changes.md of a reviewed version, and the line that names a stale decision."""

from __future__ import annotations

import json
from typing import Any

from vqakit.studio._decide import ApplyOutcome, Policy
from vqakit.studio._review import DROP_REASONS, Decision


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
