"""Writing a built or imported benchmark folder, checked, and in place all at once."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from vqakit.builders._inputs import VIDEO_SUFFIXES
from vqakit.builders._journal import set_aside_journal_lines
from vqakit.files import (
    MARKER,
    OutFolder,
    SetAside,
    check_out,
    place_media,
    read_marker,
    refuse_links,
    staged_folder,
    write_marker,
    write_text_atomic,
)
from vqakit.schema import CARD, CLIPS, PASSAGES, SAMPLES, Benchmark, BenchmarkError, Problem, load_folder
from vqakit.video import VideoMediaChecker

BUILD = "build"  # a builder's own folder inside its output: journal, report, placed media
BENCHMARK_ENTRIES = (CARD, SAMPLES, "media", CLIPS.split("/")[0], MARKER)  # what writing one replaces


def _built_before_markers(out: Path) -> bool:
    """A builder's output made before folders carried a marker: it holds the build's journal."""
    return (out / BUILD).is_dir() and read_marker(out) is None


def check_benchmark_out(
    out: str | Path, writer: str, *, inputs: Sequence[str | Path | None] = (), build: bool = False
) -> OutFolder:
    """`vqakit.files.check_out` for a benchmark folder written by `vqakit <writer>` (e.g.
    "import table", "build egofact"): refused when it is or lies inside an input, holds an input
    under the entries a benchmark folder's writing replaces, or exists, is not empty and was not
    written by the same command (`build`: a builder's folder from before markers is its own)."""
    legacy = _built_before_markers if build else None
    return check_out(
        out, writer, inputs=inputs, legacy=legacy, replaces=BENCHMARK_ENTRIES, kind="benchmark folder"
    )


def set_aside_build_journal(out: str | Path, writer: str) -> SetAside | None:
    """`--set-aside-bad-lines` of a build verb: when `out` is the builder's own (checked as
    `start_build` does), move its journal's unreadable lines into quarantine; what was moved."""
    out = Path(out)
    check_benchmark_out(out, writer, build=True)
    return set_aside_journal_lines(out / BUILD)


def start_build(out: str | Path, writer: str, inputs: Sequence[str | Path | None] = ()) -> None:
    """Before a build's first step: check `out` (`check_benchmark_out`) and mark it as the
    builder's, so that a build stopped half-way is resumed by the same command only."""
    out = Path(out)
    claimed = check_benchmark_out(out, writer, inputs=inputs, build=True)
    if read_marker(out) is None:
        out.mkdir(parents=True, exist_ok=True)
        write_marker(out, writer, files=None if claimed.exists else [])


def _jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def write_benchmark_folder(
    out: str | Path,
    *,
    card: Mapping[str, Any],
    samples: Sequence[Mapping[str, Any]],
    clips: Sequence[Mapping[str, Any]] | None = None,
    passages: Sequence[Mapping[str, Any]] | None = None,
    media: Mapping[str, Path] | None = None,
    link_media: bool = False,
    open_media: bool = True,
    writer: str,
) -> Benchmark:
    """Write the benchmark folder `out`: `media` ({path under media/: source file}; each source
    resolved to its real file and hard-linked, or copied; with `link_media` each video becomes a
    symbolic link to its absolute path, and the card says `linked_media: true`, while subtitles
    and images are still placed as files), the corpora (a None corpus is not written), samples
    and card, then load it with its media checked (opened and probed unless `open_media` is
    False: then only their paths and presence are checked).

    Everything is written into a fresh folder beside `out` and renamed into place only once it
    validates, so a failure leaves `out` as it was (nothing new on disk) and nothing is written
    through a symbolic link already in `out`. Entries of `out` not written here (a builder's
    `build/`) are kept; a file `out/media` placed by an earlier run is reused rather than copied
    again. `writer`: the command writing it (e.g. "import table"): `out` must be new, empty or
    written by the same command (`check_benchmark_out`; a builder marks it first: `start_build`);
    the folder's marker records it and the files written, and files the earlier write did not
    list are kept. Raises `BenchmarkError` listing every problem, `InputError` for media that
    cannot be placed, `OutFolderRefused` for an `out` it may not write."""
    out = Path(out)
    claimed = check_benchmark_out(out, writer)
    card = {**card, "linked_media": True} if link_media else dict(card)
    with staged_folder(out, claimed, writer) as stage:
        videos = {n: s for n, s in (media or {}).items() if link_media and n.lower().endswith(VIDEO_SUFFIXES)}
        place_media(stage, {n: s for n, s in (media or {}).items() if n not in videos}, reuse=out)
        place_media(stage, videos, link=True)
        if clips is not None:
            write_text_atomic(stage / CLIPS, _jsonl(clips))
        if passages is not None:
            write_text_atomic(stage / PASSAGES, _jsonl(passages))
        write_text_atomic(stage / SAMPLES, _jsonl(samples))
        write_text_atomic(stage / CARD, yaml.safe_dump(card, sort_keys=False))
        try:
            benchmark = load_folder(stage, VideoMediaChecker() if open_media else None)
        except BenchmarkError as error:
            raise BenchmarkError(
                out, [_named_by_source(p, stage, out, media or {}) for p in error.problems]
            ) from None
    benchmark.root = out.resolve() if out.is_symlink() else out
    return benchmark


def _named_by_source(problem: Problem, stage: Path, out: Path, media: Mapping[str, Path]) -> Problem:
    """`problem` with the staging folder, which is gone once the write fails, out of its words:
    a placed file is named by the file it was placed from (the user's), anything else by `out`."""
    staged = str(stage)
    if staged not in problem.message:
        return problem
    message = problem.message
    for name in sorted(media, key=len, reverse=True):
        message = message.replace(f"{staged}/media/{name}", str(media[name]))
    return replace(problem, message=message.replace(staged, str(out)))


def prepare_media(out: str | Path, media: Mapping[str, Path]) -> dict[str, Path]:
    """Check and place a build's media before its first model step, so that nothing about them
    can fail after the model work: `out` may not hold a symbolic link, each source must resolve
    to a readable regular file, and each is placed (hard-linked, or copied once) under
    `out/build/media/NAME`, where a rerun finds it. Returns {name: placed file} for
    `write_benchmark_folder`, which links the used ones into the folder. Raises `InputError`
    naming the file at fault."""
    out = Path(out)
    refuse_links(out)
    build = out / BUILD
    place_media(build, media)
    return {name: build / "media" / name for name in media}
