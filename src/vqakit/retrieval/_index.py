"""Corpus indexes on disk: what `vqakit index` writes and retrieval methods search.

An index folder holds up to four tables (see `_store.VectorTable`):
    passages      one text vector per passage (title + text), text embedder
    descriptions  one text vector per clip description, text embedder (the offline fallback
                  for visual retrieval)
    frames        one image vector per frame sampled at `fps` from each clip, image-text
                  embedder; kept for localization inside a clip
    clips         one vector per clip: the normalised mean of its frame vectors
and `index.json` (settings and counts). Every row carries a content key (embedder spec plus
what was embedded: text bytes, or video path, size, mtime and window), so indexing again
embeds only new or changed items and drops rows whose item left the corpus.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.files import write_text_atomic
from vqakit.retrieval._store import Row, VectorTable
from vqakit.schema import Benchmark, Clip, Passage

log = logging.getLogger(__name__)

TABLES = ("passages", "descriptions", "frames", "clips")


@dataclass(frozen=True)
class IndexSettings:
    text_embedder: str = "minilm"
    image_embedder: str | None = None  # clip:<folder or hub id>; None = no visual tables
    fps: float = 2.0  # frames per second embedded for each clip
    frame_side: int = 224  # short side the frames are scaled to before embedding
    ivf_lists: int | None = None  # build an approximate (IVF) index with this many lists
    store: str = "numpy"  # "numpy" (one matrix per table) or "lancedb" (LanceDB tables on disk)


@dataclass
class IndexReport:
    """What one indexing pass did, per table: rows embedded, kept unchanged, removed."""

    embedded: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    removed: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


STORES = ("numpy", "lancedb")


def open_table(folder: Path, name: str, store: str) -> Any:
    """One table of an index folder in the chosen store (both have the `VectorTable` interface)."""
    if store == "numpy":
        return VectorTable(folder, name)
    if store == "lancedb":
        from vqakit.retrieval._lance import LanceTable

        return LanceTable(folder, name)
    raise ValueError(f"unknown vector store {store!r}: use {' or '.join(STORES)}")


def default_index_folder(benchmark: Benchmark) -> Path:
    """Indexes live in the vqakit cache, one folder per benchmark folder (never inside the
    benchmark, which may be read-only, e.g. the one shipped in the package)."""
    from vqakit.models import default_cache_path

    where = hashlib.sha256(str(benchmark.root.resolve()).encode()).hexdigest()[:10]
    return default_cache_path().parent / "indexes" / f"{benchmark.card.name}-{where}"


def _digest(*parts: Any) -> str:
    return hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).hexdigest()[:24]


def passage_text(passage: Passage) -> str:
    return f"{passage.title}\n{passage.text}" if passage.title else passage.text


def _clip_key(benchmark: Benchmark, clip: Clip, settings: IndexSettings) -> str:
    path = benchmark.root / clip.video.path
    try:
        stat = os.stat(path)
        seen = (stat.st_size, stat.st_mtime_ns)
    except OSError:
        seen = ("missing",)
    return _digest(
        "clip-v2",  # layout of the clip rows; bumping it re-embeds every clip
        settings.image_embedder,
        settings.fps,
        settings.frame_side,
        clip.video.path,
        *seen,
        clip.video.start_s,
        clip.video.end_s,
    )


class CorpusIndex:
    """The tables of one index folder, read from disk."""

    def __init__(self, folder: str | Path, *, store: str | None = None) -> None:
        """`store` opens the tables of another store than the one saved (they start empty)."""
        self.folder = Path(folder)
        meta_path = self.folder / "index.json"
        self.meta: dict[str, Any] = (
            json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
        )
        self.settings = IndexSettings(**self.meta.get("settings", {}))
        self.tables = {name: open_table(self.folder, name, store or self.settings.store) for name in TABLES}
        self._frames_of: dict[str, list[int]] = {}
        for position, extra in enumerate(self.tables["frames"].extras):
            self._frames_of.setdefault(extra["clip"], []).append(position)

    @property
    def visual(self) -> bool:
        """Whether clips were embedded from their frames (else only descriptions can be searched)."""
        return self.settings.image_embedder is not None and len(self.tables["clips"]) > 0

    def clip_frames(self, clip_id: str) -> tuple[np.ndarray, np.ndarray]:
        """(frame times in seconds of the video, frame vectors) of one clip, in time order."""
        positions = self._frames_of.get(clip_id, [])
        frames = self.tables["frames"]
        times = np.array([frames.extras[p]["time_s"] for p in positions], dtype=np.float64)
        vectors = frames.vectors_of([frames.ids[p] for p in positions])
        order = np.argsort(times, kind="stable")
        return times[order], vectors[order]


def build_index(
    benchmark: Benchmark,
    folder: str | Path,
    settings: IndexSettings,
    *,
    text_embedder: Any = None,
    image_embedder: Any = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> tuple[CorpusIndex, IndexReport]:
    """Index the benchmark's corpora into `folder`, embedding only what is new or changed.

    Embedders are created from `settings` when not given, and only if something needs them.
    """
    from vqakit.models import EmbeddingCache

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    index = CorpusIndex(folder, store=settings.store)  # a new store starts empty (embeddings are cached)
    report = IndexReport()
    cache = EmbeddingCache()
    loaded: dict[str, Any] = {"text": text_embedder, "image": image_embedder}

    def text_model() -> Any:
        if loaded["text"] is None:
            from vqakit.models import TextEmbedder

            loaded["text"] = TextEmbedder(settings.text_embedder, cache=cache)
        return loaded["text"]

    def image_model() -> Any:
        if loaded["image"] is None:
            from vqakit.models import ImageTextEmbedder

            loaded["image"] = ImageTextEmbedder(str(settings.image_embedder), cache=cache)
        return loaded["image"]

    def index_texts(name: str, items: dict[str, str]) -> None:
        table = index.tables[name]
        keys = {item_id: _digest(settings.text_embedder, text) for item_id, text in items.items()}
        stale = [item_id for item_id, key in keys.items() if table.key_of(item_id) != key]
        fresh: list[Row] = []
        if stale:
            vectors = text_model().embed([items[item_id] for item_id in stale])
            fresh = [Row(i, keys[i], v) for i, v in zip(stale, vectors, strict=True)]
        removed = sum(1 for item_id in table.ids if item_id not in items)
        table.replace_rows([i for i in keys if i not in stale], fresh)
        report.embedded[name] = len(fresh)
        report.kept[name] = len(items) - len(fresh)
        report.removed[name] = removed

    index_texts("passages", {p.id: passage_text(p) for p in benchmark.passages.values()})
    index_texts("descriptions", {c.id: c.description for c in benchmark.clips.values() if c.description})

    if settings.image_embedder:
        _index_clips(benchmark, index, settings, image_model, report, on_progress)
    else:
        for name in ("frames", "clips"):
            removed = len(index.tables[name])
            index.tables[name].replace_rows([], [])
            report.removed[name] = removed
        if benchmark.clips:
            report.notes.append(
                f"{len(benchmark.clips)} clips indexed by their descriptions only; visual retrieval and "
                "localization need --image-embedder (e.g. clip:<folder of a CLIP/SigLIP/MetaCLIP model>)"
            )
    if settings.ivf_lists:  # kept while the rows and the list count are unchanged
        for table in index.tables.values():
            if not table.has_ivf or settings.ivf_lists != index.settings.ivf_lists:
                table.build_ivf(settings.ivf_lists)
    for table in index.tables.values():
        table.save()
    meta = {
        "benchmark": benchmark.card.name,
        "benchmark_root": str(benchmark.root.resolve()),
        "settings": asdict(settings),
        "counts": {name: len(table) for name, table in index.tables.items()},
    }
    # atomic: Ray workers open the index while another brings it up to date
    write_text_atomic(folder / "index.json", json.dumps(meta, indent=1) + "\n")
    return CorpusIndex(folder), report


def _index_clips(
    benchmark: Benchmark,
    index: CorpusIndex,
    settings: IndexSettings,
    image_model: Callable[[], Any],
    report: IndexReport,
    on_progress: Callable[[str, int, int], None] | None,
) -> None:
    from vqakit.schema import Fps
    from vqakit.video import Resize, sample_frames

    frames, clips = index.tables["frames"], index.tables["clips"]
    keys = {clip.id: _clip_key(benchmark, clip, settings) for clip in benchmark.clips.values()}
    stale = [clip_id for clip_id, key in keys.items() if clips.key_of(clip_id) != key]
    fresh_frames: list[Row] = []
    fresh_clips: list[Row] = []
    for number, clip_id in enumerate(stale, start=1):
        clip = benchmark.clips[clip_id]
        spec = Fps(settings.fps, start_s=clip.video.start_s, end_s=clip.video.end_s)
        decoded = sample_frames(
            benchmark.root / clip.video.path, spec, resize=Resize(short_side=settings.frame_side)
        )
        if not decoded:
            raise ValueError(f"corpus/clips.jsonl: clip {clip_id!r}: no frames in {clip.video.path}")
        vectors = image_model().embed_images([frame.image for frame in decoded])
        for i, (frame, vector) in enumerate(zip(decoded, vectors, strict=True)):
            fresh_frames.append(
                Row(f"{clip_id}#{i}", keys[clip_id], vector, {"clip": clip_id, "time_s": frame.time_s})
            )
        mean = vectors.mean(axis=0)
        start = clip.video.start_s or 0.0  # frame i of the clip stands for start + i / fps
        vector = mean / max(float(np.linalg.norm(mean)), 1e-12)
        fresh_clips.append(Row(clip_id, keys[clip_id], vector, {"start_s": start, "frames": len(decoded)}))
        if on_progress:
            on_progress("clips", number, len(stale))
    unchanged = [clip_id for clip_id in keys if clip_id not in stale]
    keep_frames = [frames.ids[p] for clip_id in unchanged for p in index._frames_of.get(clip_id, [])]
    for name, table, keep, fresh in (
        ("frames", frames, keep_frames, fresh_frames),
        ("clips", clips, unchanged, fresh_clips),
    ):
        removed = sum(1 for extra_id in _owners(table, name) if extra_id not in keys)
        table.replace_rows(keep, fresh)
        report.embedded[name] = len(fresh)
        report.kept[name] = len(keep)
        report.removed[name] = removed


def _owners(table: Any, name: str) -> list[str]:
    """The clip each row belongs to."""
    return [extra["clip"] for extra in table.extras] if name == "frames" else list(table.ids)


def index_benchmark(
    benchmark: Benchmark,
    folder: str | Path | None = None,
    *,
    text_embedder: str | None = None,
    image_embedder: str | None = None,
    fps: float = 2.0,
    frame_side: int = 224,
    ivf_lists: int | None = None,
    store: str | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> tuple[Path, IndexSettings, CorpusIndex, IndexReport]:
    """`vqakit index`: bring the benchmark's index up to date in `folder` (default: the
    benchmark's folder in the vqakit cache, where eval looks). Embedders, IVF lists and store not
    given are the ones the index was built with."""
    folder = Path(folder) if folder is not None else default_index_folder(benchmark)
    stored = CorpusIndex(folder).settings
    settings = IndexSettings(
        text_embedder=text_embedder or stored.text_embedder,
        image_embedder=image_embedder or stored.image_embedder,
        fps=fps,
        frame_side=frame_side,
        ivf_lists=ivf_lists or stored.ivf_lists,
        store=store or stored.store,
    )
    built, report = build_index(benchmark, folder, settings, on_progress=on_progress)
    return folder, settings, built, report
