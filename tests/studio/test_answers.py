"""Answer mode without a browser: a participant's run is a run folder (method `human`,
config.yaml, manifest.json naming the participant), answers are final and written once, a
kill between the answer and its prediction is repaired, the run is scored by the same scorers
and judges as a model's, and `vqakit table` gives "Human" rows."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.report import comparison_rows
from vqakit.runner import EvalConfig, run_eval
from vqakit.runs import RunFolder
from vqakit.studio import Studio, StudioSettings
from vqakit.studio._answers import AnswerBody, AnswerError
from vqakit.studio._media import ShownFrames


def _jpeg(shade: int) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (32, 24), (shade, shade, shade)).save(buffer, format="JPEG")
    return buffer.getvalue()


SHOWN = ShownFrames([1.0, 2.0], [_jpeg(40), _jpeg(200)])  # the frames a participant was shown


def body(**fields) -> AnswerBody:
    return AnswerBody(request_id=uuid.uuid4().hex, elapsed_s=fields.pop("elapsed_s", 4.5), **fields)


@pytest.fixture
def judge(tmp_path) -> Path:
    """The open judge's replies (a test double of the judge model): yes for one answer, no for
    the other."""
    path = tmp_path / "judge.jsonl"
    path.write_text(
        json.dumps({"sample_id": "ped-surface", "reply": "Yes. Reason: the path is paved."})
        + "\n"
        + json.dumps({"sample_id": "ped-yellow-object", "reply": "No. Reason: it is a bag."})
        + "\n"
    )
    return path


@pytest.fixture
def studio(tmp_path, judge) -> Studio:
    return Studio(
        StudioSettings(
            folders=["sample"], runs=tmp_path / "runs", limit=10, judges={"open": f"replay:{judge}"}
        )
    )


def answer_all(run, wrong: set[str]) -> None:
    while (sample := run.next_sample()) is not None:
        if sample.choices is None:
            fields = {"text": "paved path" if sample.id == "ped-surface" else "a ball"}
        else:
            choice = (sample.answer + 1) % len(sample.choices) if sample.id in wrong else sample.answer
            fields = {"choice": choice}
        run.record(sample.id, body(**fields), SHOWN, f"shown {sample.id}")


def test_a_participants_run_is_scored_like_a_models(tmp_path, studio):
    run = studio.participant_run(studio.workspace(None), "p01")
    config = yaml.safe_load((run.folder / "config.yaml").read_text())
    assert run.folder == tmp_path / "runs" / "sample-0.1.0-human-p01"
    assert config["method"] == "human" and config["limit"] == 10 and config["bench"] == "sample"
    assert config["method_args"] == {
        "participant": "p01",
        "view": "frames",
        "order": "shuffled",
        "answers": "answers.jsonl",
        "subset": None,  # every question of the limit: no subset drawn
        "draw": None,
    }
    manifest = json.loads((run.folder / "manifest.json").read_text())
    assert manifest["participant"] == "p01" and "answered by p01 in vqakit studio" in manifest["shown"]
    order = list(run.order)
    assert sorted(order) == sorted(s.id for s in run.benchmark.samples[:10]) and order != sorted(order)
    assert studio.participant_run(studio.workspace(None), "p02").order != order  # each their own order
    answer_all(run, wrong={"ped-sign", "bunny-animal"})
    assert run.progress() == (10, 10) and run.next_sample() is None
    for name in ("answers.jsonl", "predictions.jsonl"):
        assert len((run.folder / name).read_text().splitlines()) == 10
    run.score()
    assert run.scoring == "done"
    results = RunFolder(run.folder).results
    assert (results["mcq"]["n"], results["mcq"]["accuracy"]) == (8, pytest.approx(6 / 8))
    assert (results["open_ended"]["n"], results["open_ended"]["accuracy"]) == (2, pytest.approx(1 / 2))
    predictions = RunFolder(run.folder).predictions()
    assert predictions["ped-vehicle"].latency_s == 4.5 and predictions["ped-vehicle"].frames_s == [1.0, 2.0]
    assert predictions["ped-vehicle"].extraction == "chosen by the participant"
    strip = run.folder / predictions["ped-vehicle"].images[0]
    assert strip.is_file()  # the frames shown, kept as a model's run keeps what it sent
    judged = RunFolder(run.folder).judgments()
    assert judged["ped-surface"]["open"]["raw"].startswith("Yes")
    assert (run.folder / "report.html").is_file()


def test_an_answer_is_final_and_a_resent_one_is_written_once(studio):
    run = studio.participant_run(studio.workspace(None), "p01")
    sample = run.next_sample()
    fields = {"choice": 0} if sample.choices else {"text": "x"}
    sent = body(**fields)
    first, written = run.record(sample.id, sent, None, "")
    again, written_again = run.record(sample.id, sent, None, "")
    assert written and not written_again and again == first
    with pytest.raises(AnswerError, match="final") as refused:
        run.record(sample.id, body(**fields), None, "")
    assert refused.value.status == 409
    with pytest.raises(AnswerError, match="not one of the questions"):
        run.record("hop2-rabbit", body(choice=0), None, "")  # beyond --limit 10
    mcq = next(sid for sid in run.order if run.samples[sid].choices and sid != sample.id)
    with pytest.raises(AnswerError, match="choice"):
        run.record(mcq, body(choice=7), None, "")
    assert len((run.folder / "answers.jsonl").read_text().splitlines()) == 1


def test_a_kill_between_the_answer_and_its_prediction_is_repaired(studio):
    run = studio.participant_run(studio.workspace(None), "p01")
    sample_id = next(sid for sid in run.order if run.samples[sid].choices)
    line = {
        "request_id": "killed-0001",
        "sample_id": sample_id,
        "participant": "p01",
        "choice": 0,
        "elapsed_s": 3.0,
        "answered_at": "2026-01-01T00:00:00+00:00",
    }
    with open(run.folder / "answers.jsonl", "a") as handle:  # the server died before the prediction
        handle.write(json.dumps(line) + "\n")
    assert not (run.folder / "predictions.jsonl").read_text().strip()
    fresh = Studio(studio.settings).participant_run(studio.workspace(None), "p01")
    predictions = RunFolder(fresh.folder).predictions()
    assert list(predictions) == [sample_id] and predictions[sample_id].choice == 0


def test_the_human_method_rebuilds_a_runs_predictions_from_its_answers(tmp_path, studio):
    run = studio.participant_run(studio.workspace(None), "p01")
    answer_all(run, wrong=set())
    rebuilt = tmp_path / "rebuilt"
    rebuilt.mkdir()
    (rebuilt / "answers.jsonl").write_text((run.folder / "answers.jsonl").read_text())
    config = EvalConfig(
        bench="sample", method="human", limit=12, method_args={"participant": "p01"}, reasoning_source="both"
    )
    outcome = run_eval(config, rebuilt)
    predictions = RunFolder(rebuilt).predictions()
    assert len(predictions) == 12
    assert predictions == {**predictions, **RunFolder(run.folder).predictions()}  # the 10 answers agree
    unanswered = [p for p in predictions.values() if p.error is not None]
    assert {p.error.type for p in unanswered} == {"not_answered"} and len(unanswered) == 2
    assert outcome.results["errors"]["n"] == 2


def test_the_table_has_human_rows(tmp_path, studio):
    people = {}
    for name, wrong in (("p01", {"ped-sign", "bunny-animal"}), ("p02", {"ped-sign"})):
        run = studio.participant_run(studio.workspace(None), name)
        answer_all(run, wrong)
        run.score()
        people[name] = run.folder
    model = run_eval(EvalConfig(bench="sample", method="random", limit=10), tmp_path / "random").folder
    names, rows = comparison_rows([model, people["p01"]], "category")
    assert [row[0] for row in rows] == ["random", "Human"]
    # a run of MCQ and open-ended samples has no "overall": the MCQ accuracy column
    assert rows[1][names.index("MCQ accuracy")] == pytest.approx(6 / 8)
    names, rows = comparison_rows([model, people["p01"], people["p02"]], "category")
    labelled = {row[0]: row for row in rows}
    assert list(labelled) == ["random", "Human (mean)", "Human (best)"]
    overall = names.index("MCQ accuracy")
    assert labelled["Human (mean)"][overall] == pytest.approx((6 / 8 + 7 / 8) / 2)
    assert labelled["Human (best)"][overall] == pytest.approx(7 / 8)
    _, rows = comparison_rows([model, people["p01"], people["p02"]], "category", each_person=True)
    assert [row[0] for row in rows] == [
        "random",
        "Human (p01)",
        "Human (p02)",
        "Human (mean)",
        "Human (best)",
    ]
    result = CliRunner().invoke(
        main, ["table", str(model), str(people["p01"]), str(people["p02"]), "--by", "category"]
    )
    assert result.exit_code == 0, result.output
    assert "| Human (mean) |" in result.output and "| Human (best) |" in result.output


def test_vqakit_score_scores_a_run_as_it_stands(studio):
    run = studio.participant_run(studio.workspace(None), "p01")
    for _ in range(3):
        sample = run.next_sample()
        run.record(
            sample.id, body(**({"choice": sample.answer} if sample.choices else {"text": "x"})), None, ""
        )
    result = CliRunner().invoke(main, ["score", str(run.folder)])
    assert result.exit_code == 0, result.output
    scored = RunFolder(run.folder).score_rows()
    assert len(scored) == 3 and str(run.folder) in result.output


def test_written_reasoning_is_graded_by_the_rubric_judge(tmp_path):
    grades = tmp_path / "rubric.jsonl"  # the rubric judge's reply: a test double of its model
    grades.write_text(
        json.dumps(
            {
                "sample_id": "wb-appears-during-step1",
                "reply": "[Perceptual Correctness: 2]\n[Temporal Grounding: 1]\n"
                "[Logical Reasoning: 2]\n[Completeness: 0]",
            }
        )
        + "\n"
    )
    studio = Studio(
        StudioSettings(folders=["sample"], runs=tmp_path / "runs", judges={"rubric": f"replay:{grades}"})
    )
    run = studio.participant_run(studio.workspace(None), "p01")
    written = "1. STEP 1 is shown from 00:00 to 00:03.\n2. The yellow bar appears at 00:02, during it."
    step1 = run.samples["wb-appears-during-step1"]
    run.record(step1.id, body(choice=step1.answer, reasoning=written), SHOWN, "shown")
    circle = run.samples["wb-circle-motion"]  # a reference trace, but no reasoning written: not graded
    run.record(circle.id, body(choice=circle.answer), SHOWN, "shown")
    run.score()
    assert run.scoring == "done"
    folder = RunFolder(run.folder)
    assert folder.predictions()[step1.id].reasoning == written  # what the judge was given
    judged = folder.judgments()
    assert set(judged[step1.id]) == {"rubric"} and "rubric" not in judged.get(circle.id, {})
    assert judged[step1.id]["rubric"]["error"] is None
    rubric = folder.results["rubric"]
    assert (rubric["perceptual_correctness"]["n"], rubric["perceptual_correctness"]["mean"]) == (1, 2.0)
    assert (rubric["temporal_grounding"]["mean"], rubric["completeness"]["mean"]) == (1.0, 0.0)


def test_state_changing_requests_need_a_request_id(tmp_path):
    from starlette.testclient import TestClient

    from vqakit.studio import create_app

    studio = Studio(
        StudioSettings(folders=["sample"], runs=tmp_path / "runs", review_dir=tmp_path / "review")
    )
    web = TestClient(create_app(studio), base_url="http://127.0.0.1:8765")
    login = {"x-csrf-token": web.get("/api/session").json()["csrf"]}
    web.post("/api/session", json={"person": "alice"}, headers=login)
    csrf = {"x-csrf-token": web.get("/api/session").json()["csrf"]}  # the session's own token
    for url, sent in (
        ("/api/review/ped-sign", {"decision": "keep"}),
        ("/api/answer/ped-sign", {"choice": 0, "elapsed_s": 1.0}),
    ):
        refused = web.post(url, json=sent, headers=csrf)
        assert refused.status_code == 422 and "request_id" in refused.json()["error"], url
        done = web.post(url, json={**sent, "request_id": "retry-00001"}, headers=csrf)
        again = web.post(url, json={**sent, "request_id": "retry-00001"}, headers=csrf)
        assert (done.status_code, again.status_code) == (201, 200), url  # a retry is written once
