"""Answer mode in headless Chromium: a participant answers 10 questions of the sample benchmark
blind and timed (closing the tab half-way and coming back where they stopped), while a second
participant answers in another browser without ever seeing the first one's answers; the run
folder is scored by the same scorers and judges as a model's, and `vqakit table` has a "Human"
row."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from studio_helpers import off_the_loop, running_studio, screenshot

from vqakit.benchmarks import load_benchmark
from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval
from vqakit.runs import RunFolder
from vqakit.scoring import LETTERS
from vqakit.studio import Person, StudioSettings

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
WRONG = {"ped-sign", "bunny-animal"}  # p01 picks the next option on these


def answer(page, gold: dict, wrong: set[str]) -> str:
    """Answer the question on screen with the keyboard, as a participant does; its id."""
    page.wait_for_selector("#question[data-shown='1']")
    sample_id = page.get_attribute("#question", "data-sample-id")
    sample = gold[sample_id]
    if sample.is_mcq:
        choice = (sample.answer + 1) % len(sample.choices) if sample_id in wrong else sample.answer
        page.keyboard.press(LETTERS[choice].lower())
        page.keyboard.press("Enter")
    else:
        page.fill("textarea[name=text]", "a paved path" if sample_id == "ped-surface" else "a ball")
        page.click("#answer-form button[type=submit]")
    page.wait_for_selector(f"#done, #question:not([data-sample-id='{sample_id}'])")
    return sample_id


def test_participants_answer_blind_and_get_a_human_row(tmp_path, browser, screenshots):
    gold = {s.id: s for s in load_benchmark("sample").samples}
    judge = tmp_path / "judge.jsonl"  # the open judge's replies: a test double of its model
    judge.write_text(
        json.dumps({"sample_id": "ped-surface", "reply": "Yes. Reason: paved."})
        + "\n"
        + json.dumps({"sample_id": "ped-yellow-object", "reply": "No. Reason: it is a bag."})
        + "\n"
    )
    settings = StudioSettings(
        folders=["sample"],
        people=[Person("p01", "participant"), Person("p02", "participant")],
        limit=10,
        runs=tmp_path / "runs",
        judges={"open": f"replay:{judge}"},
    )
    with running_studio(settings) as studio:
        first = browser.new_context(viewport={"width": 1280, "height": 800})
        other = browser.new_context(viewport={"width": 1280, "height": 800})
        page = first.new_page()
        page.goto(f"{studio.url}/?token={studio.studio.signer.token('p01', 'participant')}")
        assert page.url == f"{studio.url}/answer"  # the token left the address
        second = other.new_page()
        second.goto(f"{studio.url}/?token={studio.studio.signer.token('p02', 'participant')}")
        page.wait_for_selector("#question[data-shown='1']")
        assert page.locator(".shown img").count() == 16  # the frames a model is sent
        assert "gold" not in page.content().lower()
        screenshot(page, screenshots, "answer")
        answered = [answer(page, gold, WRONG) for _ in range(5)]
        answer(second, gold, set())  # a second participant, at the same time
        shown = page.get_attribute("#question", "data-sample-id")
        page.close()  # the participant closes the tab ...
        page = first.new_page()
        page.goto(f"{studio.url}/answer?bench=sample")  # ... and comes back where they stopped
        page.wait_for_selector("#question[data-shown='1']")
        assert page.get_attribute("#question", "data-sample-id") == shown
        answered += [answer(page, gold, WRONG) for _ in range(5)]
        answer(second, gold, set())
        page.wait_for_selector("#scoring[data-scoring='done']", timeout=30000)
        assert "All 10 questions answered" in page.inner_text("#done") and "p02" not in page.content()
    assert sorted(answered) == sorted(s.id for s in load_benchmark("sample").samples[:10])
    run = RunFolder(tmp_path / "runs/sample-0.1.0-human-p01")
    answers = [json.loads(line) for line in (run.path / "answers.jsonl").read_text().splitlines()]
    assert len(answers) == 10 and len(run.predictions()) == 10
    assert all(a["participant"] == "p01" and a["elapsed_s"] > 0 for a in answers)
    assert len(RunFolder(tmp_path / "runs/sample-0.1.0-human-p02").predictions()) == 2  # only their own
    results = run.results
    assert (results["mcq"]["n"], results["mcq"]["accuracy"]) == (8, 6 / 8)
    assert (results["open_ended"]["n"], results["open_ended"]["accuracy"]) == (2, 1 / 2)
    assert run.config["method"] == "human" and run.participant == "p01"
    model = off_the_loop(run_eval, EvalConfig(bench="sample", method="random", limit=10), tmp_path / "random")
    table = CliRunner().invoke(main, ["table", str(model.folder), str(run.path), "--by", "category"])
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    header = [cell.strip() for cell in next(line for line in lines if line.startswith("| run |")).split("|")]
    human = [cell.strip() for cell in next(line for line in lines if line.startswith("| Human |")).split("|")]
    assert human[header.index("MCQ accuracy")] == "75.0"  # 6 of 8
    assert human[header.index("open-ended accuracy")] == "50.0"  # 1 of 2


def test_the_video_window_keeps_every_seek_inside_it_and_subtitles_are_shown(tmp_path, browser):
    """A participant watching the video window (the card allows it) is sent the window cut on its
    own (time 0 is the window's start) and cannot seek before or past it, however they try; a
    question with subtitles shows the window's cues."""
    root = tmp_path / "bench"
    shutil.copytree(SAMPLE, root)
    (root / "benchmark.yaml").write_text((root / "benchmark.yaml").read_text() + "human_video: true\n")
    lines = {json.loads(line)["id"]: line for line in (root / "samples.jsonl").read_text().splitlines()}
    # bikes-railing is the window 5.0-7.5 s of its video; world-subtitles-joke has subtitles
    (root / "samples.jsonl").write_text(lines["bikes-railing"] + "\n" + lines["world-subtitles-joke"] + "\n")
    settings = StudioSettings(
        folders=[str(root)],
        people=[Person("p01", "participant")],
        answer_view="video",
        order="benchmark",
        runs=tmp_path / "runs",
    )
    with running_studio(settings) as studio:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{studio.url}/?token={studio.studio.signer.token('p01', 'participant')}")
        page.wait_for_selector("#question[data-sample-id='bikes-railing'][data-shown='1']")
        assert page.get_attribute(".player", "data-strict") == "1"

        def seek_to(how: str) -> float:
            """Seek as asked, wait until the player has settled, and say where it is."""
            page.evaluate(f"() => {{ const v = window.studioPlayer.current().video; v.pause(); {how}; }}")
            page.wait_for_function(
                "() => { const v = window.studioPlayer.current().video; return !v.seeking; }"
            )
            page.wait_for_timeout(300)  # a seek moved back into the window has settled too
            page.wait_for_function("() => !window.studioPlayer.current().video.seeking")
            return page.evaluate("window.studioPlayer.current().video.currentTime")

        video = page.evaluate(
            "() => { const v = window.studioPlayer.current().video; return [v.src, v.duration]; }"
        )
        assert "/clip/bench?sample=bikes-railing" in video[0] and video[1] == pytest.approx(2.5, abs=0.1)
        assert seek_to("v.currentTime = 9.5") == pytest.approx(2.5, abs=0.1)  # the video's own controls
        assert seek_to("window.studioPlayer.current().seek(-3)") == pytest.approx(0.0, abs=0.05)
        assert seek_to("v.currentTime = 1.0") == pytest.approx(1.0, abs=0.05)  # inside: where asked
        page.keyboard.press("d")
        page.keyboard.press("Enter")
        page.wait_for_selector("#question[data-sample-id='world-subtitles-joke'][data-shown='1']")
        shown = page.inner_text(".subtitles").splitlines()
        assert shown[:3] == ["[00:00] A", "[00:00] B", "[00:01] C"]
        assert "Because it saw the salad dressing." in shown[-1]
        assert not errors
