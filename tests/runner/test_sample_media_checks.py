"""`eval` and `validate` share one set of checks: a sample whose window lies beyond its video
(`end_s: 1e308`) is refused by both, in the same words (`schema.SampleMediaChecks` runs
validate's media checks on each sample before eval runs it), instead of being run on a window
silently cut to the video."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from vqakit.benchmarks import resolve_benchmark
from vqakit.cli import main


def _bench(tmp_path: Path) -> tuple[Path, str]:
    bench = Path(shutil.copytree(resolve_benchmark("sample"), tmp_path / "bench"))
    samples = [json.loads(line) for line in (bench / "samples.jsonl").read_text().splitlines()]
    samples[0]["videos"][0]["end_s"] = 1e308
    samples[1]["videos"][0]["start_s"] = 1e6
    (bench / "samples.jsonl").write_text("".join(json.dumps(sample) + "\n" for sample in samples))
    return bench, samples[0]["id"]


def test_validate_and_eval_refuse_a_window_beyond_the_video_alike(tmp_path: Path):
    bench, first = _bench(tmp_path)
    checked = CliRunner().invoke(main, ["validate", str(bench)])
    assert checked.exit_code == 1
    said = [
        line.split(": ", 1)[1] for line in checked.output.splitlines() if line.startswith("samples.jsonl:")
    ]
    assert said == [
        "videos.0.end_s: 1e+308s is beyond the video's duration (79.500s)",
        "videos.0.start_s: 1e+06s is beyond the video's duration (79.500s)",
    ]
    ran = CliRunner().invoke(main, ["eval", str(bench), "--method", "random", "--out", str(tmp_path / "run")])
    assert ran.exit_code == 1, ran.output
    assert "invalid_sample 2" in ran.output
    predictions = [json.loads(line) for line in (tmp_path / "run/predictions.jsonl").read_text().splitlines()]
    refused = {
        p["sample_id"]: p["error"]
        for p in predictions
        if p["error"] and p["error"]["type"] == "invalid_sample"
    }
    assert len(refused) == 2
    assert refused[first]["message"] == said[0]
    assert sorted(error["message"] for error in refused.values()) == sorted(said)


def test_a_sample_whose_files_were_checked_is_known_as_such(tmp_path: Path):
    """eval checks a sample on its event loop only when nothing is left to read from disk
    (`opened`): the first sample of a video is checked in a thread, the next ones are not."""
    from vqakit.schema import SampleMediaChecks, load_folder
    from vqakit.video import VideoMediaChecker

    bench, _ = _bench(tmp_path)
    samples = list(load_folder(bench).samples)
    checks = SampleMediaChecks(bench, VideoMediaChecker())
    same_video = [s for s in samples if s.videos[0].path == samples[2].videos[0].path]
    assert len(same_video) > 1 and not checks.opened(same_video[0])
    checks.problems(same_video[0])
    assert all(checks.opened(sample) for sample in same_video)
    other = next(s for s in samples if s.videos[0].path != samples[2].videos[0].path)
    assert not checks.opened(other)
