"""Frames are decoded once: the same bytes reach the model with and without the frame store, a
warm store decodes nothing, a re-run answered from the response cache decodes (and reads)
nothing, and samples on one video share one decode. Requests go to a real loopback server."""

from __future__ import annotations

import json
from pathlib import Path

from fake_server import FakeServer

from vqakit.runner import EvalConfig, run_eval
from vqakit.runs import RunFolder

LIMIT = 14


def sent(server: FakeServer) -> dict[str, list[str]]:
    """{prompt text: the image data URLs of its request}"""
    found = {}
    for request in server.requests:
        content = request["body"]["messages"][0]["content"]
        text = "\n".join(part["text"] for part in content if part["type"] == "text")
        found[text] = [part["image_url"]["url"] for part in content if part["type"] == "image_url"]
    return found


def config(server: FakeServer, model: str = "fake", **fields) -> EvalConfig:
    return EvalConfig(
        bench="sample",
        model=f"openai-compatible:{server.url}#{model}",
        limit=LIMIT,
        frames="uniform:4",
        **fields,
    )


def test_frames_sent_are_the_same_bytes_with_and_without_the_store(tmp_path: Path):
    with FakeServer(default="ok:Answer: A") as server:
        # each run names another model, so that no reply comes from the response cache
        without = run_eval(config(server, model="a", frame_cache=False), tmp_path / "without")
        bare = sent(server)
        server.requests.clear()
        cold = run_eval(config(server, model="b"), tmp_path / "cold")
        stored = sent(server)
        server.requests.clear()
        warm = run_eval(config(server, model="c"), tmp_path / "warm")  # every frame in the store
        from_store = sent(server)
    assert len(bare) == LIMIT and sum(len(urls) for urls in bare.values()) > 30
    assert bare == stored == from_store
    assert without.frames.decoded > 0 and cold.frames.decoded == without.frames.decoded
    assert warm.frames.decoded == 0 and warm.frames.from_store > 0
    manifest = json.loads((tmp_path / "cold" / "manifest.json").read_text())
    assert manifest["images"]["sent_as"]["quality"] == 90 and manifest["images"]["frame_store"] is True
    assert manifest["images"]["sent_as"]["encoder"].split()[0] in ("simplejpeg", "pillow")


def test_a_cached_rerun_decodes_nothing(tmp_path: Path):
    with FakeServer(default="ok:Answer: B") as server:
        first = run_eval(config(server), tmp_path / "first")
        calls = len(server.requests)
        again = run_eval(config(server), tmp_path / "again")
        assert len(server.requests) == calls  # every reply from the response cache
    assert first.frames.decoded > 0
    assert again.frames.decoded == 0 and again.frames.jobs == 0 and again.frames.from_store == 0
    assert first.results["mcq"] == again.results["mcq"]
    # the strips are in the new folder, copied from the store, one file per set of frames
    predictions = RunFolder(tmp_path / "again").predictions()
    strips = {p.images[0] for p in predictions.values() if p.images}
    assert strips and all((tmp_path / "again" / strip).stat().st_size > 500 for strip in strips)
    before = {p.sample_id: p.images for p in RunFolder(tmp_path / "first").predictions().values()}
    assert {p.sample_id: p.images for p in predictions.values()} == before
    assert (tmp_path / "again" / "report.html").is_file()


def test_a_cached_rerun_in_a_new_process_reads_no_video(tmp_path: Path, monkeypatch):
    """A new process (the in-process indexes forgotten) re-running from the caches indexes no
    video and probes none: which frames a spec picks, and the video's duration for the length
    groups, are kept in the frame store with the frames."""
    from vqakit.video import _index, _probe

    with FakeServer(default="ok:Answer: B") as server:
        first = run_eval(config(server), tmp_path / "first")
        _index._BUILT.clear()
        _probe._DURATIONS.clear()
        read: list[str] = []
        scan, probe = _index._scan_packets, _probe.probe

        def scanned(path):
            read.append(f"index {path}")
            return scan(path)

        def probed(path, **options):
            read.append(f"probe {path}")
            return probe(path, **options)

        monkeypatch.setattr(_index, "_scan_packets", scanned)
        monkeypatch.setattr(_probe, "probe", probed)
        again = run_eval(config(server), tmp_path / "again")
    assert read == [] and again.frames.decoded == 0
    assert again.results["groups"]["video_length"] == first.results["groups"]["video_length"]


def test_samples_on_one_video_share_one_decode(tmp_path: Path):
    """Six questions on one video with the same frames: four frames decoded, once, even without
    the frame store; the run keeps one strip for them."""
    with FakeServer(default="ok:Answer: A") as server:
        outcome = run_eval(
            config(server, frame_cache=False).model_copy(update={"limit": 6}), tmp_path / "run"
        )
        assert len(server.requests) == 6
    predictions = RunFolder(tmp_path / "run").predictions()
    videos = {p.sample_id: p.frames_s for p in predictions.values()}
    assert len(videos) == 6
    distinct = {tuple(strip) for strip in (p.images for p in predictions.values())}
    assert outcome.frames.decoded == 4 * len(distinct) and outcome.frames.jobs == len(distinct)
    # results.json says how the frames were had: decoded, in how many jobs, read from the store
    counted = json.loads((tmp_path / "run" / "results.json").read_text())["frames"]
    assert counted == {"decoded": outcome.frames.decoded, "jobs": outcome.frames.jobs, "from_store": 0,
                       "strips_from_store": 0}  # fmt: skip


UNGUARDED = """
import sys
sys.path.insert(0, {models!r})
from fake_server import FakeServer
from vqakit.runner import EvalConfig, run_eval
with FakeServer(default="ok:Answer: A") as server:
    model = f"openai-compatible:{{server.url}}#fake"
    outcome = run_eval(EvalConfig(bench="sample", model=model, limit=3, frames="uniform:2"), {out!r})
print("errors", outcome.results["errors"]["n"], "decoded", outcome.frames.decoded)
"""


def test_a_script_without_a_main_guard_still_runs(tmp_path: Path):
    """Worker processes import the main script again: one without `if __name__ == "__main__":`
    would start the run again in each, so its frames are decoded in threads instead."""
    import subprocess
    import sys

    script = tmp_path / "script.py"
    models = str(Path(__file__).parents[1] / "models")
    script.write_text(UNGUARDED.format(models=models, out=str(tmp_path / "run")))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "errors 0 decoded 2" in done.stdout and "bootstrapping" not in done.stderr
