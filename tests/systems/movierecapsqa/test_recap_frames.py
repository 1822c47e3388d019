"""The `movierecaps` method's frames go through the run's frame provider, planned by video: the
same bytes with and without the frame store, labelled on the window's clock, and a re-run in a
new folder answered from the response cache decodes nothing. Requests go to a real loopback
server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_server import FakeServer
from sent_frames import count_decodes, image_count, sent_images

import vqakit.systems.movierecapsqa  # noqa: F401  (registers the mr_ prompts)
from vqakit.runner import EvalConfig, run_eval
from vqakit.systems.movierecapsqa.importer import import_movierecapsqa

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures/movierecapsqa"
MEDIA = FIXTURE / "media"


@pytest.fixture(scope="module")
def bench_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("movierecapsqa") / "bench"
    import_movierecapsqa(
        FIXTURE / "release", MEDIA / "recaps.csv", MEDIA / "movies.csv", MEDIA / "subtitles.csv", out=folder
    )
    return folder


def config(folder: Path, server: FakeServer, model: str, setting: str, **fields) -> EvalConfig:
    return EvalConfig(
        bench=str(folder),
        method="movierecaps",
        model=f"openai-compatible:{server.url}#{model}",
        frames="uniform:6",
        method_args={"setting": setting},
        **fields,
    )


def answered(folder: Path) -> dict[str, dict]:
    lines = (folder / "predictions.jsonl").read_text().splitlines()
    return {p["sample_id"]: p for p in map(json.loads, lines) if p["error"] is None}


@pytest.mark.parametrize("setting", ["recap-segment", "full-movie"])
def test_frames_sent_are_the_same_bytes_with_and_without_the_store(bench_folder, tmp_path, setting):
    with FakeServer(default="ok:A scripted answer.") as server:
        # each run names another model, so that no reply comes from the response cache
        run_eval(config(bench_folder, server, "a", setting, frame_cache=False), tmp_path / "without")
        bare = sent_images(server)
        server.requests.clear()
        run_eval(config(bench_folder, server, "b", setting), tmp_path / "cold")
        stored = sent_images(server)
        server.requests.clear()
        warm = run_eval(config(bench_folder, server, "c", setting), tmp_path / "warm")  # all in the store
        from_store = sent_images(server)
    sent = answered(tmp_path / "without")
    assert sent and image_count(bare) == 6 * len(sent) and len(bare) == len(sent)
    assert bare == stored == from_store
    assert warm.frames.decoded == 0 and warm.frames.from_store > 0
    # the frames are labelled on the window's clock (0 at its start), as the dialogue is
    for text, _ in bare:
        labels = [line for line in text.splitlines() if line.startswith("[") and line.endswith("]")]
        assert len(labels) == 6


def test_a_cached_rerun_decodes_nothing(bench_folder, tmp_path, monkeypatch):
    with FakeServer(default="ok:A scripted answer.") as server:
        first = run_eval(config(bench_folder, server, "fake", "recap-segment"), tmp_path / "first")
        calls = len(server.requests)
        decoded = count_decodes(monkeypatch)
        again = run_eval(config(bench_folder, server, "fake", "recap-segment"), tmp_path / "again")
        assert len(server.requests) == calls  # every reply from the response cache
    assert first.frames.decoded > 0 and first.frames.jobs < len(answered(tmp_path / "first"))  # planned
    assert decoded == [] and again.frames.decoded == 0 and again.frames.jobs == 0
    strips = {k: p["images"] for k, p in answered(tmp_path / "again").items()}
    assert strips == {k: p["images"] for k, p in answered(tmp_path / "first").items()}
    kept = [tmp_path / "again" / strip for found in strips.values() for strip in found]
    assert kept and all(path.stat().st_size > 500 for path in kept)
