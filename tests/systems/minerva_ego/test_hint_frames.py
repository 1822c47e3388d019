"""The hints method's frames go through the run's frame provider: hinted frames are the bytes the
method sent before the frame store (decoded, shrunk to the size the model receives, marks drawn,
then encoded), the same with and without the store, and a re-run answered from the response
cache decodes nothing. Requests go to a real loopback server."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from fake_server import FakeServer
from PIL import Image as PILImage
from sent_frames import count_decodes, image_count, sent_images

from vqakit.benchmarks import load_benchmark
from vqakit.methods import window_spec
from vqakit.models import Model, sent_jpeg
from vqakit.runner import EvalConfig, run_eval
from vqakit.video import Resize, draw_marks, marks_at, parse_style, probe, sample_frames

FRAMES = "uniform:4"


@pytest.fixture(scope="module")
def tracked(tmp_path_factory) -> Path:
    """The sample benchmark's seven samples with object tracks (on its synthetic clips)."""
    sample = load_benchmark("sample")
    folder = tmp_path_factory.mktemp("hints") / "tracked"
    shutil.copytree(sample.root / "media/synthetic", folder / "media/synthetic")
    lines = (sample.root / "samples.jsonl").read_text().splitlines()
    drop = ("gold_clips", "gold_passages")  # the corpus is not copied
    kept = [
        json.dumps({k: v for k, v in json.loads(line).items() if k not in drop})
        for line in lines
        if json.loads(line).get("objects")
    ]
    (folder / "samples.jsonl").write_text("\n".join(kept) + "\n")
    card = {"name": "tracked", "version": "1", "license": "Apache-2.0", "description": "Tracked samples."}
    card["protocol"] = {"frames": FRAMES, "short_side": 448, "upscale": True}
    (folder / "benchmark.yaml").write_text(yaml.safe_dump(card))
    assert len(kept) == 7
    return folder


def config(folder: Path, server: FakeServer, model: str, style: str, **fields) -> EvalConfig:
    return EvalConfig(
        bench=str(folder),
        method="hints",
        model=f"openai-compatible:{server.url}#{model}",
        method_args={"style": style},
        **fields,
    )


def as_sent_before(folder: Path, style: str, server: FakeServer) -> list[list[str]]:
    """The image URLs of each sample as the hints method made them before the frame store:
    frames decoded, shrunk to the size the model receives, marks drawn, encoded as data URLs."""
    bench = load_benchmark(str(folder))
    model = Model(f"openai-compatible:{server.url}#x")  # never called: its sizes only
    drawn_style = parse_style(style)
    found = []
    for sample in bench.samples:
        path = bench.root / sample.videos[0].path
        tracks = [t for t in sample.objects if t.video == 0]
        frames = sample_frames(path, window_spec(sample, FRAMES), resize=Resize(448, upscale=True))
        urls = []
        for frame in frames:
            image = frame.image
            size = model.sent_size(image.shape[1], image.shape[0])
            if size != (image.shape[1], image.shape[0]):
                image = np.asarray(PILImage.fromarray(image).resize(size, PILImage.Resampling.BICUBIC))
            marks = marks_at(tracks, frame.time_s, bench.root, max_gap_s=10.0)
            image = draw_marks(image, marks, drawn_style, probe(path).display_size)
            data = sent_jpeg(image, model.image_max_side).data
            urls.append("data:image/jpeg;base64," + base64.b64encode(data).decode())
        found.append(urls)
    return sorted(found)


@pytest.mark.parametrize("style", ["box+classes", "box+text"])
def test_hinted_frames_are_the_same_bytes_with_and_without_the_store(tracked, tmp_path, style):
    with FakeServer(default="ok:Answer: A") as server:
        # each run names another model, so that no reply comes from the response cache
        without = run_eval(config(tracked, server, "a", style, frame_cache=False), tmp_path / "without")
        bare = sent_images(server)
        server.requests.clear()
        run_eval(config(tracked, server, "b", style), tmp_path / "cold")
        stored = sent_images(server)
        server.requests.clear()
        warm = run_eval(config(tracked, server, "c", style), tmp_path / "warm")  # all in the store
        from_store = sent_images(server)
        before = as_sent_before(tracked, style, server)
    assert len(bare) == 7 and image_count(bare) == 28 and without.results["errors"]["n"] == 0
    assert bare == stored == from_store
    assert sorted(urls for _, urls in bare) == before  # and the bytes the method always sent
    assert warm.frames.decoded == 0 and warm.frames.from_store > 0
    if style == "box+text":  # a line before each frame, then the frame alone
        text = bare[0][0]
        assert text.count("[00:") == 4 and "768 pixels\nwide and 432 pixels high" in text


def test_a_cached_rerun_of_hints_decodes_nothing(tracked, tmp_path, monkeypatch):
    with FakeServer(default="ok:Answer: B") as server:
        first = run_eval(config(tracked, server, "fake", "circle+classes+temporal"), tmp_path / "first")
        calls = len(server.requests)
        decoded = count_decodes(monkeypatch)
        again = run_eval(config(tracked, server, "fake", "circle+classes+temporal"), tmp_path / "again")
        assert len(server.requests) == calls == 7  # every reply from the response cache
    assert first.frames.decoded > 0
    assert decoded == [] and again.frames.decoded == 0 and again.frames.jobs == 0
    assert again.frames.from_store == 0  # not even read: the replies need none
    assert first.results["mcq"] == again.results["mcq"]
    strips = [p["images"] for p in map(json.loads, (tmp_path / "again/predictions.jsonl").open())]
    assert all(len(s) == 1 and (tmp_path / "again" / s[0]).stat().st_size > 500 for s in strips)
