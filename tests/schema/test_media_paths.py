"""Nothing a benchmark file says makes vqakit read outside the folder, and every line that uses
a bad media file is named, while each file is still opened once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from vqakit.schema import check_folder, safe_media_path

CARD = "name: paths\nversion: '1'\nlicense: CC0-1.0\ndescription: media paths that try to leave\n"


def sample(sample_id: str, video: str = "media/clip.mp4", **changes) -> str:
    record = {"id": sample_id, "videos": [{"path": video}], "question": "Which?", "choices": ["a", "b"]}
    record.update(answer=0, **changes)
    return json.dumps(record)


def track(mask: str) -> list[dict]:
    return [{"id": "cup-0123456789abcdef", "label": "cup", "points": [{"time_s": 0, "mask": mask}]}]


class CountingChecker:
    """Pretends every file opens, except names starting with "bad"; counts every open."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    def _open(self, path: Path) -> None:
        self.opened.append(path.name)
        if path.name.startswith("bad"):
            raise ValueError(f"{path.name}: cannot open")

    def video_duration(self, path: Path) -> float:
        self._open(path)
        return 20.0

    def check_subtitles(self, path: Path) -> None:
        self._open(path)

    def check_image(self, path: Path) -> None:
        self._open(path)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    (root / "media").mkdir(parents=True)
    (root / "benchmark.yaml").write_text(CARD)
    for name in ("clip.mp4", "bad.mp4", "subs.srt", "mask.png"):
        (root / "media" / name).write_bytes(b"x")
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("secret.mp4", "secret.srt", "secret.png", "samples.jsonl"):
        (outside / name).write_text("outside the benchmark\n")
    return root


def write(root: Path, lines: list[str]) -> None:
    (root / "samples.jsonl").write_text("\n".join(lines) + "\n")


def refused(root: Path, lines: list[str]) -> list[tuple[int, str, str]]:
    """(line, field, message) of each problem; no file outside the folder was opened."""
    write(root, lines)
    checker = CountingChecker()
    _, problems = check_folder(root, checker)
    assert not any(name.startswith("secret") for name in checker.opened)
    return [(p.line, p.field, p.message) for p in problems]


def test_every_line_names_a_missing_or_unreadable_video_which_is_opened_once(folder):
    write(
        folder,
        [
            sample("gone-1", "media/gone.mp4"),  # 1
            sample("bad-1", "media/bad.mp4"),  # 2
            sample("gone-2", "media/gone.mp4"),  # 3
            sample("bad-2", "media/bad.mp4"),  # 4
            sample("fine", subtitles="media/bad.srt"),  # 5
            sample("bad-3", "media/bad.mp4", subtitles="media/bad.srt"),  # 6
        ],
    )
    (folder / "media/bad.srt").write_text("x")
    checker = CountingChecker()
    _, problems = check_folder(folder, checker)
    assert [str(p) for p in problems] == [
        "samples.jsonl:1: videos.0.path: missing media file 'media/gone.mp4'",
        "samples.jsonl:2: videos.0.path: unreadable video: bad.mp4: cannot open",
        "samples.jsonl:3: videos.0.path: missing media file 'media/gone.mp4'",
        "samples.jsonl:4: videos.0.path: unreadable video: bad.mp4: cannot open",
        "samples.jsonl:5: subtitles: unreadable subtitles: bad.srt: cannot open",
        "samples.jsonl:6: videos.0.path: unreadable video: bad.mp4: cannot open",
        "samples.jsonl:6: subtitles: unreadable subtitles: bad.srt: cannot open",
    ]
    assert sorted(checker.opened) == ["bad.mp4", "bad.srt", "clip.mp4"]


def test_without_media_checks_every_line_names_a_missing_video(folder):
    write(folder, [sample(f"s{i}", "media/gone.mp4") for i in range(3)])
    _, problems = check_folder(folder)
    assert [(p.line, p.field) for p in problems] == [
        (1, "videos.0.path"),
        (2, "videos.0.path"),
        (3, "videos.0.path"),
    ]


def test_dot_dot_in_subtitles_and_masks_is_refused(folder):
    problems = refused(
        folder,
        [
            sample("subs", subtitles="../outside/secret.srt"),  # 1
            sample("mask", objects=track("media/../../outside/secret.png")),  # 2
            sample("video", "media/../../outside/secret.mp4"),  # 3
            sample("absolute", subtitles=str(folder.parent / "outside/secret.srt")),  # 4
            sample("inside", subtitles="media/../media/subs.srt", objects=track("./media/mask.png")),  # 5
        ],
    )
    escapes = "escapes the benchmark folder"
    assert problems == [
        (1, "subtitles", "path '../outside/secret.srt' " + escapes),
        (2, "objects.0.points.0.mask", "path 'media/../../outside/secret.png' " + escapes),
        (3, "videos.0.path", "path 'media/../../outside/secret.mp4' " + escapes),
        (4, "subtitles", problems[3][2]),
    ]
    assert "is absolute" in problems[3][2]


def test_symlinks_that_point_outside_are_refused(folder):
    outside = folder.parent / "outside"
    (folder / "media/linked.mp4").symlink_to(outside / "secret.mp4")
    (folder / "media/linked.srt").symlink_to(outside / "secret.srt")
    (folder / "media/linked.png").symlink_to(outside / "secret.png")
    (folder / "elsewhere").symlink_to(outside, target_is_directory=True)
    (folder / "media/alias.mp4").symlink_to("clip.mp4")  # stays inside: fine
    problems = refused(
        folder,
        [
            sample("video", "media/linked.mp4"),  # 1
            sample("subs", subtitles="media/linked.srt"),  # 2
            sample("mask", objects=track("media/linked.png")),  # 3
            sample("folder", "elsewhere/secret.mp4"),  # 4
            sample("alias", "media/alias.mp4"),  # 5
        ],
    )
    fields = ["videos.0.path", "subtitles", "objects.0.points.0.mask", "videos.0.path"]
    assert [(line, field) for line, field, _ in problems] == list(enumerate(fields, start=1))
    assert all(
        message.endswith("escapes the benchmark folder through a symbolic link") for *_, message in problems
    )
    for relative in ("media/linked.mp4", "elsewhere/secret.mp4", "../outside/secret.mp4", "/etc/passwd"):
        assert safe_media_path(folder, relative) is None, relative
    assert safe_media_path(folder, "media/alias.mp4") == folder / "media/alias.mp4"


def test_a_benchmark_folder_reached_through_a_symlink_is_fine(folder):
    write(folder, [sample("fine")])
    link = folder.parent / "link"
    link.symlink_to(folder, target_is_directory=True)
    assert check_folder(link, CountingChecker())[1] == []


def test_data_files_linked_from_outside_are_not_read(folder):
    outside = folder.parent / "outside"
    (folder / "samples.jsonl").symlink_to(outside / "samples.jsonl")
    (folder / "corpus").mkdir()
    (folder / "corpus/passages.jsonl").symlink_to(outside / "samples.jsonl")
    _, problems = check_folder(folder)
    assert [str(p) for p in problems] == [
        "corpus/passages.jsonl:0: -: the file escapes the benchmark folder through a symbolic link; "
        "it is not read",
        "samples.jsonl:0: -: the file escapes the benchmark folder through a symbolic link; it is not read",
    ]


def test_symlink_loops_and_odd_names_are_problems_not_tracebacks(folder):
    os.symlink(folder / "media/loop-b", folder / "media/loop-a")
    os.symlink(folder / "media/loop-a", folder / "media/loop-b")
    (folder / "media/folder.mp4").mkdir()
    write(
        folder,
        [
            sample("loop", "media/loop-a"),  # 1
            sample("long", "media/" + "x" * 5000 + ".mp4"),  # 2
            sample("folder", "media/folder.mp4"),  # 3
        ],
    )
    _, problems = check_folder(folder, CountingChecker())
    assert [(p.line, p.field) for p in problems] == [
        (1, "videos.0.path"),
        (2, "videos.0.path"),
        (3, "videos.0.path"),
    ]
    assert "cannot be followed" in problems[0].message
    assert "cannot be looked up" in problems[1].message and "(5010 characters)" in problems[1].message
    assert "is not a regular file" in problems[2].message
