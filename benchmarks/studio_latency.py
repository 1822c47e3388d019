"""How quickly the studio responds to a person, in headless Chromium (Debian's, via Playwright).

    python benchmarks/studio_latency.py [--repeats 20] [--chromium /usr/bin/chromium] [--json FILE]

Served from a thread of this process on loopback, over the shipped `sample` benchmark:

- click -> first frame: from a click on a sample in the review queue to the first frame of its
  video shown by the player (the page's own clock: the click event, then the video's first
  `requestVideoFrameCallback`); samples alternate between videos, so most clicks open a video
  the browser has not loaded yet (the first visit of each is reported apart).
  Baseline: the same page fetching an empty response from the same server (`/favicon.ico`).
- decision -> line on disk: from pressing `k` (keep) in review mode, or Enter on a chosen option
  in answer mode, to the decision's line in review/<person>.jsonl or the answer's in
  answers.jsonl (this script's clock; it polls the file). Baseline: the same script asking the
  page to fetch the empty response and waiting for it (the round trip every action pays).

Reported: median and 90th percentile in milliseconds over the repeats, and each median as a
ratio to its baseline's median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
EMPTY_FETCH = (
    "async () => { const t = performance.now(); await fetch('/favicon.ico'); return performance.now() - t; }"
)


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "n": len(values),
        "median_ms": round(statistics.median(values), 1),
        "p90_ms": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 1),
    }


def wait_for_lines(path: Path, count: int, timeout: float = 30) -> float:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if path.is_file() and path.read_bytes().count(b"\n") >= count:
            return time.perf_counter()
        time.sleep(0.0005)
    raise RuntimeError(f"{path} did not reach {count} lines")


def wait_for_first_frame(page, timeout: float = 30) -> dict:
    """The page's clock at the click and at the new video's first frame."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        timings = page.evaluate("() => window.studio.timings")
        if timings["firstFrame"] is not None:
            return timings
        time.sleep(0.005)
    raise RuntimeError("no video frame was shown")


def measure(repeats: int, chromium: str, work: Path) -> dict:
    from playwright.sync_api import sync_playwright

    from vqakit.benchmarks import load_benchmark
    from vqakit.studio import Person, StudioSettings, serve_in_background

    os.environ.setdefault("VQAKIT_STUDIO_KEY", str(work / "studio.key"))
    settings = StudioSettings(
        folders=["sample"],
        people=[Person("p01", "participant")],
        review_dir=work / "review",
        runs=work / "runs",
        order="benchmark",
    )
    running = serve_in_background(settings)
    samples = load_benchmark("sample").samples
    by_video: dict[str, list[str]] = {}
    for sample in samples:
        if sample.videos:
            by_video.setdefault(sample.videos[0].path, []).append(sample.id)
    # alternate between videos: each click opens another video than the one before
    order = [
        ids[i] for i in range(max(map(len, by_video.values()))) for ids in by_video.values() if i < len(ids)
    ]
    results: dict = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(running.url + "/login")
            page.fill("input[name=person]", "bench")
            page.click("button[type=submit]")
            page.wait_for_url(running.url + "/")
            page.goto(running.url + "/review?bench=sample")
            page.wait_for_selector("#sample")
            for _ in range(3):  # warm up the server and the page
                page.evaluate(EMPTY_FETCH)

            first_visit, repeat_visit, empty = [], [], []
            seen: set[str] = set()
            for sample_id in (order * (1 + repeats // len(order)))[:repeats]:
                page.evaluate("() => { window.studio.timings.firstFrame = null; }")
                page.click(f"[data-sample-link][data-id='{sample_id}']")
                timings = wait_for_first_frame(page)
                video = next(s.videos[0].path for s in samples if s.id == sample_id)
                (repeat_visit if video in seen else first_visit).append(
                    timings["firstFrame"] - timings["clicked"]
                )
                seen.add(video)
                empty.append(page.evaluate(EMPTY_FETCH))
            results["click_to_first_frame"] = {
                "all": summary(first_visit + repeat_visit),
                "first_visit_of_a_video": summary(first_visit),
                "video_seen_before": summary(repeat_visit) if repeat_visit else None,
                "baseline_empty_fetch": summary(empty),
            }

            log = work / "review" / "bench.jsonl"
            decided, baseline = [], []
            page.click(f"[data-sample-link][data-id='{order[0]}']")
            page.wait_for_selector(f"#sample[data-sample-id='{order[0]}']")
            for number in range(1, repeats + 1):
                page.wait_for_selector("#sample")
                started = time.perf_counter()
                page.keyboard.press("k")
                decided.append(1000 * (wait_for_lines(log, number) - started))
                started = time.perf_counter()
                page.evaluate(EMPTY_FETCH)
                baseline.append(1000 * (time.perf_counter() - started))
            results["review_decision_to_line_on_disk"] = {
                "decision": summary(decided),
                "baseline_empty_round_trip": summary(baseline),
            }

            answer = browser.new_page(viewport={"width": 1280, "height": 800})
            token = running.studio.signer.token("p01", "participant")
            answer.goto(f"{running.url}/?token={token}")
            answers = work / "runs" / "sample-0.1.0-human-p01" / "answers.jsonl"
            answered, baseline = [], []
            mcq = [s for s in samples if s.is_mcq]
            previous = ""
            for number in range(1, min(repeats, len(mcq)) + 1):
                answer.wait_for_selector(f"#question[data-shown='1']:not([data-sample-id='{previous}'])")
                previous = answer.get_attribute("#question", "data-sample-id")
                if not answer.locator("input[name=choice]").count():
                    answer.fill("textarea[name=text]", "an answer")
                    answer.click("#answer-form button[type=submit]")
                    wait_for_lines(answers, number)
                    continue
                answer.keyboard.press("a")
                started = time.perf_counter()
                answer.keyboard.press("Enter")
                answered.append(1000 * (wait_for_lines(answers, number) - started))
                started = time.perf_counter()
                answer.evaluate(EMPTY_FETCH)
                baseline.append(1000 * (time.perf_counter() - started))
            results["answer_to_line_on_disk"] = {
                "answer": summary(answered),
                "baseline_empty_round_trip": summary(baseline),
            }
            browser.close()
    finally:
        running.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--json", type=Path, help="Also write the figures here.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        results = measure(args.repeats, args.chromium, Path(work))
    first = results["click_to_first_frame"]
    review = results["review_decision_to_line_on_disk"]
    answer = results["answer_to_line_on_disk"]
    rows = [
        ("click -> first video frame (all)", first["all"], first["baseline_empty_fetch"]),
        ("  first visit of a video", first["first_visit_of_a_video"], first["baseline_empty_fetch"]),
    ]
    if first["video_seen_before"]:
        rows.append(("  video loaded before", first["video_seen_before"], first["baseline_empty_fetch"]))
    rows += [
        ("review decision -> line on disk", review["decision"], review["baseline_empty_round_trip"]),
        ("answer -> line on disk", answer["answer"], answer["baseline_empty_round_trip"]),
    ]
    print(f"{'measure':<36}{'n':>4}{'median ms':>11}{'p90 ms':>9}{'baseline ms':>13}{'ratio':>8}")
    for label, found, base in rows:
        ratio = found["median_ms"] / base["median_ms"] if base["median_ms"] else float("nan")
        print(
            f"{label:<36}{found['n']:>4}{found['median_ms']:>11.1f}{found['p90_ms']:>9.1f}"
            f"{base['median_ms']:>13.1f}{ratio:>8.1f}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
