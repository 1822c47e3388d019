"""Reading one record of a Minerva-Ego / MINERVA release: its options, gold index, skills and
video id. The importer (`importer.py`) turns records into samples with these.

Two option shapes are read, and the shape is decided by which `answer_choice_i` fields exist:

- five options (the public release, and what lmms-eval and VLMEvalKit read):
  `answer_choice_0 .. answer_choice_4` are all five options, the correct one included, and
  `answer_id` is its 0-based index. `answer_choice_{answer_id}` must equal `answer` after
  whitespace normalisation (ends trimmed, inner runs of spaces, tabs and newlines made one
  space); letter case must match. A mismatch is an error naming both texts, never a guess.
- four decoys (an older mirror shape): `answer_choice_0 .. answer_choice_3` are the wrong
  options and `answer` is inserted at position `answer_id` (0-4). `answer` may not also be one
  of the four, since the options would then hold it twice.

Any other set of `answer_choice_i` fields fits neither shape and is an error. In both shapes
options are written normalised as above, and two options that are the same text after that
are an error (a model could not tell them apart); options that differ only in letter case,
an article or a word ("the knife" / "a knife", "2" / "2 times") are kept as written.

Why case-sensitive: `answer` only cross-checks `answer_id`, and options that differ only in
case are different texts a model reads, so a case difference means the record does not say
what we think it says; it is reported with the record's key rather than accepted.

Skills: `question type` (with a space) or `question_type`, a comma- or semicolon-separated
string or a list. Video ids: HD-EPIC ids (`P01-20240202-110250`), YouTube ids, or YouTube URLs
(`https://www.youtube.com/watch?v=ID`, `https://youtu.be/ID`, `/shorts/ID`, `/embed/ID`,
`/live/ID`, with or without `www.`/`m.` and extra query parameters such as `&t=30s`); the key
a video file is looked up by is the bare id.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlparse

from vqakit.files import file_stem

FIVE = "five options"
FOUR_DECOYS = "four decoys + answer"
VIDEO_EXTENSIONS = (".mp4", ".mkv", ".webm", ".mov", ".avi")
_CHOICE_KEY = re.compile(r"^answer_choice_(\d+)$")
_YOUTUBE_PATH = ("shorts", "embed", "live", "v")


class Options(NamedTuple):
    choices: list[str]
    answer: int  # 0-based index of the correct option
    shape: str  # FIVE or FOUR_DECOYS


def normalise_space(text: str) -> str:
    """Ends trimmed and every run of whitespace one space."""
    return " ".join(text.split())


def _text(value: Any, field: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{field} is {value!r}, not a text")
    text = normalise_space(str(value))
    if not text:
        raise ValueError(f"{field} is empty")
    return text


def answer_index(record: dict[str, Any]) -> int:
    """`answer_id` as an int (an integer written as a string is read; true/false is not)."""
    value = record.get("answer_id")
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ValueError(f"answer_id is {value!r}, not an integer")


def minerva_options(record: dict[str, Any]) -> Options:
    """The record's options and gold index (see the module docstring); ValueError says what
    does not fit."""
    present = sorted(int(m[1]) for key in record if (m := _CHOICE_KEY.match(str(key))))
    answer_id = answer_index(record)
    answer = _text(record.get("answer"), "answer")
    if present == [0, 1, 2, 3, 4]:
        choices = [_text(record[f"answer_choice_{i}"], f"answer_choice_{i}") for i in range(5)]
        if not 0 <= answer_id < 5:
            raise ValueError(f"answer_id {answer_id} is not an index of answer_choice_0..4")
        if choices[answer_id] != answer:
            raise ValueError(_mismatch(choices, answer_id, answer))
        shape = FIVE
    elif present == [0, 1, 2, 3]:
        decoys = [_text(record[f"answer_choice_{i}"], f"answer_choice_{i}") for i in range(4)]
        if answer in decoys:
            raise ValueError(
                f"answer {answer!r} is also answer_choice_{decoys.index(answer)}: four options with the "
                "answer among them fit neither shape (answer_choice_0..4 with the answer among them, or "
                "answer_choice_0..3 without it)"
            )
        if not 0 <= answer_id <= 4:
            raise ValueError(f"answer_id {answer_id} is not a position to insert the answer at (0-4)")
        choices = [*decoys[:answer_id], answer, *decoys[answer_id:]]
        shape = FOUR_DECOYS
    else:
        written = ", ".join(f"answer_choice_{i}" for i in present) or "no answer_choice_i"
        raise ValueError(
            f"has {written}: fits neither shape (answer_choice_0..4 with the answer among them, or "
            "answer_choice_0..3 with the answer inserted at answer_id)"
        )
    seen: dict[str, int] = {}
    for i, choice in enumerate(choices):
        if choice in seen:
            raise ValueError(f"options {seen[choice]} and {i} are the same text {choice!r}, spaces aside")
        seen[choice] = i
    return Options(choices, answer_id, shape)


def _mismatch(choices: list[str], answer_id: int, answer: str) -> str:
    message = f"answer_choice_{answer_id} is {choices[answer_id]!r} but answer is {answer!r}"
    if choices[answer_id].casefold() == answer.casefold():
        message += " (they differ in letter case)"
    others = [i for i, choice in enumerate(choices) if choice == answer]
    if others:
        message += f"; answer is the text of answer_choice_{others[0]}, so answer_id may be off"
    return message


def skills(record: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The skill field as written (`question type` or `question_type`) and its skills."""
    value = record.get("question type")
    if value is None:
        value = record.get("question_type")
    if value is None:
        return None, []
    parts = value if isinstance(value, list) else re.split(r"[,;]", str(value))
    found = [normalise_space(str(part)) for part in parts]
    written = ", ".join(found) if isinstance(value, list) else str(value)
    return written, [part for part in found if part]


def video_key(video_id: str) -> str:
    """The id a video file is named by: the bare id of a YouTube URL, the last part of another
    URL or path (without a video extension), or the id itself."""
    text = video_id.strip()
    if re.match(r"^(?:https?://|(?:www\.|m\.)?youtu(?:be\.com|\.be)/)", text, re.IGNORECASE):
        try:
            url = urlparse(text if "://" in text else f"https://{text}")
            host = (url.hostname or "").lower().removeprefix("www.").removeprefix("m.")
        except ValueError:  # not a URL after all (an unclosed `[` reads as an IPv6 host)
            return _last_part(text)
        parts = [part for part in url.path.split("/") if part]
        found = None
        if host == "youtu.be" and parts:
            found = parts[0]
        elif host in ("youtube.com", "youtube-nocookie.com", "music.youtube.com"):
            if parts == ["watch"]:
                found = (parse_qs(url.query).get("v") or [None])[0]
            elif len(parts) >= 2 and parts[0] in _YOUTUBE_PATH:
                found = parts[1]
        if found and re.fullmatch(r"[A-Za-z0-9_-]+", found):
            return found
        text = url.path
    return _last_part(text)


def _last_part(text: str) -> str:
    """The last part of a path, without a video extension."""
    last = text.rstrip("/").rsplit("/", 1)[-1]
    for extension in VIDEO_EXTENSIONS:
        if last.lower().endswith(extension):
            return last[: -len(extension)]
    return last


def media_name(video_id: str) -> str:
    """A file-name stem for the video under `media/`: its key, or where the key is not a safe
    file name its slug and a digest of it (`file_stem`), so distinct keys keep distinct files."""
    return file_stem(video_key(video_id), max_length=100, empty="video")
