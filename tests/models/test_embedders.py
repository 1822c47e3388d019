"""Embedders: the packaged MiniLM (real weights) and tiny CLIP / SigLIP built in the test."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")

from tiny_models import build_tiny_clip

from vqakit.models import EmbeddingCache, ImageTextEmbedder, TextEmbedder


@pytest.fixture(scope="module")
def minilm():
    return TextEmbedder("minilm")


def test_minilm_is_real_and_normalised(minilm):
    vectors = minilm.embed(
        ["How to lock a bicycle to a railing", "Securing a bike with a U-lock", "How to feed a pet rabbit"]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_text_cache_skips_known_texts(tmp_path, minilm):
    cached = TextEmbedder("minilm", cache=EmbeddingCache(tmp_path / "e.sqlite"))
    first = cached.embed(["alpha", "beta"])
    calls = []
    original = cached.model.encode
    cached.model.encode = lambda batch, **kw: calls.append(list(batch)) or original(batch, **kw)
    again = cached.embed(["beta", "gamma", "alpha"])
    assert calls == [["gamma"]]
    np.testing.assert_allclose(again[[0, 2]], first[[1, 0]], atol=1e-6)


@pytest.mark.parametrize("family", ["clip", "siglip"])
def test_image_text_embedders(tmp_path, family):
    folder = build_tiny_clip(tmp_path / family, family)
    embedder = ImageTextEmbedder(f"clip:{folder}", batch_size=2, cache=EmbeddingCache(tmp_path / "e.sqlite"))
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 255, (40, 50, 3), dtype=np.uint8) for _ in range(3)]
    image_vectors = embedder.embed_images(images)
    text_vectors = embedder.embed_texts(["a red ball", "a blue box"])
    assert image_vectors.shape[0] == 3 and text_vectors.shape == (2, image_vectors.shape[1])
    np.testing.assert_allclose(np.linalg.norm(image_vectors, axis=1), 1.0, atol=1e-5)
    changed = images[0].copy()
    changed[0, 0, 0] ^= 1
    again = embedder.embed_images([images[1], changed])
    np.testing.assert_allclose(again[0], image_vectors[1], atol=1e-6)  # served from the cache
    assert embedder.cache.get_many([f"clip:{folder}|image|x"]) == {}
