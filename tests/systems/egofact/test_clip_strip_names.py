"""The strip of a retrieved clip's frames is kept under both ids, unambiguously: sample `a-b`
with clip `c` and sample `a` with clip `b-c` were one file (`a-b-c`). A run written before keeps
its strips under the old names, and its report still finds them."""

from __future__ import annotations

from vqakit.benchmarks import load_benchmark
from vqakit.schema import Prediction
from vqakit.systems.egofact.rag import clip_strip, legacy_clip_strip
from vqakit.systems.egofact.report import clip_frames


def test_sample_and_clip_ids_that_join_alike_keep_two_strips():
    assert clip_strip("a-b", "c") != clip_strip("a", "b-c")
    assert legacy_clip_strip("a-b", "c") == legacy_clip_strip("a", "b-c")  # the old clash


def test_a_report_finds_the_strip_of_a_run_written_before():
    bench = load_benchmark("sample")
    sample = next(s for s in bench.samples if s.gold_clips)
    clip = sample.gold_clips[0]
    trace = {"clips": [clip], "frames_s": {clip: [1.0, 2.0]}}
    for strip in (clip_strip(sample.id, clip), legacy_clip_strip(sample.id, clip)):
        prediction = Prediction(sample_id=sample.id, method="rag", retrieval=trace, images=[strip])
        shown = clip_frames(bench, sample, prediction)
        assert shown is not None and shown.strip == strip and shown.times_s == [1.0, 2.0]
