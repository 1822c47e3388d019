"""`sweep.html`: accuracy (with 95% intervals) against the swept value, one point per run."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any


def _svg(rows: list[dict[str, Any]], width: int = 640, height: int = 300) -> str:
    points = [row for row in rows if row["accuracy"] is not None]
    if not points:
        return "<p>No scored samples.</p>"
    left, right, top, bottom = 60, 20, 20, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / max(1, len(points) - 1)

    def x(i: int) -> float:
        return left + (i * step if len(points) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return top + plot_h * (1 - value)

    parts = [f'<svg width="{width}" height="{height}" role="img">']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#e3e5ee"/>'
        )
        parts.append(
            f'<text x="{left - 8}" y="{y(tick) + 4:.1f}" font-size="11" '
            f'text-anchor="end">{int(tick * 100)}%</text>'
        )
    band = [f"{x(i):.1f},{y(row['ci95'][1]):.1f}" for i, row in enumerate(points)]
    band += [f"{x(i):.1f},{y(row['ci95'][0]):.1f}" for i, row in reversed(list(enumerate(points)))]
    parts.append(f'<polygon points="{" ".join(band)}" fill="#6b8fd6" fill-opacity="0.18"/>')
    line = " ".join(f"{x(i):.1f},{y(row['accuracy']):.1f}" for i, row in enumerate(points))
    parts.append(f'<polyline points="{line}" fill="none" stroke="#3d63b8" stroke-width="2"/>')
    for i, row in enumerate(points):
        parts.append(f'<circle cx="{x(i):.1f}" cy="{y(row["accuracy"]):.1f}" r="4" fill="#3d63b8"/>')
        parts.append(
            f'<text x="{x(i):.1f}" y="{height - bottom + 18}" font-size="11" '
            f'text-anchor="middle">{html.escape(str(row["value"]))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def write_sweep_report(folder: str | Path, parameter: str, rows: list[dict[str, Any]]) -> Path:
    folder = Path(folder)
    table = "".join(
        f"<tr><td>{html.escape(str(r['value']))}</td><td>{r['n']}</td><td>"
        + (
            "n/a"
            if r["accuracy"] is None
            else f"{100 * r['accuracy']:.1f}% ({100 * r['ci95'][0]:.1f}–{100 * r['ci95'][1]:.1f})"
        )
        + f"</td><td>{html.escape(Path(r['folder']).name)}/report.html</td></tr>"
        for r in rows
    )
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>sweep</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:24px} "
        "td,th{padding:3px 10px;text-align:left}</style>"
        f"</head><body><h1>Accuracy against {html.escape(parameter)}</h1>{_svg(rows)}"
        f"<table><tr><th>{html.escape(parameter)}</th><th>n</th><th>accuracy (95% CI)</th>"
        f"<th>run</th></tr>{table}"
        "</table></body></html>"
    )
    path = folder / "sweep.html"
    path.write_text(page, encoding="utf-8")
    return path


def write_ranking_report(path: str | Path, ranking: dict[str, Any]) -> Path:
    """`vqakit rank` as a page: each judge's ranking of the runs and the judges' agreement."""
    path = Path(path)
    sections = []
    for judge, order in ranking["rankings"].items():
        rows = "".join(
            f"<tr><td>{place}</td><td>{html.escape(run)}</td><td>{ranking['scores'][judge][run]['total']:.2f}</td>"
            + "".join(f"<td>{v:.2f}</td>" for v in ranking["scores"][judge][run]["criteria"].values())
            + "</tr>"
            for place, run in enumerate(order, start=1)
        )
        criteria = next(iter(ranking["scores"][judge].values()))["criteria"]
        head = "".join(f"<th>{html.escape(c.replace('_', ' '))}</th>" for c in criteria)
        sections.append(
            f"<h2>Judge {html.escape(judge)}</h2><table><tr><th>#</th><th>run</th><th>total (0-8)</th>"
            f"{head}</tr>{rows}</table>"
        )
    agreement = "".join(
        f"<li>{html.escape(pair)}: Kendall tau {tau:+.2f}</li>"
        for pair, tau in ranking["kendall_tau"].items()
    )
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>ranking</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:24px} td,th{padding:3px 10px;text-align:left}"
        "</style></head><body><h1>Runs ranked by reasoning rubric</h1>"
        f"{''.join(sections)}<h2>Agreement between judges</h2><ul>{agreement}</ul></body></html>"
    )
    path.write_text(page, encoding="utf-8")
    return path
