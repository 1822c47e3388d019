"""`vqakit import nextqa` mistakes said as they are: a split whose CSV is missing names the folders
looked in (never `dataset/nextqa` twice), and a release whose every video is missing lists the
first 20 and says how many more."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from vqakit.cli import main

RELEASE = Path(__file__).resolve().parents[3] / "docs/examples/datasets/nextqa"


def _import(*arguments: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["import", "nextqa", *arguments])
    return result.exit_code, result.output


def test_a_missing_split_names_where_it_was_looked_for(tmp_path: Path):
    release = tmp_path / "NExT-QA"
    shutil.copytree(RELEASE / "dataset", release / "dataset")
    (release / "dataset/nextqa/test.csv").unlink()
    videos = RELEASE / "NExTVideo"
    code, output = _import(str(release / "dataset/nextqa"), "--split", "test", "--videos", str(videos),
                           "--out", str(tmp_path / "out"))  # fmt: skip
    assert code == 1 and f"test.csv is not in {release / 'dataset/nextqa'}" in output
    assert "dataset/nextqa/dataset/nextqa" not in output
    code, output = _import(
        str(release), "--split", "test", "--videos", str(videos), "--out", str(tmp_path / "o")
    )
    assert code == 1
    assert f"test.csv is in neither {release} nor {release / 'dataset/nextqa'}" in output


def test_every_video_missing_lists_twenty_and_counts_the_rest(tmp_path: Path):
    release = tmp_path / "release"  # the benchmark folder goes beside it, never inside
    folder = release / "dataset/nextqa"
    folder.mkdir(parents=True)
    header = "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4\n"
    rows = [f"{9000 + n},60,96,64,what happens,0,1,DO,a,b,c,d,e\n" for n in range(73)]
    (folder / "val.csv").write_text(header + "".join(rows))
    (folder / "map_vid_vidorID.json").write_text(
        json.dumps({str(9000 + n): f"0001/{9000 + n}" for n in range(73)})
    )
    (release / "videos").mkdir()
    code, output = _import(str(release), "--videos", str(release / "videos"), "--out", str(tmp_path / "out"))
    assert code == 1
    assert output.count("missing video ") == 20
    assert "... and 53 more" in output
