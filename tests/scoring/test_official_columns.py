"""The benchmark's own table (`official` on the card) computed from scored samples: merges,
columns per key, means of per-key accuracies, and the card checks that keep a table well formed."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from vqakit.schema import OfficialTable, Sample
from vqakit.scoring import summarise


def sample(i: int, **metadata) -> Sample:
    return Sample.model_validate(
        {"id": f"q{i}", "question": "?", "choices": ["a", "b"], "answer": 0, "videos": [{"path": "v.mp4"}],
         "metadata": metadata}
    )  # fmt: skip


def row(i: int, correct: bool | None, mcq: bool = True) -> dict:
    return {"sample_id": f"q{i}", "mcq": mcq, "correct": correct, "status": "answered"}


TABLE = OfficialTable.model_validate(
    {
        "source": "a test",
        "headline": "Mean",
        "columns": [
            {"name": "X", "group": "kind", "keys": ["x"]},
            {"name": "X+Y", "group": "kind", "keys": ["x", "y"]},
            {"name": "Tag", "group": "skills", "each": True, "keys": ["late"]},
            {"name": "Mean", "group": "kind", "mean": "keys"},
            {"name": "All"},
        ],
    }
)


def test_columns_pool_merge_expand_and_average():
    samples = [
        sample(0, kind="x", skills=["early", "late"]),
        sample(1, kind="x", skills=["early"]),
        sample(2, kind="y", skills=["late", "late"]),
        sample(3, kind="z", skills=[]),
        sample(4, kind="z"),  # failed: left out
    ]
    rows = [row(0, True), row(1, False), row(2, True), row(3, False), row(4, None)]
    official = summarise(samples, rows, groups=(), official=TABLE)["official"]
    columns = {column["name"]: column for column in official["columns"]}
    assert [c["name"] for c in official["columns"]] == ["X", "X+Y", "late", "early", "Mean", "All"]
    assert (columns["X"]["n"], columns["X"]["accuracy"]) == (2, 0.5)
    assert (columns["X+Y"]["n"], columns["X+Y"]["accuracy"]) == (3, pytest.approx(2 / 3))
    assert (columns["late"]["n"], columns["late"]["accuracy"], columns["late"]["block"]) == (2, 1.0, "Tag")
    assert (columns["early"]["n"], columns["early"]["accuracy"]) == (2, 0.5)
    assert columns["Mean"]["keys"] == {"x": 0.5, "y": 1.0, "z": 0.0}
    assert columns["Mean"]["accuracy"] == pytest.approx(0.5) and columns["Mean"]["n"] == 4
    assert (columns["All"]["n"], columns["All"]["accuracy"]) == (4, 0.5)
    assert official["headline"] == "Mean" and official["source"] == "a test"


def test_a_mean_of_keys_headline_joins_the_run_s_headline_numbers():
    samples = [sample(i, kind="x" if i < 3 else "y") for i in range(4)]
    results = summarise(samples, [row(0, True), row(1, True), row(2, True), row(3, False)], official=TABLE)
    keys = [entry["key"] for entry in results["headline"]]
    assert keys == ["mcq", "official"]
    assert results["headline"][1]["value"] == pytest.approx(0.5)  # (1.0 + 0.0) / 2, not 3 of 4
    assert results["headline"][1]["label"] == "Mean (mean of 2 accuracies)"


def test_open_ended_samples_stay_out_of_the_table():
    samples = [sample(0, kind="x"), sample(1, kind="x")]
    official = summarise(samples, [row(0, True), row(1, False, mcq=False)], official=TABLE)["official"]
    assert next(c for c in official["columns"] if c["name"] == "X")["n"] == 1


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"headline": "Nope", "columns": [{"name": "All"}]}, "is not a column"),
        ({"headline": "All", "columns": [{"name": "All"}, {"name": "All"}]}, "named twice"),
        ({"headline": "All", "columns": [{"name": "All", "keys": ["x"]}]}, "need a group"),
        ({"headline": "T", "columns": [{"name": "T", "group": "g", "each": True}]}, "must be one column"),
        ({"headline": "All", "columns": []}, "at least 1"),
    ],
)
def test_a_table_that_cannot_be_computed_is_refused_with_a_reason(table: dict, message: str):
    with pytest.raises(ValidationError, match=message):
        OfficialTable.model_validate({"source": "s", **table})
