"""LongVideoBench (`vqakit import longvideobench`): the Hugging Face release as unpacked.

```
LongVideoBench/
  lvb_val.json, lvb_test_wo_gt.json   video_id, question, candidates, correct_choice (val), id,
                                      video_path, subtitle_path, duration_group,
                                      question_category, topic_category, level, duration,
                                      starting_timestamp_for_subtitles, ...
  videos/<video_path>                 from videos.tar: give this folder as --videos
  subtitles/<subtitle_path>           from subtitles.tar: JSON cues
```

Subtitle cues are JSON, `{"start": "HH:MM:SS.mmm", "end", "line"}` or `{"timestamp": [s, e],
"text"}`, on the clock of the original upload; they are turned into SRT on the video's clock
(less `starting_timestamp_for_subtitles`). The protocol samples at most one frame a second, at
most 64 (as the release's loader does), and shows the subtitles. The test split's answers are
hidden: `vqakit export RUN --format longvideobench` writes `{id: letter}`.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from vqakit.files import find_unusable, read_json
from vqakit.report import Answer, SubmissionFormat, register_submission
from vqakit.systems.presets.release import first_existing, import_release, split_of
from vqakit.tables import ImportHooks, Preset, TableImport, read_source, register_preset

SPLITS = ("val", "test")
FILES = {"val": "lvb_val.json", "test": "lvb_test_wo_gt.json"}


_CLOCK = re.compile(r"\s*(\d{1,6}):(\d{1,2}):(\d{1,2}(?:\.\d*)?)\s*")
_ARROW = re.compile(r"-{2,}>")  # what SRT would read as a cue timing, in a cue's text
_LONGEST = 10 * 24 * 3600.0  # a cue later than ten days is no time on any video's clock


def _seconds(value: Any) -> float | None:
    """Seconds of a cue time (a number, or `HH:MM:SS.mmm`); None for anything else, a time that
    is not finite, negative or beyond any video."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and (clock := _CLOCK.fullmatch(value)):
        hours, minutes, rest = clock.groups()
        seconds = int(hours) * 3600 + int(minutes) * 60 + float(rest)
    else:
        return None
    return seconds if math.isfinite(seconds) and 0 <= seconds <= _LONGEST else None


def _clock(seconds: float) -> str:
    millis = round(max(seconds, 0.0) * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return f"{hours:02d}:{minutes:02d}:{rest // 1000:02d},{rest % 1000:03d}"


def srt_from_cues(path: Path, row: dict[str, Any]) -> str:
    """The release's JSON cues as SRT on the video's clock, read by the hardened reader: a file
    that is not JSON is an InputError naming it; a cue without a usable time or text is left
    out."""
    shift = _seconds(row.get("starting_timestamp_for_subtitles")) or 0.0
    cues = read_json(path)
    blocks = []
    for cue in cues if isinstance(cues, list) else []:
        if not isinstance(cue, dict):
            continue
        if "timestamp" in cue and isinstance(cue["timestamp"], list) and len(cue["timestamp"]) == 2:
            start, end = (_seconds(v) for v in cue["timestamp"])
            text = cue.get("text")
        else:
            start, end, text = _seconds(cue.get("start")), _seconds(cue.get("end")), cue.get("line")
        if start is None or not isinstance(text, str) or not text.strip() or find_unusable(text):
            continue
        end = end if end is not None and end > start else start + 1.0  # a cue open at its end lasts 1 s
        blocks.append(
            f"{len(blocks) + 1}\n{_clock(start - shift)} --> {_clock(end - shift)}\n{_cue_text(text)}\n"
        )
    return "\n".join(blocks)


def _cue_text(text: str) -> str:
    """A cue's text as SRT can hold it: no blank line (it would end the cue) and no `-->` (SRT
    reads it as a timing line), which becomes `->`; what it says is kept."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(_ARROW.sub("->", line) for line in lines if line)


def import_longvideobench(release: Path, videos: Path, out: Path, split: str | None = None) -> TableImport:
    chosen = split_of(split, SPLITS)
    table = release / FILES[chosen] if release.is_dir() else release
    source = read_source(table)
    subtitles = first_existing(table.parent / "subtitles")
    name = "longvideobench" + ("" if chosen == "val" else f"-{chosen}")
    return import_release(
        "longvideobench",
        source,
        videos,
        out,
        subtitles=subtitles,
        hooks=ImportHooks(subtitles=srt_from_cues),
        card={"name": name},
    )


def longvideobench_submission(answers: list[Answer]) -> str:
    """`{id: letter}`: the letter read from each reply, by question id."""
    return json.dumps({answer.sample.id: answer.letter for answer in answers}, indent=1) + "\n"


register_submission(
    SubmissionFormat(
        "longvideobench",
        "LongVideoBench's {id: letter} JSON (test split)",
        ".json",
        longvideobench_submission,
    )
)

PRESET = register_preset(
    Preset(
        name="longvideobench",
        title="LongVideoBench",
        summary="lvb_val.json / lvb_test_wo_gt.json of the release plus its videos/ and subtitles/",
        run=import_longvideobench,
        homepage="https://longvideobench.github.io",
        splits=SPLITS,
        submission="longvideobench",
    )
)
