"""Stages 1-2: the annotation files read into video infos, long first-person videos trimmed into
clips, and each clip placed in its video file.

A clip's window is the clip's own times, or the whole video for an untrimmed one. It is cut at
the end of the video file when the annotations run past it (downloaded files are often a little
shorter than the annotated duration); steps that start after the cut are left out of what the
question writer reads. A clip whose window lies outside its file is dropped.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from vqakit.files import write_text_atomic
from vqakit.systems.instructionbench.builder.context import BuildContext
from vqakit.systems.instructionbench.builder.records import Clip
from vqakit.systems.instructionbench.importers import detect_format, read_steps
from vqakit.systems.instructionbench.trim import needs_trimming, split_video
from vqakit.systems.instructionbench.video_info import Step, VideoInfo

IMPORT, CLIPS = "1 import", "2 clips"
PROBLEMS = "import_problems.txt"
MIN_WINDOW_S = 1.0  # a shorter window shows too little to ask about
CUT_TOLERANCE_S = 1.0  # files and annotations often disagree by a fraction of a second


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def import_annotations(ctx: BuildContext, files: list[Path]) -> list[VideoInfo]:
    """Stage 1: every annotation file through its importer (format detected unless given).
    Problems the importers report (records skipped or repaired) go to
    `build/import_problems.txt`; a malformed file stops the build with an `InputError`."""
    config = ctx.config
    videos: list[VideoInfo] = []
    problems: list[str] = []
    for path in files:
        form = config.annotation_format
        if config.label_map is not None and form == "auto":
            form = detect_format(path)  # the label map names YouCook2 recipe types only
        label_map = config.label_map if form == "youcook2" else None
        found = read_steps(path, form, label_map=label_map)
        problems += found.problems
        videos += found.videos
    listing = ctx.folder / PROBLEMS
    listing.unlink(missing_ok=True)
    if problems:
        write_text_atomic(listing, "\n".join(problems) + "\n")
        ctx.log.note(f"{_count(len(problems), 'annotation problem')} (kept going): see build/{PROBLEMS}")
    ctx.log.close(IMPORT, "files -> videos", len(files), len(videos))
    return videos


def _find_video(info: VideoInfo, videos: dict[str, Path]) -> str | None:
    """The videos-folder path of `<video_id>.<ext>` at any depth (or, for a HiREST record, its
    file name; for an Ego-Exo4D take, `<take_name>.<ext>`)."""
    by_name: dict[str, str] = {}
    for relative in videos:
        by_name.setdefault(relative, relative)
        by_name.setdefault(str(Path(relative).with_suffix("")), relative)
        by_name.setdefault(Path(relative).name, relative)
        by_name.setdefault(Path(relative).stem, relative)
    names = [info.video_id, info.extra.get("file"), info.extra.get("take_name")]
    return next((by_name[name] for name in names if isinstance(name, str) and name in by_name), None)


def _unusable(info: VideoInfo) -> str | None:
    steps = info.flat_steps()
    if not steps:
        return "no steps: " + (
            "the file lacks " + ", ".join(info.missing) if info.missing else "the annotation lists none"
        )
    if not any(step.text.strip() for step in steps):
        return "no step text: the annotation gives step times only"
    if any(step.start is None or step.end is None for step in steps):
        return "no step times: the annotation gives steps without times (a test split?)"
    return None


def _steps_before(steps: list[Step], end_s: float) -> list[Step]:
    return [
        step.model_copy(update={"children": _steps_before(step.children, end_s)})
        for step in steps
        if step.start is not None and step.start < end_s
    ]


def _place(clip: VideoInfo, video: str, file_s: float) -> Clip | str:
    """The clip in its file, or why it cannot be placed. A window (or a whole video's annotated
    duration) that runs more than `CUT_TOLERANCE_S` past the file is cut at the file's end, and
    the steps that start after the cut are left out."""
    start = max(0.0, clip.start or 0.0)
    annotated_end = clip.end if clip.end is not None else max(file_s, clip.duration or 0.0)
    end = min(annotated_end, file_s)
    if end - start < MIN_WINDOW_S:
        return f"window outside the video: {start:g}-{annotated_end:g} s, the file has {file_s:g} s"
    cut = annotated_end - end > CUT_TOLERANCE_S
    if cut:
        update: dict[str, Any] = {"steps": _steps_before(clip.steps, end)}
        update["end" if clip.end is not None else "duration"] = end
        clip = clip.model_copy(update=update)
    return Clip(clip, video, round(start, 3), end, cut=cut)


def make_clips(ctx: BuildContext, infos: list[VideoInfo], videos: dict[str, Path]) -> list[Clip]:
    """Stage 2: videos without usable steps or without a file are dropped; long first-person
    videos are trimmed; every clip gets its window in its video file."""
    from vqakit.video import VideoError, probe

    clips: list[Clip] = []
    durations: dict[str, float] = {}
    tails: list[int] = []  # steps after the last clip of each trimmed video with such a tail
    for info in infos:
        why = _unusable(info)
        video = _find_video(info, videos)
        if why is None and video is None:
            why = f"missing video: no {info.video_id}.<ext> in the videos folder"
        if why is None and video not in durations:
            try:
                durations[video] = math.floor(probe(videos[video]).duration_s * 1000) / 1000
            except VideoError as error:
                why = f"unreadable video: {video}: {error}"
        if why is not None:
            ctx.log.drop(CLIPS, info.id, why)
            continue
        assert video is not None
        parts = [info]
        if needs_trimming(info):
            trimmed = split_video(info)
            parts, tails = trimmed.clips, tails + [len(trimmed.tail)] * bool(trimmed.tail)
            if not parts:
                ctx.log.drop(
                    CLIPS, info.id, "no clip after trimming: too short or too repetitive to close one"
                )
        for part in parts:
            placed = _place(part, video, durations[video])
            if isinstance(placed, str):
                ctx.log.drop(CLIPS, part.id, placed)
            else:
                clips.append(placed)
    clips = _distinct(ctx, clips)
    cut = [c.id for c in clips if c.cut]
    if cut:
        shown = ", ".join(cut[:5]) + (f" and {len(cut) - 5} more" if len(cut) > 5 else "")
        ctx.log.note(f"{_count(len(cut), 'clip window')} cut at the end of the video file: {shown}")
    if tails:
        steps, videos_cut = _count(sum(tails), "step"), _count(len(tails), "video")
        ctx.log.note(
            f"trimming left out {steps} after the last clip of {videos_cut} "
            "(a tail that never meets the closing rule forms no clip)"
        )
    ctx.log.close(CLIPS, "videos -> clips", len(infos), len(clips))
    return clips


def _distinct(ctx: BuildContext, clips: list[Clip]) -> list[Clip]:
    """One clip per id: an annotation repeated word for word (the same video in two files) is
    dropped; another annotation of the same video and window (HiREST asks several queries of one
    video) is kept under the id `<id>~2`, `<id>~3`, ..."""
    kept: dict[str, Clip] = {}
    texts: dict[str, str] = {}  # annotation as JSON -> the id it was kept under
    for clip in clips:
        text = clip.info.model_dump_json()
        if text in texts:
            ctx.log.drop(CLIPS, clip.id, f"duplicate: the same annotation as {texts[text]}")
            continue
        unique, number = clip.id, 1
        while unique in kept:
            number += 1
            unique = f"{clip.id}~{number}"
        if unique != clip.id:
            clip.info = clip.info.model_copy(update={"clip_id": unique})
        kept[unique] = clip
        texts[text] = unique
    return list(kept.values())
