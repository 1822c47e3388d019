"""A table of questions and a folder of videos to a benchmark folder (`vqakit import table`).

Rows that cannot be read (the reader's refusals: text that is not UTF-8 or holds NUL characters
or unpaired surrogates, numbers beyond 64 bits or not finite), whose cells the mapping cannot
use (a time that overflows, is negative or ends before it starts; an answer beyond the options),
whose subtitles cannot be read or converted, or that the sample schema refuses, are left out
and listed as `FILE:ROW:COLUMN: problem`; a row whose video is missing is left out and listed
under its video: none of these is fatal, nor is a video that cannot be read (checked as
`vqakit validate` checks it). A window that ends past its video is cut at the video's end, as
the releases' loaders do.
Videos are placed under `media/` at their path relative to `--videos`
(hard-linked, copied across filesystems), subtitles at theirs relative to `--subtitles`. The
written folder is checked on the way out (`write_benchmark_folder`), videos opened.

Benchmark presets use the same importer with hooks for what their release's shape needs: rows
they build themselves, a video that is a folder of frames, subtitles to clean or convert.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from vqakit.builders import check_benchmark_out, write_benchmark_folder
from vqakit.files import InputError, find_unusable, one_line, reading, write_text_atomic
from vqakit.schema import Benchmark, BenchmarkCard, Sample
from vqakit.tables._found import find_file, read_corpus, safe_relative
from vqakit.tables._mapping import MappingError, TableMapping, load_mapping
from vqakit.tables._rows import RowFields, RowProblem, row_fields, time_column
from vqakit.tables._source import Source, SourceRow, binary_problem, read_source

VideoHook = Callable[[Path, str], Path]  # (found file or folder, relative path) -> video file to place
SubtitleHook = Callable[[Path, dict[str, Any]], str]  # (found file, row) -> SRT text to write


def first_of(lines: list[str], shown: int = 20) -> list[str]:
    """The first `shown` lines, and `... and N more` for the rest."""
    return lines[:shown] + ([f"... and {len(lines) - shown} more"] if len(lines) > shown else [])


class NothingImported(InputError):
    """No row of a table could be imported (the first problems are in the message)."""


@dataclass
class ImportHooks:
    """What a preset adds to the generic import."""

    video: VideoHook | None = None  # e.g. turn a folder of frames into a video file
    subtitles: SubtitleHook | None = None  # e.g. strip tags, or convert JSON cues to SRT


@dataclass
class TableImport:
    """What an import did."""

    out: Path
    rows: int = 0  # rows read, those the reader could not use included
    written: int = 0  # samples written
    problems: list[str] = field(default_factory=list)  # FILE:ROW[:COLUMN]: problem, rows left out
    missing_videos: dict[str, list[str]] = field(default_factory=dict)  # video path -> sample ids
    unreadable_videos: dict[str, str] = field(default_factory=dict)  # video path -> why
    windows_cut: list[str] = field(default_factory=list)  # sample ids whose window ended past the video
    lacking_subtitles: list[str] = field(default_factory=list)  # sample ids whose subtitles are missing
    hidden: int = 0  # samples whose answer is hidden
    benchmark: Benchmark | None = None


def _sample(fields: RowFields, video: str, subtitles: str | None) -> dict[str, Any]:
    ref: dict[str, Any] = {"path": video}
    if fields.start_s is not None:
        ref["start_s"] = fields.start_s
    if fields.end_s is not None:
        ref["end_s"] = fields.end_s
    sample: dict[str, Any] = {"id": fields.id, "question": fields.question, "videos": [ref]}
    if fields.choices is not None:
        sample["choices"] = fields.choices
    sample["answer"] = fields.answer
    metadata = {**fields.metadata, **fields.groups}
    if metadata:
        sample["metadata"] = metadata
    if subtitles:
        sample["subtitles"] = subtitles
    if fields.facts:
        sample["facts"] = fields.facts
    if fields.reasoning:
        sample["reasoning"] = fields.reasoning
    sample.update(fields.extra)
    return sample


def default_card(mapping: TableMapping, name: str, source: Source) -> dict[str, Any]:
    """The card: the mapping's `card` section, filled where it is silent."""
    card = dict(mapping.card)
    card.setdefault("name", name)
    card.setdefault("version", "imported")
    card.setdefault("license", "see the release this was imported from")
    split = f" (split {source.split})" if source.split else ""
    card.setdefault("description", f"Imported by `vqakit import table` from {source.path.name}{split}.")
    if source.split:
        card.setdefault("split", source.split)
    given = card.get("groups", [])
    if isinstance(given, list):  # anything else is left for the card's check to name
        named = [mapping.rename.get(g, g) for g in mapping.groups]
        groups = [*given, *[g for g in named if g not in given]]
        if groups:
            card["groups"] = groups
    fields = card.get("fields") or {}
    if isinstance(fields, dict):
        fields = dict(fields)
        for column in [*mapping.groups, *mapping.metadata]:
            fields.setdefault(mapping.rename.get(column, column), f"the release's `{column}` column")
        if fields:
            card["fields"] = fields
    return card


def import_rows(
    source: Source,
    mapping: TableMapping,
    videos: str | Path,
    out: str | Path,
    *,
    subtitles_dir: str | Path | None = None,
    card: dict[str, Any] | None = None,
    hooks: ImportHooks | None = None,
    writer: str = "import table",
) -> TableImport:
    """Write a benchmark folder at `out` from the rows of `source` (see the module's docstring).
    ValueError when no row can be imported (the first problems are in its message).
    `writer`: the command importing (`vqakit <writer>`): `out` must be new, empty or an earlier
    import of the same command, and outside the table, videos and subtitles
    (`OutFolderRefused` otherwise, before anything is read or written)."""
    videos, out = Path(videos), Path(out)
    subtitles_dir = Path(subtitles_dir) if subtitles_dir is not None else videos
    check_benchmark_out(out, writer, inputs=[source.path, videos, subtitles_dir])
    hooks = hooks or ImportHooks()
    if not source.rows:
        listed = "\n".join(source.problems[:20])
        raise InputError(f"{source.path}: no row could be read\n{listed}".rstrip())
    mapping.check_columns(source.columns, str(source.path))
    # the records the reader left out count as rows read (each is one of the problems)
    report = TableImport(out, rows=len(source.rows) + len(source.problems), problems=list(source.problems))
    samples: list[dict[str, Any]] = []
    seen = _Gathered()
    for row in source.rows:
        with reading(row.file or source.path):
            added = _one_row(source, row, mapping, videos, subtitles_dir, hooks, report, seen)
        if added is not None:
            samples.append(added)
    media, texts = seen.media, seen.texts
    if not samples:
        missing = [f"missing video {v}" for v in report.missing_videos]
        unreadable = [f"unreadable video {v}: {why}" for v, why in report.unreadable_videos.items()]
        listed = [line for lines in (report.problems, missing, unreadable) for line in first_of(lines)]
        raise NothingImported("\n".join([f"{source.path}: no row could be imported", *listed]))
    out.parent.mkdir(parents=True, exist_ok=True)
    # converted subtitles are media like any other: the folder writer places and checks them
    with tempfile.TemporaryDirectory(prefix=f".{out.name}.subtitles.", dir=out.parent) as converted:
        for relative, text in texts.items():
            name = relative.removeprefix("media/")
            write_text_atomic(Path(converted) / name, text)
            media[name] = Path(converted) / name
        clips, passages = read_corpus(mapping, videos, media)
        report.benchmark = write_benchmark_folder(
            out,
            card=card or default_card(mapping, out.name, source),
            samples=samples,
            clips=clips,
            passages=passages,
            media=media,
            writer=writer,
        )
    report.written = len(samples)
    report.hidden = sum(1 for sample in samples if sample["answer"] is None)
    return report


def _duration(
    found: Path, name: str, report: TableImport, durations: dict[Path, float | None]
) -> float | None:
    """The video's duration, checked as `vqakit validate` checks it (once per file); None, with
    the reason kept, for a video that cannot be read or is cut short."""
    from vqakit.video import VideoError, VideoMediaChecker

    if found not in durations:
        try:
            durations[found] = VideoMediaChecker().video_duration(found)
        except VideoError as error:
            durations[found] = None
            report.unreadable_videos[name] = str(error)
    return durations[found]


@dataclass
class _Gathered:
    """What the rows of one import gathered so far."""

    first_row: dict[str, SourceRow] = field(default_factory=dict)  # sample id -> its row
    media: dict[str, Path] = field(default_factory=dict)  # name under media/ -> source file
    texts: dict[str, str] = field(default_factory=dict)  # converted subtitles: path -> SRT text
    durations: dict[Path, float | None] = field(default_factory=dict)  # video -> duration, or None
    subtitles: dict[str, str | None] = field(default_factory=dict)  # path -> why unusable, or None


def _one_row(
    source: Source,
    row: SourceRow,
    mapping: TableMapping,
    videos: Path,
    subtitles_dir: Path,
    hooks: ImportHooks,
    report: TableImport,
    seen: _Gathered,
) -> dict[str, Any] | None:
    """The sample of one row, or None with the reason kept in `report` (a problem naming
    `FILE:ROW:COLUMN`, a missing or unreadable video)."""
    first_row, media, durations = seen.first_row, seen.media, seen.durations

    def problem(column: str | None, message: str) -> None:
        report.problems.append(one_line(f"{source.where(row, column)}: {message}"))

    if found := find_unusable(row.data):  # rows a preset built from several files are checked here
        problem(*found)
        return None
    for column in mapping.columns_read():  # a binary cell read as text: UTF-8 or refused
        if (why := binary_problem(row.data.get(column))) is not None:
            problem(column, why)
            return None
    try:
        fields = row_fields(mapping, row.data, text_cells=source.format in ("csv", "tsv"))
    except RowProblem as error:
        problem(error.column, str(error))
        return None
    if fields.id in first_row:
        earlier = first_row[fields.id]
        named = f"row {earlier.row}" if earlier.file == row.file else source.where(earlier)
        problem("id", f"{fields.id!r} is already the id of {named}")
        return None
    first_row[fields.id] = row
    if fields.video in report.unreadable_videos:
        return None  # listed once, under its video
    found_video = find_file(videos, fields.video, mapping.video.extensions)
    if found_video is not None and hooks.video is not None:
        from vqakit.video import VideoError

        try:
            found_video = hooks.video(found_video, fields.video)
        except VideoError as error:  # e.g. a frame of a folder that is no image: it names the frame
            report.unreadable_videos[fields.video] = str(error)
            return None
        except (OSError, ValueError) as error:
            report.unreadable_videos[fields.video] = one_line(f"{type(error).__name__}: {error}")
            return None
    if found_video is None or not found_video.is_file():
        report.missing_videos.setdefault(fields.video, []).append(fields.id)
        return None
    duration = _duration(found_video, fields.video, report, durations)
    if duration is None:
        return None
    if fields.start_s is not None and fields.start_s >= duration:
        column = time_column("start", mapping.start, row.data)
        problem(column, f"the window starts at {fields.start_s:g} s, after the video's end ({duration:g} s)")
        return None
    cut = fields.end_s is not None and fields.end_s > duration
    if cut:
        fields = replace(fields, end_s=duration)  # as the releases' own loaders clamp it
    relative = safe_relative(fields.video)
    assert relative is not None  # find_file found it under the folder
    name = str(relative.with_suffix(found_video.suffix.lower() or relative.suffix))
    subtitles = None
    if fields.subtitles:
        subtitle_file = find_file(subtitles_dir, fields.subtitles, [])
        if subtitle_file is None or not subtitle_file.is_file():
            report.lacking_subtitles.append(fields.id)
        else:
            subtitle_name = safe_relative(fields.subtitles)
            assert subtitle_name is not None
            converted = hooks.subtitles is not None
            subtitles = f"media/{subtitle_name.with_suffix('.srt') if converted else subtitle_name}"
            why = _subtitles(subtitles, subtitle_file, row.data, hooks, seen)
            if why is not None:  # the subtitles cannot be read or converted: named by their file
                problem(mapping.subtitles and "subtitles", why)
                return None
            if not converted:
                media[str(subtitle_name)] = subtitle_file
    sample = _sample(fields, f"media/{name}", subtitles)
    try:
        Sample.model_validate(sample)
    except ValidationError as error:  # what the folder's own check would refuse, for this row only
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "-"
        problem(field, f"{str(first['msg']).removeprefix('Value error, ')}")
        return None
    media[name] = found_video
    if cut:
        report.windows_cut.append(fields.id)
    return sample


def _subtitles(
    name: str, found: Path, row: dict[str, Any], hooks: ImportHooks, seen: _Gathered
) -> str | None:
    """Why the subtitles a row names (`found`, placed as `name`) cannot be used, or None: read
    (and converted, by the preset's hook) once per file, and checked as `vqakit validate`
    checks them, so that a bad file is a problem of the questions that use it, named by its
    real path, and never the end of the import."""
    from vqakit.video import VideoError, parse_subtitles, read_subtitles

    if name not in seen.subtitles:
        try:
            if hooks.subtitles is not None:
                text = hooks.subtitles(found, row)
                parse_subtitles(text, str(found))
                seen.texts[name] = text
            else:
                read_subtitles(found)
            seen.subtitles[name] = None
        except (InputError, VideoError) as error:
            seen.subtitles[name] = one_line(str(error))
    return seen.subtitles[name]


def _checked_card(card: dict[str, Any], where: str) -> dict[str, Any]:
    """`card` when it makes a valid benchmark card; MappingError naming `where` (the mapping
    file) and the card's field otherwise, before anything is read or written."""
    try:
        BenchmarkCard.model_validate(card)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(["card", *(str(part) for part in first["loc"])])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise MappingError(one_line(f"{where}: {field}: {message}")) from None
    return card


def import_table(
    table: str | Path,
    mapping: str | Path | TableMapping,
    videos: str | Path,
    out: str | Path,
    *,
    split: str | None = None,
    subtitles_dir: str | Path | None = None,
    name: str | None = None,
) -> TableImport:
    """`vqakit import table`: read `table` (file or folder), map its rows, write `out`."""
    check_benchmark_out(out, "import table", inputs=[table, videos, subtitles_dir])
    where = "the mapping" if isinstance(mapping, TableMapping) else str(mapping)
    mapping = mapping if isinstance(mapping, TableMapping) else load_mapping(mapping)
    source = read_source(table, split)
    try:
        mapping.check_columns(source.columns, str(source.path))
    except MappingError as error:  # the mapping names a column the table lacks: name both files
        raise MappingError(f"{where}: {error}") from None
    card = _checked_card(default_card(mapping, name or Path(out).name, source), where)
    try:
        return import_rows(source, mapping, videos, out, subtitles_dir=subtitles_dir, card=card)
    except NothingImported as error:  # every row failed: the mapping may be at fault as well
        first, _, rest = str(error).partition("\n")
        raise NothingImported(f"{first} with the mapping {where}\n{rest}".rstrip()) from None
