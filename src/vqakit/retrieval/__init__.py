"""Retrieval over a benchmark's corpora: indexes of clips and passages on disk, search, and
localization of the relevant moment inside a retrieved clip (`vqakit.retrieval.localize`)."""

from vqakit.retrieval._frames import frames_table
from vqakit.retrieval._index import (
    TABLES,
    CorpusIndex,
    IndexReport,
    IndexSettings,
    build_index,
    default_index_folder,
    index_benchmark,
    passage_text,
)
from vqakit.retrieval._kmeans import spherical_kmeans
from vqakit.retrieval._retriever import Retriever, piece_id
from vqakit.retrieval._store import Hit, Row, VectorTable
from vqakit.retrieval.localize import POSITIONS, best_piece, best_window, fixed_pieces, window_frames

__all__ = [
    "POSITIONS",
    "TABLES",
    "CorpusIndex",
    "Hit",
    "IndexReport",
    "IndexSettings",
    "Retriever",
    "Row",
    "VectorTable",
    "best_piece",
    "best_window",
    "build_index",
    "default_index_folder",
    "fixed_pieces",
    "frames_table",
    "index_benchmark",
    "passage_text",
    "piece_id",
    "spherical_kmeans",
    "window_frames",
]
