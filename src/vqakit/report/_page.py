"""`report.html`: one self-contained page per run (no network, no external files).

It shows the run's configuration, accuracy overall and per group with 95% intervals (table and
bar chart), the sections of judges and benchmark systems, chosen against gold letters, and a
browser over samples: question, options with gold and chosen marked, the raw reply, how the
answer was read, what judges said, and thumbnails of the frames that were actually sent
(re-decoded at their recorded times). Buttons filter to wrong, abstained or failed samples.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vqakit.report._hooks import Section, Table, section_hooks
from vqakit.report._render import write_page
from vqakit.report._samples import sample_card
from vqakit.runs import REPORT, RunFolder
from vqakit.schema import Benchmark
from vqakit.scoring import judges


def _is_means(summary: Any) -> bool:
    """The `{row: {n, mean, ci95}}` shape any judge can use to be shown as a table of means."""
    return (
        isinstance(summary, dict)
        and bool(summary)
        and all(isinstance(v, dict) and {"n", "mean", "ci95"} <= set(v) for v in summary.values())
    )


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
                f"{value['ci95'][0]:.2f}–{value['ci95'][1]:.2f}",
            ]
            for key, value in summary.items()
        ]
        found.append(Section(judge.title or name, Table([judge.summary_label, "n", "mean", "95% CI"], rows)))
    return found


def _group_rows(buckets: dict[str, dict[str, Any]]) -> list[list[str]]:
    return [
        [
            key,
            str(v["n"]),
            f"{100 * v['accuracy']:.1f}%",
            f"{100 * v['ci95'][0]:.1f}–{100 * v['ci95'][1]:.1f}",
        ]
        for key, v in buckets.items()
    ]


def write_report(folder: str | Path, benchmark: Benchmark) -> Path:
    """Write `report.html` into a run folder from its config, results, predictions and scores."""
    run = RunFolder(folder)
    config, results = run.config, run.results
    predictions, scores, judged = run.predictions(), run.scores(), run.judgments()
    title = f"{config['bench']} · {config['method']}" + (
        f" · {config['model']}" if config.get("model") else ""
    )
    protocol = config.get("protocol") or {}
    setup = run.manifest.get("shown") or f"frames {protocol.get('frames')}, prompt {protocol.get('prompt')}"
    sections = _judge_sections(results) + [s for hook in section_hooks() for s in hook(results)]
    cards = [
        sample_card(benchmark, sample, predictions[sample.id], scores[sample.id], judged.get(sample.id, {}))
        for sample in benchmark.samples
        if sample.id in predictions and sample.id in scores
    ]
    return write_page(
        run.path / REPORT,
        "report.html.j2",
        title=title,
        setup=setup,
        benchmark_hash=config.get("benchmark_hash", ""),
        results=results,
        group_rows={group: _group_rows(buckets) for group, buckets in results["groups"].items()},
        sections=sections,
        cards=cards,
    )
