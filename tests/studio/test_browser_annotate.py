"""Annotate mode in headless Chromium: one question over a video of a folder, with a two-step
reasoning trace whose times come from the player and a two-box track drawn on two paused
frames; the folder becomes a benchmark on which `--method hints`, object recall and the rubric
judge run unchanged."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from click.testing import CliRunner
from studio_helpers import draw_box, log_in, off_the_loop, running_studio, screenshot, seek

from vqakit.benchmarks import check_benchmark
from vqakit.cli import main
from vqakit.runs import RunFolder
from vqakit.schema import parse_trace
from vqakit.studio import StudioSettings

WORKBENCH = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample/media/synthetic/workbench.mp4"


def test_a_question_with_a_trace_and_a_track_runs_through_hints(tmp_path, browser, screenshots):
    folder = tmp_path / "videos"
    folder.mkdir()
    shutil.copy(WORKBENCH, folder / "workbench.mp4")
    with running_studio(StudioSettings(folders=[str(folder)])) as studio:
        page = browser.new_page(viewport={"width": 1400, "height": 820})
        log_in(page, studio.url, "carol")
        page.goto(studio.url + "/annotate?bench=videos")
        page.wait_for_selector(".player video")
        page.wait_for_selector("#check-status.error")  # an empty draft is not valid yet
        page.fill("textarea[name=question]", "Which object appears while the caption STEP 1 is shown?")
        page.fill("textarea[name=choices]", "A blue square\nA yellow bar\nA green dot\nA red circle")
        page.select_option("select[name=gold]", "1")
        page.fill("input[name=category]", "temporal")
        trace = "textarea[name=reasoning]"
        page.fill(trace, "1. The caption STEP 1 is shown from")
        page.focus(trace)
        page.keyboard.press("End")
        seek(page, 0.0)
        page.click("#insert-time")
        page.keyboard.type(" to")
        seek(page, 3.0)
        page.click("#insert-time")
        page.keyboard.type(".\n2. The yellow bar")
        seek(page, 2.0)
        draw_box(page, [315, 134, 345, 146])
        page.fill("#name-new", "yellow bar")
        page.press("#name-new", "Enter")  # a new object: its id goes into the trace
        page.focus(trace)
        page.keyboard.press("End")
        page.keyboard.type(" appears at")
        page.click("#insert-time")
        page.keyboard.type(".")
        seek(page, 3.0)
        draw_box(page, [316, 135, 346, 147])
        page.select_option("#name-existing", index=1)  # another box of the same object
        page.click("#name-ok")
        deadline = time.monotonic() + 10  # the checks run as the author types: wait for the last one
        while page.get_attribute("#check-status", "class") != "ok" or page.inner_text("#warnings"):
            assert time.monotonic() < deadline, (page.inner_text("#problems"), page.inner_text("#warnings"))
            time.sleep(0.05)
        screenshot(page, screenshots, "annotate")
        page.keyboard.press("Control+s")
        page.wait_for_selector("#save-status:text('saved')")
        page.wait_for_selector("#samples button")
        assert page.locator("#samples button").count() == 1
    bench, problems = check_benchmark(folder)
    assert problems == [] and bench is not None
    (sample,) = bench.samples
    (track,) = sample.objects
    assert track.label == "yellow bar" and track.id.startswith("yellow_bar-")
    assert [(p.time_s, p.box) for p in track.points] == [
        (2.0, (315.0, 134.0, 345.0, 146.0)),
        (3.0, (316.0, 135.0, 346.0, 147.0)),
    ]
    steps = parse_trace(sample.reasoning)
    assert [step.times_s for step in steps] == [[(0.0, 3.0)], [(2.0, 2.0)]]
    assert [ref.id for ref in steps[1].objects] == [track.id]  # the trace reader reads the id back
    assert sample.answer == 1 and sample.metadata.category == "temporal"

    # the folder runs as a benchmark: hints from the track, object recall, the rubric judge
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        json.dumps({"sample_id": sample.id, "reply": "The yellow bar appears at 00:02. Answer: B"}) + "\n"
    )
    grades = tmp_path / "rubric.jsonl"  # the rubric judge's reply: a test double of its model
    grades.write_text(
        json.dumps(
            {
                "sample_id": sample.id,
                "reply": "[Perceptual Correctness: 2]\n[Temporal Grounding: 2]\n"
                "[Logical Reasoning: 1]\n[Completeness: 1]",
            }
        )
        + "\n"
    )
    args = [
        "eval",
        str(folder),
        "--method",
        "hints",
        "--model",
        f"replay:{replies}",
        "--out",
        str(tmp_path / "run"),
    ]
    args += ["--judge", f"rubric=replay:{grades}", "--frames", "uniform:8"]
    result = off_the_loop(CliRunner().invoke, main, args)
    assert result.exit_code == 0, result.output
    run = RunFolder(tmp_path / "run")
    prediction = run.predictions()[sample.id]
    assert prediction.error is None and prediction.choice == 1
    # temporal hints pick frames where the object is (2-3 s) before filling the rest of the budget
    assert len(prediction.frames_s) == 8 and sum(2.0 <= t <= 3.0 for t in prediction.frames_s) >= 2
    assert "hints circle+classes+temporal" in run.manifest["shown"]
    results = run.results
    assert results["mcq"]["accuracy"] == 1.0
    assert results["object_recall"]["n"] == 1
    assert results["rubric"]["perceptual_correctness"]["mean"] == 2.0
