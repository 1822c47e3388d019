"""The same table interface as `_store.VectorTable`, stored as a LanceDB table (`pip install
'vqakit[lancedb]'`), for corpora too large to hold as one matrix in memory.

Vectors stay on disk: only ids, content keys and extra fields are held in memory. Each change
(`replace_rows`) is one or two Lance commits, which are atomic, so a killed indexer leaves the
previous version. Exact search scans the table (`bypass_vector_index`); `build_ivf` builds an
IVF_FLAT index (dot product) that approximate search probes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.retrieval._store import Hit, Row, RowBook

os.environ.setdefault("LANCE_LOG", "error")  # Lance logs warnings to stderr by default

_CHUNK = 500  # ids per SQL IN (...) filter


def _quoted(ids: Iterable[str]) -> str:
    return ", ".join("'" + item.replace("'", "''") + "'" for item in ids)


class LanceTable(RowBook):
    def __init__(self, folder: str | Path, name: str) -> None:
        try:
            import lancedb
        except ImportError:
            raise ValueError("the lancedb store needs LanceDB: pip install 'vqakit[lancedb]'") from None
        self.folder, self.name = Path(folder), name
        self.folder.mkdir(parents=True, exist_ok=True)
        self._db = lancedb.connect(str(self.folder / "lance"))
        self._table: Any = self._db.open_table(name) if name in self._db.list_tables().tables else None
        self.ids: list[str] = []
        self.keys: list[str] = []
        self.extras: list[dict[str, Any]] = []
        self.dim = 0
        if self._table is not None:
            columns = self._table.to_arrow().select(["id", "key", "extra"]).to_pydict()
            self.ids, self.keys = columns["id"], columns["key"]
            self.extras = [json.loads(extra) for extra in columns["extra"]]
            self.dim = self._table.schema.field("vector").type.list_size
        self._reindex()

    def vectors_of(self, row_ids: list[str]) -> np.ndarray:
        """Vectors of these rows, in this order."""
        if not row_ids or self._table is None:
            return np.zeros((0, self.dim), dtype=np.float32)
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(row_ids), _CHUNK):
            chunk = row_ids[start : start + _CHUNK]
            batch = (
                self._table.search()
                .where(f"id IN ({_quoted(chunk)})")
                .select(["id", "vector"])
                .limit(len(chunk))
            ).to_arrow()
            vectors = batch.column("vector").combine_chunks().flatten().to_numpy().reshape(-1, self.dim)
            found.update(zip(batch.column("id").to_pylist(), vectors, strict=True))
        return np.stack([found[row_id] for row_id in row_ids]).astype(np.float32)

    def vector_of(self, row_id: str) -> np.ndarray:
        return self.vectors_of([row_id])[0]

    @property
    def vectors(self) -> np.ndarray:
        """Every vector, in row order (reads the whole table: for small tables and tests)."""
        return self.vectors_of(list(self.ids))

    def replace_rows(self, keep: Iterable[str], fresh: list[Row]) -> None:
        import pyarrow as pa

        kept = [row_id for row_id in keep if row_id in self._position]
        fresh_ids = {row.id for row in fresh}
        kept = [row_id for row_id in kept if row_id not in fresh_ids]
        gone = sorted(set(self.ids) - set(kept))
        if self._table is not None and gone:
            for start in range(0, len(gone), _CHUNK):
                self._table.delete(f"id IN ({_quoted(gone[start : start + _CHUNK])})")
        if fresh:
            dim = len(fresh[0].vector)
            if self._table is not None and dim != self.dim:
                raise ValueError(
                    f"table {self.name!r} holds {self.dim}-d vectors, not {dim}-d; rebuild the index"
                )
            matrix = np.stack([np.asarray(row.vector, dtype=np.float32) for row in fresh])
            data = pa.table(
                {
                    "id": [row.id for row in fresh],
                    "key": [row.key for row in fresh],
                    "extra": [json.dumps(row.extra) for row in fresh],
                    "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), dim),
                }
            )
            if self._table is None:
                self._table = self._db.create_table(self.name, data=data)
            else:
                self._table.add(data)
            self.dim = dim
        by_id = {
            row_id: (self.keys[self._position[row_id]], self.extras[self._position[row_id]])
            for row_id in kept
        }
        self.ids = kept + [row.id for row in fresh]
        self.keys = [by_id[i][0] for i in kept] + [row.key for row in fresh]
        self.extras = [by_id[i][1] for i in kept] + [row.extra for row in fresh]
        self._reindex()

    def save(self) -> None:
        """Changes are committed as they are made; nothing is pending."""

    def build_ivf(self, lists: int | None = None, *, iterations: int = 12, seed: int = 0) -> None:
        from lancedb.index import IvfFlat

        if self._table is None or len(self.ids) < 2:
            return
        lists = max(1, min(len(self.ids) // 2, lists or int(np.sqrt(len(self.ids)))))
        self._table.create_index(
            "vector",
            config=IvfFlat(distance_type="dot", num_partitions=lists, max_iterations=max(iterations, 10)),
        )

    @property
    def has_ivf(self) -> bool:
        return self._table is not None and bool(self._table.list_indices())

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
        if self._table is None or not self.ids or k <= 0:
            return []
        query = self._query_vector(query, self.dim)
        filters = []
        if among is not None:
            wanted = [row_id for row_id in among if row_id in self._position]
            if not wanted:
                return []
            filters.append(f"id IN ({_quoted(wanted)})")
        if exclude:
            filters.append(f"id NOT IN ({_quoted(exclude)})")
        search = self._table.search(query).distance_type("dot").select(["id", "_distance"]).limit(k)
        if filters:
            search = search.where(" AND ".join(filters), prefilter=True)
        search = search.nprobes(probes) if approximate and self.has_ivf else search.bypass_vector_index()
        rows = search.to_arrow().to_pylist()
        hits = [(row["id"], 1.0 - float(row["_distance"])) for row in rows]
        hits.sort(key=lambda hit: (-hit[1], self._position[hit[0]]))
        return [Hit(row_id, score, self.extras[self._position[row_id]]) for row_id, score in hits]
