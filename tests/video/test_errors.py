"""Unusable media raise one VideoError whose message starts with the file's path."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import av
import numpy as np
import pytest

from vqakit.schema import Uniform
from vqakit.video import VideoError, VideoMediaChecker, probe, sample_frames


def _raises_naming(path, call):
    with pytest.raises(VideoError) as caught:
        call(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    assert "\n" not in message
    return message


def test_missing_file(tmp_path):
    message = _raises_naming(tmp_path / "nope.mp4", lambda p: sample_frames(p, Uniform(2)))
    assert "file not found" in message


def test_folder_instead_of_file(tmp_path):
    assert "folder" in _raises_naming(tmp_path, lambda p: sample_frames(p, Uniform(2)))


def test_random_bytes(tmp_path):
    path = tmp_path / "noise.mp4"
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 50_000, dtype=np.uint8).tobytes())
    assert "cannot open" in _raises_naming(path, lambda p: sample_frames(p, Uniform(2)))


def test_empty_file(tmp_path):
    path = tmp_path / "empty.mp4"
    path.write_bytes(b"")
    _raises_naming(path, probe)


def test_truncated_file(index_clip, tmp_path):
    path = tmp_path / "truncated.mp4"
    data = index_clip.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    message = _raises_naming(path, lambda p: sample_frames(p, Uniform(8)))
    assert "truncated" in message or "cannot open" in message


def _remux(source, target, **options):
    """Copy the packets of `source` into `target` (container from the suffix) without re-encoding."""
    with av.open(str(source)) as reader, av.open(str(target), "w", options=options) as writer:
        stream = writer.add_stream_from_template(reader.streams.video[0])
        for packet in reader.demux(reader.streams.video[0]):
            if packet.dts is not None:
                packet.stream = stream
                writer.mux(packet)
    return target


@pytest.fixture(scope="module")
def whole_files(index_clip, tmp_path_factory):
    """The 20 s index clip as MP4 with its index (moov) at the end, at the front, and as MKV."""
    folder = tmp_path_factory.mktemp("whole")
    return {
        "moov-end.mp4": index_clip,
        "moov-front.mp4": _remux(index_clip, folder / "front.mp4", movflags="faststart"),
        "clip.mkv": _remux(index_clip, folder / "clip.mkv"),
    }


def _cut(path, target, fraction):
    data = path.read_bytes()
    target.write_bytes(data[: int(len(data) * fraction)])
    return target


@pytest.mark.parametrize("name", ["moov-end.mp4", "moov-front.mp4", "clip.mkv"])
@pytest.mark.parametrize("fraction", [0.6, 0.95])
def test_truncated_files_are_caught_by_the_end_check(whole_files, tmp_path, name, fraction):
    """The first 60% of a file whose header (MP4 moov at the front, MKV) still describes the
    whole video: the header probe and the first frame succeed, the end check does not."""
    path = _cut(whole_files[name], tmp_path / name, fraction)
    if name != "moov-end.mp4":
        assert probe(path).duration_s == 20.0  # the header alone does not tell
    message = _raises_naming(path, lambda p: probe(p, check_end=True))
    assert "truncated" in message or "cannot open" in message  # moov at the end: nothing to open
    with pytest.raises(VideoError):
        VideoMediaChecker().video_duration(path)


@pytest.mark.parametrize("name", ["moov-end.mp4", "moov-front.mp4", "clip.mkv"])
def test_whole_files_pass_the_end_check(whole_files, name):
    assert VideoMediaChecker().video_duration(whole_files[name]) == 20.0


def test_end_check_names_a_missing_last_packet(whole_files, tmp_path):
    """Cut inside the last packet: only the packet's partial read shows it."""
    data = whole_files["moov-front.mp4"].read_bytes()
    path = tmp_path / "last.mp4"
    path.write_bytes(data[:-20])
    assert "truncated" in _raises_naming(path, lambda p: probe(p, check_end=True))


def test_validate_names_truncated_videos_on_every_line(whole_files, tmp_path):
    media = tmp_path / "media"
    media.mkdir()
    for name, path in whole_files.items():
        _cut(path, media / f"cut-{name}", 0.6)
    (tmp_path / "benchmark.yaml").write_text(
        "name: cut\nversion: '1'\nlicense: CC0-1.0\ndescription: cut files\n"
    )
    lines = [
        {"id": f"{name}-{copy}", "videos": [{"path": f"media/cut-{name}"}], "question": "?", "answer": "x"}
        for name in whole_files
        for copy in (1, 2)
    ]
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = subprocess.run(
        [sys.executable, "-m", "vqakit", "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    found = result.stdout.splitlines()
    assert [line.split(": ", 2)[:2] for line in found] == [
        [f"samples.jsonl:{number}", "videos.0.path"] for number in range(1, 7)
    ], result.stdout
    assert all("unreadable video:" in line for line in found)
    assert sum(": truncated: the header declares" in line for line in found) == 4
    assert sum(": cannot open as a video" in line for line in found) == 2  # moov at the end


def test_error_message_is_one_line_whatever_the_path(tmp_path):
    path = tmp_path / "two\nlines.mp4"
    message = str(VideoError(path, "bad\r\ndata"))
    assert "\n" not in message and "\r" not in message
    assert message.endswith("two\\nlines.mp4: bad\\r\\ndata")


def test_audio_only_file_has_no_video(tmp_path):
    path = tmp_path / "tone.m4a"
    with av.open(str(path), "w") as container:
        _write_audio(container, video=False)
    assert "no video stream" in _raises_naming(path, probe)


def _write_audio(container: av.container.OutputContainer, video: bool) -> None:
    if video:
        stream = container.add_stream("libx264", rate=25)
        stream.width, stream.height, stream.pix_fmt = 64, 64, "yuv420p"
    audio = container.add_stream("aac", rate=16000)
    for i in range(10):
        frame = av.AudioFrame.from_ndarray(
            np.zeros((1, 1024), dtype=np.float32), format="fltp", layout="mono"
        )
        frame.sample_rate, frame.pts = 16000, i * 1024
        for packet in audio.encode(frame):
            container.mux(packet)
    for packet in audio.encode(None):
        container.mux(packet)


def test_zero_frame_video(tmp_path):
    """A video stream is declared but holds no frame (only the audio track has data)."""
    path = tmp_path / "zero.mkv"
    with av.open(str(path), "w") as container:
        _write_audio(container, video=True)
    assert path.stat().st_size > 0
    message = _raises_naming(path, lambda p: sample_frames(p, Uniform(1)))
    assert "no video frames" in message


@pytest.mark.skipif(shutil.which("vqakit") is None, reason="console script not installed")
def test_cli_reports_one_line(tmp_path):
    path = tmp_path / "broken.mp4"
    path.write_bytes(b"\x00" * 1000)
    result = subprocess.run(
        [sys.executable, "-m", "vqakit", "frames", str(path), "--uniform", "4", "--out", str(tmp_path / "f")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0], result.stderr
