"""Offline baselines: chance, and text similarity between question and options."""

from __future__ import annotations

import asyncio
import hashlib
import random

from vqakit.methods._registry import MethodContext, method
from vqakit.schema import Prediction, Sample


def _not_mcq(sample: Sample, name: str) -> Prediction:
    return Prediction.not_applicable(sample.id, name, f"{name} answers multiple choice only")


@method(
    "random",
    needs_model=False,
    uses_frames=False,
    describe=lambda options, protocol: (
        "a random option per MCQ sample (seeded by its id); no video, no model"
    ),
)
async def random_choice(sample: Sample, context: MethodContext) -> Prediction:
    """A uniformly random option, seeded by the sample id (the chance baseline)."""
    if sample.choices is None:
        return _not_mcq(sample, "random")
    seed = int(hashlib.sha256(f"{context.seed}/{sample.id}".encode()).hexdigest()[:16], 16)
    choice = random.Random(seed).randrange(len(sample.choices))
    return Prediction(sample_id=sample.id, method="random", choice=choice, extraction="random")


@method(
    "text-similarity",
    needs_model=False,
    extras=("embed",),
    uses_frames=False,
    describe=lambda options, protocol: (
        "the option closest to the question in MiniLM text embedding; no video, no model"
    ),
)
async def text_similarity(sample: Sample, context: MethodContext) -> Prediction:
    """The option whose MiniLM embedding is closest to the question's (no video, no model)."""
    if sample.choices is None:
        return _not_mcq(sample, "text-similarity")
    async with context.shared.setdefault("text_embedder_lock", asyncio.Lock()):  # load the model once
        embedder = context.shared.get("text_embedder")
        if embedder is None:
            from vqakit.models import TextEmbedder

            embedder = context.shared["text_embedder"] = await asyncio.to_thread(TextEmbedder, "minilm")
    vectors = await asyncio.to_thread(embedder.embed, [sample.question, *sample.choices])
    scores = vectors[1:] @ vectors[0]
    return Prediction(
        sample_id=sample.id,
        method="text-similarity",
        choice=int(scores.argmax()),
        extraction="highest cosine similarity to the question",
    )
