"""The mapping file of `vqakit import table`: which columns of a table make which fields of a
sample. A YAML file:

```yaml
id: "{video}-{qid}"                 # a template over the row's columns
question: question                  # a column
options: [a0, a1, a2, a3, a4]       # a list column, a list of columns, or a column of "A. ..." strings
answer: {column: answer, kind: index}   # letter | index (from 0) | index1 (from 1) | text
video: "{video}.mp4"                # a path template relative to --videos
extensions: [mp4, mkv, webm]        # other extensions to try when the file is not there
start: start                        # a column or a template, seconds (optional)
end: end
subtitles: "subtitle/{video}.srt"   # a path template relative to --subtitles (default --videos)
groups: [type]                      # columns that become breakdowns, reported in every run
metadata: [frame_count]             # other columns kept on the sample
rename: {type: question_type}       # metadata keys other than the column names (optional)
facts: facts                        # a list column of atomic facts (optional)
reasoning: reasoning                # a column of reference reasoning traces (optional)
objects: objects                    # a column of object tracks, JSON (optional)
gold_clips: gold_clips              # list columns of retrieval gold ids (optional)
gold_passages: gold_passages
corpus: ../corpus                   # a folder with clips.jsonl / passages.jsonl, relative to this file
card: {name: nextqa, protocol: {frames: "uniform:16"}}   # the benchmark card (optional)
```

A template is text with `{column}` fields (`{{` and `}}` for literal braces); nothing else is
evaluated. A row whose options are all empty is an open-ended question: its answer is the
text of `answer.column` (or of `answer.open_column`). `answer.missing: hidden` makes an empty
answer cell a hidden answer (a test split scored by submission) instead of a problem; leaving
`answer` out hides every answer.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vqakit.files import InputError, find_unusable, one_line, read_yaml
from vqakit.schema import NonEmpty

_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


class MappingError(InputError):
    """A mapping file is unusable; the message names the file and the key."""


def template_columns(template: str) -> list[str]:
    """The columns a template reads. ValueError for a stray brace or an empty field."""
    names = []
    for match in _FIELD.finditer(template):
        if match.group(0) in ("{{", "}}"):
            continue
        name = match.group(1).strip()
        if not name:
            raise ValueError(f"{template!r} has an empty {{}} field")
        names.append(name)
    rest = _FIELD.sub("", template)
    if "{" in rest or "}" in rest:
        raise ValueError(f"{template!r} has an unpaired brace (write {{{{ or }}}} for a literal one)")
    return names


def render(template: str, row: dict[str, Any]) -> str:
    """`template` with each `{column}` replaced by the row's value (KeyError names a missing one)."""

    def value(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in ("{{", "}}"):
            return token[0]
        cell = row[match.group(1).strip()]
        return "" if cell is None else str(cell)

    return _FIELD.sub(value, template)


def _quoted(name: str) -> str:
    text = repr(name)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _is_seconds(text: str) -> bool:
    """Whether `text` is a time in seconds (a finite number, 0 or more)."""
    try:
        seconds = float(text)
    except ValueError:
        return False
    return math.isfinite(seconds) and seconds >= 0


class AnswerMap(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    column: NonEmpty
    kind: Literal["letter", "index", "index1", "text"]
    missing: Literal["error", "hidden"] = "error"  # an empty cell: a problem, or a hidden answer
    open_column: NonEmpty | None = None  # the reference answer of rows without options, if elsewhere


class VideoMap(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: NonEmpty
    extensions: list[NonEmpty] = []


class TableMapping(BaseModel):
    """A parsed mapping file (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: NonEmpty
    question: NonEmpty
    options: NonEmpty | list[NonEmpty] | None = None  # None: open-ended questions
    answer: AnswerMap | None = None  # None: every answer is hidden
    video: VideoMap
    start: NonEmpty | None = None
    end: NonEmpty | None = None
    subtitles: NonEmpty | None = None
    groups: list[NonEmpty] = []
    metadata: list[NonEmpty] = []
    rename: dict[NonEmpty, NonEmpty] = {}  # column -> metadata key
    facts: NonEmpty | None = None
    reasoning: NonEmpty | None = None
    objects: NonEmpty | None = None
    gold_clips: NonEmpty | None = None
    gold_passages: NonEmpty | None = None
    corpus: NonEmpty | None = None  # absolute once loaded from a file (relative to it)
    card: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _video_forms(cls, data: Any) -> Any:
        """`video: "{v}.mp4"` and a sibling `extensions:` are short for `video: {path, extensions}`."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        extensions = data.pop("extensions", None)
        if isinstance(data.get("video"), str):
            data["video"] = {"path": data["video"]}
        if extensions is not None and isinstance(data.get("video"), dict):
            data["video"] = {**data["video"], "extensions": extensions}
        return data

    @field_validator("id", "subtitles", "start", "end")
    @classmethod
    def _template(cls, value: str | None) -> str | None:
        if value is not None:
            template_columns(value)
        return value

    @field_validator("video")
    @classmethod
    def _video_template(cls, value: VideoMap) -> VideoMap:
        template_columns(value.path)
        return value

    @property
    def answers_hidden(self) -> bool:
        return self.answer is None

    def needed_columns(self) -> dict[str, list[str]]:
        """{mapping key: columns it reads for sure} (start and end given as a bare name may be a
        column or a number, so they are checked row by row; as a template, their columns here)."""
        needed: dict[str, list[str]] = {
            "id": template_columns(self.id),
            "question": [self.question],
            "video": template_columns(self.video.path),
            "groups": list(self.groups),
            "metadata": list(self.metadata),
        }
        if isinstance(self.options, list):
            needed["options"] = list(self.options)
        elif self.options is not None:
            needed["options"] = [self.options]
        if self.answer is not None and self.answer.missing == "error":
            needed["answer"] = [self.answer.column]
        if self.subtitles:
            needed["subtitles"] = template_columns(self.subtitles)
        for key in ("start", "end"):
            template = getattr(self, key)
            if template is not None and "{" in template:
                needed[key] = template_columns(template)
        return needed

    def columns_read(self) -> list[str]:
        """Every column the mapping may read from a row (those of `needed_columns`, and the
        optional ones: a bare start or end, the answer's columns, facts, reasoning, objects,
        retrieval gold)."""
        found = [name for names in self.needed_columns().values() for name in names]
        optional = [self.start, self.end, self.facts, self.reasoning, self.objects, self.gold_clips]
        optional += [self.gold_passages]
        if self.answer is not None:
            optional += [self.answer.column, self.answer.open_column]
        found += [name for name in optional if name is not None and "{" not in name]
        return list(dict.fromkeys(found))

    def check_columns(self, columns: list[str], where: str) -> None:
        """MappingError naming the first key that reads a column the table does not have (a
        bare `start` or `end` that names no column must be a number of seconds)."""
        known = set(columns)
        for key in ("start", "end"):
            name = getattr(self, key)
            if name is not None and "{" not in name and name not in known and not _is_seconds(name):
                message = f"the table has no column {_quoted(name)}, and it is no number of seconds"
                raise MappingError(one_line(f"{where}: {key}: {message}"))
        for key, wanted in self.needed_columns().items():
            missing = [name for name in wanted if name not in known]
            if missing:
                cut = [name if len(name) <= 60 else f"{name[:57]}..." for name in columns[:40]]
                shown = ", ".join(cut) + (" ..." if len(columns) > 40 else "")
                names = ", ".join(map(_quoted, missing))
                message = f"the table has no column {names} (its columns: {shown})"
                raise MappingError(one_line(f"{where}: {key}: {message}"))


def parse_mapping(data: Any, where: str) -> TableMapping:
    """A mapping from parsed YAML; MappingError names `where` and the key at fault."""
    if not isinstance(data, dict):
        raise MappingError(f"{where}: a mapping is a YAML object of keys (id, question, options, ...)")
    try:
        return TableMapping.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "mapping"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise MappingError(one_line(f"{where}: {key}: {message}")) from None


def load_mapping(path: str | Path) -> TableMapping:
    """Read a mapping YAML file (see the module's docstring) with the hardened reader: a file
    that cannot be read, is not YAML or holds a value that cannot be kept (bytes that are not
    UTF-8, NUL characters, numbers beyond 64 bits...) is a MappingError naming it (and the
    line, or the key)."""
    path = Path(path)
    try:
        data = read_yaml(path)
    except InputError as error:
        raise MappingError(str(error)) from None
    if found := find_unusable(data):
        raise MappingError(one_line(f"{path}: {found[0]}: {found[1]}"))
    if isinstance(data, dict) and isinstance(data.get("corpus"), str):
        data = {**data, "corpus": os.path.abspath(path.parent / data["corpus"])}
    return parse_mapping(data, str(path))
