"""Annotate mode's boxes in headless Chromium: each transition of the naming panel (draw, pick an
object, type a new name, add, cancel, delete a box, save), then a Hypothesis state machine that
drives the page through random sequences of them, comparing the editor's tracks after every step,
and the saved sample's after every save, with the tracks a person meant: a typed name is always a
new object, a picked object gets the box, nothing else changes."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from studio_helpers import draw_box, log_in, running_studio, seek

from vqakit.studio import StudioSettings

WORKBENCH = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample/media/synthetic/workbench.mp4"
TIMES = [1.0, 2.0, 3.0, 4.5]
BOXES = [[20, 20, 80, 60], [120, 40, 200, 110], [300, 150, 400, 240]]  # in a 480x270 frame
LABELS = ["cup", "yellow bar", "square"]


@pytest.fixture(scope="module")
def editor(browser, tmp_path_factory):
    """The annotate page of a folder with one video, logged in; (page, folder)."""
    folder = tmp_path_factory.mktemp("boxes") / "videos"
    folder.mkdir()
    shutil.copy(WORKBENCH, folder / "workbench.mp4")
    with running_studio(StudioSettings(folders=[str(folder)])) as studio:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, studio.url, "carol")
        page.goto(studio.url + "/annotate?bench=videos")
        page.wait_for_selector(".player video")
        page.set_default_timeout(10_000)
        yield page, folder
        assert not errors


def fresh(page) -> None:
    """A new question on the video, valid but for its boxes."""
    page.click("#new-question")
    page.wait_for_function("() => window.studioPlayer.current().video.readyState >= 2")
    page.fill("textarea[name=question]", "Which object moves first?")
    page.fill("textarea[name=choices]", "The cup\nThe bar")


def drawn(page) -> list[dict]:
    """The editor's objects: id, label and {time: box}."""
    objects = page.evaluate("window.studioAnnotate.draft().objects")
    return [
        {"id": o["id"], "label": o["label"], "points": {round(p["t"], 3): p["box"] for p in o["points"]}}
        for o in objects
    ]


def same(found: list[dict], meant: list[dict]) -> bool:
    if [(o["id"], o["label"], sorted(o["points"])) for o in found] != [
        (o["id"], o["label"], sorted(o["points"])) for o in meant
    ]:
        return False
    return all(
        abs(a - b) <= 1.0
        for f, m in zip(found, meant, strict=True)
        for t in m["points"]
        for a, b in zip(f["points"][t], m["points"][t], strict=True)
    )


def add_box(page, t: float, box: list[float], *, name: str | None = None, pick: str | None = None) -> None:
    seek(page, t)
    draw_box(page, box)
    if pick is not None:
        page.select_option("#name-existing", pick)
    if name is not None:
        page.fill("#name-new", name)
    page.click("#name-ok")
    page.wait_for_selector("#naming", state="hidden")


def save_and_read(page, folder: Path) -> list[dict]:
    """Save (Ctrl+S) and read back the objects of the question's latest save in the log."""
    sample_id = page.evaluate("window.studioAnnotate.draft().id")
    log = folder / "annotate/changes.jsonl"
    before = len(log.read_text().splitlines()) if log.is_file() else 0
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 15
    while not (log.is_file() and len(log.read_text().splitlines()) > before):
        assert time.monotonic() < deadline, page.inner_text("#problems")
        time.sleep(0.05)
    record = json.loads(log.read_text().splitlines()[-1])
    assert record["sample_id"] == sample_id and record["action"] == "save"
    return [
        {"id": o["id"], "label": o["label"], "points": {p["time_s"]: p["box"] for p in o["points"]}}
        for o in record["sample"].get("objects", [])
    ]


def test_drawing_opens_the_panel_on_a_new_object_with_no_name(editor):
    page, _ = editor
    fresh(page)
    add_box(page, 1.0, BOXES[0], name="cup")
    seek(page, 2.0)
    draw_box(page, BOXES[1])
    assert page.input_value("#name-existing") == "" and page.input_value("#name-new") == ""
    assert page.is_disabled("#name-ok") and page.inner_text("#name-ok") == "Add box (name the object)"
    page.click("#name-cancel")  # cancel: nothing added
    assert [len(o["points"]) for o in drawn(page)] == [1]
    draw_box(page, BOXES[1])  # and the next "Draw a box" draws (it used to switch drawing off)
    page.click("#name-cancel")


def test_a_name_typed_after_picking_an_object_makes_a_new_object(editor):
    """The reported bug: a second box of an object, then a new name typed and Add pressed,
    filed the box under the old object (replacing its box on that frame)."""
    page, folder = editor
    fresh(page)
    add_box(page, 1.0, BOXES[0], name="yellow bar")
    (bar,) = drawn(page)
    seek(page, 2.0)
    draw_box(page, BOXES[1])
    page.select_option("#name-existing", bar["id"])
    page.click("#name-ok")
    seek(page, 2.0)
    draw_box(page, BOXES[2])
    page.select_option("#name-existing", bar["id"])
    page.fill("#name-new", "square")  # typing a name chooses a new object
    page.click("#name-ok")
    found = drawn(page)
    assert [(o["label"], sorted(o["points"])) for o in found] == [
        ("yellow bar", [1.0, 2.0]),
        ("square", [2.0]),
    ]
    assert found[0]["points"][2.0] == pytest.approx(BOXES[1], abs=1)  # the bar's box kept
    assert found[1]["id"].startswith("square-") and found[1]["id"] in page.input_value(
        "textarea[name=reasoning]"
    )
    assert same(save_and_read(page, folder), found)


def test_picking_an_object_empties_the_name_and_a_box_on_its_frame_replaces_its_box(editor):
    page, _ = editor
    fresh(page)
    add_box(page, 1.0, BOXES[0], name="cup")
    (cup,) = drawn(page)
    seek(page, 1.0)
    draw_box(page, BOXES[2])
    page.fill("#name-new", "typed first")
    page.select_option("#name-existing", cup["id"])
    assert page.input_value("#name-new") == "" and page.inner_text("#name-ok") == f"Add box to {cup['id']}"
    page.fill("#name-new", "square")  # and typing sets the picker back to a new object
    assert (
        page.input_value("#name-existing") == "" and page.inner_text("#name-ok") == "Add new object 'square'"
    )
    page.select_option("#name-existing", cup["id"])
    page.click("#name-ok")
    (cup,) = drawn(page)
    assert cup["points"] == {1.0: pytest.approx(BOXES[2], abs=1)}


def test_deleting_boxes_removes_an_object_with_none_left_and_save_writes_what_is_shown(editor):
    page, folder = editor
    fresh(page)
    add_box(page, 1.0, BOXES[0], name="cup")
    add_box(page, 2.0, BOXES[1], name="square")
    add_box(page, 3.0, BOXES[2], pick=drawn(page)[1]["id"])
    page.locator("#objects li").nth(0).locator("button[title='remove this box']").nth(0).click()
    found = drawn(page)
    assert [(o["label"], sorted(o["points"])) for o in found] == [("square", [2.0, 3.0])]
    assert same(save_and_read(page, folder), found)


class BoxEditor(RuleBasedStateMachine):
    """Random sequences of draw / pick / name / add / cancel / delete / save on the page; the
    model is what a person means by them."""

    page = None
    folder: Path | None = None

    def __init__(self) -> None:
        super().__init__()
        fresh(self.page)
        self.objects: list[dict] = []  # what the person means: id, label, {time: box}
        self.pending: tuple[float, list[float]] | None = None
        self.target: tuple[str, str] = ("new", "")  # the panel: ("existing", id) or ("new", name)

    @precondition(lambda self: self.pending is None)
    @rule(t=st.sampled_from(TIMES), box=st.sampled_from(BOXES))
    def draw(self, t, box):
        seek(self.page, t)
        draw_box(self.page, box)
        self.pending, self.target = (t, box), ("new", "")

    @precondition(lambda self: self.pending is not None and self.objects)
    @rule(which=st.integers(0, 5))
    def pick(self, which):
        chosen = self.objects[which % len(self.objects)]["id"]
        self.page.select_option("#name-existing", chosen)
        self.target = ("existing", chosen)

    @precondition(lambda self: self.pending is not None)
    @rule(label=st.sampled_from(LABELS))
    def name(self, label):
        self.page.fill("#name-new", label)
        self.target = ("new", label)

    @precondition(lambda self: self.pending is not None)
    @rule()
    def add(self):
        kind, value = self.target
        if kind == "new" and not value:  # nothing to add the box to: the person names it first
            return
        self.page.click("#name-ok")
        t, box = self.pending
        if kind == "existing":
            next(o for o in self.objects if o["id"] == value)["points"][t] = box
        else:
            new_id = self.page.evaluate("window.studioAnnotate.draft().objects.at(-1).id")
            assert new_id not in {o["id"] for o in self.objects}
            self.objects.append({"id": new_id, "label": value, "points": {t: box}})
        self.pending = None

    @precondition(lambda self: self.pending is not None)
    @rule()
    def cancel(self):
        self.page.click("#name-cancel")
        self.pending = None

    @precondition(lambda self: self.pending is None and self.objects)
    @rule(which=st.integers(0, 5), point=st.integers(0, 5))
    def delete(self, which, point):
        index = which % len(self.objects)
        chosen = self.objects[index]
        times = sorted(chosen["points"])
        number = point % len(times)
        self.page.locator("#objects li").nth(index).locator("button[title='remove this box']").nth(
            number
        ).click()
        del chosen["points"][times[number]]
        if not chosen["points"]:
            self.objects.remove(chosen)

    @precondition(lambda self: self.pending is None)
    @rule()
    def save(self):
        assert same(save_and_read(self.page, self.folder), self.objects)

    @invariant()
    def tracks_are_the_meant_ones(self):
        assert same(drawn(self.page), self.objects), (drawn(self.page), self.objects)


def test_random_sequences_of_edits_save_exactly_the_meant_tracks(editor):
    page, folder = editor
    BoxEditor.page, BoxEditor.folder = page, folder
    run_state_machine_as_test(
        BoxEditor,
        settings=settings(
            max_examples=20,
            stateful_step_count=16,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
