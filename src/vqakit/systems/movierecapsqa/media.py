"""Finding the user's recap videos, movies and subtitle files for the release tables.

The release ships no media, so each user names their copies. A source is a folder of
`<key>.<ext>` files or a CSV with `video_id,path` rows (paths relative to the CSV; the column
may also be called `key`). Keys, tried in this order, first match wins:

- recap videos: the recap's `video_id` (the YouTube id);
- movies and movie subtitles: the recap's `video_id` (a copy per recap), then the movie's IMDb id
  from `imdb_url` (`tt0499549`: one file serves every recap of that movie), then `movie_name`
  as written (`Avatar (2009)`), then that name as a file-name part (`Avatar_2009`).

Each key matches exactly first, then ignoring letter case. `MediaCollector` opens each file
found once (videos probed for their length, subtitles parsed), so that a file that cannot be
used is reported instead of written, and names where it goes under the benchmark's `media/`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from vqakit.builders import VIDEO_SUFFIXES
from vqakit.files import InputError, MediaPlan, file_stem, read_table, real_file, slug
from vqakit.systems.movierecapsqa.tables import Recap
from vqakit.video import VideoError, probe, read_subtitles

SUBTITLE_SUFFIXES = (".srt", ".vtt")
_IMDB = re.compile(r"\btt\d{5,}\b")
_KEY_COLUMNS = ("video_id", "key")


def imdb_id(url: str | None) -> str | None:
    """`tt0499549` from an IMDb address (or None)."""
    found = _IMDB.search(url or "")
    return found[0] if found else None


def movie_keys(video_id: str, recap: Recap | None) -> list[str]:
    """The keys a recap's movie and movie subtitles are looked up by, in order."""
    keys = [video_id]
    if recap is not None:
        keys += [key for key in (imdb_id(recap.imdb_url), recap.movie_name, slug(recap.movie_name)) if key]
    return list(dict.fromkeys(keys))


class MediaFiles:
    """Files of one kind by key, from a folder or a `video_id,path` CSV."""

    def __init__(self, source: str | Path, suffixes: tuple[str, ...], what: str) -> None:
        self.source, self.what = Path(source), what
        self.problems: list[str] = []  # rows of a CSV that could not be read
        self._exact: dict[str, Path] = {}
        self._folded: dict[str, Path] = {}
        if self.source.is_file() and self.source.suffix.lower() == ".csv":
            pairs = self._csv_rows()
        elif self.source.is_dir():
            pairs = [
                (path.stem, path)
                for path in sorted(self.source.iterdir())
                if path.suffix.lower() in suffixes and path.is_file()
            ]
        else:
            raise ValueError(
                f"{self.source}: give a folder of {what} files or a CSV with video_id,path columns"
            )
        for key, path in pairs:
            self._exact.setdefault(key, path)
            self._folded.setdefault(key.casefold(), path)

    def _csv_rows(self) -> list[tuple[str, Path]]:
        table = read_table(self.source, "csv")
        self.problems = [str(problem) for problem in table.problems]
        columns = set(table.columns)
        column = next((name for name in _KEY_COLUMNS if name in columns), None)
        if table.records and (column is None or "path" not in columns):
            raise InputError(f"{self.source}:1: the CSV needs video_id (or key) and path columns")
        pairs = []
        for row in table.rows:
            data = row.data or {}
            key, path = str(data.get(column or "", "")).strip(), str(data.get("path", "")).strip()
            if key and path:
                pairs.append((key, self.source.parent / path))
        return pairs

    def find(self, keys: Iterable[str]) -> tuple[str, Path] | None:
        """(key, file) for the first key with a file, exact matches before case-folded ones."""
        keys = [key.strip() for key in keys if key and key.strip()]
        for key in keys:
            if key in self._exact:
                return key, self._exact[key]
        for key in keys:
            if key.casefold() in self._folded:
                return key, self._folded[key.casefold()]
        return None


def recap_files(source: str | Path) -> MediaFiles:
    return MediaFiles(source, VIDEO_SUFFIXES, "recap video")


def movie_files(source: str | Path) -> MediaFiles:
    return MediaFiles(source, VIDEO_SUFFIXES, "movie")


def subtitle_files(source: str | Path) -> MediaFiles:
    return MediaFiles(source, SUBTITLE_SUFFIXES, "subtitle")


@dataclass
class FoundMedia:
    """What was found for one recap: paths under the benchmark folder and video lengths."""

    recap: tuple[str, float] | None = None
    movie: tuple[str, float] | None = None
    subtitles: str | None = None
    lacks: list[str] = field(default_factory=list)


class MediaCollector:
    """Finds, checks and places media, opening each file once."""

    def __init__(self, recaps: MediaFiles, movies: MediaFiles | None, subtitles: MediaFiles | None) -> None:
        self.recaps, self.movies, self.subtitles = recaps, movies, subtitles
        self.plan = MediaPlan()  # path under media/ -> source, one name per file
        self.checked: dict[Path, float | str] = {}  # source -> duration, or why it is unusable

    @property
    def media(self) -> dict[str, Path]:
        """{path under media/: source file} of everything placed."""
        return self.plan.files

    def _place(self, folder: str, key: str, source: Path) -> str:
        """The file's path under the benchmark folder: `media/<folder>/<key>.<ext>` (`file_stem`:
        a key that is no safe file name gets its slug and a digest), numbered apart from
        another file's name (`MediaPlan`)."""
        name = f"{folder}/{file_stem(key, max_length=100, empty=folder)}{source.suffix.lower()}"
        return f"media/{self.plan.add(name, source)}"

    def _check(self, source: Path, read: Callable[[Path], float]) -> float | str:
        try:
            resolved = real_file(source)
        except InputError as error:
            return str(error)
        if resolved not in self.checked:
            try:
                self.checked[resolved] = read(resolved)
            except VideoError as error:
                self.checked[resolved] = str(error)
        return self.checked[resolved]

    def _one(
        self,
        files: MediaFiles | None,
        keys: list[str],
        folder: str,
        what: str,
        media: FoundMedia,
        problems: list[str],
    ) -> tuple[str, float] | None:
        """(path under the benchmark folder, duration) of the first file found for `keys`; what
        is not found or cannot be read goes to `media.lacks` (and `problems`)."""
        if files is None:
            media.lacks.append(what)
            return None
        found = files.find(keys)
        if found is None:
            media.lacks.append(what)
            return None
        key, source = found
        checked = self._check(source, _subtitles_ok if folder == "subtitles" else _duration)
        if isinstance(checked, str):
            problems.append(f"{what} for {keys[0]}: {checked}")
            media.lacks.append(f"{what} (unusable)")
            return None
        return self._place(folder, key, source), checked

    def collect(self, video_id: str, recap: Recap | None, problems: list[str]) -> FoundMedia:
        media, keys = FoundMedia(), movie_keys(video_id, recap)
        media.recap = self._one(self.recaps, [video_id], "recaps", "recap video", media, problems)
        media.movie = self._one(self.movies, keys, "movies", "movie video", media, problems)
        found = self._one(self.subtitles, keys, "subtitles", "movie subtitles", media, problems)
        media.subtitles = found[0] if found else None
        return media


def _duration(path: Path) -> float:
    duration = probe(path).duration_s
    if not duration or duration <= 0:
        raise VideoError(path, "the video has no duration")
    return float(duration)


def _subtitles_ok(path: Path) -> float:
    read_subtitles(path)
    return 0.0
