"""Vector tables, NumPy and LanceDB behind one interface: exact search, filters, persistence,
incremental replacement, approximate (IVF) search."""

from __future__ import annotations

import numpy as np
import pytest

from vqakit.retrieval import Row, VectorTable
from vqakit.retrieval._index import open_table


@pytest.fixture(params=["numpy", "lancedb"])
def store(request) -> str:
    if request.param == "lancedb":
        pytest.importorskip("lancedb")
    return request.param


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def table_of(folder, vectors: np.ndarray, store: str = "numpy"):
    table = open_table(folder, "items", store)
    table.replace_rows([], [Row(f"r{i}", f"k{i}", v, {"n": i}) for i, v in enumerate(vectors)])
    return table


def test_exact_search_ranks_by_cosine_and_respects_filters(tmp_path, store):
    vectors = unit(np.random.default_rng(0).normal(size=(200, 16)))
    table = table_of(tmp_path, vectors, store)
    query = vectors[17] + 0.01
    hits = table.search(query, 5)
    scores = vectors @ unit(query[None])[0]
    assert [h.id for h in hits] == [f"r{i}" for i in np.argsort(-scores)[:5]]
    assert hits[0].id == "r17" and hits[0].extra == {"n": 17}
    assert hits[0].score == pytest.approx(float(vectors[17] @ query), abs=1e-5)
    assert [h.id for h in table.search(query, 3, among=["r1", "r2", "r3"])] == sorted(
        ["r1", "r2", "r3"], key=lambda i: -scores[int(i[1:])]
    )
    assert "r17" not in [h.id for h in table.search(query, 5, exclude=["r17"])]
    np.testing.assert_allclose(table.vectors_of(["r3", "r1"]), vectors[[3, 1]], atol=1e-7)


def test_saved_table_loads_back_identically(tmp_path, store):
    vectors = unit(np.random.default_rng(1).normal(size=(30, 8)))
    table = table_of(tmp_path, vectors, store)
    table.build_ivf(4)
    table.save()
    again = open_table(tmp_path, "items", store)
    assert again.ids == table.ids and again.keys == table.keys and again.extras == table.extras
    np.testing.assert_array_equal(again.vectors, vectors)
    assert again.has_ivf
    assert not list(tmp_path.glob("*.tmp"))


def test_replace_rows_keeps_order_and_overwrites(tmp_path, store):
    vectors = unit(np.eye(4))
    table = table_of(tmp_path, vectors, store)
    table.replace_rows(["r3", "r0", "gone"], [Row("r0", "new", vectors[1]), Row("r9", "k9", vectors[2])])
    assert table.ids == ["r3", "r0", "r9"]
    assert table.key_of("r0") == "new" and table.key_of("r1") is None
    np.testing.assert_array_equal(table.vector_of("r0"), vectors[1])
    table.save()
    again = open_table(tmp_path, "items", store)
    assert sorted(again.ids) == ["r0", "r3", "r9"] and again.key_of("r0") == "new"
    assert [h.id for h in again.search(vectors[2], 1)] == ["r9"]


def test_approximate_search_keeps_most_neighbours(tmp_path, store):
    rng = np.random.default_rng(2)
    centres = unit(rng.normal(size=(40, 32)))
    vectors = unit(np.repeat(centres, 100, axis=0) + 0.15 * rng.normal(size=(4000, 32)))
    table = table_of(tmp_path, vectors, store)
    table.build_ivf(64)
    assert table.has_ivf
    recall = []
    for query in unit(centres + 0.1 * rng.normal(size=centres.shape))[:20]:
        exact = {h.id for h in table.search(query, 10)}
        approximate = {h.id for h in table.search(query, 10, approximate=True, probes=4)}
        recall.append(len(exact & approximate) / 10)
    assert np.mean(recall) >= 0.9


def test_numpy_ivf_scans_a_fraction_of_the_rows(tmp_path):
    rng = np.random.default_rng(3)
    vectors = unit(
        np.repeat(unit(rng.normal(size=(40, 32))), 100, axis=0) + 0.15 * rng.normal(size=(4000, 32))
    )
    table = table_of(tmp_path, vectors)
    table.build_ivf(64)
    centroids, assignment = table._ivf  # type: ignore[misc]
    scanned = np.isin(assignment, np.argsort(-(centroids @ vectors[0]))[:4]).sum()
    assert scanned < len(vectors) / 4


def test_mismatched_query_and_broken_files_give_clear_errors(tmp_path, store):
    table = table_of(tmp_path, unit(np.eye(4)), store)
    with pytest.raises(ValueError, match="another embedder"):
        table.search(np.ones(8), 1)
    if store == "numpy":
        table.save()
        (tmp_path / "items.jsonl").write_text('{"id": "r0"}\n')
        with pytest.raises(ValueError, match=r"items.jsonl:1: broken index row"):
            VectorTable(tmp_path, "items")
