"""Shot detection speed and accuracy, and recap-to-movie alignment error, on synthetic videos.

    python benchmarks/scene_detection.py            # 720p and 360p clips, 3 runs each
    python benchmarks/scene_detection.py --quick    # 360p only, 1 run

Speed: `vqakit.video.detect_shots` (content and adaptive) against a plain decode of the same
file (PyAV, every frame, frame threads on, no conversion) measured in the same run, reported as
ratios to that decode; also the decode plus the conversion detection needs (BGR, ~256 px wide),
and for reference PySceneDetect's ContentDetector driven by its own SceneManager through its
PyAV and OpenCV backends. Methods are interleaved round by round (medians kept). Test clips
are generated once into .bench/videos from the shot plan of tests/video/synthetic_cuts.py (25
shots per 48 s).

Accuracy: precision and recall of cut frames (+-1 frame; a dissolve counts anywhere inside it)
per detector, before and after merging same-scene shots, on the test suite's clip (320x180).

Alignment: the synthetic recap of tests/systems/movierecapsqa/synthetic_recaps.py aligned back
to its synthetic movie with the thumbnail test embedder: mean absolute error of the segments'
movie start/end times, share of segments with both ends within 2 s, the dense error inside
segments and the share of the recap covered.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import av

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests/video"), str(ROOT / "tests/systems/movierecapsqa")]

from synthetic_cuts import default_plan, score_cuts, write_cut_clip  # noqa: E402
from synthetic_recaps import ThumbnailEmbedder, score_alignment, write_movie, write_recap  # noqa: E402

from vqakit.systems.movierecapsqa.align import AlignSettings, align_recap  # noqa: E402
from vqakit.video import detect_shots, merge_shots  # noqa: E402


def make_clip(folder: Path, width: int, height: int, repeats: int) -> Path:
    path = folder / f"cuts_{repeats}x25shots_{width}x{height}.mp4"
    if not path.exists():
        print(f"generating {path.name} (once) ...", flush=True)
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial.mp4")
        write_cut_clip(partial, default_plan(repeats), size=(width, height))
        partial.replace(path)
    return path


def plain_decode(path: Path) -> int:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        return sum(1 for _ in container.decode(stream))


def decode_and_convert(path: Path) -> int:
    """What detection needs before any scoring: every frame as BGR at about 256 px wide."""
    from av.video.reformatter import VideoReformatter

    convert = VideoReformatter()
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        width = stream.codec_context.width
        size = {
            "width": min(width, 256),
            "height": round(stream.codec_context.height * min(width, 256) / width),
        }
        return sum(
            convert.reformat(frame, format="bgr24", interpolation="BILINEAR", **size).to_ndarray().size > 0
            for frame in container.decode(stream)
        )


def scenedetect_manager(path: Path, backend: str) -> int:
    from scenedetect import ContentDetector, SceneManager, open_video

    options = {"threading_mode": "AUTO", "suppress_output": True} if backend == "pyav" else {}
    manager = SceneManager()
    manager.add_detector(ContentDetector(min_scene_len=0.5))
    manager.detect_scenes(open_video(str(path), backend=backend, **options))
    return len(manager.get_scene_list())


METHODS: dict[str, Callable[[Path], int]] = {
    "decode": plain_decode,
    "decode+bgr256": decode_and_convert,
    "content": lambda path: len(detect_shots(path, detector="content")),
    "adaptive": lambda path: len(detect_shots(path, detector="adaptive")),
    "sd-pyav": lambda path: scenedetect_manager(path, "pyav"),
    "sd-opencv": lambda path: scenedetect_manager(path, "opencv"),
}


def speed(clips: list[Path], rounds: int) -> None:
    """Methods run in turn, round after round, and each keeps its median: on a shared machine
    the load drifts, and interleaving spreads the drift over every method alike."""
    print(f"\n## speed: median of {rounds} interleaved round(s), seconds (ratio to a plain decode)")
    header = f"{'video':<30}{'frames':>7}" + "".join(f"{m:>16}" for m in METHODS)
    print(header + "\n" + "-" * len(header))
    for path in clips:
        frames = plain_decode(path)
        seconds: dict[str, list[float]] = {method: [] for method in METHODS}
        for _ in range(rounds):
            for method, run in METHODS.items():
                start = time.perf_counter()
                run(path)
                seconds[method].append(time.perf_counter() - start)
        median = {method: statistics.median(values) for method, values in seconds.items()}
        base = median["decode"]
        cells = [f"{base:>16.2f}"] + [
            f"{f'{median[m]:.2f} ({median[m] / base:.1f}x)':>16}" for m in list(METHODS)[1:]
        ]
        print(f"{path.name:<30}{frames:>7}" + "".join(cells), flush=True)


def accuracy(folder: Path) -> None:
    print("\n## cut detection on the test clip (320x180, 1217 frames, 20 hard cuts + 4 dissolves)")
    path = folder / "cuts_test.mp4"
    truth = write_cut_clip(path, default_plan())
    print(f"{'detector':<10}{'P':>7}{'R':>7}{'hard R':>8}{'merged P':>10}{'merged R':>10}")
    for detector in ("content", "adaptive"):
        shots = detect_shots(path, detector=detector)
        cuts = [s.start_frame for s in shots[1:]]
        precision, recall = score_cuts(cuts, truth)
        hard = sum(any(abs(c - t) <= 1 for c in cuts) for t in truth.cuts) / len(truth.cuts)
        merged = [s.start_frame for s in merge_shots(path, shots)[1:]]
        merged_p, merged_r = score_cuts(merged, truth, scenes=True)
        print(f"{detector:<10}{precision:>7.2f}{recall:>7.2f}{hard:>8.2f}{merged_p:>10.2f}{merged_r:>10.2f}")


def alignment(folder: Path) -> None:
    print("\n## recap-to-movie alignment (synthetic recap: 10 excerpts, shuffled, sped up, re-encoded)")
    movie = write_movie(folder / "movie.mp4")
    truth = write_recap(movie, folder / "recap.mp4")
    print(
        f"{'detector':<10}{'segments':>9}{'MAE s':>8}{'<=2 s':>7}{'dense MAE s':>13}"
        f"{'covered':>9}{'seconds':>9}"
    )
    for detector in ("content", "adaptive"):
        start = time.perf_counter()
        result = align_recap(
            folder / "recap.mp4",
            movie,
            embedder=ThumbnailEmbedder(),
            settings=AlignSettings(detector=detector, short_side=64),
        )
        seconds = time.perf_counter() - start
        s = score_alignment(result.segments, truth)
        print(
            f"{detector:<10}{s['segments']:>9.0f}{s['mae_s']:>8.2f}{s['within']:>7.2f}"
            f"{s['dense_mae_s']:>13.2f}{s['coverage']:>9.2f}{seconds:>9.1f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="360p clip only, one run")
    parser.add_argument("--repeats", type=int, default=0, help="runs per cell (default 3, 1 with --quick)")
    parser.add_argument("--videos", type=Path, default=ROOT / ".bench" / "videos")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sizes = [(640, 360)] if args.quick else [(1280, 720), (640, 360)]
    clips = [make_clip(args.videos, width, height, repeats=2) for width, height in sizes]
    print(f"cpu cores: {os.cpu_count()}")
    speed(clips, args.repeats or (1 if args.quick else 3))
    with tempfile.TemporaryDirectory() as scratch:
        accuracy(Path(scratch))
        alignment(Path(scratch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
