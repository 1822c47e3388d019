"""Fixtures of the studio tests (helpers in studio_helpers.py).

Browser tests need Debian's Chromium at /usr/bin/chromium (`.ci/run` installs it with apt);
Playwright launches it through `executable_path`, nothing is downloaded. Where it is missing the
browser tests FAIL, unless VQAKIT_ALLOW_SKIP_BROWSER=1 is set, which makes them skip instead
(for a machine that cannot have Chromium; CI never sets it)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from studio_helpers import CHROMIUM, CHROMIUM_ARGS, DOCS_IMAGES, off_the_loop


@pytest.fixture(autouse=True)
def studio_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test session signs with a key of its own, never the user's."""
    path = tmp_path_factory.getbasetemp() / "studio.key"
    monkeypatch.setenv("VQAKIT_STUDIO_KEY", str(path))
    return path


def _browser_missing() -> str | None:
    if not Path(CHROMIUM).is_file() and shutil.which(CHROMIUM) is None:
        return f"no Chromium at {CHROMIUM} (install Debian's chromium: apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium through Playwright's executable_path (nothing is downloaded).
    One per test module: Playwright's sync API keeps an event loop running in the test thread
    while it is open, where the tests of other packages call asyncio.run."""
    missing = _browser_missing()
    if missing:
        if os.environ.get("VQAKIT_ALLOW_SKIP_BROWSER"):
            pytest.skip(missing)
        pytest.fail(f"{missing}; set VQAKIT_ALLOW_SKIP_BROWSER=1 to skip the browser tests instead")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests' screenshots go: docs/images/studio with VQAKIT_WRITE_SCREENSHOTS=1 (how
    the pictures of docs/studio.md are made), else a temporary folder."""
    if os.environ.get("VQAKIT_WRITE_SCREENSHOTS"):
        return DOCS_IMAGES
    return tmp_path_factory.mktemp("screenshots")


IB_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures/instructionbench/build"
UTENSILS = ["metal whisk", "plastic ladle", "glass jug", "paper towel", "steel knife", "rubber spatula"]
NATO = ["alpha", "bravo", "charlie", "delta", "echo"]
DROPPED_BY = {"yc_pasta:coarse:q1": "blind", "yc_pasta:fine:q2": "unspecific"}
GIVES_UP = {"hr_plane:coarse:q1"}  # the checkers never find its answer: no MCQ form


class ScriptedBuilderModel:
    """Test double of the InstructionBench builder's models: each reply is a function of the
    request id (`step:item`) and the prompt, so that the real builder runs every stage and drops
    a few questions with its own reasons."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return self.name

    async def aclose(self) -> None:
        pass

    async def complete(self, messages, *, sample_id=None, **params):
        import json
        import re

        from vqakit.models import Completion

        text = "\n".join(p.text for m in messages for p in m.parts if hasattr(p, "text"))
        step, item = sample_id.split(":", 1)
        if step == "generate":
            count = int(re.search(r"Write (\d+) question-answer pair", text)[1])
            category = "Step sequencing" if ":coarse" in item else "object attribute recognition"
            reply = [
                {
                    "Question": f"Which utensil is used for the {word} part of the task?",
                    "Answer": f"A wooden spoon is used for {word}.",
                    "Reason": f"the steps name a wooden spoon for {word}",
                    "Category": category,
                }
                for word in NATO[:count]
            ]
        elif step in ("filter-blind", "filter-tricky"):
            reply = {"answer": "a scripted guess", "reason": "scripted"}
        elif step.startswith("filter-"):
            name = step.removeprefix("filter-").removesuffix("-match")
            bad = DROPPED_BY.get(item) == name
            if step == "filter-tricky-match":
                reply = {"judgement": "No" if bad else "Yes", "reason": f"scripted {name}"}
            else:
                reply = {"judgement": "Yes" if bad else "No", "reason": f"scripted {name}"}
        elif step == "mcq-wrong":
            answer = re.search(r"## Correct answer\n(.+)", text)[1]
            reply = {"wrong_answers": [answer.replace("wooden spoon", u) for u in UTENSILS]}
        elif step == "mcq-pick":
            reply = {"picks": [1, 2, 3, 4], "reason": "scripted"}
        else:  # mcq-with-info / mcq-without-info
            options = re.findall(r"^([A-E])\. (.*)$", text, flags=re.MULTILINE)
            right = next(letter for letter, option in options if "wooden spoon" in option)
            wrong = next(letter for letter, option in options if "wooden spoon" not in option)
            qa = ":".join(item.split(":")[:3])
            reply = {"answer": (wrong if qa in GIVES_UP else right) if step == "mcq-with-info" else wrong}
        return Completion(json.dumps(reply), "scripted")


@pytest.fixture(scope="session")
def built_instructionbench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small InstructionBench built by the real builder (YouCook2 and HiREST annotations, two
    synthetic 30 s videos) with scripted models: questions dropped by the blind and unspecific
    filters, one question whose MCQ form was given up, the steps of every clip in build/."""
    import vqakit.systems.instructionbench  # noqa: F401
    from vqakit.systems.instructionbench.builder import InstructionBenchBuildConfig, build_instructionbench
    from vqakit.video import write_index_clip

    videos = tmp_path_factory.mktemp("ib-videos")
    for name in ("yc_pasta.mp4", "hr_plane.mp4"):
        write_index_clip(videos / name, seconds=30, fps=2, width=96, height=64, gop=10)
    out = tmp_path_factory.mktemp("ib") / "bench"
    off_the_loop(
        build_instructionbench,
        [IB_FIXTURES / "youcookii_annotations_build.json", IB_FIXTURES / "all_data_build.json"],
        videos,
        out,
        llm=ScriptedBuilderModel("writer"),
        checkers=[ScriptedBuilderModel(f"checker-{i}") for i in (1, 2, 3)],
        config=InstructionBenchBuildConfig(
            name="ib-review", label_map=IB_FIXTURES / "label_foodtype.csv", seed=0
        ),
    )
    return out
