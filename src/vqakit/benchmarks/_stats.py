"""Dataset statistics of a benchmark (`vqakit stats`): what it holds, in numbers a paper's data
section reports."""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from vqakit.schema import Benchmark, find_objects, find_times, length_bucket, length_buckets, parse_trace

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _words(text: str) -> int:
    return len(text.split())


def spread(values: list[float]) -> dict[str, Any]:
    """{n, mean, median, min, max} of some numbers (None when there are none)."""
    if not values:
        return {"n": 0, "mean": None, "median": None, "min": None, "max": None}
    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), 3),
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }


def _durations(benchmark: Benchmark, paths: list[str]) -> dict[str, float | None]:
    from vqakit.video import VideoError, probe

    found: dict[str, float | None] = {}
    for path in paths:
        try:
            found[path] = probe(benchmark.root / path).duration_s
        except VideoError:
            found[path] = None
    return found


def _traces(benchmark: Benchmark) -> dict[str, Any]:
    traced = [s.reasoning for s in benchmark.samples if s.reasoning]
    if not traced:
        return {"n": 0}
    steps = [len(parse_trace(text)) for text in traced]
    times = [len(find_times(text)) for text in traced]
    objects = [len(find_objects(text)) for text in traced]
    return {
        "n": len(traced),
        "words": spread([_words(text) for text in traced]),
        "steps": spread(steps),
        "timestamps": spread(times),
        "objects": spread(objects),
        "without_timestamp": sum(1 for n in times if n == 0),
        "without_object": sum(1 for n in objects if n == 0),
    }


def _clip_windows(benchmark: Benchmark) -> dict[str, Any]:
    """The distinct time windows questions and corpus clips cut from their videos (both bounds
    given): how many, how long, a histogram. Whole-file durations say little for benchmarks
    whose questions each look at a few minutes of a long video."""
    refs = [ref for s in benchmark.samples for ref in s.videos] + [c.video for c in benchmark.clips.values()]
    windows = {
        (ref.path, ref.start_s, ref.end_s)
        for ref in refs
        if ref.start_s is not None and ref.end_s is not None
    }
    lengths = [end - start for _, start, end in sorted(windows)]
    buckets = Counter(length_bucket(length) for length in lengths)
    return {
        "duration_s": spread(lengths),
        "duration_histogram": {label: buckets.get(label, 0) for label in length_buckets()},
    }


def benchmark_stats(benchmark: Benchmark, *, media: bool = True) -> dict[str, Any]:
    """Counts, lengths and distributions of a benchmark's questions, videos and traces; with
    `media`, the videos are probed for their durations (a missing or unreadable one is counted)."""
    samples = benchmark.samples
    mcq = [s for s in samples if s.choices is not None]
    videos = sorted({ref.path for s in samples for ref in s.videos})
    categories = Counter(str(s.metadata.category) for s in samples if s.metadata.category)
    per_video = Counter(s.videos[0].path for s in samples if s.videos)
    stats: dict[str, Any] = {
        "benchmark": benchmark.card.name,
        "questions": {"n": len(samples), "mcq": len(mcq), "open_ended": len(samples) - len(mcq)},
        "question_words": spread([_words(s.question) for s in samples]),
        "answer_words": spread([_words(str(s.answer)) for s in samples if s.choices is None and s.answer]),
        "option_words": spread([_words(c) for s in mcq for c in s.choices or []]),
        "options_per_question": dict(sorted(Counter(len(s.choices or []) for s in mcq).items())),
        "gold_letters": dict(
            sorted(Counter(LETTERS[int(s.answer)] for s in mcq if s.answer is not None).items())
        ),
        "answers_hidden": sum(1 for s in samples if s.answer_hidden),
        "categories": dict(categories.most_common()),
        "skills": dict(Counter(skill for s in samples for skill in s.metadata.skills).most_common()),
        "videos": {"n": len(videos), "questions_per_video": spread(list(per_video.values()))},
        "clips": len(benchmark.clips),
        "passages": len(benchmark.passages),
        "traces": _traces(benchmark),
        "clip_windows": _clip_windows(benchmark),
    }
    if media and videos:
        durations = _durations(benchmark, videos)
        known = [d for d in durations.values() if d is not None]
        buckets = Counter(length_bucket(d) for d in known)
        stats["videos"].update(
            {
                "duration_s": spread(known),
                "total_hours": round(sum(known) / 3600, 3),
                "unreadable": sorted(path for path, d in durations.items() if d is None),
                "duration_histogram": {label: buckets.get(label, 0) for label in length_buckets()},
            }
        )
    return stats


def stats_lines(stats: dict[str, Any]) -> list[str]:
    """The statistics as lines for people."""

    def numbers(spread_: dict[str, Any]) -> str:
        if not spread_.get("n"):
            return "n/a"
        low, high = spread_["min"], spread_["max"]
        return f"mean {spread_['mean']:g}, median {spread_['median']:g}, {low:g}-{high:g}"

    q = stats["questions"]
    lines = [
        f"{stats['benchmark']}: {q['n']} questions ({q['mcq']} multiple choice, "
        f"{q['open_ended']} open-ended), "
        f"{stats['videos']['n']} videos, {stats['clips']} clips, {stats['passages']} passages",
        f"question words: {numbers(stats['question_words'])}",
        f"option words: {numbers(stats['option_words'])}; "
        f"options per question: {stats['options_per_question']}",
        f"answer words (open-ended): {numbers(stats['answer_words'])}",
        f"gold letters: {stats['gold_letters']}"
        + (f" ({stats['answers_hidden']} answers hidden)" if stats.get("answers_hidden") else ""),
        f"categories: {stats['categories']}",
        f"skills: {stats['skills']}",
    ]
    videos = stats["videos"]
    if "duration_s" in videos:
        lines.append(
            f"video seconds: {numbers(videos['duration_s'])}; {videos['total_hours']:g} hours in all"
        )
        top = max(videos["duration_histogram"].values()) or 1
        for label, count in videos["duration_histogram"].items():
            lines.append(f"  {label:>10} {'#' * round(30 * count / top):<30} {count}")
        if videos["unreadable"]:
            lines.append(f"unreadable or missing videos: {', '.join(videos['unreadable'])}")
    windows = stats.get("clip_windows") or {}
    if (windows.get("duration_s") or {}).get("n"):
        lines.append(f"clip windows: {windows['duration_s']['n']}; seconds {numbers(windows['duration_s'])}")
        top = max(windows["duration_histogram"].values()) or 1
        for label, count in windows["duration_histogram"].items():
            lines.append(f"  {label:>10} {'#' * round(30 * count / top):<30} {count}")
    traces = stats["traces"]
    if traces["n"]:
        lines += [
            f"reasoning traces: {traces['n']}; words {numbers(traces['words'])}",
            f"  steps {numbers(traces['steps'])}; timestamps {numbers(traces['timestamps'])}; "
            f"objects {numbers(traces['objects'])}",
            f"  without a timestamp: {traces['without_timestamp']}; "
            f"without an object: {traces['without_object']}",
        ]
    return lines


def default_stats_path(name_or_path: str | Path) -> Path | None:
    """Where `vqakit stats` writes its JSON without `--out`: `stats.json` inside a benchmark
    folder you gave, None for a shipped benchmark (it lives inside the installed package; the
    JSON goes to stdout then)."""
    from vqakit.benchmarks._registry import BUILT_IN_NAMES, resolve_benchmark

    if str(name_or_path) in BUILT_IN_NAMES and not Path(name_or_path).is_dir():
        return None
    return resolve_benchmark(name_or_path) / "stats.json"
