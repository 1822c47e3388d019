"""Spherical k-means over L2-normalised vectors (cosine similarity), seeded and deterministic."""

from __future__ import annotations

import numpy as np


def spherical_kmeans(
    vectors: np.ndarray, k: int, *, iterations: int = 12, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(centroids, cluster of each row). Centroids start at k rows with distinct values chosen
    with `seed` (k is capped at the number of distinct rows, so no cluster starts empty); a
    cluster that loses all its rows keeps its previous centroid."""
    count = len(vectors)
    if count == 0 or k < 1:
        raise ValueError(f"k-means needs rows and k >= 1, got {count} rows and k={k}")
    _, distinct = np.unique(np.asarray(vectors), axis=0, return_index=True)
    distinct = np.sort(distinct)
    k = min(k, len(distinct))
    rng = np.random.default_rng(seed)
    chosen = distinct[rng.choice(len(distinct), size=k, replace=False)]
    centroids = np.asarray(vectors[chosen], dtype=np.float32).copy()
    assignment = np.zeros(count, dtype=np.int64)
    for _ in range(iterations):
        assignment = np.argmax(vectors @ centroids.T, axis=1)
        for cluster in range(k):
            members = vectors[assignment == cluster]
            if len(members):
                total = members.sum(axis=0)
                centroids[cluster] = total / max(float(np.linalg.norm(total)), 1e-12)
    return centroids, assignment
