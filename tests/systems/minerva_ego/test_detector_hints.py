"""The hints method's detector path: category filtering, thresholds on fixed detections, and a
tiny random OWLv2 built in the test wired end to end."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from tiny_models import build_tiny_owlv2

from vqakit.benchmarks import load_benchmark
from vqakit.models import Detection, OpenVocabDetector, keep_detections
from vqakit.runner import EvalConfig, run_eval
from vqakit.systems.minerva_ego.hints import filter_categories


def test_categories_drop_hands_people_and_fixtures():
    asked = [
        "hand",
        "a knife",
        "Cutting Boards",
        "the fridge",
        "person",
        "knife",
        "kitchen counter",
        "red pepper",
    ]
    assert filter_categories(asked) == ["a knife", "Cutting Boards", "red pepper"]


def test_threshold_and_categories_on_fixed_detections():
    found = [
        Detection("knife", (0, 0, 5, 5), 0.9),
        Detection("knife", (1, 1, 6, 6), 0.59),
        Detection("cup", (2, 2, 7, 7), 0.6),
        Detection("hand", (3, 3, 8, 8), 0.95),
    ]
    kept = keep_detections(found, 0.6, ["knife", "cup"])
    assert [(d.label, d.score) for d in kept] == [("knife", 0.9), ("cup", 0.6)]


@pytest.fixture(scope="module")
def owl_dir(tmp_path_factory):
    pytest.importorskip("transformers")
    return build_tiny_owlv2(tmp_path_factory.mktemp("owlv2"))


def test_tiny_owlv2_detects_with_boxes_in_the_image(owl_dir):
    detector = OpenVocabDetector(f"owlv2:{owl_dir}", threshold=0.0)
    image = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    raw = detector.raw_detections(image, ["a knife", "a cup"])
    assert raw and {d.label for d in raw} <= {"a knife", "a cup"}
    for d in raw:
        x0, y0, x1, y1 = d.box
        assert 0 <= x0 <= x1 <= 80 and 0 <= y0 <= y1 <= 60
    strict = OpenVocabDetector(f"owlv2:{owl_dir}")
    kept = strict.detect(image, ["a knife", "a cup"])
    assert strict.threshold == 0.6 and all(d.score >= 0.6 for d in kept)
    assert kept == keep_detections(
        strict.raw_detections(image, ["a knife", "a cup"]), 0.6, ["a knife", "a cup"]
    )


def test_hints_without_tracks_use_the_detector(owl_dir, tmp_path):
    """Drawing, text lines and temporal selection together, end to end on the detector path:
    a line per frame is sent (each style's pixels and lines: tests/video/test_hint_pixels.py)."""
    style = "circle+classes+text1000+temporal"
    bench = load_benchmark("sample")
    untracked = [s for s in bench.samples if s.is_mcq and not s.objects][:3]
    replies = tmp_path / "r.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"sample_id": s.id, "reply": '{"objects": ["ball", "hand"]} Answer: A'}) + "\n"
            for s in bench.samples
        )
    )
    config = EvalConfig(
        bench="sample",
        method="hints",
        model=f"replay:{replies}",
        frames="uniform:4",
        limit=3,
        detector=f"owlv2:{owl_dir}",
        hints=style,
    )
    assert [s.id for s in bench.samples[:3]] == [s.id for s in untracked]
    run_eval(config, tmp_path / "run")
    predictions = [json.loads(line) for line in (tmp_path / "run/predictions.jsonl").open()]
    assert all(p["error"] is None and len(p["frames_s"]) == 4 and p["choice"] == 0 for p in predictions)
    for p in predictions:
        lines = [line for line in p["prompt"].splitlines() if re.match(r"\[\d\d:\d\d\]", line)]
        assert len(lines) == 4, p["prompt"]
