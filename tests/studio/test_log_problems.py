"""People's logs with a line that cannot be read (review decisions, a participant's answers, the
annotation log): the line is kept, named with its file and line on the home page and by `vqakit
review` / `review apply` (exit 1), and nobody else gets a 500; the person concerned is told, and
where the state depends on every line (answers, annotations) nothing more is written until it is
fixed. A torn last line is cut off by the next writer only."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from vqakit.cli import main
from vqakit.studio import Person, Studio, StudioSettings, create_app

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
WORKBENCH = SAMPLE / "media/synthetic/workbench.mp4"


class Visitor:
    """One person's browser session on a loopback studio (by name), through the JSON API."""

    def __init__(self, app, person: str) -> None:
        self.web = TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False)
        csrf = self.web.get("/api/session").json()["csrf"]
        logged = self.web.post("/api/session", json={"person": person}, headers={"x-csrf-token": csrf})
        assert logged.status_code == 200, logged.text
        self.csrf = self.web.get("/api/session").json()["csrf"]

    def post(self, path: str, body: dict):
        return self.web.post(path, json=body, headers={"x-csrf-token": self.csrf})

    def decide(self, sample_id: str, decision: str, **fields):
        body = {"decision": decision, "request_id": uuid.uuid4().hex, **fields}
        return self.post(f"/api/review/{sample_id}?bench=bench", body)


@pytest.fixture
def bench(tmp_path) -> Path:
    root = tmp_path / "bench"
    shutil.copytree(SAMPLE, root)
    return root


def test_a_damaged_review_log_is_named_and_no_one_gets_a_500(bench, tmp_path):
    studio = Studio(StudioSettings(folders=[str(bench)], runs=tmp_path / "runs"))
    app = create_app(studio)
    alice, bob, carol = Visitor(app, "alice"), Visitor(app, "bob"), Visitor(app, "carol")
    for person in (alice, bob):
        assert person.decide("ped-sign", "keep").status_code == 201
        assert person.decide("ped-tripod", "drop", reason="ambiguous").status_code == 201
    log = bench / "review/bob.jsonl"
    good = json.loads(log.read_text().splitlines()[0])
    damaged = [
        "{not json\n",  # line 3
        json.dumps({**good, "request_id": "nuke-000001", "decision": "nuke"}) + "\n",  # line 4
        json.dumps({**good, "request_id": "edit-000001", "decision": "edit", "edit": {"skills": 5}}) + "\n",
    ]
    with log.open("a") as handle:
        handle.writelines(damaged)
    before = log.read_bytes()

    home = carol.web.get("/")
    assert home.status_code == 200
    for line in (3, 4, 5):
        assert f"{log}:{line}" in home.text
    assert "decision: Input should be" in home.text and "edit.skills: " in home.text
    progress = carol.web.get("/api/progress?bench=bench")
    assert progress.status_code == 200
    summary = progress.json()
    assert [p.split(": ")[0] for p in summary["problems"]] == [f"{log}:3", f"{log}:4", f"{log}:5"]
    assert summary["reviewed"] == 2 and summary["per_sample"][0]["agreement"] == 1.0  # the readable lines

    # the person concerned sees their lines on their page, and can go on deciding
    page = bob.web.get("/review?bench=bench")
    assert page.status_code == 200 and f"{log}:4" in page.text
    assert bob.decide("ped-barrier", "keep").status_code == 201
    assert log.read_bytes().startswith(before)  # nothing deleted, nothing rewritten

    runner = CliRunner()
    shown = runner.invoke(main, ["review", str(bench)])
    assert shown.exit_code == 1 and f"{log}:3" in shown.output and f"{log}:4" in shown.output
    applied = runner.invoke(
        main, ["review", "apply", str(bench), "--policy", "all", "--out", str(tmp_path / "new")]
    )
    assert applied.exit_code == 1 and f"{log}:3" in applied.output
    assert not (tmp_path / "new").exists()


def test_a_review_log_replaced_by_a_folder_is_named(bench, tmp_path):
    studio = Studio(StudioSettings(folders=[str(bench)], runs=tmp_path / "runs"))
    app = create_app(studio)
    alice, bob = Visitor(app, "alice"), Visitor(app, "bob")
    assert alice.decide("ped-sign", "keep").status_code == 201
    assert bob.decide("ped-sign", "keep").status_code == 201
    log = bench / "review/alice.jsonl"
    log.unlink()
    log.mkdir()
    home = bob.web.get("/")
    assert home.status_code == 200 and f"{log}: is a folder, not a log file" in home.text
    assert bob.web.get("/api/progress?bench=bench").status_code == 200
    refused = alice.decide("ped-tripod", "keep")
    assert refused.status_code == 409 and "alice.jsonl" in refused.json()["error"]
    shown = CliRunner().invoke(main, ["review", str(bench)])
    assert shown.exit_code == 1 and "alice.jsonl: is a folder" in shown.output


def test_a_damaged_answer_log_stops_that_participant_only(bench, tmp_path):
    settings = StudioSettings(
        folders=[str(bench)], runs=tmp_path / "runs", people=[Person("p01", "participant")], order="benchmark"
    )
    app = create_app(Studio(settings))
    participant, reviewer = Visitor(app, "p01"), Visitor(app, "alice")
    first = participant.web.get("/api/next?bench=bench").json()["sample"]["id"]
    body = {"choice": 0, "elapsed_s": 1.5, "request_id": uuid.uuid4().hex}
    assert participant.post(f"/api/answer/{first}?bench=bench", body).status_code == 201
    answers = tmp_path / "runs/bench-0.1.0-human-p01/answers.jsonl"
    with answers.open("a") as handle:
        handle.write('{"request_id": "x-0000001", "sample_id": 5}\n')
    shown = participant.web.get("/api/next?bench=bench")
    assert shown.status_code == 200 and shown.json()["sample"] is None
    (problem,) = shown.json()["problems"]
    assert problem.startswith(f"{answers}:2: sample_id: Input should be a valid string; participant: Field")
    assert "one of their lines cannot be read" in participant.web.get("/answer?bench=bench").text
    second = {"choice": 1, "elapsed_s": 1.0, "request_id": uuid.uuid4().hex}
    refused = participant.post("/api/answer/ped-vehicle?bench=bench", second)
    assert refused.status_code == 409 and f"{answers}:2" in refused.json()["error"]
    home = reviewer.web.get("/")
    assert home.status_code == 200 and f"{answers}:2" in home.text
    assert len(answers.read_text().splitlines()) == 2


def test_a_damaged_annotation_log_is_named_and_nothing_more_is_saved(tmp_path):
    folder = tmp_path / "videos"
    folder.mkdir()
    shutil.copy(WORKBENCH, folder / "workbench.mp4")
    app = create_app(Studio(StudioSettings(folders=[str(folder)])))
    carol = Visitor(app, "carol")
    sample = {
        "question": "Which object appears first?",
        "choices": ["A bar", "A dot"],
        "answer": 0,
        "videos": [{"path": "workbench.mp4"}],
    }
    saved = carol.post(
        "/api/annotate/q1?bench=videos", {"action": "save", "sample": sample, "request_id": "save-0000001"}
    )
    assert saved.status_code == 201
    log = folder / "annotate/changes.jsonl"
    with log.open("a") as handle:
        handle.write('{"request_id": "save-0000002", "action": "save"}\n')
    samples = (folder / "samples.jsonl").read_text()
    page = carol.web.get("/annotate?bench=videos")
    assert page.status_code == 200 and f"{log}:2" in page.text
    again = carol.post(
        "/api/annotate/q2?bench=videos", {"action": "save", "sample": sample, "request_id": "save-0000003"}
    )
    assert again.status_code == 409 and f"{log}:2" in again.json()["error"]
    assert (folder / "samples.jsonl").read_text() == samples
    assert f"{log}:2" in carol.web.get("/").text


def test_a_torn_last_line_is_cut_by_the_next_writer_only(bench, tmp_path):
    app = create_app(Studio(StudioSettings(folders=[str(bench)], runs=tmp_path / "runs")))
    alice = Visitor(app, "alice")
    assert alice.decide("ped-sign", "keep").status_code == 201
    log = bench / "review/alice.jsonl"
    with log.open("a") as handle:
        handle.write('{"request_id": "torn-00')  # a kill in the middle of a write
    torn = log.read_bytes()
    assert alice.web.get("/api/progress?bench=bench").json()["problems"] == []  # not a problem ...
    assert log.read_bytes() == torn  # ... and left alone by readers
    assert CliRunner().invoke(main, ["review", str(bench)]).exit_code == 0
    assert alice.decide("ped-tripod", "keep").status_code == 201
    assert [json.loads(line)["sample_id"] for line in log.read_text().splitlines()] == [
        "ped-sign",
        "ped-tripod",
    ]


def test_review_lines_set_aside_on_request_are_kept_listed_and_counted(bench, tmp_path):
    """`vqakit review --set-aside-bad-lines` (and `review apply`'s) move the unreadable lines into
    `<person>.set-aside.jsonl`, byte for byte, while the studio goes on writing the log."""
    from vqakit.studio import check_person

    app = create_app(Studio(StudioSettings(folders=[str(bench)], runs=tmp_path / "runs")))
    alice, bob = Visitor(app, "alice"), Visitor(app, "bob")
    for person in (alice, bob):
        assert person.decide("ped-sign", "keep").status_code == 201
    log = bench / "review/bob.jsonl"
    with log.open("a") as handle:
        handle.write('{"decision": "nuke"}\n')
    assert bob.decide("ped-tripod", "drop", reason="ambiguous").status_code == 201  # line 3
    assert f"{log}:2" in alice.web.get("/").text
    runner = CliRunner()
    refused = runner.invoke(main, ["review", str(bench)])
    assert refused.exit_code == 1 and "--set-aside-bad-lines" in refused.output

    shown = runner.invoke(main, ["review", str(bench), "--set-aside-bad-lines", "--json"])
    assert shown.exit_code == 0, shown.output
    assert f"set aside 1 unreadable line(s) of {log}" in shown.stderr
    summary = json.loads(shown.stdout)
    assert summary["set_aside"] == {"bob.jsonl": 1} and summary["problems"] == []
    assert [p["reviewed"] for p in summary["people"]] == [1, 2]  # bob's lines after the bad one count
    aside = bench / "review/bob.set-aside.jsonl"
    (entry,) = [json.loads(line) for line in aside.read_text().splitlines()]
    assert (entry["line"], entry["text"]) == (2, '{"decision": "nuke"}')
    kept = [json.loads(line)["sample_id"] for line in log.read_text().splitlines()]
    assert kept == ["ped-sign", "ped-tripod"]

    # the running studio reads the log again, and bob's next decision goes into it
    assert f"{log}:" not in alice.web.get("/").text
    assert bob.decide("ped-barrier", "keep").status_code == 201
    assert len(log.read_text().splitlines()) == 3
    assert runner.invoke(main, ["review", str(bench)]).exit_code == 0  # the quarantine is nobody's log

    with log.open("a") as handle:
        handle.write("{not json\n")
    out = tmp_path / "reviewed"
    applied = runner.invoke(
        main, ["review", "apply", str(bench), "--policy", "any", "--out", str(out), "--set-aside-bad-lines"]
    )
    assert applied.exit_code == 0, applied.output
    assert "2 unreadable review log line(s) set aside (bob.jsonl 2)" in applied.stderr
    assert "Lines set aside as unreadable, not counted: 2 of bob.jsonl" in (out / "changes.md").read_text()
    (history,) = (out / "history").iterdir()
    assert len((history / "review/bob.set-aside.jsonl").read_text().splitlines()) == 2
    with pytest.raises(ValueError, match="set-aside"):
        check_person("bob.set-aside")
