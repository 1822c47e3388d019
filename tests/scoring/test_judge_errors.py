"""A judgment record with an error is the judge's failure: the sample's score row says so (never
a quiet "unscored"), results.json counts it once under `errors` by judge and kind, and a judge
that does not score the sample leaves its score standing."""

from __future__ import annotations

from vqakit.schema import Prediction, PredictionError, Sample
from vqakit.scoring import errors_text, score_sample, summarise


def open_ended(sample_id: str) -> Sample:
    return Sample(id=sample_id, question="what?", videos=[{"path": "v.mp4"}], answer="a cat")


def mcq(sample_id: str) -> Sample:
    return Sample(id=sample_id, question="q", videos=[{"path": "v.mp4"}], choices=["a", "b"], answer=0)


def test_judge_failures_are_errors_counted_once():
    samples = [open_ended("o1"), open_ended("o2"), mcq("m1"), mcq("m2")]
    predictions = {
        "o1": Prediction(sample_id="o1", method="m", reply="a cat"),
        "o2": Prediction(sample_id="o2", method="m", error=PredictionError(type="server", message="500")),
        "m1": Prediction(sample_id="m1", method="m", choice=0),
        "m2": Prediction(sample_id="m2", method="m", reply="hmm", choice=None),
    }
    records = {
        # a record written before judgments carried their kind: read from the message
        "o1": {"open": {"raw": "unclear", "verdict": None, "error": "invalid_output: no yes or no"}},
        # a judge of the failed sample is not counted again
        "o2": {"open": {"raw": None, "verdict": None, "error": "boom", "error_kind": "auth"}},
        # the extractor was not needed here (the rules read the choice): its failure is listed,
        # the sample keeps its score
        "m1": {"extract": {"raw": None, "choice": None, "error": "HTTP 401", "error_kind": "auth"}},
        "m2": {"extract": {"raw": None, "choice": None, "error": "HTTP 401", "error_kind": "auth"}},
    }
    rows = [score_sample(s, predictions[s.id], records[s.id]) for s in samples]
    assert [row["status"] for row in rows] == [
        "error: judge open: invalid_output",
        "error: server",
        "answered",
        "error: judge extract: auth",
    ]
    assert rows[2]["judge_errors"] == {"extract": "auth"} and rows[2]["correct"] is True
    results = summarise(samples, rows)
    assert results["errors"] == {
        "n": 4,
        "by_kind": {"judge extract: auth": 2, "judge open: invalid_output": 1, "server": 1},
        "counted_as_wrong": False,
        "by_judge": {"extract": {"auth": 2}, "open": {"invalid_output": 1}},
        "scored_without_judge": 1,
    }
    assert results["mcq"]["n"] == 1 and results["open_ended"]["n"] == 0
    assert errors_text([results], judges_only=True) == (
        "judge(s) failed on 3 sample(s) (judge extract: auth 2, judge open: invalid_output 1); "
        "rerun the same command to retry them, or see each one's error in report.html"
    )
    strict = score_sample(samples[3], predictions["m2"], records["m2"], errors_as_wrong=True)
    assert strict["correct"] is False and strict["error"] == "judge extract: auth"


def test_a_judge_not_yet_run_leaves_the_sample_unscored_not_wrong():
    sample = mcq("m")
    prediction = Prediction(sample_id="m", method="m", reply="hmm", choice=None)
    assert score_sample(sample, prediction)["status"] == "abstained"
    waiting = score_sample(sample, prediction, missing=("extract",))
    assert waiting["status"] == "unscored (not judged yet: extract)" and waiting["correct"] is None
    answer = open_ended("o")
    row = score_sample(answer, Prediction(sample_id="o", method="m", reply="x"), missing=("open",))
    assert row["status"] == "unscored (not judged yet: open)"
