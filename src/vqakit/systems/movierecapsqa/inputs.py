"""What a MovieRecapsQA setting shows a model, taken from a sample `importer.py` wrote: the video
and window of the setting, and the movie dialogue u_m (the movie subtitles of the aligned movie
segment, the same in all four settings). The claim judges read the dialogue from here too.

A sample that lacks what is asked raises `InputMissing` with a kind: `not_applicable` when the
release itself has no such thing for the question (no segment, a segment not aligned to the
movie), `missing_media` when the release has it but the user's file was not found at import
(or is gone), `subtitles` when the subtitle file cannot be read. Nothing is ever stood in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from vqakit.models import clock
from vqakit.schema import (
    NOT_APPLICABLE,
    Fps,
    Protocol,
    Sample,
    SamplingSpec,
    Timestamps,
    Uniform,
    VideoRef,
    parse_sampling,
    safe_media_path,
)
from vqakit.video import Cue, VideoError, cut_cues, read_subtitles

MISSING_MEDIA = "missing_media"
UNREADABLE_SUBTITLES = "subtitles"

# setting -> the role (in metadata.video_roles) of the video it shows
SETTING_VIDEOS = {
    "recap-segment": "recap_segment",
    "movie-segment": "movie_segment",
    "full-recap": "recap",
    "full-movie": "movie",
}
ROLE_NAMES = {
    "recap_segment": "recap segment",
    "movie_segment": "movie segment",
    "recap": "full recap",
    "movie": "full movie",
}
_ROLE_WINDOWS = {"recap_segment": "recap_window", "movie_segment": "movie_window"}


class InputMissing(Exception):
    """A sample lacks what a setting shows; `kind` is the prediction's error type."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def release_fields(sample: Sample) -> dict[str, Any]:
    """The sample's MovieRecapsQA metadata (empty for samples of other benchmarks)."""
    return sample.metadata.model_extra or {}


def is_movierecaps_sample(sample: Sample) -> bool:
    return "video_roles" in release_fields(sample)


def _lacks(sample: Sample) -> str:
    noted = release_fields(sample).get("lacks") or []
    return f" (the import noted it lacks: {'; '.join(noted)})" if noted else ""


def setting_video(sample: Sample, setting: str) -> VideoRef:
    """The video (and window) the setting shows for this sample."""
    fields, role = release_fields(sample), SETTING_VIDEOS[setting]
    roles = list(fields.get("video_roles") or [])
    if role in roles:
        return sample.videos[roles.index(role)]
    window = _ROLE_WINDOWS.get(role)
    if window is not None and fields.get(window) is None:
        reason = "no segment" if role == "recap_segment" else "no movie segment aligned"
        raise InputMissing(
            NOT_APPLICABLE, f"the release has {reason} for this question, so no {ROLE_NAMES[role]}"
        )
    raise InputMissing(MISSING_MEDIA, f"no {ROLE_NAMES[role]} video for this question{_lacks(sample)}")


def segment_dialogue(sample: Sample, root: Path) -> list[Cue]:
    """u_m: the movie subtitles of the aligned movie segment, cut to it and on its clock (0 at
    the segment's start)."""
    fields = release_fields(sample)
    window = fields.get("movie_window")
    if window is None:
        raise InputMissing(
            NOT_APPLICABLE, "the segment is not aligned to the movie, so it has no movie dialogue"
        )
    relative = fields.get("movie_subtitles")
    if not relative:
        raise InputMissing(MISSING_MEDIA, f"no movie subtitles for this question{_lacks(sample)}")
    path = safe_media_path(root, str(relative))
    if path is None:
        raise InputMissing(
            MISSING_MEDIA, f"the movie subtitles path {relative!r} leaves the benchmark folder"
        )
    try:
        cues = read_subtitles(path)
    except VideoError as error:
        kind = MISSING_MEDIA if error.problem == "subtitle file not found" else UNREADABLE_SUBTITLES
        raise InputMissing(kind, str(error)) from None
    return cut_cues(cues, float(window[0]), float(window[1]))


def dialogue_lines(cues: list[Cue]) -> list[str]:
    """One `[MM:SS] text` line per cue, as the prompt shows them."""
    return [f"{clock(cue.start_s)} {' '.join(cue.text.splitlines())}".rstrip() for cue in cues]


def setting_spec(ref: VideoRef, protocol: Protocol) -> SamplingSpec | None:
    """The protocol's frames over the video's window (`at:` times count from the window's
    start), or None when the frame spec asks for no frames. The frames are labelled on the
    window's clock (0 at its start, matching the dialogue's): `window_times`."""
    spec = parse_sampling(protocol.frames)
    offset = ref.start_s or 0.0
    if isinstance(spec, Uniform | Fps) and spec.start_s is None and spec.end_s is None:
        spec = replace(spec, start_s=ref.start_s, end_s=ref.end_s)
    elif isinstance(spec, Timestamps):
        spec = Timestamps(tuple(offset + t for t in spec.times_s))
    if (isinstance(spec, Uniform) and spec.n == 0) or (isinstance(spec, Timestamps) and not spec.times_s):
        return None
    return spec


def window_times(ref: VideoRef, times_s: Sequence[float]) -> list[float]:
    """Times in the video as times on the window's clock (0 at its start)."""
    offset = ref.start_s or 0.0
    return [max(0.0, t - offset) for t in times_s]
