from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest
from PIL import Image

from vqakit.video import read_frame_index


def vqakit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vqakit", *args], capture_output=True, text=True, check=False
    )


def test_help_is_fast_and_imports_no_heavy_modules():
    code = (
        "import sys, time; t = time.perf_counter(); from vqakit.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'transformers', 'ray', 'av', 'numpy') if m in sys.modules]\n"
        "print(heavy)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.skipif(shutil.which("vqakit") is None, reason="console script not installed")
def test_help_answers_in_under_half_a_second():
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(["vqakit", "--help"], capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
    assert best < 0.5, f"vqakit --help took {best:.2f}s"


def test_output_piped_into_a_reader_that_stops_ends_quietly():
    """`vqakit systems | head -1`: the reader closes the pipe before vqakit writes; that is no bug
    of ours, so no catch-all line ('BrokenPipeError ... set VQAKIT_DEBUG=1') and no traceback."""
    reader = subprocess.Popen([sys.executable, "-c", "pass"], stdin=subprocess.PIPE)
    reader.wait()  # the reading end is closed before vqakit starts writing
    result = subprocess.run(
        [sys.executable, "-m", "vqakit", "systems"], stdout=reader.stdin, stderr=subprocess.PIPE, text=True
    )
    reader.stdin.close()
    assert result.stderr == ""
    assert result.returncode == 1


@pytest.mark.parametrize(
    ("args", "numbers"),
    [
        (["--uniform", "4"], [62, 187, 312, 437]),
        (["--uniform", "2", "--start", "4", "--end", "6"], [112, 137]),
        (["--fps", "1", "--max", "3"], [83, 250, 416]),
        (["--fps", "0.5", "--start", "10"], [250, 300, 350, 400, 450]),
        (["--at", "0,3.5,19.98"], [0, 87, 499]),
    ],
)
def test_frames_writes_exact_frames(index_clip, tmp_path, args, numbers):
    out = tmp_path / "frames"
    result = vqakit("frames", str(index_clip), *args, "--out", str(out), "--format", "png")
    assert result.returncode == 0, result.stderr
    listing = json.loads((out / "frames.json").read_text())
    assert [item["frame_number"] for item in listing] == numbers
    assert [item["index"] for item in listing] == list(range(len(numbers)))
    for item in listing:
        assert item["time_s"] == pytest.approx(item["frame_number"] / 25)
        image = Image.open(out / item["file"]).convert("RGB")
        import numpy as np

        assert read_frame_index(np.asarray(image)) == item["frame_number"]


def test_frames_resizes_and_reads_shipped_media(tmp_path):
    out = tmp_path / "bunny"
    result = vqakit(
        "frames", "sample:media/bigbuckbunny.mp4", "--uniform", "3", "--short-side", "224", "--out", str(out)
    )
    assert result.returncode == 0, result.stderr
    assert Image.open(out / "frame_0000.jpg").size == (398, 224)


def test_frames_usage_errors(index_clip, tmp_path):
    both = vqakit("frames", str(index_clip), "--uniform", "3", "--fps", "1", "--out", str(tmp_path))
    assert both.returncode == 2 and "exactly one of" in both.stderr
    missing = vqakit("frames", str(tmp_path / "none.mp4"), "--uniform", "3", "--out", str(tmp_path / "o"))
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines() == [f"Error: {tmp_path / 'none.mp4'}: file not found"]


def test_probe_json(index_clip):
    result = vqakit("probe", str(index_clip), "--exact")
    info = json.loads(result.stdout)
    assert info["frame_count"] == 500 and info["fps"] == 25.0 and info["width"] == 320
    assert info["duration_s"] == pytest.approx(20.0) and info["rotation"] == 0


def test_benchmarks_lists_sample():
    result = vqakit("benchmarks")
    assert result.returncode == 0 and result.stdout.startswith("sample\t")
