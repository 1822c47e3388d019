"""Report costs on a large run: writing scores and pages, their size, and rendering in Chromium.

    python benchmarks/report_scale.py [--samples 5000]

A synthetic run of `samples` MCQ predictions over one short clip, each with a kept frame strip,
a 300-character reply and its prompt. Measured in the same run:

- baseline: reading the run folder's files (RunFolder: predictions and config), the least any
  report must do;
- re-scoring and writing every page (`write_scores`: scores.jsonl, results.json, report.html and
  the sample pages), as a ratio to the baseline;
- report.html's size, the sample pages' total and largest size;
- Chromium (headless, where installed) loading report.html and one sample page to a screenshot,
  as a ratio to loading an empty page (the browser's own start-up).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import yaml
from timing import median_time

from vqakit.benchmarks import load_benchmark
from vqakit.runner import write_scores
from vqakit.runs import RunFolder
from vqakit.schema import Prediction
from vqakit.video import write_index_clip, write_strip


def make_run(root: Path, count: int, *, strip_per_sample: bool = True) -> tuple[Path, Path]:
    """A benchmark of `count` samples over one clip and a run folder of predictions for it, each
    with a kept frame strip (its own, or one shared by all when `strip_per_sample` is off)."""
    bench, run = root / "bench", root / "run"
    write_index_clip(bench / "media/clip.mp4", seconds=2, width=64, height=48, gop=10)
    card = {"name": "big", "version": "1", "license": "CC0-1.0", "description": "Many samples."}
    (bench / "benchmark.yaml").write_text(yaml.safe_dump(card))
    samples = [
        {
            "id": f"s{i:05d}",
            "videos": [{"path": "media/clip.mp4"}],
            "question": f"What happens in clip {i}? Describe it carefully.",
            "choices": [f"option {k} of sample {i}" for k in range(5)],
            "answer": i % 5,
            "metadata": {"category": f"cat{i % 7}", "skills": [f"skill{i % 3}"]},
        }
        for i in range(count)
    ]
    (bench / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    run.mkdir()
    (run / "config.yaml").write_text(yaml.safe_dump({"bench": str(bench), "method": "direct", "model": "m"}))
    rng = np.random.default_rng(0)
    lines = []
    for i, sample in enumerate(samples):
        strip = f"frames/{sample['id'] if strip_per_sample else 'shared'}.jpg"
        if strip_per_sample or i == 0:
            write_strip(run / strip, [rng.integers(0, 255, (48, 64, 3), dtype=np.uint8) for _ in range(8)])
        lines.append(
            Prediction(
                sample_id=sample["id"],
                method="direct",
                model="m",
                reply="I look at each frame in turn. " * 10 + f"Answer: {'ABCDE'[(i * 3) % 5]}",
                choice=(i * 3) % 5,
                extraction="tagged",
                frames_s=[0.1 * k for k in range(8)],
                images=[strip],
                prompt=sample["question"] + "\nOptions:\n" + "\n".join(sample["choices"]),
                calls=1,
            ).model_dump_json()
        )
    (run / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    return bench, run


def render_time(chromium: str, page: Path, repeats: int) -> float:
    def load() -> None:
        with tempfile.TemporaryDirectory() as profile:
            subprocess.run(
                [
                    chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", f"--user-data-dir={profile}", "--window-size=1280,2000",
                    f"--screenshot={Path(profile) / 'shot.png'}", page.as_uri(),
                ],
                capture_output=True,
                timeout=120,
                check=True,
            )  # fmt: skip

    return median_time(load, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        bench_folder, run = make_run(Path(folder), args.samples)
        bench = load_benchmark(bench_folder)

        def read() -> dict:
            found = RunFolder(run)
            return {"config": found.config, "predictions": found.predictions()}

        baseline = median_time(read, args.repeats)
        predictions = read()["predictions"]
        write = median_time(lambda: write_scores(run, bench, bench.samples, predictions), args.repeats)
        pages = sorted((run / "samples").glob("page-*.html"))
        report = (run / "report.html").stat().st_size
        print(f"{args.samples} samples")
        print(f"reading the run folder (baseline): {baseline:.2f} s")
        print(f"re-scoring and writing every page: {write:.2f} s ({write / baseline:.1f}x the baseline)")
        print(
            f"report.html {report / 2**20:.2f} MiB; {len(pages)} sample pages, "
            f"{sum(p.stat().st_size for p in pages) / 2**20:.1f} MiB in all, "
            f"largest {max(p.stat().st_size for p in pages) / 2**10:.0f} KiB"
        )
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is None:
            print("Chromium not installed: rendering not measured")
            return
        empty = Path(folder) / "empty.html"
        empty.write_text("<!doctype html><title>empty</title>")
        start = render_time(chromium, empty, args.repeats)
        for name, page in (("report.html", run / "report.html"), ("a sample page", pages[0])):
            seconds = render_time(chromium, page, args.repeats)
            ratio = seconds / start
            print(f"Chromium renders {name} in {seconds:.2f} s ({ratio:.2f}x an empty page, {start:.2f} s)")


if __name__ == "__main__":
    main()
