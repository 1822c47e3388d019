"""Corpus indexes on disk: what `vqakit index` writes and retrieval methods search.

An index folder holds up to four tables (see `_store.VectorTable`):
    passages      one text vector per passage (title + text), text embedder
    descriptions  one text vector per clip description, text embedder (the offline fallback
                  for visual retrieval)
    frames        one image vector per frame sampled at `fps` from each clip, image-text
                  embedder; kept for localization inside a clip
    clips         one vector per clip: the normalised mean of its frame vectors
plus, for each localize embedder (`IndexSettings.localize_embedders`: another image-text
model that scores frames inside retrieved clips, e.g. MetaCLIP while CLIP retrieves), a table
`frames-<end of its spec>-<hash>` (`frames_table`) of the same frames (same fps and size) in
its own space; and `index.json` (settings and counts). Every row carries a content key
(embedder spec plus what was embedded: text bytes, or video path, size, mtime and window), so
indexing again embeds only new or changed items and drops rows whose item left the corpus; a
clip is decoded once for all the frame tables that need it. One process writes an index folder
at a time (`_lock.IndexLock`): another waits, then embeds only what is still missing.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.files import write_text_atomic
from vqakit.retrieval._frames import digest, frames_table, index_clips
from vqakit.retrieval._lock import IndexLock
from vqakit.retrieval._store import Row, VectorTable
from vqakit.schema import Benchmark, Passage

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
    # more clip:<...> embedders whose frame vectors are kept, one table each, for localization
    localize_embedders: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "localize_embedders", tuple(dict.fromkeys(self.localize_embedders)))

    def extra_frame_embedders(self) -> tuple[str, ...]:
        """The localize embedders that need a table of their own (not the retrieval one)."""
        return tuple(spec for spec in self.localize_embedders if spec != self.image_embedder)


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


def passage_text(passage: Passage) -> str:
    return f"{passage.title}\n{passage.text}" if passage.title else passage.text


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
        names = [*TABLES, *(frames_table(spec) for spec in self.settings.extra_frame_embedders())]
        self.tables = {name: open_table(self.folder, name, store or self.settings.store) for name in names}
        self._frames_of: dict[str, dict[str, list[int]]] = {}

    @property
    def visual(self) -> bool:
        """Whether clips were embedded from their frames (else only descriptions can be searched)."""
        return self.settings.image_embedder is not None and len(self.tables["clips"]) > 0

    def frame_table(self, embedder: str | None = None) -> str:
        """The table holding the frame vectors of `embedder` (None: the retrieval image embedder)."""
        if embedder is None or embedder == self.settings.image_embedder:
            return "frames"
        if embedder in self.settings.localize_embedders:
            return frames_table(embedder)
        raise ValueError(
            f"the index at {self.folder} keeps no frames embedded by {embedder}; index with it as a "
            "localize embedder (a retrieval method with localize_embedder does so when it opens the index)"
        )

    def frame_rows(self, table: str = "frames") -> dict[str, list[int]]:
        """Row positions of each clip's frames in a frame table."""
        if table not in self._frames_of:
            rows: dict[str, list[int]] = {}
            for position, extra in enumerate(self.tables[table].extras):
                rows.setdefault(extra["clip"], []).append(position)
            self._frames_of[table] = rows
        return self._frames_of[table]

    def clip_frames(self, clip_id: str, embedder: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(frame times in seconds of the video, frame vectors) of one clip, in time order, from
        the frame table of `embedder` (None: the retrieval image embedder's)."""
        name = self.frame_table(embedder)
        positions = self.frame_rows(name).get(clip_id, [])
        frames = self.tables[name]
        times = np.array([frames.extras[p]["time_s"] for p in positions], dtype=np.float64)
        vectors = frames.vectors_of([frames.ids[p] for p in positions])
        order = np.argsort(times, kind="stable")
        return times[order], vectors[order]

    def clip_start(self, clip_id: str) -> float:
        """Where the clip's frame 0 stands in its video (seconds)."""
        if clip_id in self.tables["clips"]:
            return float(self.tables["clips"].extra_of(clip_id).get("start_s", 0.0))
        for spec in self.settings.extra_frame_embedders():
            name = frames_table(spec)
            positions = self.frame_rows(name).get(clip_id)
            if positions:
                return float(self.tables[name].extras[positions[0]].get("start_s", 0.0))
        return 0.0


def build_index(
    benchmark: Benchmark,
    folder: str | Path,
    settings: IndexSettings,
    *,
    text_embedder: Any = None,
    image_embedder: Any = None,
    localize_embedders: dict[str, Any] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> tuple[CorpusIndex, IndexReport]:
    """Index the benchmark's corpora into `folder`, embedding only what is new or changed.

    Embedders are created from `settings` when not given (`localize_embedders`: loaded ones by
    spec), and only if something needs them. One writer at a time: another process writing the
    same folder is waited for (`on_wait` hears one line when that takes more than a moment), and
    what it wrote is reused.
    """
    with IndexLock(Path(folder), on_wait=on_wait or log.info):
        return _build_index(
            benchmark,
            Path(folder),
            settings,
            text_embedder=text_embedder,
            image_embedder=image_embedder,
            localize_embedders=localize_embedders,
            on_progress=on_progress,
        )


def _build_index(
    benchmark: Benchmark,
    folder: Path,
    settings: IndexSettings,
    *,
    text_embedder: Any,
    image_embedder: Any,
    localize_embedders: dict[str, Any] | None,
    on_progress: Callable[[str, int, int], None] | None,
) -> tuple[CorpusIndex, IndexReport]:
    """`build_index` inside the folder's lock."""
    from vqakit.models import EmbeddingCache

    folder.mkdir(parents=True, exist_ok=True)
    index = CorpusIndex(folder, store=settings.store)  # a new store starts empty (embeddings are cached)
    report = IndexReport()
    cache = EmbeddingCache()
    loaded: dict[str | None, Any] = {None: text_embedder, **(localize_embedders or {})}
    if settings.image_embedder and image_embedder is not None:
        loaded[settings.image_embedder] = image_embedder

    def text_model() -> Any:
        if loaded[None] is None:
            from vqakit.models import TextEmbedder

            loaded[None] = TextEmbedder(settings.text_embedder, cache=cache)
        return loaded[None]

    def image_model(spec: str) -> Any:
        if loaded.get(spec) is None:
            from vqakit.models import ImageTextEmbedder

            loaded[spec] = ImageTextEmbedder(spec, cache=cache)
        return loaded[spec]

    def index_texts(name: str, items: dict[str, str]) -> None:
        table = index.tables[name]
        keys = {item_id: digest(settings.text_embedder, text) for item_id, text in items.items()}
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

    wanted = {frames_table(spec) for spec in settings.extra_frame_embedders()}
    for name in [name for name in index.tables if name not in (*TABLES, *wanted)]:
        report.removed[name] = len(index.tables[name])  # a localize embedder no longer kept
        index.tables[name].replace_rows([], [])
        index.tables.pop(name).save()
    for name in sorted(wanted - set(index.tables)):
        index.tables[name] = open_table(folder, name, settings.store)
    index_clips(benchmark, index, settings, image_model, report, on_progress)
    if not settings.image_embedder and benchmark.clips:
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


def _require_extras(folder: Path, text: str | None, image: str | None, store: str | None) -> None:
    """MissingExtra, with its pip line, for an extra the embedders or the store need (those given,
    else the index's own), before anything is written."""
    from vqakit.extras import require_extra
    from vqakit.models import is_api_text_embedder

    meta = folder / "index.json"
    stored = json.loads(meta.read_text(encoding="utf-8")).get("settings", {}) if meta.is_file() else {}
    text = text or stored.get("text_embedder") or IndexSettings.text_embedder
    image = image or stored.get("image_embedder")
    if not is_api_text_embedder(text):
        require_extra("embed", f"text embedder {text}")
    if image:
        require_extra("hf", f"image embedder {image}")
    if (store or stored.get("store")) == "lancedb":
        require_extra("lancedb", "the lancedb store")


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
    localize_embedders: tuple[str, ...] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> tuple[Path, IndexSettings, CorpusIndex, IndexReport]:
    """`vqakit index`: bring the benchmark's index up to date in `folder` (default: the
    benchmark's folder in the vqakit cache, where eval looks). Embedders, localize embedders, IVF
    lists and store not given (None) are the ones the index was built with; `localize_embedders=()`
    drops the frame tables of every localize embedder. Another process writing the same index is
    waited for (`on_wait` hears why), then what it wrote is read and reused."""
    folder = Path(folder) if folder is not None else default_index_folder(benchmark)
    _require_extras(folder, text_embedder, image_embedder, store)
    with IndexLock(folder, on_wait=on_wait or log.info):  # the stored settings too: read once it is free
        stored = CorpusIndex(folder).settings
        if localize_embedders is None:
            localize_embedders = stored.localize_embedders
        settings = IndexSettings(
            text_embedder=text_embedder or stored.text_embedder,
            image_embedder=image_embedder or stored.image_embedder,
            fps=fps,
            frame_side=frame_side,
            ivf_lists=ivf_lists or stored.ivf_lists,
            store=store or stored.store,
            localize_embedders=localize_embedders,
        )
        built, report = _build_index(
            benchmark,
            folder,
            settings,
            text_embedder=None,
            image_embedder=None,
            localize_embedders=None,
            on_progress=on_progress,
        )
    return folder, settings, built, report
