"""`report.html` and `samples/page-NNN.html`: the pages of a run (no network; everything they
show is in the run folder).

`report.html` shows the run's configuration, accuracy (MCQ and judged open-ended apart, errors
by kind beside it), per group with 95% intervals (table and bar chart), the sections of judges
and benchmark systems, chosen against gold letters, what the run cost, and a table of every
sample (filterable to wrong, abstained or failed ones) linking to its card. The cards live on
pages of `PAGE_SIZE` samples: question, options with gold and chosen marked, the frames sent (the
strip the run kept, enlarged on click), the prompt and subtitles sent, the reasoning and reply,
how the answer was read and what judges said. Pages stay small for runs of any size, and
regenerating them decodes no video for runs that kept their strips.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from vqakit.files import write_text_atomic
from vqakit.report._hooks import Section, Table, section_hooks
from vqakit.report._render import templates_digest, write_page
from vqakit.report._samples import sample_card, sample_row
from vqakit.runs import REPORT, RunFolder
from vqakit.schema import Benchmark
from vqakit.scoring import (
    CLUSTERED_KINDS,
    headline_of,
    interval_kind_text,
    interval_text,
    intervals_note,
    judges,
    number_text,
)


def _is_means(summary: Any) -> bool:
    """The `{row: {n, mean, ci95}}` shape any judge can use to be shown as a table of means."""
    return (
        isinstance(summary, dict)
        and bool(summary)
        and all(isinstance(v, dict) and {"n", "mean", "ci95"} <= set(v) for v in summary.values())
    )


def _official_section(results: dict[str, Any]) -> list[Section]:
    """The benchmark's own table (the card's `official`), right under the headline numbers."""
    official = results.get("official")
    if not official:
        return []
    rows = []
    for column in official["columns"]:
        low, high = column["ci95"]
        rows.append(
            [
                column["name"] + (" (headline)" if column["name"] == official["headline"] else ""),
                str(column["n"]),
                "" if column["accuracy"] is None else f"{100 * column['accuracy']:.1f}%",
                "" if low is None else f"{100 * low:.1f}–{100 * high:.1f}",
            ]
        )
    note = " ".join([f"Columns as in {official['source']}.", *(official.get("notes") or [])])
    table = Table(["column", "n", "accuracy", "95% CI"], rows)
    return [Section("The benchmark's own table", table, note=note, lead=True)]


def _judge_sections(results: dict[str, Any]) -> list[Section]:
    found = []
    for name, judge in judges().items():
        summary = results.get(name)
        if not _is_means(summary):
            continue
        rows = [
            [
                key.replace("_", " "),
                str(value["n"]),
                "n/a" if value["mean"] is None else f"{value['mean']:.2f}",
                "" if value["mean"] is None else f"{value['ci95'][0]:.2f}–{value['ci95'][1]:.2f}",
            ]
            for key, value in summary.items()
        ]
        found.append(Section(judge.title or name, Table([judge.summary_label, "n", "mean", "95% CI"], rows)))
    return found


def _group_rows(buckets: dict[str, dict[str, Any]], clustered: bool) -> list[list[str]]:
    """A breakdown's rows: key, n, accuracy, interval, and the videos (clusters) the interval
    was drawn over when the breakdown has any clustered interval."""
    return [
        [
            key,
            str(v["n"]),
            f"{100 * v['accuracy']:.1f}%",
            f"{100 * v['ci95'][0]:.1f}–{100 * v['ci95'][1]:.1f}",
            *([str(v.get("clusters") or v["n"])] if clustered else []),
        ]
        for key, v in buckets.items()
    ]


def _headline_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline numbers as the report's first lines (`scoring.headline`): label, value, and
    the interval, n and chance beside it."""
    rows = []
    for entry in headline_of(results):
        interval = interval_text(entry)
        meta = [f"95% CI {interval} ({interval_kind_text(entry)})"] if interval else []
        meta.append(f"n={entry['n']} {entry['counted']}")
        if entry["unit"] == "score":
            meta.insert(0, f"scale {entry['scale'][0]:g}-{entry['scale'][1]:g}")
        if entry["key"] == "mcq" and results.get("chance") is not None:
            meta.append(f"chance {100 * results['chance']:.1f}%")
        rows.append({"label": entry["label"], "value": number_text(entry), "meta": ", ".join(meta)})
    return rows


def _breakdowns(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The accuracy breakdowns, each over one kind of sample: MCQ groups, then open-ended ones
    (named as such when the run has both)."""
    both = bool(results.get("groups")) and bool(results.get("open_ended_groups"))
    found = []
    for field, kind in (("groups", "MCQ accuracy"), ("open_ended_groups", "open-ended accuracy")):
        for group, buckets in (results.get(field) or {}).items():
            title = f"{kind} by {group}" if both or field == "open_ended_groups" else f"By {group}"
            clustered = any(v.get("interval") in CLUSTERED_KINDS for v in buckets.values())
            header = [group, "n", "accuracy", "95% CI", *(["videos"] if clustered else [])]
            rows = _group_rows(buckets, clustered)
            found.append({"title": title, "group": group, "buckets": buckets, "header": header, "rows": rows})
    return found


PAGE_SIZE = 100
SAMPLE_PAGES = "samples"


def write_report(folder: str | Path, benchmark: Benchmark) -> Path:
    """Write `report.html` and the sample pages into a run folder from its files."""
    run = RunFolder(folder)
    config, results = run.config, run.results
    predictions, scores, judged = run.predictions(), run.scores(), run.judgments()
    title = f"{benchmark.card.name} · {config['method']}" + (
        f" · {config['model']}" if config.get("model") else ""
    )
    protocol = config.get("protocol") or {}
    setup = run.manifest.get("shown") or f"frames {protocol.get('frames')}, prompt {protocol.get('prompt')}"
    shown = [s for s in benchmark.samples if s.id in predictions and s.id in scores]
    pages = [shown[i : i + PAGE_SIZE] for i in range(0, len(shown), PAGE_SIZE)]
    names = [f"page-{number:03d}.html" for number in range(1, len(pages) + 1)]
    written = PageStamps(run.path / SAMPLE_PAGES, names)
    for number, (name, page) in enumerate(zip(names, pages, strict=True)):
        cards = [
            sample_card(run.path, benchmark, s, predictions[s.id], scores[s.id], judged.get(s.id, {}))
            for s in page
        ]
        context = {
            "title": f"{title} · samples {number * PAGE_SIZE + 1}-{number * PAGE_SIZE + len(page)}",
            "cards": cards,
            "previous": names[number - 1] if number else None,
            "next": names[number + 1] if number + 1 < len(names) else None,
        }
        stamp = written.stamp(context)
        if written.current(name, stamp):
            continue  # the same cards, templates and links: the page on disk is this one
        write_page(run.path / SAMPLE_PAGES / name, "samples.html.j2", **context)
        written.wrote(name, stamp)
    written.save()
    rows = [
        sample_row(s, predictions[s.id], scores[s.id], f"{SAMPLE_PAGES}/{names[i // PAGE_SIZE]}")
        for i, s in enumerate(shown)
    ]
    sections = [*_official_section(results), *_judge_sections(results)]
    sections += [s for hook in section_hooks() for s in hook(results)]
    return write_page(
        run.path / REPORT,
        "report.html.j2",
        title=title,
        setup=setup,
        benchmark_hash=config.get("benchmark_hash", ""),
        results=results,
        headline=_headline_rows(results),
        breakdowns=_breakdowns(results),
        interval_note=intervals_note([results]),
        hidden_rows=[
            [group, key, str(n)]
            for group, rows in results.get("hidden_groups", {}).items()
            for key, n in rows.items()
        ],
        sections=sections,
        rows=rows,
    )


class PageStamps:
    """What each sample page was rendered from (a digest of its cards, links, title and the
    templates), kept in `samples/pages.json`, so that writing a report again renders only the
    pages whose content changed: regenerating the report of a 100,000-sample run rendered 1,000
    identical pages. Pages of an earlier report beyond `names` are removed."""

    FILE = "pages.json"

    def __init__(self, folder: Path, names: list[str]) -> None:
        self.folder = folder
        try:
            kept = json.loads((folder / self.FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            kept = {}
        self.stamps = {name: kept.get(name) for name in names if isinstance(kept, dict)}
        if folder.is_dir():
            for page in folder.glob("page-*.html"):
                if page.name not in self.stamps:
                    page.unlink()

    @staticmethod
    def stamp(context: dict[str, Any]) -> str:
        text = json.dumps(context, sort_keys=True, default=repr)
        return hashlib.sha256((templates_digest() + text).encode("utf-8", "surrogatepass")).hexdigest()

    def current(self, name: str, stamp: str) -> bool:
        return self.stamps.get(name) == stamp and (self.folder / name).is_file()

    def wrote(self, name: str, stamp: str) -> None:
        self.stamps[name] = stamp

    def save(self) -> None:
        if self.stamps:
            write_text_atomic(self.folder / self.FILE, json.dumps(self.stamps, indent=0) + "\n")
