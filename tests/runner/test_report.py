"""report.html: self-contained, complete, and rendered by a real browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from vqakit.benchmarks import load_benchmark
from vqakit.runner import EvalConfig, run_eval
from vqakit.scoring import LETTERS


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    bench = load_benchmark("sample")
    replies = tmp_path_factory.mktemp("replies") / "replies.jsonl"
    with open(replies, "w") as handle:
        for i, sample in enumerate(bench.samples):
            if not sample.is_mcq:
                reply = "A short answer."
            elif i % 5 == 0:
                reply = "A or C, I cannot tell."  # an abstention
            else:
                reply = f"The answer is ({LETTERS[(sample.answer + (i % 3 == 0)) % len(sample.choices)]})."
            handle.write(json.dumps({"sample_id": sample.id, "reply": reply}) + "\n")
    folder = tmp_path_factory.mktemp("run") / "run"
    run_eval(
        EvalConfig(bench="sample", method="direct", model=f"replay:{replies}", frames="uniform:4"), folder
    )
    return folder


def test_report_is_self_contained_and_complete(run_folder):
    page = (run_folder / "report.html").read_text()
    assert not re.search(r"""(src|href)=["'](https?:|/|\.\.)""", page)  # nothing outside the run folder
    assert set(re.findall(r'href="([^"#]+)', page)) == {"samples/page-001.html"}
    assert page.count('<tr class="sample ') == 46
    cards = (run_folder / "samples/page-001.html").read_text()
    assert cards.count('class="sample ') == 46 and 'href="../report.html"' in cards
    strips = re.findall(r'<img src="\.\./(frames/[^"]+\.jpg)" loading="lazy"', cards)
    assert len(strips) == 46  # the frames each sample was sent, kept once as a file
    first = Image.open(run_folder / strips[0])
    frame = load_benchmark("sample").samples[0]
    assert first.height == 112 and first.width > 3 * first.height  # 4 frames side by side
    assert frame.question in cards and cards.count("prompt sent") == 46
    for words in (
        "By category",
        "By skills",
        "By hop_grounding",
        "Chosen and gold letters",
        "95% CI",
        "abstained",
    ):
        assert words in page
    assert "How is the camera placed in this video?" in cards


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_report_renders_in_headless_chromium(run_folder, tmp_path):
    shot = tmp_path / "report.png"
    result = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1200,1800",
            f"--screenshot={shot}",
            (run_folder / "report.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.exists(), result.stderr[-2000:]
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert pixels.shape[:2] == (1800, 1200)
    bar_blue = (np.abs(pixels - [0x6B, 0x8F, 0xD6]).sum(axis=2) < 30).sum()
    dark_text = (pixels.sum(axis=2) < 200).sum()
    assert bar_blue > 2000, "no accuracy bars drawn"
    assert dark_text > 5000, "no text rendered"


def test_object_recall_reaches_results_and_report(tmp_path):
    bench = load_benchmark("sample")
    traced = [s for s in bench.samples if s.reasoning and s.objects]
    replies = tmp_path / "replies.jsonl"
    with open(replies, "w") as handle:
        for sample in bench.samples:
            reply = (
                "I follow the red circle and the blue square. Answer: A" if sample in traced else "Answer: A"
            )
            handle.write(json.dumps({"sample_id": sample.id, "reply": reply}) + "\n")
    outcome = run_eval(
        EvalConfig(bench="sample", method="blind", model=f"replay:{replies}"), tmp_path / "run"
    )
    recall = outcome.results["object_recall"]
    assert recall["n"] == len(traced) and 0 < recall["noun"] <= 1
    assert "Object recall in the reasoning" in (tmp_path / "run/report.html").read_text()
