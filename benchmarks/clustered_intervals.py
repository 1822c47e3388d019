"""What clustering intervals by video costs when a run is summarised.

    python benchmarks/clustered_intervals.py [--samples 100000] [--per-video 10] [--repeats 3]

A synthetic run of `samples` scored MCQ answers, broken down by two metadata groups, summarised
(`scoring.summarise`, what results.json is made from) twice in the same run:

- baseline: every question on a video of its own (the per-question intervals of earlier
  versions: Wilson's for small groups, the bootstrap of questions);
- clustered: `per-video` questions on each video (cluster bootstrap, Wilson's at the effective
  sample size for groups of few videos);

and the ratio of the two medians; then the interval functions alone on the run's per-video
counts (the cluster bootstrap, and the clustered standard error's normal interval).
"""

from __future__ import annotations

import argparse

import numpy as np
from timing import median_time

from vqakit.schema import Prediction, Sample
from vqakit.scoring import (
    cluster_bootstrap_interval,
    cluster_counts,
    clustered_normal_interval,
    score_sample,
    summarise,
)


def make_run(count: int, per_video: int) -> tuple[list[Sample], list[dict]]:
    rng = np.random.default_rng(0)
    video_accuracy = rng.beta(0.45, 0.3, size=count // per_video + 1)
    samples, rows = [], []
    for i in range(count):
        video = i // per_video
        sample = Sample(
            id=f"s{i}",
            question="q",
            videos=[{"path": f"v{video}.mp4"}],
            choices=["a", "b", "c", "d"],
            answer=0,
            metadata={"category": f"c{i % 7}", "skills": [f"k{i % 3}"]},
        )
        right = rng.random() < video_accuracy[video]
        samples.append(sample)
        rows.append(
            score_sample(sample, Prediction(sample_id=sample.id, method="m", choice=0 if right else 1))
        )
    return samples, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--per-video", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    samples, rows = make_run(args.samples, args.per_video)
    alone = [Sample(**{**s.model_dump(), "videos": [{"path": f"{s.id}.mp4"}]}) for s in samples]
    baseline = median_time(lambda: summarise(alone, rows), args.repeats)
    clustered = median_time(lambda: summarise(samples, rows), args.repeats)
    print(f"{args.samples} samples, {args.per_video} per video, median of {args.repeats}")
    print(f"summarise, one question per video (baseline): {baseline:.2f} s")
    print(f"summarise, clustered by video: {clustered:.2f} s ({clustered / baseline:.2f}x the baseline)")
    sums, counts = cluster_counts(
        [float(r["correct"]) for r in rows], [i // args.per_video for i in range(len(rows))]
    )
    bootstrap = median_time(lambda: cluster_bootstrap_interval(sums, counts), args.repeats)
    normal = median_time(lambda: clustered_normal_interval(sums, counts), args.repeats)
    print(f"cluster bootstrap of {sums.size} videos: {bootstrap:.3f} s")
    print(f"clustered normal interval of {sums.size} videos: {normal:.4f} s")


if __name__ == "__main__":
    main()
