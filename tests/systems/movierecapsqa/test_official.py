"""The exchange with the official evaluation code: its response JSONL (or a CSV of question id
and answer) imported as a run, scored by the claim judges through a loopback server, and written
back in its results shape. Nothing that fails to match is dropped without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from claim_loopback import LoopbackJudges, build_bench
from click.testing import CliRunner

from vqakit.cli.export_movierecapsqa import movierecapsqa_results
from vqakit.cli.import_answers import claim_judges, movierecapsqa_answers
from vqakit.schema import Sample
from vqakit.systems.movierecapsqa import claims_report, judges  # noqa: F401  (registers them)
from vqakit.systems.movierecapsqa.official import import_answers
from vqakit.systems.movierecapsqa.official_answers import Response, match_answers
from vqakit.systems.movierecapsqa.official_results import write_official_results

OFFICIAL = Path(__file__).parents[2] / "fixtures/movierecapsqa/official"
ALL = ("claims", "factuality", "relevance", "coherence")


@pytest.fixture
def bench(tmp_path, index_clip):
    return build_bench(tmp_path / "bench", index_clip)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_official_responses_round_trip_to_the_official_results_shape(bench, tmp_path):
    run = tmp_path / "run"
    with LoopbackJudges() as server:
        spec = f"openai-compatible:{server.url}#judge"
        outcome = import_answers(
            OFFICIAL / "responses.jsonl", bench.root, run, label="some-model", judges=dict.fromkeys(ALL, spec)
        )
        asked = len(server.chats)
        again = import_answers(
            OFFICIAL / "responses.jsonl", bench.root, run, label="some-model", judges=dict.fromkeys(ALL, spec)
        )
        assert len(server.chats) == asked and again.matched == 4  # resumed, nothing asked again
    assert outcome.matched == 4 and outcome.format == "official-jsonl"
    assert [(u["line"], u["why"]) for u in outcome.unmatched] == [
        (5, "matches no question of the benchmark"),
        (6, "answers v1.0.0 again (line 1 is kept)"),
        (7, "unreadable: -: malformed JSON (Expecting value at column 1)"),
    ]
    assert outcome.missing == ["v1.1.2"]
    assert json.loads((run / "import.json").read_text())["questions_without_answer"] == ["v1.1.2"]
    config = yaml.safe_load((run / "config.yaml").read_text())
    assert config["method"] == "imported" and config["method_args"]["format"] == "official-jsonl"
    assert (
        config["method_args"]["source"].endswith("responses.jsonl")
        and len(config["method_args"]["digest"]) == 16
    )
    predictions = {p["sample_id"]: p for p in lines(run / "predictions.jsonl")}
    assert (
        predictions["v1.0.0"]["reply"].startswith("Mara hides")
        and predictions["v1.0.0"]["model"] == "some-model"
    )
    assert predictions["v1.1.1"]["error"] == {"type": "answer_error", "message": "timeout after 3 retries"}
    assert predictions["v1.1.2"]["error"]["type"] == "not_applicable"
    assert outcome.results["factuality"]["overall"]["n"] == 2
    assert outcome.results["errors"]["by_kind"] == {"answer_error": 1}
    judged = [
        r for r in lines(run / "judgments.jsonl") if r["kind"] == "factuality" and r["status"] == "scored"
    ]
    assert all(r["dialogue_lines"] == 2 for r in judged)  # the import tells the judges where subtitles are

    written, left_out = write_official_results(run, tmp_path / "results.jsonl")
    assert written == 3 and left_out == {"no_answer": 1, "failed": 1, "not_judged": 0}
    results = lines(tmp_path / "results.jsonl")
    assert [r["question_idx"] for r in results] == [0, 1, 2]
    wary = results[1]
    assert {k: wary[k] for k in ("video_id", "segment_id", "question_id")} == {
        "video_id": "v1",
        "segment_id": 0,
        "question_id": 1,
    }
    assert wary["claims"] == ["Tom is wary of Mara.", "Tom owns a red car."]
    factuality = wary["evaluations"]["factuality"]
    assert factuality["factuality_score"] == 3
    assert [c["label"] for c in factuality["claim_evaluations"]] == ["PARTIALLY_SUPPORTED", "UNSUPPORTED"]
    assert (
        factuality["claim_evaluations"][0]["claim_number"] == 1
        and factuality["claim_evaluations"][0]["claim_text"]
    )
    scores = [wary["evaluations"][m][f"{m}_score"] for m in ("factuality", "coherence", "relevance")]
    assert wary["aggregate_score"] == pytest.approx(sum(scores) / 3) and scores == [3, 5, 3]
    assert wary["metadata"] == {"sample_id": "v1.0.1", "category": "CRD", "modality": "scene"}
    empty = results[2]
    assert empty["claims"] == [] and empty["aggregate_score"] == -1
    assert empty["evaluations"]["relevance"] == {
        "relevance_score": -1,
        "claim_evaluations": [],
        "error": "not scored: empty_answer",
    }


def test_a_csv_of_answers_imports_scores_and_exports_from_the_command_line(bench, tmp_path):
    run, out = tmp_path / "run", tmp_path / "official.jsonl"
    with LoopbackJudges() as server:
        spec = f"openai-compatible:{server.url}#judge"
        arguments = [
            str(OFFICIAL / "answers.csv"),
            "--bench",
            str(bench.root),
            "--out",
            str(run),
            "--judge",
            spec,
        ]
        done = CliRunner().invoke(movierecapsqa_answers, [*arguments, "--judge-arg", "temperature=0"])
    assert done.exit_code == 0, done.output
    assert (
        "not imported: line 5 {'id': 'no-such-question'} matches no question of the benchmark" in done.output
    )
    assert "2 question(s) of the benchmark have no answer: v1.0.1, v1.1.1" in done.output
    assert "imported 3 answer(s) (csv)" in done.output and "factuality: " in done.output
    assert yaml.safe_load((run / "config.yaml").read_text())["judge_args"]["coherence"] == {
        "temperature": 0.0
    }
    exported = CliRunner().invoke(movierecapsqa_results, [str(run), "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    assert "wrote 3 question(s)" in exported.output and "left out: 2 no answer" in exported.output
    by_id = {r["metadata"]["sample_id"]: r for r in lines(out)}
    assert by_id["v1.1.0"]["evaluations"]["factuality"]["claim_evaluations"][1]["label"] == "CONTRADICTORY"
    assert by_id["v1.1.2"]["evaluations"]["factuality"]["error"] == "not scored: no_claims"
    assert claim_judges(("a:b", "factuality=c:d")) == {
        "claims": "a:b",
        "factuality": "c:d",
        "relevance": "a:b",
        "coherence": "a:b",
    }


def test_other_answers_or_another_run_in_the_folder_are_refused(bench, tmp_path):
    run = tmp_path / "run"
    import_answers(OFFICIAL / "answers.csv", bench.root, run)
    with pytest.raises(ValueError, match="holds other imported answers"):
        import_answers(OFFICIAL / "responses.jsonl", bench.root, run)
    (tmp_path / "other").mkdir()
    (tmp_path / "other/config.yaml").write_text("method: direct\nbench: x\n")
    with pytest.raises(ValueError, match="run of another method"):
        import_answers(OFFICIAL / "answers.csv", bench.root, tmp_path / "other")
    written, left_out = write_official_results(run, tmp_path / "none.jsonl")
    assert written == 0 and left_out["not_judged"] == 3  # imported without judges: nothing to export


def test_answers_match_by_segment_keys_index_or_id_and_never_by_a_guess(bench):
    answers = [
        Response(1, {"video_id": "v1", "segment_id": 1, "question_id": 0}, "a"),
        Response(2, {"question_idx": 4}, "b"),  # the benchmark does not know question indices
        Response(3, {"id": "v1.0.1"}, "c"),
        Response(4, {"video_id": "v2", "segment_id": 0, "question_id": 2}, "d"),  # v2 is not in the benchmark
        Response(5, {"question_id": 1}, "e"),  # question id 1 is in two segments
        Response(6, {"id": "v1.1.2"}, "f"),
    ]
    kept, unmatched = match_answers(bench.samples, answers)
    assert [(k["sample_id"], k["reply"]) for k in kept] == [("v1.0.1", "c"), ("v1.1.0", "a"), ("v1.1.2", "f")]
    assert [u["line"] for u in unmatched] == [2, 4, 5]
    indexed = [
        Sample.model_validate({**s.model_dump(), "metadata": {**s.metadata.model_dump(), "question_idx": i}})
        for i, s in enumerate(bench.samples)
    ]
    kept, unmatched = match_answers(indexed, answers[1:2])
    assert [k["sample_id"] for k in kept] == ["v1.1.2"] and not unmatched


def test_the_aggregate_is_the_official_codes_and_ours_is_kept_beside_it():
    """The official evaluation averages whichever of the three scores a question has; ours, which
    needs all three, is `aggregate_score_all_three`."""
    from vqakit.schema import Prediction
    from vqakit.systems.movierecapsqa.official_results import result_line

    sample = Sample(id="q", question="Who hides the key?", answer="Mara.")
    prediction = Prediction(sample_id="q", method="imported", reply="Mara does.")
    records = {
        "claims": {"claims": ["Mara hides the key."]},
        "factuality": {"score": 4, "claims": []},
        "relevance": {"score": None, "status": "error", "error": "judge error: 401"},
        "coherence": {"score": 5, "claims": []},
    }
    line = result_line(sample, prediction, records, None)
    assert line["evaluations"]["relevance"]["relevance_score"] == -1
    assert line["aggregate_score"] == pytest.approx(4.5) and line["aggregate_score_all_three"] == -1
    full = result_line(sample, prediction, {**records, "relevance": {"score": 3, "claims": []}}, None)
    assert full["aggregate_score"] == full["aggregate_score_all_three"] == pytest.approx(4.0)
    nothing = {k: {"score": None, "status": "no_claims"} for k in ("factuality", "relevance", "coherence")}
    assert result_line(sample, prediction, nothing, None)["aggregate_score"] == -1
