"""A benchmark as table rows, for the exports (`vqakit export-bench`): one row per sample, the
columns the table importer reads back, and the mapping that reads them.

Columns: `id`, `question`, `options` (a list; empty for open-ended questions), `answer` (the
option's index from 0; null when open-ended or hidden), `answer_text` (the option's text, or
the reference answer; null when hidden), `video` (the path under the benchmark's `media/`
folder), `start`, `end` (the window, seconds; null for the whole video), `subtitles` (like
`video`), `facts`, `reasoning`, then one column per metadata key (prefixed `metadata_` where a
key has a column's name). Fields a table cannot hold for the importer (object tracks, gold clip
and passage ids) are kept as `objects` (JSON text), `gold_clips` and `gold_passages`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from vqakit.schema import Benchmark, Sample

CORE = (
    "id",
    "question",
    "options",
    "answer",
    "answer_text",
    "video",
    "start",
    "end",
    "subtitles",
    "facts",
    "reasoning",
    "objects",
    "gold_clips",
    "gold_passages",
)


def under_media(path: str | None) -> str | None:
    """A benchmark path as it is written under the benchmark's `media/` folder (ValueError for
    one elsewhere: an export reads media from `media/` only)."""
    if path is None:
        return None
    parts = PurePosixPath(path).parts
    if len(parts) < 2 or parts[0] != "media":
        raise ValueError(f"{path}: the export reads media from the benchmark's media/ folder only")
    return str(PurePosixPath(*parts[1:]))


def metadata_columns(benchmark: Benchmark) -> dict[str, str]:
    """{metadata key: its column}, in the order keys are first met."""
    columns: dict[str, str] = {}
    for sample in benchmark.samples:
        for key in sample.metadata.model_dump(exclude_none=True, exclude_defaults=True):
            columns.setdefault(key, f"metadata_{key}" if key in CORE else key)
    return columns


def sample_row(sample: Sample, metadata: dict[str, str]) -> dict[str, Any]:
    ref = sample.videos[0] if sample.videos else None
    values = sample.metadata.model_dump(exclude_none=True, exclude_defaults=True)
    row: dict[str, Any] = {
        "id": sample.id,
        "question": sample.question,
        "options": list(sample.choices or []),
        "answer": sample.answer if sample.choices is not None else None,
        "answer_text": sample.answer_text(),
        "video": under_media(ref.path) if ref else None,
        "start": ref.start_s if ref else None,
        "end": ref.end_s if ref else None,
        "subtitles": under_media(sample.subtitles),
        "facts": list(sample.facts),
        "reasoning": sample.reasoning,
        "objects": json.dumps([o.model_dump(mode="json", exclude_none=True) for o in sample.objects])
        if sample.objects
        else None,
        "gold_clips": list(sample.gold_clips),
        "gold_passages": list(sample.gold_passages),
    }
    for key, column in metadata.items():
        row[column] = values.get(key)
    return row


def benchmark_rows(benchmark: Benchmark) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """(rows, {metadata key: column}). ValueError when a sample has more than one video (a
    table row holds one)."""
    several = [s.id for s in benchmark.samples if len(s.videos) > 1]
    if several:
        raise ValueError(
            f"{len(several)} sample(s) have more than one video (e.g. {several[0]}); a row holds one"
        )
    metadata = metadata_columns(benchmark)
    return [sample_row(sample, metadata) for sample in benchmark.samples], metadata


def export_mapping(benchmark: Benchmark, metadata: dict[str, str]) -> dict[str, Any]:
    """The `vqakit import table` mapping that reads the exported rows back into these samples."""
    card = benchmark.card.model_dump(mode="json", exclude_none=True)
    renamed = {column: key for key, column in metadata.items() if column != key}
    mapping: dict[str, Any] = {
        "id": "{id}",
        "question": "question",
        "options": "options",
        "answer": {"column": "answer", "kind": "index", "missing": "hidden", "open_column": "answer_text"},
        "video": "{video}",
        "start": "start",
        "end": "end",
        "subtitles": "{subtitles}",
        "facts": "facts",
        "reasoning": "reasoning",
        "objects": "objects",
        "gold_clips": "gold_clips",
        "gold_passages": "gold_passages",
        "metadata": list(metadata.values()),
        "card": card,
    }
    if renamed:
        mapping["rename"] = renamed
    if benchmark.clips or benchmark.passages:
        mapping["corpus"] = "corpus"
    return mapping


def copy_corpus(benchmark: Benchmark, folder: Path) -> list[Path]:
    """The retrieval corpora as they are (vqakit's own JSONL files) in `folder`."""
    written = []
    for name in ("clips.jsonl", "passages.jsonl"):
        source = benchmark.root / "corpus" / name
        if source.is_file():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            written.append(target)
    return written


def _metadata_text(metadata: Any) -> str | None:
    values = metadata.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    return json.dumps(values) if values else None


def corpus_rows(benchmark: Benchmark) -> dict[str, list[dict[str, Any]]]:
    """The corpora as table rows ({"clips": [...], "passages": [...]}, the empty ones left out):
    a clip's video as its path under `media/` with its window, metadata as JSON text."""
    tables: dict[str, list[dict[str, Any]]] = {}
    if benchmark.clips:
        tables["clips"] = [
            {
                "id": clip.id,
                "video": under_media(clip.video.path),
                "start": clip.video.start_s,
                "end": clip.video.end_s,
                "description": clip.description,
                "metadata": _metadata_text(clip.metadata),
            }
            for clip in benchmark.clips.values()
        ]
    if benchmark.passages:
        tables["passages"] = [
            {
                **passage.model_dump(mode="json", exclude={"metadata"}),
                "metadata": _metadata_text(passage.metadata),
            }
            for passage in benchmark.passages.values()
        ]
    return tables


def copy_media(benchmark: Benchmark, rows: list[dict[str, Any]], out: Path) -> int:
    """Copy (hard-link where possible) every video and subtitle file the rows name into
    `out/media/`; the number of files placed."""
    from vqakit.files import place_media

    names = {row[column] for row in rows for column in ("video", "subtitles") if row.get(column)}
    names |= {under_media(clip.video.path) for clip in benchmark.clips.values()}
    place_media(out, {name: benchmark.root / "media" / name for name in sorted(names)})
    return len(names)


def remove_folder_files(out: Path, names: list[str]) -> None:
    """Remove earlier exports' files under these folders (shards of another size): the files
    the folder's marker lists as the export's, never another; all of them in an export made
    before markers (`export_benchmark` has checked that `out` is one)."""
    from vqakit.files import read_marker

    marker = read_marker(out)
    listed = marker.get("files") if marker is not None else None
    for name in names:
        target = out / name
        if not target.is_dir() or target.is_symlink():
            continue
        if not isinstance(listed, list):
            shutil.rmtree(target)
            continue
        for relative in listed:
            path = out / relative
            if isinstance(relative, str) and relative.startswith(f"{name}/") and path.is_file():
                path.unlink()
        for parent, _folders, _files in sorted(os.walk(target), reverse=True):  # emptied folders
            if not os.listdir(parent):
                os.rmdir(parent)
