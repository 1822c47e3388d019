"""One retriever per run (and per process): the index checked and brought up to date, embedders
loaded once."""

from __future__ import annotations

import os
import threading
from typing import Any

from vqakit.methods import MethodContext

_PROCESS_RETRIEVERS: dict[tuple, Any] = {}
_PROCESS_LOCK = threading.Lock()


def shared_retriever(context: MethodContext) -> Any:
    """The run's retriever, built once.

    It is also kept for the life of the process, keyed by the benchmark, the retrieval options
    and the modification times of the corpus files and the index, so that engines that make a
    context per batch (Ray workers) load embedders once per worker, not once per batch.
    """
    lock = context.shared.setdefault("retriever_lock", threading.Lock())
    with lock:
        if "retriever" not in context.shared:
            key = _process_key(context)
            with _PROCESS_LOCK:
                if key not in _PROCESS_RETRIEVERS:
                    _PROCESS_RETRIEVERS[key] = open_retriever(context)
                context.shared["retriever"] = _PROCESS_RETRIEVERS[key]
        return context.shared["retriever"]


def _process_key(context: MethodContext) -> tuple:
    def seen(path: Any) -> float | None:
        try:
            return os.stat(path).st_mtime_ns
        except OSError:
            return None

    root = context.root.resolve()
    options = context.options
    files = [root / "corpus/clips.jsonl", root / "corpus/passages.jsonl"]
    if options.index:
        files.append(os.path.join(options.index, "index.json"))
    settings = (
        options.index,
        options.text_embedder,
        options.image_embedder,
        options.localize_embedder,
        options.approximate,
    )
    return (str(root), settings, tuple(seen(path) for path in files))


def open_retriever(context: MethodContext) -> Any:
    """The index brought up to date for the run's options, and a retriever over it.

    A `localize_embedder` other than the retrieval image embedder is added to the index's
    localize embedders (kept from then on, like the image embedder), so its frame vectors are
    embedded once, at index time, for every clip, and kept up to date incrementally with the rest.
    """
    from vqakit.models import EmbeddingCache, ImageTextEmbedder, TextEmbedder
    from vqakit.retrieval import CorpusIndex, IndexSettings, Retriever, build_index, default_index_folder

    benchmark, options = context.benchmark, context.options
    assert benchmark is not None, "retrieval methods need the loaded benchmark in their context"
    folder = options.index or default_index_folder(benchmark)
    stored = CorpusIndex(folder).settings  # defaults when there is no index yet
    image_spec = options.image_embedder or stored.image_embedder
    localize_spec = options.localize_embedder if options.localize_embedder != image_spec else None
    settings = IndexSettings(
        text_embedder=options.text_embedder or stored.text_embedder,
        image_embedder=image_spec,
        fps=stored.fps,
        frame_side=stored.frame_side,
        ivf_lists=stored.ivf_lists,
        store=stored.store,
        localize_embedders=(*stored.localize_embedders, *([localize_spec] if localize_spec else [])),
    )
    cache = EmbeddingCache()
    text = TextEmbedder(settings.text_embedder, cache=cache)
    image = ImageTextEmbedder(image_spec, cache=cache) if image_spec else None
    localizer = ImageTextEmbedder(localize_spec, cache=cache) if localize_spec else None
    index, _ = build_index(
        benchmark,
        folder,
        settings,
        text_embedder=text,
        image_embedder=image,
        localize_embedders={localize_spec: localizer} if localize_spec else None,
    )
    if options.approximate:
        for table in index.tables.values():
            if not table.has_ivf:
                table.build_ivf()
    return Retriever(index, text, image, localize_embedder=localizer, approximate=options.approximate)
