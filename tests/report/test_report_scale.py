"""A report scales with the run: 5,000 samples make a small report.html (cards live on pages of
100, frames are files loaded lazily), and regenerating it decodes no video."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from vqakit.benchmarks import load_benchmark
from vqakit.runner import write_scores
from vqakit.schema import Prediction

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from report_scale import make_run  # the benchmark's run of the same shape

N = 5000


def test_a_5000_sample_report_stays_small_and_regenerates_without_decoding(tmp_path: Path, monkeypatch):
    bench_folder, run = make_run(tmp_path, N, strip_per_sample=False)
    bench = load_benchmark(bench_folder)
    predictions = {
        p.sample_id: p
        for p in map(Prediction.model_validate_json, (run / "predictions.jsonl").read_text().splitlines())
    }

    def no_decoding(*args, **kwargs):
        raise AssertionError("the report decoded video although every prediction kept its strip")

    monkeypatch.setattr("vqakit.video.sample_frames", no_decoding)
    started = time.monotonic()
    results = write_scores(run, bench, bench.samples, predictions)
    elapsed = time.monotonic() - started
    assert results["mcq"]["n"] == N
    size = (run / "report.html").stat().st_size
    pages = sorted((run / "samples").glob("page-*.html"))
    assert size < 5 * 2**20 and len(pages) == N // 100
    assert max(page.stat().st_size for page in pages) < 2**20
    page = pages[-1].read_text()
    assert 'loading="lazy"' in page and "../frames/shared.jpg" in page and "prompt sent" in page
    assert "base64" not in (run / "report.html").read_text()
    print(f"\n5,000 samples: report.html {size / 2**20:.2f} MiB, 50 pages, written in {elapsed:.1f} s")
