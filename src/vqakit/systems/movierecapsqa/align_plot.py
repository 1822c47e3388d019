"""The alignment plot: recap time (y) against movie time (x), as in the paper's Figure S3.

Drawn on a bare matplotlib `Figure` with the Agg canvas, so it never touches pyplot's global
backend (a user's notebook keeps its own) and works without a display.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vqakit.systems.movierecapsqa.align import Alignment

STYLES = {
    "kept": ("tab:blue", 2.0, 1.0),
    "reordered": ("tab:orange", 2.0, 1.0),
    "filled": ("tab:green", 2.0, 1.0),
    "low-confidence": ("0.6", 1.0, 0.5),
    "off-chain": ("tab:red", 1.0, 0.5),
    "implausible": ("tab:purple", 1.0, 0.5),
}


def plot_alignment(
    alignment: Alignment,
    path: str | Path,
    *,
    truth: list[tuple[float, float, float, float]] | None = None,
    dpi: int = 110,
) -> Path:
    """Each recap shot is a line from (movie start, recap start) to (movie end, recap end),
    coloured by its status; aligned segments are shaded boxes. `truth` (recap start, recap end,
    movie start, movie end) spans, when known, are drawn dashed black."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    figure = Figure(figsize=(7, 5.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for segment in alignment.segments:
        x0, x1 = segment["movie_start_time"], segment["movie_end_time"]
        y0, y1 = segment["recap_start_time"], segment["recap_end_time"]
        axes.add_patch(Rectangle((x0, y0), max(x1 - x0, 0.5), y1 - y0, color="tab:blue", alpha=0.12, lw=0))
    seen: set[str] = set()
    for match in alignment.matches:
        colour, width, alpha = STYLES.get(match.status, ("k", 1.0, 1.0))
        axes.plot(
            [match.movie_start_s, match.movie_end_s],
            [match.recap_start_s, match.recap_end_s],
            color=colour,
            lw=width,
            alpha=alpha,
            label=None if match.status in seen else match.status,
        )
        seen.add(match.status)
    for k, (r0, r1, m0, m1) in enumerate(truth or []):
        axes.plot([m0, m1], [r0, r1], "k--", lw=0.8, label="truth" if k == 0 else None)
    axes.set_xlim(0, max(alignment.movie_duration_s, 1.0))
    axes.set_ylim(0, max(alignment.recap_duration_s, 1.0))
    axes.set_xlabel("movie time (s)")
    axes.set_ylabel("recap time (s)")
    kept = sum(match.kept for match in alignment.matches)
    axes.set_title(
        f"{alignment.video_id}: {kept}/{len(alignment.matches)} recap shots aligned, "
        f"{len(alignment.segments)} segments",
        fontsize=10,
    )
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    path = Path(path)
    figure.savefig(path, dpi=dpi)
    return path
