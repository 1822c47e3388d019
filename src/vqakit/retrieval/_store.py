"""A small embedded vector store: one table = a float32 matrix (`NAME.npy`) plus one JSON line
per row (`NAME.jsonl`: id, content key, extra fields).

Rows are L2-normalised, so search is a dot product. Exact search scans the matrix (fast well
into the hundreds of thousands of rows on one core). For larger tables an inverted-file index
(`build_ivf`) clusters the rows with k-means and a search scans only the `probes` clusters
nearest to the query: approximate, much less work. Writes go to temporary files that replace
the old ones, so a killed indexer leaves the previous table intact.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.files import write_atomic
from vqakit.retrieval._kmeans import spherical_kmeans


@dataclass(frozen=True)
class Row:
    id: str
    key: str  # content hash: a row whose key is unchanged is not embedded again
    vector: np.ndarray
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    id: str
    score: float
    extra: dict[str, Any]


class RowBook:
    """The in-memory side of a table: row ids, content keys and extra fields, by position.
    Shared by the NumPy table and the LanceDB table (`_lance`)."""

    name: str
    ids: list[str]
    keys: list[str]
    extras: list[dict[str, Any]]

    def _reindex(self) -> None:
        self._position = {row_id: i for i, row_id in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, row_id: str) -> bool:
        return row_id in self._position

    def key_of(self, row_id: str) -> str | None:
        position = self._position.get(row_id)
        return None if position is None else self.keys[position]

    def extra_of(self, row_id: str) -> dict[str, Any]:
        return self.extras[self._position[row_id]]

    def _query_vector(self, query: np.ndarray, dim: int) -> np.ndarray:
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != dim:
            raise ValueError(
                f"query has {query.shape[0]} dimensions but table {self.name!r} has {dim}; "
                "was the index built with another embedder?"
            )
        return query


class VectorTable(RowBook):
    def __init__(self, folder: str | Path, name: str) -> None:
        self.folder: Path | None = Path(folder)
        self.name = name
        self.ids: list[str] = []
        self.keys: list[str] = []
        self.extras: list[dict[str, Any]] = []
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self._ivf: tuple[np.ndarray, np.ndarray] | None = None  # (centroids, list of each row)
        self._position: dict[str, int] = {}
        matrix, rows = self._paths()
        if matrix.exists() and rows.exists():
            for number, line in enumerate(rows.read_text(encoding="utf-8").splitlines(), start=1):
                try:
                    record = json.loads(line)
                    self.ids.append(record["id"])
                    self.keys.append(record["key"])
                    self.extras.append(record.get("extra", {}))
                except (json.JSONDecodeError, KeyError) as error:
                    raise ValueError(
                        f"{rows}:{number}: broken index row ({error}); rebuild the index"
                    ) from None
            self.vectors = np.load(matrix)
            if len(self.vectors) != len(self.ids):
                raise ValueError(
                    f"{matrix}: {len(self.vectors)} vectors for {len(self.ids)} rows; rebuild the index"
                )
            ivf = self._ivf_path()
            if ivf.exists():
                with np.load(ivf) as stored:
                    self._ivf = (stored["centroids"], stored["assignment"])
        self._reindex()

    @classmethod
    def in_memory(cls, name: str, rows: list[Row]) -> VectorTable:
        """A table that lives in memory only (`save` refuses), e.g. one derived from another."""
        table = cls.__new__(cls)
        table.folder, table.name = None, name
        table.ids, table.keys, table.extras = [], [], []
        table.vectors = np.zeros((0, 0), dtype=np.float32)
        table._ivf, table._position = None, {}
        table.replace_rows([], rows)
        return table

    def _paths(self) -> tuple[Path, Path]:
        if self.folder is None:
            raise ValueError(f"table {self.name!r} lives in memory only")
        return self.folder / f"{self.name}.npy", self.folder / f"{self.name}.jsonl"

    def _ivf_path(self) -> Path:
        return self._paths()[0].with_name(f"{self.name}.ivf.npz")

    def vector_of(self, row_id: str) -> np.ndarray:
        return self.vectors[self._position[row_id]]

    def vectors_of(self, row_ids: list[str]) -> np.ndarray:
        """Vectors of these rows, in this order."""
        if not row_ids:
            return np.zeros((0, self.vectors.shape[1] if self.vectors.ndim == 2 else 0), dtype=np.float32)
        return self.vectors[[self._position[row_id] for row_id in row_ids]]

    def replace_rows(self, keep: Iterable[str], fresh: list[Row]) -> None:
        """Keep the rows whose ids are in `keep` (in their order), then add or overwrite `fresh`."""
        kept = [self._position[row_id] for row_id in keep if row_id in self._position]
        fresh_ids = {row.id for row in fresh}
        kept = [i for i in kept if self.ids[i] not in fresh_ids]
        if not fresh and kept == list(range(len(self.ids))):
            return  # nothing changes (and an IVF index stays valid)
        vectors = [self.vectors[i] for i in kept] + [np.asarray(r.vector, np.float32) for r in fresh]
        self.ids = [self.ids[i] for i in kept] + [r.id for r in fresh]
        self.keys = [self.keys[i] for i in kept] + [r.key for r in fresh]
        self.extras = [self.extras[i] for i in kept] + [r.extra for r in fresh]
        self.vectors = np.stack(vectors).astype(np.float32) if vectors else np.zeros((0, 0), np.float32)
        self._ivf = None
        self._reindex()

    def save(self) -> None:
        matrix, rows = self._paths()
        matrix.parent.mkdir(parents=True, exist_ok=True)
        lines = "".join(
            json.dumps({"id": i, "key": k, "extra": e}) + "\n"
            for i, k, e in zip(self.ids, self.keys, self.extras, strict=True)
        )
        write_atomic(matrix, lambda handle: np.save(handle, self.vectors))
        write_atomic(rows, lambda handle: handle.write(lines.encode("utf-8")))
        ivf = self._ivf_path()
        if self._ivf is not None:
            centroids, assignment = self._ivf
            write_atomic(ivf, lambda handle: np.savez(handle, centroids=centroids, assignment=assignment))
        elif ivf.exists():
            ivf.unlink()

    def build_ivf(self, lists: int | None = None, *, iterations: int = 12, seed: int = 0) -> None:
        """Cluster the rows (spherical k-means, `lists` clusters, default about sqrt(rows))."""
        count = len(self.ids)
        if count == 0:
            self._ivf = None
            return
        lists = max(1, min(count, lists or int(np.sqrt(count))))
        centroids, assignment = spherical_kmeans(self.vectors, lists, iterations=iterations, seed=seed)
        self._ivf = (centroids, assignment)

    @property
    def has_ivf(self) -> bool:
        return self._ivf is not None

    def search(
        self,
        query: np.ndarray,
        k: int,
        *,
        among: Collection[str] | None = None,
        exclude: Collection[str] = (),
        approximate: bool = False,
        probes: int = 8,
    ) -> list[Hit]:
        """The k rows most similar to `query` (best first), optionally only rows in `among`."""
        if len(self.ids) == 0 or k <= 0:
            return []
        query = self._query_vector(query, self.vectors.shape[1])
        if among is not None:
            candidates: np.ndarray | None = np.array(
                sorted(self._position[i] for i in among if i in self._position), dtype=np.int64
            )
        elif approximate and self._ivf is not None:
            centroids, assignment = self._ivf
            nearest = np.argsort(-(centroids @ query))[:probes]
            candidates = np.flatnonzero(np.isin(assignment, nearest))
        else:
            candidates = None  # every row: no copy of the matrix
        scores = (self.vectors if candidates is None else self.vectors[candidates]) @ query
        if candidates is None:
            candidates = np.arange(len(self.ids))
        if exclude:
            skip = {self._position[i] for i in exclude if i in self._position}
            keep = np.array([c not in skip for c in candidates.tolist()], dtype=bool)
            candidates, scores = candidates[keep], scores[keep]
        if candidates.size == 0:
            return []
        if k < scores.size:  # the k best in linear time; ties go to the earlier row
            top = np.argpartition(-scores, k - 1)[:k]
            order = top[np.lexsort((candidates[top], -scores[top]))]
        else:
            order = np.lexsort((candidates, -scores))
        return [Hit(self.ids[candidates[i]], float(scores[i]), self.extras[candidates[i]]) for i in order]
