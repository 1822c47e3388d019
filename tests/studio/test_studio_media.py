"""The frames the studio shows are the frames a model is sent: sized by the protocol's whole
resize rule (`upscale` too), and cached under a key naming that rule."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from PIL import Image
from starlette.testclient import TestClient

from vqakit.studio import Studio, StudioSettings, create_app
from vqakit.studio._media import FrameCache
from vqakit.video import Resize

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
WORKBENCH = "wb-circle-motion"  # a 480x270 video: smaller than the protocol's short side, 448


def size(jpeg: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(jpeg)).size


def test_frames_follow_the_protocols_upscale_and_are_cached_apart(tmp_path):
    studio = Studio(StudioSettings(folders=["sample"], review_dir=tmp_path / "review"))
    workspace = studio.workspace(None)
    sample = workspace.sample(WORKBENCH)
    kept = workspace.benchmark().card.protocol
    enlarged = kept.model_copy(update={"upscale": True})
    cache = FrameCache()
    assert {size(j) for j in cache.get(workspace, sample, kept).jpegs} == {(480, 270)}
    expected = Resize(short_side=448, upscale=True).output_size(480, 270)
    assert expected == (796, 448)
    assert {size(j) for j in cache.get(workspace, sample, enlarged).jpegs} == {expected}
    assert {size(j) for j in cache.get(workspace, sample, kept).jpegs} == {(480, 270)}  # not mixed up


def test_a_cards_upscale_reaches_the_frames_people_see(tmp_path):
    root = tmp_path / "bench"
    shutil.copytree(SAMPLE, root)
    card = (root / "benchmark.yaml").read_text()
    (root / "benchmark.yaml").write_text(
        card.replace("  short_side: 448\n", "  short_side: 448\n  upscale: true\n")
    )
    studio = Studio(StudioSettings(folders=[str(root)]))
    web = TestClient(create_app(studio), base_url="http://127.0.0.1:8765")
    csrf = web.get("/api/session").json()["csrf"]
    web.post("/api/session", json={"person": "alice"}, headers={"x-csrf-token": csrf})
    listed = web.get(f"/api/frames/{WORKBENCH}").json()
    first = web.get(listed["urls"][0])
    assert first.status_code == 200 and size(first.content) == (796, 448)
