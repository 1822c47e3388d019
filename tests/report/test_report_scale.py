"""A report scales with the run: 5,000 samples make a small report.html (cards live on pages of
100, frames are files loaded lazily), regenerating it decodes no video, and the whole eval
command on 100,000 questions runs in memory that does not grow with the run."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from vqakit.benchmarks import load_benchmark
from vqakit.runner import write_scores
from vqakit.runs import list_runs
from vqakit.schema import Prediction

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from report_scale import make_run  # the benchmark's run of the same shape
from scale_soak import Command, write_questions  # the 1M soak's benchmark and measure

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


def _eval_peak_mib(bench: Path, out: Path) -> tuple[int, float, str]:
    """(exit status, peak RSS of the whole `vqakit eval` command in MiB (its own high-water mark),
    its output) of the offline random baseline on `bench` into `out`: the real command, costing
    no model."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    log = out.with_suffix(".log")
    command = Command(["eval", str(bench), "--method", "random", "--out", str(out)], env, log)
    found = command.wait(1800)
    return found["code"], found["own_peak_mib"], log.read_text(errors="replace")


def test_a_100k_question_eval_runs_in_memory_that_does_not_grow_with_the_run(tmp_path: Path):
    """The whole eval command (loading and checking the benchmark, the run, scores, results, the
    report and its 1,000 sample pages) on 100,000 questions stays under 1 GB, within 64 MiB of the
    same command on 10,000: the benchmark is read from an index as used, the logs through
    indexes of their lines, the results counted one row at a time and the pages written one at
    a time (on the main of before, 1.2 GB at 100,000 and growing with the run). report.html
    lists the sample pages, not 100,000 rows. The 1M soak is benchmarks/scale_soak.py."""
    peaks = {}
    for count in (10_000, 100_000):
        bench = write_questions(tmp_path / f"bench-{count}", count)
        out = tmp_path / f"run-{count}"
        code, peaks[count], output = _eval_peak_mib(bench, out)
        assert code == 0, output[-2000:]
        assert f"on {count} samples" in output
    results = json.loads((out / "results.json").read_text())
    assert results["mcq"]["n"] == 100_000
    assert sum(bucket["n"] for bucket in results["groups"]["category"].values()) == 100_000
    with open(out / "scores.jsonl", "rb") as rows:
        assert sum(1 for _ in rows) == 100_000
    assert len(list((out / "samples").glob("page-*.html"))) == 1000
    report = (out / "report.html").read_text()
    assert (out / "report.html").stat().st_size < 2**20 and 'href="samples/page-1000.html"' in report
    listed = {run.folder.name: run.n for run in list_runs(tmp_path)}  # `vqakit runs` reads results.json only
    assert listed == {"run-10000": 10_000, "run-100000": 100_000}
    print(f"\npeak RSS of the eval command (MiB) by questions: {peaks}")
    assert peaks[100_000] < 1024 and peaks[100_000] - peaks[10_000] < 64, peaks
