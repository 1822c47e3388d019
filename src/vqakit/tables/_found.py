"""Finding a row's files under the folders an import is given, and the mapping's corpus folder:
paths stay under their folder (absolute paths and `..` find nothing)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from vqakit.files import InputError, read_table
from vqakit.tables._mapping import TableMapping


def safe_relative(text: str) -> PurePosixPath | None:
    """A path under a folder, or None when it would leave it (absolute, `..`)."""
    path = PurePosixPath(text.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None
    return path


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long for the file system, say
        return False


def find_file(folder: Path, relative: str, extensions: list[str]) -> Path | None:
    """The file (or folder) at `relative` under `folder`, trying the other extensions when it
    is not there: `{id}.mp4` with `[mkv, webm]` also finds `{id}.mkv`; `{id}` finds `{id}.mp4`.
    None when none is there, or `relative` would leave `folder` (absolute, `..`)."""
    path = safe_relative(relative)
    if path is None:
        return None
    candidates = [folder / path]
    for extension in extensions:
        suffix = "." + extension.lstrip(".")
        try:
            other = path.with_suffix(suffix) if path.suffix else PurePosixPath(f"{path}{suffix}")
        except ValueError:  # an extension that is not one (`a/b`)
            continue
        candidates.append(folder / other)
    return next((candidate for candidate in candidates if _exists(candidate)), None)


def read_corpus(
    mapping: TableMapping, videos: Path, media: dict[str, Path]
) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]] | None]:
    """The retrieval corpora of the mapping's `corpus` folder (vqakit's own files), with the
    clips' videos found under `videos` and placed like the samples'."""
    if mapping.corpus is None:
        return None, None
    folder = Path(mapping.corpus)
    found: list[list[dict[str, Any]] | None] = []
    for name in ("clips.jsonl", "passages.jsonl"):
        path = folder / name
        if not path.is_file():
            found.append(None)
            continue
        table = read_table(path, "jsonl")
        if table.problems:
            raise InputError("\n".join(table.row_problems()[:20]))
        found.append([record.data for record in table.rows if record.data is not None])
    for clip in found[0] or []:
        video = clip.get("video") if isinstance(clip.get("video"), dict) else None
        relative = safe_relative(str(video.get("path", ""))) if video else None
        if relative is None or relative.parts[0] != "media" or len(relative.parts) < 2:
            raise ValueError(
                f"{folder / 'clips.jsonl'}: clip {clip.get('id')!r}: its video must be under media/"
            )
        name = str(PurePosixPath(*relative.parts[1:]))
        source = videos / name
        if not source.is_file():
            raise ValueError(f"{folder / 'clips.jsonl'}: clip {clip.get('id')!r}: no video {source}")
        media[name] = source
    return found[0], found[1]
