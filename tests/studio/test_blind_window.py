"""What a participant is sent: with `--answer-view video`, exactly the window of the question they
are answering, cut on its own (every frame decoded from the clip lies in the window: none before
its start, none from its end on), never the file (403), nor another question's window (404); with
frames, the frames of the current question only (not another sample's, not one beyond --limit);
and frames are decoded only from a video still inside the folder (a file swapped for a link out
after start-up is 404, as /media is)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import av
import pytest
from starlette.testclient import TestClient

from vqakit.studio import Person, Studio, StudioSettings, create_app
from vqakit.video import read_frame_index, write_index_clip

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
WINDOWS = {"s1": (2.0, 5.0), "s2": (6.0, 8.0)}  # of a 10 s video at 10 frames a second


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Path:
    """A benchmark of two questions over windows of one video whose frames show their number."""
    root = tmp_path_factory.mktemp("blind") / "bench"
    (root / "media").mkdir(parents=True)
    write_index_clip(root / "media/counter.mp4", seconds=10, fps=10, width=320, height=240, gop=20)
    card = {
        "name": "blind",
        "version": "1.0.0",
        "license": "CC0-1.0",
        "description": "windows of a counting video",
        "human_video": True,
        "protocol": {"frames": "uniform:4"},
    }
    (root / "benchmark.yaml").write_text(json.dumps(card))  # JSON is YAML
    samples = [
        {
            "id": sample_id,
            "question": f"What happens in {sample_id}?",
            "choices": ["one", "two"],
            "answer": 0,
            "videos": [{"path": "media/counter.mp4", "start_s": start, "end_s": end}],
        }
        for sample_id, (start, end) in WINDOWS.items()
    ]
    (root / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return root


def participant(tmp_path: Path, root: Path, view: str, **settings) -> TestClient:
    studio = Studio(
        StudioSettings(
            folders=[str(root)],
            people=[Person("p01", "participant")],
            answer_view=view,
            order="benchmark",
            runs=tmp_path / "runs",
            **settings,
        )
    )
    web = TestClient(create_app(studio), base_url="http://127.0.0.1:8765")
    web.headers["authorization"] = f"Bearer {studio.signer.token('p01', 'participant')}"
    web.headers["x-csrf-token"] = web.get("/api/session").json()["csrf"]
    return web


def frame_numbers(data: bytes) -> list[int]:
    with av.open(io.BytesIO(data)) as container:
        return [read_frame_index(frame.to_ndarray(format="rgb24")) for frame in container.decode(video=0)]


def answer(web: TestClient, sample_id: str) -> None:
    body = {"choice": 0, "elapsed_s": 1.0, "request_id": f"answer-{sample_id}-0001"}
    assert web.post(f"/api/answer/{sample_id}?bench=bench", json=body).status_code == 201


def test_a_participant_is_sent_the_window_and_nothing_else_of_the_video(tmp_path, indexed):
    web = participant(tmp_path, indexed, "video")
    shown = web.get("/api/next?bench=bench").json()
    assert shown["sample"]["id"] == "s1" and shown["sample"]["video"]["url"] == "/clip/bench?sample=s1"
    assert "counter" not in json.dumps(shown)  # not even the file's name
    assert shown["sample"]["video"]["end_s"] == pytest.approx(3.0, abs=0.11)
    assert web.get("/media/bench/media/counter.mp4").status_code == 403
    assert web.get("/media/bench/media/counter.mp4", headers={"range": "bytes=0-99"}).status_code == 403
    clip = web.get("/clip/bench?sample=s1")
    assert clip.status_code == 200 and clip.headers["content-type"] == "video/mp4"
    assert frame_numbers(clip.content) == list(range(20, 50))  # every frame of 2.0-5.0 s, nothing else
    part = web.get("/clip/bench?sample=s1", headers={"range": "bytes=0-99"})
    assert part.status_code == 206 and part.content == clip.content[:100]
    assert web.get("/clip/bench?sample=s2").status_code == 404  # not the question being answered
    answer(web, "s1")
    assert web.get("/clip/bench?sample=s1").status_code == 404  # answered: no more of it
    assert frame_numbers(web.get("/clip/bench?sample=s2").content) == list(range(60, 80))


def test_a_participant_gets_the_frames_of_the_current_question_only(tmp_path, indexed):
    web = participant(tmp_path, indexed, "frames", limit=1)
    assert web.get("/api/next?bench=bench").json()["sample"]["id"] == "s1"
    assert web.get("/frames/bench/0?sample=s1").status_code == 200
    assert web.get("/frames/bench/0?sample=s2").status_code == 404  # beyond --limit
    assert web.get("/clip/bench?sample=s1").status_code == 403  # frames only in this studio
    web = participant(tmp_path / "all", indexed, "frames")
    assert web.get("/frames/bench/0?sample=s2").status_code == 404  # another sample's
    answer(web, "s1")
    assert web.get("/frames/bench/0?sample=s1").status_code == 404
    assert web.get("/frames/bench/0?sample=s2").status_code == 200


def test_frames_are_not_decoded_from_a_video_swapped_for_a_link_out(tmp_path):
    root = tmp_path / "bench"
    shutil.copytree(SAMPLE, root)
    outside = tmp_path / "outside.mp4"
    shutil.copy(root / "media/bikes.mp4", outside)
    web = TestClient(create_app(Studio(StudioSettings(folders=[str(root)], runs=tmp_path / "runs"))))
    web.headers["x-csrf-token"] = web.get("/api/session").json()["csrf"]
    web.post("/api/session", json={"person": "alice"})
    web.headers["x-csrf-token"] = web.get("/api/session").json()["csrf"]
    sample = next(
        json.loads(line)["id"]
        for line in (root / "samples.jsonl").read_text().splitlines()
        if "bikes.mp4" in line
    )
    assert web.get(f"/api/frames/{sample}?bench=bench").status_code == 200
    (root / "media/bikes.mp4").unlink()
    (root / "media/bikes.mp4").symlink_to(outside)  # after start-up, and after a first decode
    assert web.get("/media/bench/media/bikes.mp4").status_code == 404
    assert web.get(f"/frames/bench/0?sample={sample}").status_code == 404
    assert web.get(f"/api/frames/{sample}?bench=bench").status_code == 404
