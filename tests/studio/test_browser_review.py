"""Review mode in headless Chromium: two people review a built InstructionBench benchmark with
the keyboard (keep, drop with a reason, edit), the queue filters by the builder's stages and
by "not yet reviewed by me", the evidence's times seek the player, object tracks are drawn
over the video; then `vqakit review` gives their agreement and `vqakit review apply` a new
version that validates and evaluates."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from studio_helpers import log_in, off_the_loop, running_studio, screenshot

from vqakit.benchmarks import check_benchmark
from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval
from vqakit.scoring import LETTERS
from vqakit.studio import StudioSettings

KEEP, DROP, EDIT = "yc_pasta:coarse:q2:mcq", "yc_pasta:coarse:q3:mcq", "yc_pasta:fine:q1:mcq"
EDITED_QUESTION = "Which utensil stirs the spaghetti in the bravo part?"


def wait_lines(path: Path, count: int, timeout: float = 15) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file() and len(found := path.read_text().splitlines()) >= count:
            return [json.loads(line) for line in found]
        time.sleep(0.05)
    raise AssertionError(f"{path} did not reach {count} lines")


def open_sample(page, sample_id: str) -> None:
    page.click(f"[data-sample-link][data-id='{sample_id}']")
    page.wait_for_selector(f"#sample[data-sample-id='{sample_id}']")


def review(page, decisions: dict[str, tuple]) -> None:
    """Decide on samples with the keyboard, as a reviewer does."""
    for sample_id, (kind, *detail) in decisions.items():
        open_sample(page, sample_id)
        if kind == "keep":
            page.keyboard.press("k")
        elif kind == "drop":
            page.keyboard.press("d")
            page.select_option("#decide select[name=reason]", detail[0])
            page.fill("#decide input[name=note]", detail[1])
            page.press("#decide input[name=note]", "Enter")
        else:
            page.keyboard.press("e")
            page.fill("textarea[name=question]", detail[0])
            page.press("textarea[name=question]", "Control+Enter")
        page.wait_for_selector(f"[data-sample-link][data-id='{sample_id}'] .mark.{kind}")


def test_two_people_review_a_built_benchmark_and_apply_it(
    tmp_path, browser, built_instructionbench, screenshots
):
    bench = tmp_path / "ib"
    shutil.copytree(built_instructionbench, bench)
    with running_studio(StudioSettings(folders=[str(bench)])) as studio:
        alice = browser.new_page(viewport={"width": 1280, "height": 800})
        bob = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        for page in (alice, bob):
            page.on("pageerror", lambda error: errors.append(str(error)))
            log_in(page, studio.url, (page is alice and "alice") or "bob")
            page.goto(studio.url + "/review?bench=ib")
        # the builder's stages and drop reasons filter the queue
        assert alice.inner_text("#queue-count") == "19 of 19 samples"
        alice.select_option("select[name=stage]", "8 mcq")
        alice.wait_for_selector("#queue-count:text('1 of 19 samples')")
        assert alice.inner_text("#queue .tag.drop") == "8 mcq: gave up"
        alice.select_option("select[name=stage]", "2 clips")
        alice.wait_for_selector("#queue-count:text('0 of 19 samples')")
        dropped = alice.inner_text(".dropped")
        assert "yc_missing" in dropped and "missing video" in dropped and "hr_nosteps" in dropped
        alice.select_option("select[name=stage]", "")
        alice.wait_for_selector("#queue-count:text('19 of 19 samples')")
        # the sample view: the builder's evidence, whose times seek the player
        open_sample(alice, "hr_plane:coarse:q1:open")
        assert "8 mcq: gave up" in alice.inner_text("#sample h2")
        evidence = alice.inner_text("#sample")
        assert "Step annotations of clip hr_plane: Make a paper plane" in evidence
        assert "blind: passed (differs from the reference)" in evidence
        assert "A wooden spoon is used for alpha." in evidence  # the reference answer
        alice.wait_for_selector(".frames img")
        alice.wait_for_timeout(1000)  # the video controls' loading spinner fades out after the load
        screenshot(alice, screenshots, "review")
        alice.click("button.seek[data-t='9.0']")
        assert alice.evaluate("window.studioPlayer.current().video.currentTime") == pytest.approx(9.0)
        # two people decide at the same time, with the keyboard
        review(
            alice,
            {
                KEEP: ("keep",),
                DROP: ("drop", "ambiguous", "two utensils fit"),
                EDIT: ("edit", EDITED_QUESTION),
            },
        )
        review(bob, {KEEP: ("keep",), DROP: ("drop", "wrong-gold", "it is a ladle"), EDIT: ("keep",)})
        open_sample(bob, "hr_plane:fine:q1:mcq")
        bob.keyboard.press("d")
        bob.wait_for_selector(".frames img")
        bob.wait_for_selector(".toast", state="hidden")  # the last decision's notice has faded
        screenshot(bob, screenshots, "review-drop")
        bob.keyboard.press("Escape")
        alice.check("input[name=unreviewed]")
        alice.wait_for_selector("#queue-count:text('16 of 19 samples')")
        alice_log = wait_lines(bench / "review/alice.jsonl", 3)
        bob_log = wait_lines(bench / "review/bob.jsonl", 3)
        alice.goto(studio.url + "/")
        alice.set_viewport_size({"width": 1000, "height": 380})
        screenshot(alice, screenshots, "home")
        home = alice.inner_text("main")
        assert "ib-review" in home and str(bench) not in home  # the card's name, not a path
        headers = alice.locator("main table").nth(1).locator("th").all_inner_texts()
        assert headers == ["people", "statistic", "samples", "value", "observed agreement"]
        agreement = alice.locator("main table").nth(1).locator("td").all_inner_texts()
        assert agreement == ["alice, bob", "Cohen's kappa", "3", "0.50", "0.67"]
        assert not errors
    assert [(d["sample_id"], d["decision"]) for d in alice_log] == [
        (KEEP, "keep"),
        (DROP, "drop"),
        (EDIT, "edit"),
    ]
    assert alice_log[1]["reason"] == "ambiguous" and alice_log[1]["note"] == "two utensils fit"
    assert alice_log[2]["edit"] == {"question": EDITED_QUESTION}
    assert [d["decision"] for d in bob_log] == ["keep", "drop", "keep"]

    runner = CliRunner()
    progress = runner.invoke(main, ["review", str(bench)])
    assert progress.exit_code == 0, progress.output
    # alice keep/drop/edit, bob keep/drop/keep: agree on 2 of 3; by chance (1*2 + 1*1 + 1*0) / 9 = 1/3;
    # kappa = (2/3 - 1/3) / (1 - 1/3) = 0.5
    assert "Cohen's kappa (alice, bob): 0.50 on 3 samples (all agree on 0.67)" in progress.output
    out = tmp_path / "ib-reviewed"
    applied = runner.invoke(main, ["review", "apply", str(bench), "--policy", "any", "--out", str(out)])
    assert applied.exit_code == 0, applied.output
    assert "18 samples kept (1 edited), 1 dropped" in applied.output
    reviewed, problems = check_benchmark(out)
    assert problems == [] and reviewed is not None
    by_id = {s.id: s for s in reviewed.samples}
    assert DROP not in by_id and by_id[EDIT].question == EDITED_QUESTION
    changes = (out / "changes.md").read_text()
    assert (
        f"- `{DROP}`: by alice (ambiguous" in changes
        and "bob (the gold answer is wrong; it is a ladle)" in changes
    )
    assert (out / "build/clip_steps.jsonl").is_file()  # the build's records come along
    # the new version evaluates like any benchmark
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"sample_id": s.id, "reply": LETTERS[s.answer] if s.is_mcq else "a wooden spoon"})
            + "\n"
            for s in reviewed.samples
        )
    )
    config = EvalConfig(bench=str(out), model=f"replay:{replies}", short_side=32)
    results = off_the_loop(run_eval, config, tmp_path / "run").results
    assert (results["mcq"]["n"], results["mcq"]["accuracy"]) == (8, 1.0)


def test_tracks_are_drawn_over_the_video_and_trace_times_seek(tmp_path, browser, screenshots):
    with running_studio(StudioSettings(folders=["sample"], review_dir=tmp_path / "review")) as studio:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        log_in(page, studio.url, "alice")
        page.goto(studio.url + "/review/sample/wb-appears-during-step1?bench=sample")
        page.wait_for_selector(".player[data-first-frame]")
        page.wait_for_timeout(200)

        def drawn(box: list[float]) -> int:
            """Opaque canvas pixels on the edges of a box given in video pixels."""
            return page.evaluate(
                """(box) => {
                  const p = window.studioPlayer.current();
                  const g = window.studioPlayer.geometry(p.video);
                  const ctx = p.canvas.getContext('2d');
                  const x = Math.round(g.dx + box[0] * g.scale), y = Math.round(g.dy + box[1] * g.scale);
                  const w = Math.round((box[2] - box[0]) * g.scale);
                  const h = Math.round((box[3] - box[1]) * g.scale);
                  let n = 0;
                  for (const [px, py] of [[x, y + h / 2], [x + w, y + h / 2], [x + w / 2, y + h]]) {
                    const data = ctx.getImageData(px - 2, py - 2, 5, 5).data;
                    for (let i = 3; i < data.length; i += 4) n += data[i] > 0;
                  }
                  return n;
                }""",
                box,
            )

        square, bar = [216, 66, 264, 114], [315, 134, 345, 146]
        assert drawn(square) > 0 and drawn(bar) == 0  # at 0 s only the square is tracked
        page.click("ol.trace button.seek:text('00:02')")
        page.wait_for_timeout(300)
        assert page.evaluate("window.studioPlayer.current().video.currentTime") == pytest.approx(2.0)
        assert drawn(bar) > 0
        screenshot(page, screenshots, "review-trace")
        page.click("ol.trace button.seek:text('00:00')")
        page.wait_for_timeout(300)
        assert drawn(bar) == 0
