from __future__ import annotations

import pytest

from vqakit.schema import Prediction, PredictionError, Sample
from vqakit.scoring import bootstrap_interval, score_sample, summarise


def mcq(sample_id: str, answer: int, **metadata) -> Sample:
    return Sample(
        id=sample_id,
        question="q",
        videos=[{"path": "v.mp4"}],
        choices=["a", "b", "c"],
        answer=answer,
        metadata=metadata,
    )


def test_bootstrap_interval():
    assert bootstrap_interval([1.0] * 20) == (1.0, 1.0)
    low, high = bootstrap_interval([1.0] * 50 + [0.0] * 50)
    assert 0.38 < low < 0.5 < high < 0.62
    assert bootstrap_interval([1.0, 0.0], seed=3) == bootstrap_interval([1.0, 0.0], seed=3)


def test_scores_and_groups():
    samples = [
        mcq("a", 0, category="x", skills=["count", "ocr"]),
        mcq("b", 1, category="x", skills=["count"]),
        mcq("c", 2, category="y", hop=2, grounding="local"),
        Sample(id="d", question="open?", videos=[{"path": "v.mp4"}], answer="text"),
    ]
    predictions = {
        "a": Prediction(sample_id="a", method="m", choice=0),
        "b": Prediction(sample_id="b", method="m", choice=None, extraction="no option"),
        "c": Prediction(sample_id="c", method="m", error=PredictionError(type="timeout", message="slow")),
        "d": Prediction(sample_id="d", method="m", reply="something"),
    }
    rows = [score_sample(s, predictions[s.id]) for s in samples]
    assert [r["status"] for r in rows] == [
        "answered",
        "abstained",
        "error: timeout",
        "unscored (open-ended needs a judge)",
    ]
    results = summarise(samples, rows)
    # the failed sample is an error, never a score: accuracy is over the two scored MCQs
    assert results["overall"]["n"] == 2 and results["overall"]["accuracy"] == pytest.approx(1 / 2)
    assert results["mcq"]["n"] == 2 and results["open_ended"]["n"] == 0
    assert results["errors"] == {
        "n": 1,
        "by_kind": {"timeout": 1},
        "counted_as_wrong": False,
        "by_judge": {},
        "scored_without_judge": 0,
    }
    assert results["counts"] == {
        "answered": 1,
        "abstained": 1,
        "error": 1,
        "unscored (open-ended needs a judge)": 1,
    }
    assert (
        results["groups"]["category"]["x"]["n"] == 2 and results["groups"]["category"]["x"]["accuracy"] == 0.5
    )
    assert (
        results["groups"]["skills"]["count"]["n"] == 2
        and results["groups"]["skills"]["ocr"]["accuracy"] == 1.0
    )
    assert "hop_grounding" not in results["groups"]  # its one sample failed
    assert results["letters"] == {"chosen": {"A": 1}, "gold": {"A": 1, "B": 1}}
    strict_rows = [score_sample(s, predictions[s.id], errors_as_wrong=True) for s in samples]
    strict = summarise(samples, strict_rows)
    assert strict["overall"]["n"] == 3 and strict["overall"]["accuracy"] == pytest.approx(1 / 3)
    assert strict["errors"]["counted_as_wrong"] is True
    assert strict["groups"]["hop_grounding"]["2-hop local"]["accuracy"] == 0.0
    assert strict["groups"]["hop_grounding"]["2-hop local"]["interval"] == "wilson"


def test_small_groups_are_left_out():
    samples = [mcq(f"s{i}", 0, category="big" if i < 4 else "small") for i in range(5)]
    rows = [score_sample(s, Prediction(sample_id=s.id, method="m", choice=0)) for s in samples]
    results = summarise(samples, rows, min_group_size=3)
    assert list(results["groups"]["category"]) == ["big"] and results["overall"]["n"] == 5


def test_hidden_answers_are_run_but_never_scored():
    """A test split's questions (answer null) keep the option read, for the submission file,
    and count apart: accuracy is over the questions whose answers are known."""
    samples = [
        mcq("known", 1, category="x"),
        Sample(id="hidden", question="q", videos=[{"path": "v.mp4"}], choices=["a", "b"], answer=None),
        Sample(id="open", question="q?", videos=[{"path": "v.mp4"}], answer=None),
    ]
    predictions = {
        "known": Prediction(sample_id="known", method="m", choice=1),
        "hidden": Prediction(sample_id="hidden", method="m", choice=0),
        "open": Prediction(sample_id="open", method="m", reply="a cat"),
    }
    rows = [score_sample(s, predictions[s.id]) for s in samples]
    assert rows[1] == {**rows[1], "status": "unscored (answer hidden)", "correct": None, "chosen": "A"}
    assert "gold" not in rows[1] and rows[2]["status"] == "unscored (answer hidden)"
    results = summarise(samples, rows)
    assert results["mcq"]["n"] == 1 and results["mcq"]["accuracy"] == 1.0
    assert results["counts"] == {"answered": 1, "unscored (answer hidden)": 2}
    assert results["letters"]["gold"] == {"B": 1}
    with pytest.raises(ValueError, match="Field required"):
        Sample(id="x", question="q", choices=["a", "b"])  # hidden is said with null, never by leaving it out


def test_bootstrap_draws_in_bounded_memory_and_large_accuracies_by_binomial():
    """2,000 resamples of 100,000 values drew 1.6 GB of indices at once. Drawn a few resamples
    at a time the draws are the same; for many 0/1 values each resample's number of ones is
    drawn directly (the same bootstrap distribution, in constant time)."""
    import numpy as np

    from vqakit.scoring._intervals import BINOMIAL_FROM, DRAWS_AT_ONCE

    rng = np.random.default_rng(3)
    values = list(rng.random(DRAWS_AT_ONCE // 700) * 5)  # several steps of resamples
    data = np.asarray(values)
    at_once = data[np.random.default_rng(0).integers(0, data.size, size=(2000, data.size))].mean(axis=1)
    assert bootstrap_interval(values) == tuple(float(x) for x in np.percentile(at_once, [2.5, 97.5]))
    right = [1.0] * (BINOMIAL_FROM * 3 // 10) + [0.0] * (BINOMIAL_FROM * 7 // 10)
    low, high = bootstrap_interval(right)
    half = 1.96 * (0.3 * 0.7 / len(right)) ** 0.5  # the normal approximation's half width
    assert abs((high - low) / 2 - half) < 0.15 * half and low < 0.3 < high
