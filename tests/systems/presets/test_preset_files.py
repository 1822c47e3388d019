"""Every preset survives every single bad file: a subtitle, frame image or map that cannot be
used is a problem of the questions that use it, named by its real path (never the staging
folder's), and the rest is imported. Subtitle cleaning is linear in what it cleans."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.schema import load_folder

FIXTURES = Path(__file__).resolve().parents[3] / "docs/examples/datasets"


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def release(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / name, tmp_path / name))


def run(preset: str, release: Path, videos: Path, out: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["import", preset, str(release), "--videos", str(videos), "--out", str(out)]
    )
    return result.exit_code, result.output


def bomb_png(width: int, height: int) -> bytes:
    """A 1x1 PNG whose header claims `width` x `height` pixels (its checksum made to match)."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (1, 1)).save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    header = bytearray(data[12:29])  # "IHDR" and its 13 bytes
    header[4:12] = struct.pack(">II", width, height)
    data[12:29] = header
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(header)))
    return bytes(data)


def test_longvideobench_a_cue_holding_an_arrow_keeps_its_questions(tmp_path: Path):
    folder = release("longvideobench", tmp_path)
    cues_path = folder / "subtitles/86CxyhFV9MI_en.json"
    cues = json.loads(cues_path.read_text())
    cues[0]["line"] = "left --> right, then ---> up\n\nand on"
    cues_path.write_text(json.dumps(cues))
    code, output = run("longvideobench", folder, folder / "videos", tmp_path / "bench")
    assert code == 0, output
    assert "wrote 3 of 3 questions" in output and ".staging" not in output
    bench = load_folder(tmp_path / "bench")
    srt = (tmp_path / "bench" / next(s.subtitles for s in bench.samples if s.subtitles)).read_text()
    assert "left -> right, then -> up\nand on" in srt


def test_mvbench_a_frame_claiming_a_huge_size_fails_its_folder_only_named(tmp_path: Path):
    folder = release("mvbench", tmp_path)
    frames = sorted((folder / "video/tvqa/frames_fps3_hq").iterdir())[0]
    bomb = frames / "00002.png"
    bomb.write_bytes(bomb_png(30000, 30000))
    assert len(bomb.read_bytes()) < 100
    wide = bomb_png(20000, 4000)  # under Pillow's own limit, over ours: refused from the header too
    code, output = run("mvbench", folder / "json", folder / "video", tmp_path / "bench")
    assert code == 0, output
    assert "DecompressionBomb" not in output and "VQAKIT_DEBUG" not in output
    assert f"{bomb}: the image header claims 900,000,000 pixels" in output
    assert "wrote 3 of 5 questions" in output
    bomb.write_bytes(wide)
    code, output = run("mvbench", folder / "json", folder / "video", tmp_path / "bench2")
    assert code == 0 and f"{bomb}: the image header claims 20000x4000 = 80,000,000 pixels" in output


def test_mvbench_a_frame_that_is_no_image_is_named(tmp_path: Path):
    folder = release("mvbench", tmp_path)
    frames = sorted((folder / "video/tvqa/frames_fps3_hq").iterdir())[0]
    broken = sorted(frames.iterdir())[3]
    broken.write_bytes(broken.read_bytes()[:40])  # a JPEG cut short
    code, output = run("mvbench", folder / "json", folder / "video", tmp_path / "bench")
    assert code == 0, output
    assert f"{broken}: " in output and "wrote 3 of 5 questions" in output


def test_videomme_cleans_100k_unclosed_font_tags_in_under_a_second(tmp_path: Path):
    subtitles = tmp_path / "tags.srt"
    subtitles.write_text("1\n00:00:01,000 --> 00:00:02,000\n" + '<font color="#ffffff" size' * 100_000 + "\n")
    script = (
        "import sys, time; from pathlib import Path\n"
        "from vqakit.systems.presets.videomme import plain_subtitles\n"
        "start = time.perf_counter(); text = plain_subtitles(Path(sys.argv[1]), {})\n"
        "print(time.perf_counter() - start, len(text))\n"
    )
    try:  # in a child, so a quadratic cleaner fails here instead of holding the suite for minutes
        done = subprocess.run(
            [sys.executable, "-c", script, str(subtitles)],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("cleaning 100,000 unclosed <font tags took more than 20 s")
    seconds, length = done.stdout.split()
    assert float(seconds) < 1.0
    assert int(length) == len("1\n00:00:01,000 --> 00:00:02,000\n\n")


def test_videomme_still_strips_closed_tags(tmp_path: Path):
    from vqakit.systems.presets.videomme import plain_subtitles

    subtitles = tmp_path / "t.srt"
    subtitles.write_text(
        '1\n00:00:01,000 --> 00:00:02,000\n<font color="#fff" size="20">Hi</font> <FONT x>there\n'
    )
    assert plain_subtitles(subtitles, {}) == "1\n00:00:01,000 --> 00:00:02,000\nHi there\n"


def test_nextqa_a_missing_video_map_is_named(tmp_path: Path):
    folder = release("nextqa", tmp_path) / "dataset/nextqa"
    (folder / "map_vid_vidorID.json").unlink()
    code, output = run("nextqa", folder, FIXTURES / "nextqa/NExTVideo", tmp_path / "bench")
    assert code == 1
    assert f"{folder / 'val.csv'}:2:video: '4010069381': no {folder / 'map_vid_vidorID.json'}" in output
    flat = tmp_path / "flat"  # without the map, videos lying directly under --videos are found
    flat.mkdir()
    shutil.copy(FIXTURES / "nextqa/NExTVideo/0029/4010069381.mp4", flat)
    code, output = run("nextqa", folder, flat, tmp_path / "bench")
    assert code == 0, output
    assert {s.metadata.model_extra["video_id"] for s in load_folder(tmp_path / "bench").samples} == {
        4010069381
    }
