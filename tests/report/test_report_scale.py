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


def test_writing_the_report_again_renders_only_the_pages_that_changed(tmp_path: Path, monkeypatch):
    """Each sample page keeps a stamp of what it was rendered from: regenerating the report
    renders no page again, a changed answer re-renders its own page only, and pages beyond a
    shorter run are removed."""
    import vqakit.report._page as pages_module

    bench_folder, run = make_run(tmp_path, 350, strip_per_sample=False)
    bench = load_benchmark(bench_folder)
    predictions = {
        p.sample_id: p
        for p in map(Prediction.model_validate_json, (run / "predictions.jsonl").read_text().splitlines())
    }
    write_scores(run, bench, bench.samples, predictions)
    rendered: list[str] = []
    original = pages_module.write_page

    def counted(path, template, **context):
        rendered.append(Path(path).name)
        return original(path, template, **context)

    monkeypatch.setattr(pages_module, "write_page", counted)
    first_page = (run / "samples/page-001.html").read_text()
    write_scores(run, bench, bench.samples, predictions)
    assert rendered == ["report.html"]  # no sample page again
    assert (run / "samples/page-001.html").read_text() == first_page
    changed = bench.samples[150].id  # on page 2: a retried answer, appended as a resume does
    predictions[changed] = predictions[changed].model_copy(update={"reply": "Answer: D, after all"})
    with open(run / "predictions.jsonl", "a", encoding="utf-8") as log:
        log.write(predictions[changed].model_dump_json() + "\n")
    rendered.clear()
    write_scores(run, bench, bench.samples, predictions)
    assert rendered == ["page-002.html", "report.html"]
    assert "Answer: D, after all" in (run / "samples/page-002.html").read_text()
    rendered.clear()
    write_scores(run, bench, bench.samples[:150], predictions)  # a shorter run: two pages
    assert sorted(p.name for p in (run / "samples").glob("page-*.html")) == ["page-001.html", "page-002.html"]
    assert rendered == ["page-002.html", "report.html"]  # page 2 lost its link to page 3
