"""`--input video`: the video itself goes to backends that take it. OpenAI-compatible servers get
the window cut and re-encoded (decoded back here: the right frames of the right window), Gemini
gets the source file through its file API with the window as `video_metadata` offsets. Replies
come from the loopback server (`fake_server`), a test double at the HTTP boundary."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import shutil
from pathlib import Path

import av
import pytest
import yaml
from fake_server import FakeServer

from vqakit.files import id_name
from vqakit.methods import MethodContext, VideoOptions, direct
from vqakit.models import Model
from vqakit.runner import EvalConfig, RunSetupError, run_eval
from vqakit.schema import Protocol, load_folder
from vqakit.video import read_frame_index

WINDOW = (4.0, 8.0)


@pytest.fixture
def bench(tmp_path: Path, index_clip: Path) -> Path:
    """One MCQ sample about 4-8 s of the 25 fps index clip (frames show their own number)."""
    root = tmp_path / "bench"
    (root / "media").mkdir(parents=True)
    shutil.copy(index_clip, root / "media/index.mp4")
    card = {
        "name": "window",
        "version": "1",
        "license": "CC0",
        "description": "one windowed question",
        "protocol": {"frames": "fps:2", "short_side": 120},
    }
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    sample = {
        "id": "q1",
        "question": "Which block lights up?",
        "videos": [{"path": "media/index.mp4", "start_s": WINDOW[0], "end_s": WINDOW[1]}],
        "choices": ["left", "right"],
        "answer": 1,
    }
    (root / "samples.jsonl").write_text(json.dumps(sample) + "\n")
    return root


def _decoded(data: bytes) -> tuple[float, list[int], list[float]]:
    """Duration, frame numbers (read from the pixels) and times of an MP4 clip."""
    with av.open(io.BytesIO(data)) as container:
        frames = list(container.decode(video=0))
        duration = container.duration / 1e6
    numbers = [read_frame_index(frame.to_ndarray(format="rgb24"), 320) for frame in frames]
    return duration, numbers, [float(frame.time) for frame in frames]


def _camel(value):
    """Wire keys as the API documents them (the SDK writes some nested ones in snake case; the
    API reads both)."""
    if isinstance(value, dict):
        return {
            key.split("_")[0] + "".join(w.title() for w in key.split("_")[1:]): _camel(item)
            for key, item in value.items()
        }
    return value


def test_openai_compatible_gets_a_playable_clip_of_the_window(bench: Path, tmp_path: Path):
    with FakeServer(default="ok:B") as server:
        outcome = run_eval(
            EvalConfig(bench=str(bench), model=f"openai-compatible:{server.url}#fake", input="video"),
            tmp_path / "run",
        )
    content = server.requests[0]["body"]["messages"][0]["content"]
    videos = [part for part in content if part["type"] == "video_url"]
    assert len(videos) == 1 and not any(part["type"] == "image_url" for part in content)
    url = videos[0]["video_url"]["url"]
    assert url.startswith("data:video/mp4;base64,")
    duration, numbers, times = _decoded(base64.b64decode(url.split(",", 1)[1]))
    # fps:2 over 4-8 s: the frames at 4.0, 4.5, ... 7.5 s of a 25 fps video, 0.5 s apart in the clip
    assert numbers == [100, 112, 125, 137, 150, 162, 175, 187]
    assert times == pytest.approx([0.5 * k for k in range(8)])
    assert duration == pytest.approx(WINDOW[1] - WINDOW[0], abs=0.05)
    assert outcome.results["mcq"]["accuracy"] == 1.0
    manifest = json.loads((tmp_path / "run/manifest.json").read_text())
    assert manifest["input"] == "video" and "data URL" in manifest["video"]
    prediction = json.loads((tmp_path / "run/predictions.jsonl").read_text().splitlines()[0])
    assert prediction["video"]["start_s"] == 4.0 and prediction["video"]["end_s"] == 8.0
    assert prediction["frames_s"] == [] and prediction["images"] == []
    page = (tmp_path / "run/samples/page-001.html").read_text()
    assert "video sent: [00:04]-[00:08] (4.0 s) at 2 fps, clip as a data URL" in page


def test_a_local_server_can_read_the_clip_from_a_file_url(bench: Path, tmp_path: Path):
    with FakeServer(default="ok:B") as server:
        run_eval(
            EvalConfig(
                bench=str(bench),
                model=f"openai-compatible:{server.url}#fake",
                input="video",
                method_args={"video_url": "file"},
            ),
            tmp_path / "run",
        )
    part = next(p for p in server.requests[0]["body"]["messages"][0]["content"] if p["type"] == "video_url")
    url = part["video_url"]["url"]
    clip = tmp_path / f"run/clips/{id_name('q1', 120)}.mp4"  # the id's slug and digest
    assert url.startswith("file://") and url.endswith(f"/clips/{clip.name}")
    assert Path(url.removeprefix("file://")) == clip.resolve()
    assert _decoded(clip.read_bytes())[1][0] == 100


def test_gemini_gets_the_file_with_the_window_as_offsets(bench: Path, monkeypatch):
    import google.genai  # noqa: F401  (the gemini extra; CI installs it, so a missing one fails)

    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-secret")
    benchmark = load_folder(bench)
    sample = benchmark.samples[0]
    with FakeServer(default="ok:B") as server:
        model = Model("gemini:gemini-test", cache=False, backend_options={"base_url": server.root})
        context = MethodContext(
            root=bench,
            protocol=Protocol(frames="uniform:8", input="video"),
            model=model,
            options=VideoOptions(),
        )
        prediction = asyncio.run(direct(sample, context))
        second = asyncio.run(direct(sample, context))
    assert prediction.error is None and prediction.choice == 1 and second.choice == 1
    assert list(server.uploads.values()) == [(bench / "media/index.mp4").read_bytes()]  # once, uncut
    generate = [r for r in server.requests if ":generateContent" in r["path"]]
    parts = generate[0]["body"]["contents"][0]["parts"]
    video = _camel(next(part for part in parts if "fileData" in part))
    assert video["fileData"]["fileUri"].endswith("/v1beta/files/upload-1")
    assert video["videoMetadata"] == {"startOffset": "4s", "endOffset": "8s", "fps": 2.0}
    assert not any("inlineData" in part for part in parts)
    assert prediction.video == {"how": "file with offsets", "start_s": 4.0, "end_s": 8.0, "fps": 2.0}


def test_video_input_is_refused_before_the_run_where_it_cannot_work(bench: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-secret")
    with pytest.raises(RunSetupError, match="takes frames only"):
        run_eval(EvalConfig(bench=str(bench), model="anthropic:claude-test", input="video"), tmp_path / "a")
    with pytest.raises(RunSetupError, match="sends frames only"):
        run_eval(
            EvalConfig(
                bench=str(bench),
                model="openai-compatible:http://127.0.0.1:9/v1#m",
                method="blind",
                input="video",
            ),
            tmp_path / "b",
        )
    with pytest.raises(RunSetupError, match="a video needs a rate"):
        run_eval(
            EvalConfig(
                bench=str(bench),
                model="openai-compatible:http://127.0.0.1:9/v1#m",
                input="video",
                frames="at:1,2",
            ),
            tmp_path / "c",
        )
    assert not any((tmp_path / name).exists() for name in "abc")
