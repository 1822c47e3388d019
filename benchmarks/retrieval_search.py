"""Retrieval costs: exact vs approximate (IVF) vector search in both stores (NumPy; LanceDB
where installed), and the linear-time localization window search vs trying every window.

    python benchmarks/retrieval_search.py [--rows 100000] [--dim 256] [--queries 200]

Search: a table of `rows` clustered unit vectors (the shape of a large clip-frame index), queries
near random rows. Reports median query time of exact search (the baseline, measured in the same
run), of IVF search at several probe counts, their ratio to exact, and recall@10 against exact.

Localization: `best_window` (running sum, one pass) against a brute-force mean of every window,
on clips of 30 s, 10 min and 1 h at 2 fps with a 5 s window.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from timing import median_time

from vqakit.retrieval import Row, best_window, window_frames
from vqakit.retrieval._index import open_table


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def clustered(rows: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    centres = unit(rng.normal(size=(max(1, rows // 100), dim)))
    picks = rng.integers(0, len(centres), size=rows)
    return unit(centres[picks] + 0.3 * rng.normal(size=(rows, dim)) / np.sqrt(dim) * 4)


def search_table(args: argparse.Namespace, store: str) -> None:
    rng = np.random.default_rng(0)
    vectors = clustered(args.rows, args.dim, rng)
    with tempfile.TemporaryDirectory() as folder:
        table = open_table(Path(folder), "bench", store)
        table.replace_rows([], [Row(str(i), "", v) for i, v in enumerate(vectors)])
        start = time.perf_counter()
        table.build_ivf()
        build_s = time.perf_counter() - start
        queries = unit(
            vectors[rng.integers(0, args.rows, size=args.queries)]
            + 0.05 * rng.normal(size=(args.queries, args.dim))
        )
        exact_hits = [{h.id for h in table.search(q, 10)} for q in queries]
        exact_s = statistics.median(median_time(lambda q=q: table.search(q, 10), 1) for q in queries)
        print(f"\n{store} store: {args.rows} rows x {args.dim} dims; IVF built in {build_s:.1f} s")
        print("| search | median ms / query | vs exact | recall@10 |")
        print("|---|---|---|---|")
        print(f"| exact (baseline) | {1000 * exact_s:.2f} | 1.00 | 1.000 |")
        for probes in (4, 8, 16, 32):
            approx_s = statistics.median(
                median_time(lambda q=q, p=probes: table.search(q, 10, approximate=True, probes=p), 1)
                for q in queries
            )
            recall = np.mean(
                [
                    len({h.id for h in table.search(q, 10, approximate=True, probes=probes)} & truth) / 10
                    for q, truth in zip(queries, exact_hits, strict=True)
                ]
            )
            print(
                f"| IVF, {probes} probes | {1000 * approx_s:.2f} | {approx_s / exact_s:.2f} | {recall:.3f} |"
            )


def brute_force(scores: np.ndarray, width: int) -> int:
    means = [scores[i : i + width].mean() for i in range(len(scores) - width + 1)]
    return int(np.argmax(means))


def localization() -> None:
    rng = np.random.default_rng(1)
    print("\n| clip (2 fps, 5 s window) | best_window ms | every window ms (baseline) | ratio |")
    print("|---|---|---|---|")
    for label, seconds in (("30 s", 30), ("10 min", 600), ("1 h", 3600)):
        scores = rng.random(2 * seconds)
        fast = median_time(lambda s=scores: best_window(s, 2.0, 5.0), 20)
        slow = median_time(
            lambda s=scores: brute_force(s, window_frames(2.0, 5.0)), 5 if seconds > 600 else 20
        )
        print(f"| {label} | {1000 * fast:.3f} | {1000 * slow:.3f} | {fast / slow:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    for store in ("numpy", "lancedb"):
        if store == "lancedb" and importlib.util.find_spec("lancedb") is None:
            print("\nlancedb store: not installed (pip install 'vqakit[lancedb]'), skipped")
            continue
        search_table(args, store)
    localization()


if __name__ == "__main__":
    main()
