"""The small things people meet: the finished page does not say "question 8 of 8"; the annotate
checks speak the form's words ("question: write the question", not pydantic's "String should have
at least 1 character"); a person can log out (or switch person on a loopback studio); and `vqakit
table` says why "Human (best)" can sit below "Human (mean)" in a column."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from click.testing import CliRunner
from starlette.testclient import TestClient

from vqakit.cli import main
from vqakit.studio import Person, Studio, StudioSettings, create_app

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
WORKBENCH = SAMPLE / "media/synthetic/workbench.mp4"


def logged_in(studio: Studio, person: str) -> TestClient:
    web = TestClient(create_app(studio), base_url="http://127.0.0.1:8765")
    web.headers["x-csrf-token"] = web.get("/api/session").json()["csrf"]
    assert web.post("/api/session", json={"person": person}).status_code == 200
    web.headers["x-csrf-token"] = web.get("/api/session").json()["csrf"]
    return web


def answer_all(web: TestClient, wrong: set[str]) -> None:
    while (shown := web.get("/api/next?bench=sample").json()["sample"]) is not None:
        choice = 1 if shown["id"] in wrong else None
        if choice is None:
            from vqakit.benchmarks import load_benchmark

            choice = next(s.answer for s in load_benchmark("sample").samples if s.id == shown["id"])
        body = {"choice": choice, "elapsed_s": 2.0, "request_id": uuid.uuid4().hex}
        assert web.post(f"/api/answer/{shown['id']}?bench=sample", json=body).status_code == 201


def test_the_finished_page_says_all_answered_not_question_n_of_n(tmp_path):
    settings = StudioSettings(
        folders=["sample"], people=[Person("p01", "participant")], limit=2, runs=tmp_path / "runs"
    )
    web = logged_in(Studio(settings), "p01")
    assert "question 1 of 2" in web.get("/answer?bench=sample").text
    answer_all(web, set())
    page = web.get("/answer?bench=sample").text
    assert "all 2 answered" in page and "question 2 of 2" not in page and "question 3 of 2" not in page


def test_annotate_checks_speak_the_forms_words(tmp_path):
    folder = tmp_path / "videos"
    folder.mkdir()
    shutil.copy(WORKBENCH, folder / "workbench.mp4")
    web = logged_in(Studio(StudioSettings(folders=[str(folder)])), "carol")
    draft = {
        "id": "q1",
        "question": "",
        "videos": [{"path": "workbench.mp4"}],
        "choices": ["a", "b"],
        "answer": 0,
    }
    problems = web.post("/api/annotate-check?bench=videos", json=draft).json()["problems"]
    assert problems == ["question: write the question"]
    draft = {"id": "q1", "question": "Why?", "videos": [{"path": "workbench.mp4"}], "answer": ""}
    problems = web.post("/api/annotate-check?bench=videos", json=draft).json()["problems"]
    assert problems == ["reference answer: write the answer"]
    draft["objects"] = [{"id": "cup-0123456789abcdef", "label": "", "points": [], "video": 0}]
    problems = web.post("/api/annotate-check?bench=videos", json=draft).json()["problems"]
    assert "objects 1 label: is empty" in problems and "objects 1 points: give at least 1" in problems
    assert not any("should have" in p or "Input should" in p for p in problems)


def test_a_person_can_log_out_and_switch(tmp_path):
    web = logged_in(Studio(StudioSettings(folders=["sample"], runs=tmp_path / "runs")), "alice")
    assert web.get("/api/session").json()["person"] == "alice"
    assert "switch person" in web.get("/").text
    out = web.post("/api/logout", json={})
    assert out.status_code == 200 and out.json()["next"] == "/login"
    assert "max-age=0" in out.headers["set-cookie"].lower()
    assert web.get("/api/session").json()["person"] is None
    assert web.get("/", follow_redirects=False).headers["location"] == "/login"
    web.headers["x-csrf-token"] = web.get("/api/session").json()["csrf"]
    assert web.post("/api/session", json={"person": "bob"}).json()["person"] == "bob"


def test_the_table_says_why_human_best_is_below_human_mean_in_a_column(tmp_path):
    people = [Person("p01", "participant"), Person("p02", "participant")]
    settings = StudioSettings(
        folders=["sample"], people=people, limit=7, order="benchmark", runs=tmp_path / "runs"
    )
    studio = Studio(settings)
    answer_all(logged_in(studio, "p01"), {"ped-viewpoint"})  # the camera question wrong: 6 of 7
    answer_all(logged_in(studio, "p02"), {"ped-vehicle", "ped-sign"})  # two object questions: 5 of 7
    runs = [str(tmp_path / f"runs/sample-0.1.0-human-{p}") for p in ("p01", "p02")]
    for run in runs:
        assert CliRunner().invoke(main, ["score", run]).exit_code == 0
    result = CliRunner().invoke(main, ["table", *runs, "--by", "category"])
    assert result.exit_code == 0, result.output
    rows = {
        line.split("|")[1].strip(): line for line in result.output.splitlines() if line.startswith("| Human")
    }
    assert "0.0" in rows["Human (best)"] and "50.0" in rows["Human (mean)"]  # camera: best below mean
    assert (
        "note: Human (best) is the row of the participant with the best overall; in camera" in result.output
    )
