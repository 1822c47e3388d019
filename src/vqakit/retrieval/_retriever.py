"""Searching an index: clips for a query, passages for a statement, frames inside a clip."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from vqakit.retrieval._index import CorpusIndex
from vqakit.retrieval._store import Hit
from vqakit.retrieval.localize import Position, best_piece, best_window


class Retriever:
    """Query side of a `CorpusIndex`. Embedder calls are serialised by a lock, so one retriever
    can serve the concurrent samples of a run from worker threads."""

    def __init__(
        self,
        index: CorpusIndex,
        text_embedder: Any,
        image_embedder: Any = None,
        *,
        approximate: bool = False,
    ) -> None:
        self.index = index
        self.text_embedder = text_embedder
        self.image_embedder = image_embedder
        self.approximate = approximate
        self._lock = threading.Lock()
        self._vectors: dict[tuple[str, bool], np.ndarray] = {}  # the same text is asked for per clip

    @property
    def visual(self) -> bool:
        return self.image_embedder is not None and self.index.visual

    @property
    def clip_source(self) -> str:
        """What clip retrieval compares the query with: clip frames, or clip descriptions."""
        return "frames" if self.visual else "descriptions"

    def _text_vector(self, text: str, *, image_space: bool) -> np.ndarray:
        with self._lock:
            key = (text, image_space)
            if key not in self._vectors:
                if len(self._vectors) >= 4096:
                    self._vectors.clear()
                embed = self.image_embedder.embed_texts if image_space else self.text_embedder.embed
                self._vectors[key] = embed([text])[0]
            return self._vectors[key]

    def search_clips(self, query: str, k: int) -> list[Hit]:
        if self.visual:
            return self.index.tables["clips"].search(
                self._text_vector(query, image_space=True), k, approximate=self.approximate
            )
        table = self.index.tables["descriptions"]
        if len(table) == 0:
            raise ValueError(
                "no clip can be retrieved: the index has no clip frames (index with --image-embedder) "
                "and the corpus clips have no descriptions"
            )
        return table.search(self._text_vector(query, image_space=False), k, approximate=self.approximate)

    def search_passages(self, query: str, k: int, *, exclude: tuple[str, ...] = ()) -> list[Hit]:
        return self.index.tables["passages"].search(
            self._text_vector(query, image_space=False), k, exclude=exclude, approximate=self.approximate
        )

    def clip_start(self, clip_id: str) -> float:
        """Where the clip's frame 0 stands in its video (seconds)."""
        return float(self.index.tables["clips"].extra_of(clip_id).get("start_s", 0.0))

    def frame_similarities(self, clip_id: str, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(frame times in seconds of the video, similarity of each frame to `text`)."""
        if not self.visual:
            raise ValueError("localization needs frame embeddings: index with --image-embedder")
        times, vectors = self.index.clip_frames(clip_id)
        if len(times) == 0:
            raise ValueError(f"clip {clip_id!r} has no frames in the index; run vqakit index again")
        return times, vectors @ self._text_vector(text, image_space=True)

    def localize(
        self, clip_id: str, text: str, window_s: float, position: Position = "within", shift_s: float = 1.0
    ) -> tuple[float, float]:
        """The `window_s` window of a clip that best matches `text`, in seconds of the video."""
        _, scores = self.frame_similarities(clip_id, text)
        start, end = best_window(scores, self.index.settings.fps, window_s, position, shift_s)
        offset = self.clip_start(clip_id)
        return offset + start, offset + end

    def best_piece(self, clip_id: str, text: str, piece_s: float) -> tuple[float, float]:
        """The fixed `piece_s` piece of a clip that best matches `text`, in seconds of the video."""
        _, scores = self.frame_similarities(clip_id, text)
        start, end = best_piece(scores, self.index.settings.fps, piece_s)
        offset = self.clip_start(clip_id)
        return offset + start, offset + end
