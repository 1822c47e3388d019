"""`--input video --method-arg video_url=file`: each sample's clip is its own file, whatever its
id holds. Ten ids that differ only in punctuation (and two long ones that end alike) used to
share `clips/q_1.mp4`, so a server reading the file got another sample's clip. The loopback
server (`fake_server`, a test double at the HTTP boundary) opens each request's file:// URL
while the request waits, and again after the run, and reads the frame numbers drawn in it."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import av
import yaml
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.video import read_frame_index

IDS = ["q/1", "q?1", "q 1", "q:1", "q*1", "q|1", 'q"1', "q<1", "q>1", "q\\1"]
LONG = ["a" * 20 + "x" * 120, "b" * 20 + "x" * 120]  # 140 characters, the last 120 alike
FPS = 25  # the index clip's rate: frame k is drawn with the number k


def _bench(root: Path, clip: Path, ids: list[str]) -> Path:
    """Sample k asks about second k to k+1 of the index clip, so its clip starts at frame 25k."""
    (root / "media").mkdir(parents=True)
    shutil.copy(clip, root / "media/index.mp4")
    card = {"name": "ids", "version": "1", "license": "CC0", "description": "look-alike ids",
            "protocol": {"frames": "fps:2", "short_side": 120}}  # fmt: skip
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    samples = [
        {
            "id": sample_id,
            "question": f"Question number {k}: which block lights up?",
            "videos": [{"path": "media/index.mp4", "start_s": float(k), "end_s": float(k + 1)}],
            "choices": ["left", "right"],
            "answer": 0,
        }
        for k, sample_id in enumerate(ids)
    ]
    (root / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return root


def _first_frame(path: Path) -> int:
    with av.open(str(path)) as container:
        frame = next(container.decode(video=0))
        return read_frame_index(frame.to_ndarray(format="rgb24"), 320)


def _question_number(body: dict) -> int:
    texts = [part["text"] for part in body["messages"][0]["content"] if part.get("type") == "text"]
    return int(next(t for t in texts if "Question number" in t).split("Question number ")[1].split(":")[0])


def _file_url(body: dict) -> Path:
    part = next(p for p in body["messages"][0]["content"] if p["type"] == "video_url")
    url = urlparse(part["video_url"]["url"])
    assert url.scheme == "file"
    return Path(unquote(url.path))


def _run(tmp_path: Path, clip: Path, ids: list[str]) -> tuple[dict[int, int], dict[int, Path], Path]:
    """Evaluate with clips as file URLs; (question -> first frame the server read while the
    request waited, question -> the file its request named, the run folder)."""
    bench = _bench(tmp_path / "bench", clip, ids)
    seen: dict[int, int] = {}
    named: dict[int, Path] = {}
    lock = threading.Lock()

    def look(body: dict) -> None:
        number, path = _question_number(body), _file_url(body)
        first = _first_frame(path)
        with lock:
            seen[number], named[number] = first, path

    out = tmp_path / "run"
    with FakeServer(default="ok:A", on_request=look, delay_s=0.05) as server:
        result = CliRunner().invoke(
            main,
            ["eval", str(bench), "--model", f"openai-compatible:{server.url}#fake", "--input", "video",
             "--method-arg", "video_url=file", "--concurrency", "4", "--out", str(out)],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return seen, named, out


def test_look_alike_ids_each_send_their_own_clip(tmp_path: Path, index_clip: Path):
    seen, named, out = _run(tmp_path, index_clip, IDS)
    expected = {k: FPS * k for k in range(len(IDS))}
    # while each request waited, and after the run (the clips are kept in the run folder)
    assert seen == expected
    assert {k: _first_frame(path) for k, path in named.items()} == expected
    assert len(set(named.values())) == len(IDS)
    assert all(path.parent == (out / "clips").resolve() for path in named.values())
    names = sorted(path.name for path in named.values())
    assert all(name.startswith("q_1-") and name.endswith(".mp4") for name in names), names


def test_long_ids_that_end_alike_each_send_their_own_clip(tmp_path: Path, index_clip: Path):
    seen, named, _ = _run(tmp_path, index_clip, LONG)
    assert seen == {0: 0, 1: FPS}
    assert {k: _first_frame(path) for k, path in named.items()} == {0: 0, 1: FPS}
    assert named[0] != named[1]
