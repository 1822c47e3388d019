"""NExT-QA multiple choice (`vqakit import nextqa`): the release repository's CSVs and the VidOR
videos.

```
NExT-QA/dataset/nextqa/
  val.csv, test.csv             video, frame_count, width, height, question, answer (the
                                correct option's index), qid, type, a0 .. a4
  map_vid_vidorID.json          {video: "<folder>/<id>"}: where each video sits
NExTVideo/<folder>/<id>.mp4     the videos: give NExTVideo/ as --videos
```

The type codes group as the paper groups them: C (why, how) Causal, T (next, current, previous)
Temporal, D (location, count, other) Descriptive; results break down by both (`type`,
`type_group`). The official evaluation script counts TP with TN in its table; the codes here are
the release's own. Questions in the CSV read without their question mark, as written.
"""

from __future__ import annotations

from pathlib import Path

from vqakit.files import InputError, find_unusable, one_line
from vqakit.systems.presets.release import import_release, release_object, rows_source, split_of
from vqakit.tables import Preset, TableImport, read_source, register_preset

SPLITS = ("val", "test", "train")
GROUPS = {"C": "Causal", "T": "Temporal", "D": "Descriptive"}


def _csv_folder(release: Path, split: str) -> Path:
    """Where the split's CSV is: RELEASE itself (the `dataset/nextqa` folder) or, for the
    repository's root, RELEASE/dataset/nextqa; InputError naming both when neither has it."""
    places = [release] if release.name == "nextqa" and release.parent.name == "dataset" else []
    places = places or [release, release / "dataset" / "nextqa"]
    for folder in places:
        if (folder / f"{split}.csv").is_file():
            return folder
    where = " nor ".join(str(folder) for folder in places)
    raise InputError(
        f"{split}.csv is in neither {where}" if len(places) > 1 else f"{split}.csv is not in {where}"
    )


def import_nextqa(release: Path, videos: Path, out: Path, split: str | None = None) -> TableImport:
    chosen = split_of(split, SPLITS)
    folder = _csv_folder(release, chosen)
    table = read_source(folder / f"{chosen}.csv")
    mapped = folder / "map_vid_vidorID.json"
    where = release_object(mapped, "video: folder/id") if mapped.exists() else None
    rows, problems = [], list(table.problems)
    for row in table.rows:
        video = str(row.data.get("video", "")).strip()
        code = str(row.data.get("type", "")).strip()
        if where is None:  # no map: only a video lying directly under --videos is found
            located = video if (videos / f"{video}.mp4").is_file() else None
            if located is None:
                why = f"no {mapped} (the release's map of where each video sits under --videos)"
                problems.append(
                    one_line(
                        f"{table.where(row, 'video')}: {video!r}: {why}, and no {video}.mp4 directly there"
                    )
                )
                continue
        else:
            located = where.get(video)
        if located is None:
            problems.append(one_line(f"{table.where(row, 'video')}: {video!r} is not in {mapped.name}"))
            continue
        if not isinstance(located, str):  # text the reader refused is an Unusable: it says why
            found = find_unusable(located)
            why = found[1] if found else f"not a folder/id but {type(located).__name__}"
            problems.append(one_line(f"{mapped}: {video}: {why}"))
            continue
        data = {**row.data, "vidor": located, "type_group": GROUPS.get(code[:1], "")}
        rows.append((table.path, row.row, data))
    source = rows_source(table.path, rows, split=chosen, problems=problems, fmt=table.format)
    return import_release("nextqa", source, videos, out, card={"name": f"nextqa-{chosen}"})


PRESET = register_preset(
    Preset(
        name="nextqa",
        title="NExT-QA",
        summary="val.csv / test.csv and map_vid_vidorID.json of the release plus the VidOR videos",
        run=import_nextqa,
        homepage="https://github.com/doc-doc/NExT-QA",
        splits=SPLITS,
    )
)
