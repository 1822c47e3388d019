"""Video-MME (`vqakit import videomme`): the Hugging Face release as downloaded.

```
Video-MME/                                the snapshot of lmms-lab/Video-MME
  videomme/test-00000-of-00001.parquet   the questions (videoID, question_id, question, options,
                                          answer, duration, domain, sub_category, task_type, ...)
  subtitle/<videoID>.srt                  from subtitle.zip
  data/<videoID>.mp4                      from videos_chunked_*.zip: give this folder as --videos
```

Subtitles keep the release's `<font color=... size=...>` markup; it is stripped on import, so the
cues read as plain text. The two settings of the paper are one benchmark: without subtitles
(the card's protocol) and with them (`vqakit eval BENCH --subtitles on`), each with the official
prompt's wording (`videomme_mcq`). Results break down by duration, domain and task type.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from vqakit.systems.presets.release import first_existing, import_release, subtitle_text
from vqakit.tables import ImportHooks, Preset, TableImport, read_source, register_preset

# a tag ends at its `>`, or where one cannot be (the next `<` or line end: an unclosed tag), so
# each attempt stops early and cleaning is linear in the text (`[^>]*` rescanned the rest of
# the file for every unclosed `<font`: 40,000 of them took 13 s)
_MARKUP = re.compile(r"</?font\b[^<>\n]*>?", re.IGNORECASE)


def plain_subtitles(path: Path, row: dict[str, Any]) -> str:
    """The SRT text without the release's `<font ...>` tags (closed or not)."""
    return _MARKUP.sub("", subtitle_text(path))


def import_videomme(release: Path, videos: Path, out: Path, split: str | None = None) -> TableImport:
    table = release / "videomme" if (release / "videomme").is_dir() else release
    source = read_source(table, split)
    subtitles = first_existing(release / "subtitle", release / "subtitles") if release.is_dir() else None
    return import_release(
        "videomme", source, videos, out, subtitles=subtitles, hooks=ImportHooks(subtitles=plain_subtitles)
    )


PRESET = register_preset(
    Preset(
        name="videomme",
        title="Video-MME",
        summary="the Hugging Face release (videomme/*.parquet, subtitle/) plus the unzipped videos",
        run=import_videomme,
        homepage="https://video-mme.github.io",
        notes=("evaluate without subtitles (default) or with: vqakit eval BENCH --subtitles on",),
    )
)
