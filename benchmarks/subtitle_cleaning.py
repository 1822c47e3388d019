"""How Video-MME's subtitle cleaning (`<font ...>` tags stripped on import) grows with the number
of unclosed tags: the time for N tags against the time to read the same file without cleaning
(the baseline, measured in the same run), and how the time grows when N doubles (2 for linear
work, 4 for quadratic).

    python benchmarks/subtitle_cleaning.py                 # 10,000 to 160,000 tags
    python benchmarks/subtitle_cleaning.py --most 20000    # smaller: an old checkout takes minutes
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from vqakit.systems.presets.release import subtitle_text
from vqakit.systems.presets.videomme import plain_subtitles

TAG = '<font color="#ffffff" size'  # unclosed: no `>` before the next tag


def _best(call, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--least", type=int, default=10_000)
    parser.add_argument("--most", type=int, default=160_000)
    arguments = parser.parse_args()
    print("| unclosed tags | file | read (baseline) | cleaned | cleaned / read | growth when doubled |")
    print("|---|---|---|---|---|---|")
    previous = None
    with tempfile.TemporaryDirectory() as folder:
        count = arguments.least
        while count <= arguments.most:
            path = Path(folder) / f"{count}.srt"
            path.write_text("1\n00:00:01,000 --> 00:00:02,000\n" + TAG * count + "\n", encoding="utf-8")
            read = _best(lambda path=path: subtitle_text(path))
            cleaned = _best(lambda path=path: plain_subtitles(path, {}))
            growth = f"{cleaned / previous:.2f}" if previous else "-"
            size = f"{path.stat().st_size / 1e6:.1f} MB"
            print(
                f"| {count:,} | {size} | {read:.3f} s | {cleaned:.3f} s | {cleaned / read:.1f} | {growth} |"
            )
            previous, count = cleaned, count * 2


if __name__ == "__main__":
    main()
