"""Time vqakit's exact frame sampler against other ways of getting the same frames.

    python benchmarks/frame_sampling.py            # 30 s and 10 min 720p H.264 videos
    python benchmarks/frame_sampling.py --quick    # 30 s video only, N = 8 and 32

Test videos are generated once into .bench/videos (the 10-minute one takes about 5 minutes to
encode) and show their own frame index, so every method's frames are checked by content: a
method that returns a wrong frame is reported as WRONG, not timed as if it were right.

Methods, all returning RGB frames at 448 px short side for uniformly spaced times:
- vqakit: `vqakit.video.sample_frames` (exact).
- floor: for each time, seek to the keyframe before it and decode forward to it, nothing else
  (PyAV, frame threads on). Every exact peer sits on this line.
- pyav-full: decode every frame in order, convert the wanted ones.
- decord: `VideoReader.get_batch` (if installed).
- torchcodec: `VideoDecoder.get_frames_played_at` (if installed).
- vqakit-keyframes: the documented inexact mode (keyframe at or before each time).
Ratios are against the fastest *exact* other method measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import av
import numpy as np

from vqakit.schema import Uniform, sample_times
from vqakit.video import Resize, frame_index, read_frame_index, sample_frames, write_index_clip

SHORT_SIDE = 448
ROOT = Path(__file__).resolve().parents[1]


def make_video(folder: Path, seconds: int, width: int, height: int, gop: int) -> Path:
    path = folder / f"index_{seconds}s_{width}x{height}_gop{gop}.mp4"
    if not path.exists():
        print(f"generating {path.name} (once) ...", flush=True)
        partial = path.with_suffix(".partial.mp4")
        write_index_clip(partial, seconds=seconds, width=width, height=height, gop=gop, grain_level=8)
        partial.replace(path)
    return path


def _size(width: int, height: int) -> tuple[int, int]:
    return Resize(short_side=SHORT_SIDE).output_size(width, height)


def run_vqakit(path: Path, times: np.ndarray) -> list[np.ndarray]:
    spec = Uniform(len(times))
    return [f.image for f in sample_frames(path, spec, resize=Resize(short_side=SHORT_SIDE))]


def run_vqakit_keyframes(path: Path, times: np.ndarray) -> list[np.ndarray]:
    spec = Uniform(len(times))
    return [f.image for f in sample_frames(path, spec, resize=Resize(short_side=SHORT_SIDE), exact=False)]


def run_floor(path: Path, times: np.ndarray) -> list[np.ndarray]:
    index = frame_index(path)
    targets = index.pts[index.frames_at(times)]
    frames = []
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        width, height = _size(stream.width, stream.height)
        for target in targets.tolist():
            container.seek(target, stream=stream, backward=True)
            found = None
            for packet in container.demux(stream):
                for frame in packet.decode():
                    if frame.pts == target:
                        found = frame.to_ndarray(format="rgb24", width=width, height=height)
                        break
                if found is not None:
                    break
            frames.append(found)
    return frames


def run_pyav_full(path: Path, times: np.ndarray) -> list[np.ndarray]:
    index = frame_index(path)
    wanted = set(index.pts[index.frames_at(times)].tolist())
    found: dict[int, np.ndarray] = {}
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        width, height = _size(stream.width, stream.height)
        for frame in container.decode(stream):
            if frame.pts in wanted:
                found[frame.pts] = frame.to_ndarray(format="rgb24", width=width, height=height)
    return [found[pts] for pts in index.pts[index.frames_at(times)].tolist()]


def run_decord(path: Path, times: np.ndarray) -> list[np.ndarray]:
    import decord

    index = frame_index(path)
    probe = decord.VideoReader(str(path))
    width, height = _size(probe[0].shape[1], probe[0].shape[0])
    del probe
    reader = decord.VideoReader(str(path), width=width, height=height, num_threads=0)
    return list(reader.get_batch(index.frames_at(times).tolist()).asnumpy())


def run_torchcodec(path: Path, times: np.ndarray) -> list[np.ndarray]:
    from torchcodec.decoders import VideoDecoder
    from torchvision.transforms.v2 import Resize as TorchResize

    decoder = VideoDecoder(str(path), seek_mode="exact", transforms=[TorchResize(SHORT_SIDE)])
    batch = decoder.get_frames_played_at(times.tolist())
    return [frame.permute(1, 2, 0).numpy() for frame in batch.data]


def _available(module: str) -> bool:
    try:
        __import__(module)
    except Exception:
        return False
    return True


METHODS: dict[str, Callable[[Path, np.ndarray], list[np.ndarray]]] = {
    "vqakit": run_vqakit,
    "floor": run_floor,
    "pyav-full": run_pyav_full,
    "decord": run_decord,
    "torchcodec": run_torchcodec,
    "vqakit-keyframes": run_vqakit_keyframes,
}
EXACT_PEERS = ("floor", "pyav-full", "decord", "torchcodec")


def check(frames: list[np.ndarray], expected: list[int], encoded_width: int, exact: bool) -> bool:
    got = [read_frame_index(frame, encoded_width) for frame in frames]
    if exact:
        return got == expected
    return len(got) == len(expected) and all(g <= e for g, e in zip(got, expected, strict=True))


def measure(
    method: str, path: Path, times: np.ndarray, repeats: int, encoded_width: int
) -> tuple[float, bool]:
    index = frame_index(path)  # the index is cached after the first call, for every method alike
    expected = index.frames_at(times).tolist()
    seconds = []
    correct = True
    for _ in range(repeats):
        start = time.perf_counter()
        frames = METHODS[method](path, times)
        seconds.append(time.perf_counter() - start)
        correct &= check(frames, expected, encoded_width, exact=method != "vqakit-keyframes")
    return statistics.median(seconds), correct


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="30 s video, N = 8 and 32 only")
    parser.add_argument("--repeats", type=int, default=0, help="runs per cell (default: 3 short, 1 long)")
    parser.add_argument("--videos", type=Path, default=ROOT / ".bench" / "videos")
    parser.add_argument("--skip", default="", help="comma-separated methods to leave out")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    skipped = {name for name in args.skip.split(",") if name}
    methods = [m for m in METHODS if m not in skipped]
    for name, module in (("decord", "decord"), ("torchcodec", "torchcodec")):
        if name in methods and not _available(module):
            print(f"{name}: not installed here, left out")
            methods.remove(name)

    videos = [(make_video(args.videos, 30, 1280, 720, 60), (8, 32, 64, 256), args.repeats or 3)]
    if not args.quick:
        videos.append((make_video(args.videos, 600, 1280, 720, 250), (8, 32, 64, 256), args.repeats or 1))
    else:
        videos[0] = (videos[0][0], (8, 32), args.repeats or 3)

    print(f"\ncpu cores: {os.cpu_count()}, frames resized to {SHORT_SIDE} px short side, median seconds")
    header = (
        f"{'video':<28}{'N':>5}"
        + "".join(f"{m:>18}" for m in methods)
        + f"{'vqakit/best':>13}{'vqakit/floor':>14}"
    )
    print(header)
    print("-" * len(header))
    for path, counts, repeats in videos:
        index = frame_index(path)
        for n in counts:
            times = sample_times(Uniform(n), index.duration_s)
            row: dict[str, tuple[float, bool]] = {}
            for method in methods:
                row[method] = measure(method, path, times, repeats, encoded_width=1280)
            cells = "".join(f"{row[m][0]:>18.2f}" if row[m][1] else f"{'WRONG':>18}" for m in methods)
            peers = [row[m][0] for m in EXACT_PEERS if m in row and row[m][1]]
            best = f"{row['vqakit'][0] / min(peers):>13.2f}" if peers and "vqakit" in row else f"{'-':>13}"
            floor = (
                f"{row['vqakit'][0] / row['floor'][0]:>14.2f}"
                if {"vqakit", "floor"} <= row.keys()
                else f"{'-':>14}"
            )
            print(f"{path.name:<28}{n:>5}{cells}{best}{floor}", flush=True)
    print("\nratios below 1 mean vqakit is faster; WRONG marks a method that returned a wrong frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
