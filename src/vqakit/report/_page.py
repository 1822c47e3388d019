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
from collections import Counter
from pathlib import Path
from typing import Any

from vqakit.files import write_text_atomic
from vqakit.report._hooks import Section, Table, section_hooks
from vqakit.report._render import templates_digest, write_page
from vqakit.report._samples import sample_card, sample_row
from vqakit.runs import REPORT, RunFolder, paired, with_records
from vqakit.schema import Benchmark, Prediction, Sample, select_samples
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


Records = dict[str, dict[str, Any]]  # a sample's judgment records by judge kind
PAGE_SIZE = 100
SAMPLE_PAGES = "samples"
INLINE_ROWS = 10_000  # report.html lists every sample up to this many; beyond, its sample pages


def run_title(run: RunFolder, benchmark: Benchmark) -> str:
    config = run.config
    model = f" · {config['model']}" if config.get("model") else ""
    return f"{benchmark.card.name} · {config['method']}{model}"


class SamplePages:
    """A run's sample pages (`samples/page-NNN.html`, `PAGE_SIZE` cards each), written a page at
    a time as the samples are added in order, so that memory stays bounded whatever the run's
    size; `total`: how many will be added. What report.html lists of them is kept: every
    sample's row up to `INLINE_ROWS` samples (`rows`), and each page's outcomes (`pages`)."""

    def __init__(self, run: RunFolder, benchmark: Benchmark, total: int) -> None:
        self.run, self.benchmark, self.total = run, benchmark, total
        self.title = run_title(run, benchmark)
        self.names = [f"page-{number:03d}.html" for number in range(1, -(-total // PAGE_SIZE) + 1)]
        self.written = PageStamps(run.path / SAMPLE_PAGES, self.names)
        self.rows: list[dict[str, Any]] | None = [] if total <= INLINE_ROWS else None
        self.pages: list[dict[str, Any]] = []
        self._page: list[tuple[Sample, dict[str, Any], dict[str, Any]]] = []  # (sample, card, row)

    def add(self, sample: Sample, prediction: Prediction, score: dict[str, Any], records: Records) -> None:
        card = sample_card(self.run.path, self.benchmark, sample, prediction, score, records)
        number = len(self.pages)
        row = sample_row(sample, prediction, score, f"{SAMPLE_PAGES}/{self.names[number]}")
        self._page.append((sample, card, row))
        if len(self._page) == PAGE_SIZE:
            self._write()

    def _write(self) -> None:
        number, name = len(self.pages), self.names[len(self.pages)]
        first = number * PAGE_SIZE + 1
        context = {
            "title": f"{self.title} · samples {first}-{first + len(self._page) - 1}",
            "cards": [card for _, card, _ in self._page],
            "previous": self.names[number - 1] if number else None,
            "next": self.names[number + 1] if number + 1 < len(self.names) else None,
        }
        stamp = self.written.stamp(context)
        if not self.written.current(name, stamp):  # else: the same cards, templates and links are on disk
            write_page(self.run.path / SAMPLE_PAGES / name, "samples.html.j2", **context)
            self.written.wrote(name, stamp)
        rows = [row for _, _, row in self._page]
        if self.rows is not None:
            self.rows += rows
        self.pages.append(
            {"link": f"{SAMPLE_PAGES}/{name}", "first": self._page[0][0].id, "last": self._page[-1][0].id,
             "n": len(rows), "kinds": dict(Counter(row["kind"] for row in rows))}
        )  # fmt: skip
        self._page = []

    def finish(self) -> SamplePages:
        if self._page:
            self._write()
        self.written.save()
        return self


def write_sample_pages(run: RunFolder, benchmark: Benchmark) -> SamplePages:
    """The sample pages of the samples that have a prediction and a score, in benchmark order."""
    predictions, scores, judged = run.predictions(), run.scores(), run.judgments()
    every = benchmark.samples
    shown = select_samples(every, with_records(every, predictions) & with_records(every, scores))
    pages = SamplePages(run, benchmark, len(shown))
    for (sample, prediction), (_, row) in zip(paired(shown, predictions), paired(shown, scores), strict=True):
        pages.add(sample, prediction, row, judged.get(sample.id, {}))
    return pages.finish()


def write_report(folder: str | Path, benchmark: Benchmark, pages: SamplePages | None = None) -> Path:
    """Write `report.html` and the sample pages into a run folder from its files (`pages`: the
    sample pages already written by whoever scored the run in the same pass)."""
    run = RunFolder(folder)
    config, results = run.config, run.results
    pages = pages or write_sample_pages(run, benchmark)
    protocol = config.get("protocol") or {}
    setup = run.manifest.get("shown") or f"frames {protocol.get('frames')}, prompt {protocol.get('prompt')}"
    sections = [*_official_section(results), *_judge_sections(results)]
    sections += [s for hook in section_hooks() for s in hook(results)]
    return write_page(
        run.path / REPORT,
        "report.html.j2",
        title=run_title(run, benchmark),
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
        rows=pages.rows,
        pages=pages.pages,
        shown=pages.total,
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
