"""Everything a benchmark file says is rendered escaped: a question, options, a trace, a
category and an id holding `<script>` and `"><img onerror>` are shown as text in review mode,
in the sample view loaded by htmx and in answer mode, and no script of theirs runs in the
browser, even with the page's Content-Security-Policy switched off (so the escaping alone is
what makes them inert)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from studio_helpers import log_in, running_studio

from vqakit.studio import Person, StudioSettings

THANKS = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample/media/thanks.mp4"
SCRIPT = "<script>window.__xss = 1</script>"
IMAGE = '"><img src=x onerror="window.__xss = 2">'
SAMPLE_ID = "q-\"><svg onload='window.__xss=5'>"


@pytest.fixture
def hostile(tmp_path) -> Path:
    root = tmp_path / "hostile"
    (root / "media").mkdir(parents=True)
    shutil.copy(THANKS, root / "media/thanks.mp4")
    (root / "benchmark.yaml").write_text(
        "name: hostile\nversion: '1'\nlicense: CC0\ndescription: a benchmark whose text is hostile HTML\n"
    )
    sample = {
        "id": SAMPLE_ID,
        "question": f"Which {SCRIPT} is {IMAGE} shown?",
        "videos": [{"path": "media/thanks.mp4"}],
        "choices": [f"The {SCRIPT} one", f"The {IMAGE} one", "<b>bold</b> & plain"],
        "answer": 0,
        "reasoning": f"1. At 00:01 the card {IMAGE} shows.\n2. Then {SCRIPT} at 00:02.",
        "metadata": {"category": f"cat {SCRIPT}", "skills": [IMAGE]},
    }
    (root / "samples.jsonl").write_text(json.dumps(sample) + "\n")
    return root


def inert(page) -> None:
    assert page.evaluate("window.__xss") is None
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("main svg").count() == 0
    assert page.locator("main script").count() == 0


@pytest.mark.parametrize("csp", ["enforced", "bypassed"])
def test_hostile_text_renders_inert(tmp_path, browser, hostile, csp):
    dialogs: list[str] = []
    settings = StudioSettings(
        folders=[str(hostile)], people=[Person("p01", "participant")], runs=tmp_path / "runs"
    )
    with running_studio(settings) as studio:
        context = browser.new_context(bypass_csp=csp == "bypassed")
        page = context.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        log_in(page, studio.url, "alice")
        page.goto(studio.url + "/review?bench=hostile")
        page.wait_for_selector("#sample")
        inert(page)
        shown = page.inner_text("#sample")
        assert f"Which {SCRIPT} is {IMAGE} shown?" in shown
        assert f"The {SCRIPT} one" in shown and "<b>bold</b> & plain" in shown
        assert f"cat {SCRIPT}" in page.inner_text("#queue") or SAMPLE_ID in page.inner_text("#queue")
        page.click("#queue [data-sample-link] >> nth=0")  # the same view through htmx
        page.wait_for_selector("#sample .trace")
        inert(page)
        assert IMAGE in page.inner_text("#sample .trace")
        page.keyboard.press("k")  # a decision on the hostile id is recorded as given
        page.wait_for_selector("#queue .mark.keep")
        decision = json.loads((hostile / "review/alice.jsonl").read_text())
        assert decision["sample_id"] == SAMPLE_ID
        answer = context.new_page()
        answer.goto(f"{studio.url}/?token={studio.studio.signer.token('p01', 'participant')}")
        answer.wait_for_selector("#question[data-shown='1']")
        inert(answer)
        assert f"Which {SCRIPT} is {IMAGE} shown?" in answer.inner_text("#question")
        context.close()
    assert dialogs == []
