"""The retrieval methods' frames go through the run's frame provider (`rag`: each retrieved
clip's frames for its description; `videorag-jeong`: the retrieved clips' frames sent with the
question): the same bytes with and without the frame store, and a re-run in a new folder answered
from the response cache decodes nothing (its strips come from the store). Requests and
embeddings go to a real loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_server import FakeServer
from sent_frames import count_decodes, image_count, sent_images

import vqakit.systems.egofact.baselines  # noqa: F401  (registers the methods, as the egofact system does)
from vqakit.runner import EvalConfig, run_eval

REPLIES = {  # the rag steps' replies, by a piece of their prompt; the answer otherwise
    "A search engine finds video clips": 'ok:{"query": "A video that shows people outdoors"}',
    "frames of one video clip": "ok:1. People walk on a path.",
    "Each statement below may or may not be true": 'ok:{"queries": []}',  # too few: options are used
}
ANSWER = 'ok:{"Answer": "A", "Explanation": "scripted"}'
METHODS = {  # method -> (its options, the reply to its answer request)
    "rag": ({"top_clips": 2, "caption_frames": 3, "keywords": False}, ANSWER),
    "videorag-jeong": ({"top_clips": 2, "frames": 5, "top_passages": 1}, "ok:A"),
}


def config(method: str, server: FakeServer, model: str, index: Path, **fields) -> EvalConfig:
    arguments, _ = METHODS[method]
    embedder = f"openai-compatible:{server.url}#embed"
    return EvalConfig(
        bench="sample",
        method=method,
        model=f"openai-compatible:{server.url}#{model}",
        method_args={**arguments, "index": str(index), "text_embedder": embedder},
        limit=5,
        concurrency=4,
        **fields,
    )


def strips_of(folder: Path) -> dict[str, list[str]]:
    lines = (folder / "predictions.jsonl").read_text().splitlines()
    return {p["sample_id"]: p["images"] for p in map(json.loads, lines)}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_frames_sent_are_the_same_bytes_with_and_without_the_store(method, tmp_path):
    with FakeServer(default=METHODS[method][1], by_text=REPLIES) as server:
        # each run names another model, so that no reply comes from the response cache
        index = tmp_path / "index"
        without = run_eval(config(method, server, "a", index, frame_cache=False), tmp_path / "without")
        bare = sent_images(server)
        server.requests.clear()
        run_eval(config(method, server, "b", index), tmp_path / "cold")
        stored = sent_images(server)
        server.requests.clear()
        warm = run_eval(config(method, server, "c", index), tmp_path / "warm")  # all in the store
        from_store = sent_images(server)
    assert without.results["errors"]["n"] == 0 and image_count(bare) >= 25
    assert bare == stored == from_store
    assert warm.frames.decoded == 0 and warm.frames.from_store > 0


@pytest.mark.parametrize("method", sorted(METHODS))
def test_a_cached_rerun_decodes_nothing(method, tmp_path, monkeypatch):
    with FakeServer(default=METHODS[method][1], by_text=REPLIES) as server:
        index = tmp_path / "index"
        first = run_eval(config(method, server, "fake", index), tmp_path / "first")
        chats = len(sent_images(server))
        decoded = count_decodes(monkeypatch)
        again = run_eval(config(method, server, "fake", index), tmp_path / "again")
        assert len(sent_images(server)) == chats  # every reply from the response cache
    assert first.results["errors"]["n"] == 0 and first.frames.decoded > 0
    assert decoded == [] and again.frames.decoded == 0 and again.frames.jobs == 0
    assert first.results["mcq"] == again.results["mcq"]
    # each described clip's strip is in the new folder (from the store), as in the first run
    strips = strips_of(tmp_path / "again")
    assert strips == strips_of(tmp_path / "first") and again.frames.strips_from_store > 0
    kept = [tmp_path / "again" / strip for found in strips.values() for strip in found]
    assert kept and all(path.stat().st_size > 500 for path in kept)
