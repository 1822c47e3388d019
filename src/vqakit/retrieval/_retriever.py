"""Searching an index: clips for a query, passages for a statement, fixed pieces of every clip
for a query (the Video Split baseline), frames inside a clip (localization)."""

from __future__ import annotations

import threading
from contextlib import nullcontext
from typing import Any

import numpy as np

from vqakit.retrieval._index import CorpusIndex
from vqakit.retrieval._store import Hit, Row, VectorTable
from vqakit.retrieval.localize import Position, best_piece, best_window, fixed_pieces


def piece_id(clip_id: str, start_s: float, end_s: float) -> str:
    """A piece's id: its clip and its seconds from the clip's start, e.g. `clip-7@5-10s`."""
    return f"{clip_id}@{start_s:g}-{end_s:g}s"


class Retriever:
    """Query side of a `CorpusIndex`.

    `image_embedder` retrieves clips (and pieces) by their frames; `localize_embedder` scores the
    frames inside a clip (None: the image embedder does both). Its frames must be in the index
    (`IndexSettings.localize_embedders`). Calls to an embedder that is not thread-safe are
    serialised by a lock, so one retriever can serve the concurrent samples of a run from worker
    threads; thread-safe (API) embedders are called at once.
    """

    def __init__(
        self,
        index: CorpusIndex,
        text_embedder: Any,
        image_embedder: Any = None,
        *,
        localize_embedder: Any = None,
        approximate: bool = False,
    ) -> None:
        self.index = index
        self.text_embedder = text_embedder
        self.image_embedder = image_embedder
        self.localize_embedder = localize_embedder
        self.approximate = approximate
        self._lock = threading.Lock()  # embedders that are not thread-safe
        self._memo_lock = threading.Lock()
        self._vectors: dict[tuple[Any, str], np.ndarray] = {}  # the same text is asked for per clip
        self._pieces: dict[float, VectorTable] = {}

    @property
    def visual(self) -> bool:
        return self.image_embedder is not None and self.index.visual

    @property
    def clip_source(self) -> str:
        """What clip retrieval compares the query with: clip frames, or clip descriptions."""
        return "frames" if self.visual else "descriptions"

    @property
    def localizer(self) -> Any:
        """The embedder that scores frames inside a clip."""
        return self.localize_embedder if self.localize_embedder is not None else self.image_embedder

    def _localize_spec(self) -> str | None:
        return None if self.localize_embedder is None else self.localize_embedder.spec

    @property
    def can_localize(self) -> bool:
        if self.localize_embedder is None:
            return self.visual
        try:
            return len(self.index.tables[self.index.frame_table(self._localize_spec())]) > 0
        except ValueError:
            return False

    def _text_vector(self, text: str, embedder: Any) -> np.ndarray:
        key = (getattr(embedder, "spec", id(embedder)), text)
        with self._memo_lock:
            if key in self._vectors:
                return self._vectors[key]
        embed = embedder.embed if embedder is self.text_embedder else embedder.embed_texts
        with nullcontext() if getattr(embedder, "thread_safe", False) else self._lock:
            vector = embed([text])[0]
        with self._memo_lock:
            if len(self._vectors) >= 4096:
                self._vectors.clear()
            self._vectors[key] = vector
        return vector

    def search_clips(self, query: str, k: int) -> list[Hit]:
        if self.visual:
            return self.index.tables["clips"].search(
                self._text_vector(query, self.image_embedder), k, approximate=self.approximate
            )
        table = self.index.tables["descriptions"]
        if len(table) == 0:
            raise ValueError(
                "no clip can be retrieved: the index has no clip frames (index with --image-embedder) "
                "and the corpus clips have no descriptions"
            )
        return table.search(self._text_vector(query, self.text_embedder), k, approximate=self.approximate)

    def search_passages(self, query: str, k: int, *, exclude: tuple[str, ...] = ()) -> list[Hit]:
        return self.index.tables["passages"].search(
            self._text_vector(query, self.text_embedder), k, exclude=exclude, approximate=self.approximate
        )

    def pieces(self, piece_s: float) -> VectorTable:
        """Every clip cut into fixed non-overlapping `piece_s` pieces (the last may be shorter), one
        row each: the normalised mean of its frame vectors, with extra `clip`, `start_s`, `end_s`
        (seconds of the video). Made from the frames table once per length and kept in memory."""
        if not self.visual:
            raise ValueError(
                "pieces are made from the clips' frame vectors: index with --image-embedder "
                "(clip descriptions cover whole clips, so they cannot tell a clip's pieces apart)"
            )
        with self._memo_lock:
            if piece_s in self._pieces:
                return self._pieces[piece_s]
        fps = self.index.settings.fps
        frames = self.index.tables["frames"]
        vectors = frames.vectors_of(list(frames.ids))
        rows: list[Row] = []
        for clip_id, positions in self.index.frame_rows("frames").items():
            ordered = sorted(positions, key=lambda p: frames.extras[p]["time_s"])
            start = self.index.clip_start(clip_id)
            for a, b in fixed_pieces(len(ordered), fps, piece_s):
                mean = vectors[ordered[a:b]].mean(axis=0)
                vector = mean / max(float(np.linalg.norm(mean)), 1e-12)
                window = {"clip": clip_id, "start_s": start + a / fps, "end_s": start + b / fps}
                rows.append(Row(piece_id(clip_id, a / fps, b / fps), "", vector, window))
        table = VectorTable.in_memory(f"pieces-{piece_s:g}s", rows)
        if self.approximate:
            table.build_ivf()
        with self._memo_lock:
            return self._pieces.setdefault(piece_s, table)

    def search_pieces(self, query: str, k: int, piece_s: float) -> list[Hit]:
        """The k pieces (of all clips) nearest to `query` in the image embedder's space."""
        table = self.pieces(piece_s)
        return table.search(self._text_vector(query, self.image_embedder), k, approximate=self.approximate)

    def clip_start(self, clip_id: str) -> float:
        """Where the clip's frame 0 stands in its video (seconds)."""
        return self.index.clip_start(clip_id)

    def frame_similarities(self, clip_id: str, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(frame times in seconds of the video, similarity of each frame to `text`), scored by
        the localize embedder."""
        if not self.can_localize:
            spec = self._localize_spec()
            other = f" or with {spec} as a localize embedder" if spec else ""
            raise ValueError(f"localization needs frame embeddings: index with --image-embedder{other}")
        times, vectors = self.index.clip_frames(clip_id, self._localize_spec())
        if len(times) == 0:
            raise ValueError(f"clip {clip_id!r} has no frames in the index; run vqakit index again")
        return times, vectors @ self._text_vector(text, self.localizer)

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
