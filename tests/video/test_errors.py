"""Unusable media raise one VideoError whose message starts with the file's path."""

from __future__ import annotations

import shutil
import subprocess
import sys

import av
import numpy as np
import pytest

from vqakit.schema import Uniform
from vqakit.video import VideoError, probe, sample_frames


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
