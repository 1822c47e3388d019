"""A study in headless Chromium: three reviewers with `--assign 2` and an adjudicator. The home
page shows the assignment and each sample's agreement; the adjudicator settles a disagreement
starting from a reviewer's edit; a person logs out and in as someone else. And the review edit
form keeps the video's controls, the protocol's frames and the evidence in view (it used to
cover them). Writes the screenshots assign.png, adjudicate.png and review-edit.png."""

from __future__ import annotations

import json
import shutil
import time
import uuid
from pathlib import Path

import httpx
from studio_helpers import log_in, running_studio, screenshot

from vqakit.studio import Person, StudioSettings

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
# the point of each thing a reviewer needs that must not be covered while editing
UNCOVERED = """(selector) => {
  const node = document.querySelector(selector);
  node.scrollIntoView({block: "center"});
  const box = node.getBoundingClientRect();
  const x = box.left + box.width / 2;
  const y = selector.endsWith("video") ? box.bottom - 12 : box.top + Math.min(box.height / 2, 12);
  const hit = document.elementFromPoint(x, y);
  return Boolean(hit) && (hit === node || node.contains(hit) || hit.contains(node));
}"""


def decide(url: str, token: str, sample_id: str, decision: str, **fields) -> None:
    with httpx.Client(base_url=url, headers={"authorization": f"Bearer {token}"}, timeout=30) as web:
        csrf = web.get("/api/session").json()["csrf"]
        body = {"decision": decision, "request_id": uuid.uuid4().hex, **fields}
        response = web.post(f"/api/review/{sample_id}?bench=bench", json=body, headers={"x-csrf-token": csrf})
        assert response.status_code == 201, response.text


def test_assign_and_adjudicate(tmp_path, browser, screenshots):
    bench = tmp_path / "bench"
    shutil.copytree(SAMPLE, bench)
    people = [Person("alice"), Person("bob"), Person("carol"), Person("ann", "adjudicator")]
    settings = StudioSettings(folders=[str(bench)], people=people, assign=2, seed=1, runs=tmp_path / "runs")
    with running_studio(settings) as running:
        studio, url = running.studio, running.url
        queues = studio.assignments["bench"].queues
        token = {p.name: studio.signer.token(p.name, p.role) for p in people}
        choices = {s.id: len(s.choices or []) for s in studio.workspace("bench").benchmark().samples}
        shared = [s for s in queues["alice"] if s in queues["bob"] and choices[s] >= 4][:3]
        decide(url, token["alice"], shared[0], "keep")
        decide(url, token["bob"], shared[0], "drop", reason="ambiguous", note="two signs fit")
        gold = next(s.answer for s in studio.workspace("bench").benchmark().samples if s.id == shared[1])
        decide(url, token["alice"], shared[1], "edit", edit={"answer": (gold + 1) % 4}, note="B is right")
        decide(url, token["bob"], shared[1], "edit", edit={"answer": (gold + 2) % 4}, note="C fits better")
        decide(url, token["alice"], shared[2], "keep")
        decide(url, token["bob"], shared[2], "keep")
        for person in ("alice", "bob", "carol"):
            for sample_id in queues[person][:4]:
                if sample_id not in shared:
                    decide(url, token[person], sample_id, "keep")

        page = browser.new_page(viewport={"width": 1100, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, url, "alice")
        assert "assigned to 2 reviewers" in page.inner_text("#assignment")
        assert "differ by decision" in page.inner_text("#per-sample")
        assert "differ by edit" in page.inner_text("#per-sample")
        screenshot(page, screenshots, "assign")

        # the adjudicator settles the edit disagreement, starting from bob's edit
        page.click("#logout")
        page.wait_for_url(url + "/login")
        log_in(page, url, "ann")
        page.goto(f"{url}/adjudicate?bench=bench")
        assert page.inner_text("#queue-count") == "2 disagreements, 0 settled"
        page.click(f"[data-sample-link][data-id='{shared[1]}']")
        page.wait_for_selector(f"#votes[data-sample-id='{shared[1]}']")
        page.wait_for_selector(".frames img")
        page.wait_for_timeout(800)
        page.click("#votes tr[data-person='bob'] [data-take-edit]")
        assert page.input_value("#edit-form select[name=gold]") == str((gold + 2) % 4)
        page.fill("#edit-form input[name=edit_note]", "C, as bob says: the frames at 12 s show it")
        page.evaluate("window.scrollTo(0, 0)")
        screenshot(page, screenshots, "adjudicate")
        page.press("#edit-form input[name=edit_note]", "Control+Enter")
        page.wait_for_selector(f"[data-sample-link][data-id='{shared[1]}'] .mark")
        log = bench / "review/ann.jsonl"
        deadline = time.monotonic() + 10
        while not log.is_file():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        (line,) = [json.loads(text) for text in log.read_text().splitlines()]
        assert line["adjudication"] is True and line["edit"] == {"answer": (gold + 2) % 4}
        assert not errors


def test_the_edit_form_covers_nothing_a_reviewer_needs(tmp_path, browser, screenshots):
    """Pressing `e` used to grow the sticky decision panel to about 405 px, over the video's
    controls, the frames the protocol sends and the evidence, while a gold answer was changed."""
    with running_studio(StudioSettings(folders=["sample"], review_dir=tmp_path / "review")) as running:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        log_in(page, running.url, "alice")
        page.goto(f"{running.url}/review/sample/ped-sign?bench=sample")
        page.wait_for_selector(".frames img")
        page.wait_for_timeout(800)  # the video controls' loading spinner fades out
        page.keyboard.press("e")
        page.wait_for_selector("textarea[name=question]:visible")
        page.select_option("select[name=gold]:visible", "1")  # the gold being changed
        for selector in (".player video", ".frames img", "#sample details summary"):
            assert page.evaluate(UNCOVERED, selector), f"{selector} is covered while editing"
        assert page.evaluate("document.getElementById('decide').getBoundingClientRect().height") < 120
        page.evaluate("window.scrollTo(0, 0)")
        screenshot(page, screenshots, "review-edit")
        page.keyboard.press("Escape")
        assert page.is_hidden("textarea[name=question]")
        page.keyboard.press("e")
        page.fill("textarea[name=question]:visible", "What is fixed to the lamp post?")
        page.press("textarea[name=question]:visible", "Control+Enter")
        page.wait_for_selector("[data-sample-link][data-id='ped-sign'] .mark.edit")
