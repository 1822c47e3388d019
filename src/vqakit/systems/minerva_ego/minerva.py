"""MINERVA as a preset (`vqakit import minerva-mcq`): google-deepmind/neptune's `minerva.json`
and the YouTube videos, imported by the same reader as Minerva-Ego's release (`importer.py`: the
option shapes, the answer check, the skill field, YouTube URLs as video ids) with MINERVA's own
card (`minerva_card.yaml`): its name and description, breakdowns by skill, coarse domain
(`split`) and fine domain (`category`), and its table (accuracy, then each skill).

```
MINERVA/
  minerva.json        key, video_id (a YouTube URL), question, answer, answer_choice_0 .. 4,
                      answer_id, reasoning, question type (skills, comma-separated), split, category
  videos/<id>.mp4     each video, named by its YouTube id: give this folder as --videos
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vqakit.files import InputError, read_yaml
from vqakit.systems.minerva_ego.importer import import_minerva
from vqakit.tables import Preset, TableImport, register_preset

CARD_FILE = Path(__file__).with_name("minerva_card.yaml")
RELEASE_FILE = "minerva.json"


def minerva_card() -> dict[str, Any]:
    card = read_yaml(CARD_FILE)
    if not isinstance(card, dict):
        raise InputError(f"{CARD_FILE}: expected the card as a mapping")
    return card


def import_minerva_release(release: Path, videos: Path, out: Path, split: str | None = None) -> TableImport:
    """`minerva.json` (or the folder holding it) and its videos to a benchmark folder with
    MINERVA's card; what was left out is listed as for every preset."""
    records = release / RELEASE_FILE if release.is_dir() else release
    if not records.is_file():
        raise InputError(f"{release}: no {RELEASE_FILE} (MINERVA's release file, google-deepmind/neptune)")
    report = import_minerva(records, videos, out, card=minerva_card(), writer="import minerva-mcq")
    missing = sum(len(keys) for keys in report.missing_videos.values())
    return TableImport(
        out=Path(out),
        rows=report.written + len(report.problems) + missing,
        written=report.written,
        problems=report.problems,
        missing_videos=report.missing_videos,
    )


PRESET = register_preset(
    Preset(
        name="minerva-mcq",
        title="MINERVA",
        summary="minerva.json of google-deepmind/neptune plus the YouTube videos, named by their ids",
        run=import_minerva_release,
        homepage="https://github.com/google-deepmind/neptune#minerva",
        notes=("Minerva-Ego's release (HD-EPIC videos) is imported by vqakit import minerva",),
    )
)
