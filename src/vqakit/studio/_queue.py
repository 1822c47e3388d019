"""The review queue: every sample with what a reviewer filters on.

- the builder's drops (`build/drops.jsonl`): a drop is linked to a sample when its item is the
  sample's id, one of its metadata ids (`qa_id`, `clip_id`, ...) or an id the sample's id starts
  with (`<item>:`), e.g. an InstructionBench question whose MCQ form was given up; the dropped
  items themselves are listed too (they are not samples, so they cannot be decided on);
- `vqakit audit` flags: questions text-only models answered without the video (audit.json), and
  the option-length bias of each MCQ (its gold option is the only longest or shortest);
- categories and skills (metadata);
- "not yet reviewed by me", and answers of the runs opened beside the benchmark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.schema import Benchmark, Sample

DROPS = Path("build") / "drops.jsonl"
BLIND = "answered blind"
LONGEST = "gold is the longest option"
SHORTEST = "gold is the shortest option"


@dataclass(frozen=True)
class Drop:
    stage: str
    item: str
    reason: str

    @property
    def kind(self) -> str:
        """The reason's text before any ':' (as the stage report groups them)."""
        return self.reason.split(":")[0].strip()


@dataclass
class QueueItem:
    sample: Sample
    flags: list[str] = field(default_factory=list)
    drops: list[Drop] = field(default_factory=list)
    wrong_in: list[str] = field(default_factory=list)  # labels of the runs that got it wrong

    @property
    def id(self) -> str:
        return self.sample.id


@dataclass(frozen=True)
class Filters:
    stage: str = ""
    reason: str = ""
    flag: str = ""
    category: str = ""
    skill: str = ""
    unreviewed: bool = False  # not yet reviewed by me
    wrong: str = ""  # answered wrongly by this run (its label)
    text: str = ""  # words in the id or question

    @classmethod
    def from_query(cls, query: Any) -> Filters:
        return cls(
            **{name: str(query.get(name) or "").strip() for name in ("stage", "reason", "flag", "category")},
            skill=str(query.get("skill") or "").strip(),
            unreviewed=str(query.get("unreviewed") or "") in ("1", "on", "true"),
            wrong=str(query.get("wrong") or "").strip(),
            text=str(query.get("text") or "").strip().lower(),
        )


def read_drops(root: Path) -> list[Drop]:
    path = root / DROPS
    if not path.is_file():
        return []
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # cut short by a kill; the builder rewrites the file on its next run
        if isinstance(record, dict) and {"stage", "item", "reason"} <= set(record):
            found.append(Drop(str(record["stage"]), str(record["item"]), str(record["reason"])))
    return found


def read_audit(path: Path | None) -> set[str]:
    """Ids of the questions an audit.json flags as answered without the video."""
    if path is None or not path.is_file():
        return set()
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(item["sample_id"]) for item in (data.get("blind") or {}).get("flagged") or []}


def find_audit(benchmark: Benchmark, given: Path | None) -> Path | None:
    """The audit of this benchmark: `given`, else where `vqakit audit` writes it by default
    (runs/<name>-audit/audit.json), else an audit.json in the benchmark folder."""
    from vqakit.files import slug

    if given is not None:
        return given
    for candidate in (
        Path("runs") / f"{slug(benchmark.card.name, empty='benchmark')}-audit" / "audit.json",
        benchmark.root / "audit.json",
        benchmark.root / "build" / "audit.json",
    ):
        if candidate.is_file():
            return candidate
    return None


def length_flags(sample: Sample) -> list[str]:
    if not sample.choices or not isinstance(sample.answer, int):
        return []
    lengths = [len(choice) for choice in sample.choices]
    gold = lengths[sample.answer]
    if lengths.count(gold) > 1:
        return []
    return [LONGEST] if gold == max(lengths) else [SHORTEST] if gold == min(lengths) else []


def _keys(sample: Sample) -> set[str]:
    extra = sample.metadata.model_extra or {}
    keys = {sample.id, *(str(v) for k, v in extra.items() if k.endswith("_id") and isinstance(v, str))}
    parts = sample.id.split(":")
    keys.update(":".join(parts[:n]) for n in range(1, len(parts)))
    return keys


def build_queue(
    benchmark: Benchmark, blind: set[str], wrong: dict[str, set[str]]
) -> tuple[list[QueueItem], list[Drop]]:
    """(an item per sample in benchmark order, the drops linked to no sample)."""
    drops = read_drops(benchmark.root)
    by_item: dict[str, list[Drop]] = {}
    for drop in drops:
        by_item.setdefault(drop.item, []).append(drop)
    items, linked = [], set()
    for sample in benchmark.samples:
        mine = [d for key in sorted(_keys(sample)) for d in by_item.get(key, [])]
        linked.update(d.item for d in mine)
        flags = ([BLIND] if sample.id in blind else []) + length_flags(sample)
        wrong_in = [label for label, ids in wrong.items() if sample.id in ids]
        items.append(QueueItem(sample, flags, mine, wrong_in))
    return items, [d for d in drops if d.item not in linked]


def filter_queue(
    items: list[QueueItem], dropped: list[Drop], filters: Filters, mine: set[str]
) -> tuple[list[QueueItem], list[Drop]]:
    """The items (and unlinked drops) that pass every filter; `mine` is what I reviewed."""

    def drop_ok(drop: Drop) -> bool:
        return (not filters.stage or drop.stage == filters.stage) and (
            not filters.reason or drop.kind == filters.reason
        )

    def ok(item: QueueItem) -> bool:
        sample = item.sample
        if (filters.stage or filters.reason) and not any(drop_ok(d) for d in item.drops):
            return False
        if filters.flag and filters.flag not in item.flags:
            return False
        if filters.category and sample.metadata.category != filters.category:
            return False
        if filters.skill and filters.skill not in sample.metadata.skills:
            return False
        if filters.unreviewed and sample.id in mine:
            return False
        if filters.wrong and filters.wrong not in item.wrong_in:
            return False
        return not filters.text or filters.text in f"{sample.id} {sample.question}".lower()

    shown_drops = [d for d in dropped if drop_ok(d)] if (filters.stage or filters.reason) else []
    return [item for item in items if ok(item)], shown_drops


def facets(items: list[QueueItem], dropped: list[Drop]) -> dict[str, list[str]]:
    """The values each filter can take, for the filter menus."""
    drops = [d for item in items for d in item.drops] + dropped
    return {
        "stage": sorted({d.stage for d in drops}),
        "reason": sorted({d.kind for d in drops}),
        "flag": sorted({f for item in items for f in item.flags}),
        "category": sorted({c for item in items if (c := item.sample.metadata.category)}),
        "skill": sorted({s for item in items for s in item.sample.metadata.skills}),
        "wrong": sorted({label for item in items for label in item.wrong_in}),
    }
