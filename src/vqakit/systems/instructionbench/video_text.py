"""A clip's video info as the text every InstructionBench prompt shows: its theme, its length and
its steps with times relative to the clip start, substeps indented under their step. Prompts
never see absolute times of the source video, so a clip cut from minute 40 reads like a video."""

from __future__ import annotations

from vqakit.prompts import render_prompt
from vqakit.systems.instructionbench.video_info import Step, VideoInfo


def _seconds(value: float) -> str:
    """Seconds to one decimal, without a trailing ".0" (35.0 -> "35", 35.25 -> "35.2")."""
    return f"{round(value, 1):g}"


def video_text(clip: VideoInfo) -> str:
    """The `ib_video_info` prompt for `clip`: step times are shifted by the clip start and kept
    inside the clip (substeps may spill a little outside their parent); a step without times
    (test splits) is shown without them."""
    offset = clip.start or 0.0
    length = clip.end - clip.start if clip.start is not None and clip.end is not None else clip.duration

    def clamp(value: float | None) -> str | None:
        if value is None:
            return None
        shifted = max(value - offset, 0.0)
        return _seconds(min(shifted, length) if length is not None else shifted)

    lines: list[dict[str, object]] = []

    def walk(steps: list[Step], depth: int) -> None:
        for step in sorted(steps, key=lambda s: (s.start is None, s.start or 0.0)):
            lines.append(
                {
                    "indent": "  " * depth,
                    "start": clamp(step.start),
                    "end": clamp(step.end),
                    "text": step.text,
                }
            )
            walk(step.children, depth + 1)

    walk(clip.steps, 0)
    return render_prompt(
        "ib_video_info",
        perspective=clip.perspective,
        theme=clip.theme,
        duration=_seconds(length) if length is not None else None,
        nested=any(step.children for step in clip.steps),
        lines=lines,
    )
