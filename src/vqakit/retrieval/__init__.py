"""Retrieval over a benchmark's corpora: indexes of clips and passages on disk, search, and
localization of the relevant moment inside a retrieved clip (`vqakit.retrieval.localize`)."""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_frames": "frames_table",
        "_index": (
            "TABLES CorpusIndex IndexReport IndexSettings build_index default_index_folder index_benchmark "
            "passage_text"
        ),
        "_kmeans": "spherical_kmeans",
        "_retriever": "Retriever piece_id",
        "_store": "Hit Row VectorTable",
        "localize": "POSITIONS best_piece best_window fixed_pieces window_frames",
    },
)
