"""Safe media placement: datasets of symbolic links (absolute, relative, deeper relative) import;
nothing is written through a link inside the output folder; different files never share a name;
a failed import leaves nothing behind; `--link-media` is followed only when the card says so."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.files import InputError, MediaPlan, place_media, real_file, refuse_links, staged_folder
from vqakit.schema import check_folder


def snapshot(root: Path, skip: Path) -> dict[str, tuple[int, int]]:
    """Every path under `root` outside `skip`, with its inode and size (links not followed)."""
    found = {}
    for parent, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(parent) / name
            if path == skip or skip in path.parents:
                continue
            info = path.lstat()
            found[str(path.relative_to(root))] = (info.st_ino, info.st_size)
    return found


def record(key: str, video_id: str) -> dict:
    options = {f"answer_choice_{i}": text for i, text in enumerate(["one", "two", "three", "four", "five"])}
    return {
        "key": key,
        "video_id": video_id,
        "question": "How many?",
        "answer": "two",
        "answer_id": 1,
        **options,
    }


def dataset(root: Path, records: list[dict]) -> Path:
    (root / "store/deep").mkdir(parents=True)
    (root / "videos").mkdir()
    (root / "release.json").write_text(json.dumps(records))
    return root


def run_import(root: Path, videos: Path, out: Path, *extra: str):
    arguments = ["import", "minerva", str(root / "release.json"), "--videos", str(videos), "--out", str(out)]
    return CliRunner().invoke(main, [*arguments, *extra])


def test_absolute_and_relative_links_place_the_real_files(tmp_path):
    root = dataset(tmp_path, [record("q1", "abs"), record("q2", "rel"), record("q3", "deeper")])
    for name in ("abs", "rel"):
        (root / f"store/{name}.mp4").write_bytes(name.encode() * 10)
    (root / "store/deep/deeper.mp4").write_bytes(b"deeper" * 10)
    (root / "videos/abs.mp4").symlink_to(root / "store/abs.mp4")  # absolute
    (root / "videos/rel.mp4").symlink_to("../store/rel.mp4")  # the common layout: relative
    (root / "videos/nested").mkdir()
    (root / "videos/nested/deeper.mp4").symlink_to("../../store/deep/deeper.mp4")
    (root / "videos/deeper.mp4").symlink_to("nested/deeper.mp4")  # a relative link to a relative link
    before = snapshot(root, root / "out")
    result = run_import(root, root / "videos", root / "out")
    assert result.exit_code == 0, result.output
    for name, source in (
        ("abs", "store/abs.mp4"),
        ("rel", "store/rel.mp4"),
        ("deeper", "store/deep/deeper.mp4"),
    ):
        placed = root / f"out/media/{name}.mp4"
        assert not placed.is_symlink() and placed.stat().st_ino == (root / source).stat().st_ino
    assert snapshot(root, root / "out") == before  # nothing written outside --out
    assert check_folder(root / "out")[1] == []


def test_a_link_inside_out_is_never_written_through(tmp_path):
    root = dataset(tmp_path, [record("q1", "clip")])
    (root / "store/clip.mp4").write_bytes(b"video")
    (root / "videos/clip.mp4").symlink_to(root / "store/clip.mp4")
    (root / "elsewhere").mkdir()
    (root / "out").mkdir()
    (root / "out/media").symlink_to(root / "elsewhere")  # out/media -> a folder outside
    (root / "out/notes.txt").write_text("kept")
    refused = run_import(root, root / "videos", root / "out")  # a folder the importer did not write
    assert refused.exit_code == 2 and "did not write" in refused.output, refused.output
    assert (root / "out/media").is_symlink() and (root / "out/notes.txt").read_text() == "kept"
    (root / "out/media").unlink()
    (root / "out/notes.txt").unlink()
    assert run_import(root, root / "videos", root / "out").exit_code == 0  # its own folder, then
    shutil.rmtree(root / "out/media")
    (root / "out/media").symlink_to(root / "elsewhere")
    (root / "out/notes.txt").write_text("kept")
    result = run_import(root, root / "videos", root / "out")
    assert result.exit_code == 0, result.output
    assert list((root / "elsewhere").iterdir()) == []
    assert not (root / "out/media").is_symlink() and (root / "out/media/clip.mp4").read_bytes() == b"video"
    assert (root / "out/notes.txt").read_text() == "kept"  # entries not written are kept


def test_ids_that_differ_keep_different_files(tmp_path):
    root = dataset(tmp_path, [record("q1", "kitchenA/clip"), record("q2", "kitchenB/clip")])
    for kitchen in ("kitchenA", "kitchenB"):
        (root / kitchen).mkdir()
        (root / kitchen / "clip.mp4").write_bytes(kitchen.encode())
    (root / "videos.csv").write_text(
        "video_id,path\nkitchenA/clip,kitchenA/clip.mp4\nkitchenB/clip,kitchenB/clip.mp4\n"
    )
    result = run_import(root, root / "videos.csv", root / "out")
    assert result.exit_code == 0, result.output
    samples = {s["id"]: s["videos"][0]["path"] for s in map(json.loads, (root / "out/samples.jsonl").open())}
    assert samples == {"q1": "media/clip.mp4", "q2": "media/clip-2.mp4"}
    assert (root / "out/media/clip.mp4").read_bytes() == b"kitchenA"
    assert (root / "out/media/clip-2.mp4").read_bytes() == b"kitchenB"


def test_a_folder_named_like_a_video_and_huge_ids_are_record_problems(tmp_path):
    big = record("q2", "fine")
    big["key"] = 2**63  # beyond 64 bits: once written, the folder's own check refused it
    root = dataset(tmp_path, [record("q1", "folder"), big, record("q3", "fine")])
    (root / "videos/folder.mp4").mkdir()  # <id>.mp4 that is a folder
    (root / "videos/fine.mp4").write_bytes(b"video")
    result = run_import(root, root / "videos", root / "out")
    assert result.exit_code == 0, result.output
    assert f"release.json: record 2: key: number {2**63} does not fit in 64 bits" in result.output
    assert "missing video folder" in result.output
    assert check_folder(root / "out")[1] == []


def test_a_failed_import_leaves_nothing_behind(tmp_path):
    root = dataset(tmp_path, [{**record("q1", "clip"), "key": 2**64}])
    (root / "videos/clip.mp4").write_bytes(b"video")
    before = snapshot(root, root / "out")
    result = run_import(root, root / "videos", root / "out")
    assert result.exit_code == 1 and "no question could be written" in result.output
    assert "release.json" in result.output and "Traceback" not in result.output
    assert snapshot(root, root / "out") == before and not (root / "out").exists()


def test_link_media_is_followed_only_when_the_card_says_so(tmp_path):
    root = dataset(tmp_path, [record("q1", "clip")])
    (root / "store/clip.mp4").write_bytes(b"video")
    (root / "videos/clip.mp4").symlink_to("../store/clip.mp4")
    result = run_import(root, root / "videos", root / "out", "--link-media")
    assert result.exit_code == 0, result.output
    placed = root / "out/media/clip.mp4"
    assert placed.is_symlink() and os.readlink(placed) == str((root / "store/clip.mp4").resolve())
    assert check_folder(root / "out")[1] == []
    card = root / "out/benchmark.yaml"
    card.write_text(card.read_text().replace("linked_media: true", "linked_media: false"))
    (problem,) = check_folder(root / "out")[1]
    assert problem.field == "videos.0.path" and "escapes the benchmark folder" in problem.message


def test_plan_place_and_stage(tmp_path):
    (tmp_path / "a.mp4").write_bytes(b"a")
    (tmp_path / "b.mp4").write_bytes(b"b")
    (tmp_path / "link.mp4").symlink_to("a.mp4")
    plan = MediaPlan()
    assert [plan.add("x.mp4", tmp_path / s) for s in ("a.mp4", "b.mp4", "link.mp4")] == [
        "x.mp4",
        "x-2.mp4",
        "x.mp4",
    ]
    for bad in ("../x.mp4", "/abs.mp4", "a/./b.mp4"):
        with pytest.raises(InputError, match="cannot be placed"):
            plan.add(bad, tmp_path / "a.mp4")
    (tmp_path / "broken.mp4").symlink_to("nowhere.mp4")
    with pytest.raises(InputError, match=r"broken\.mp4: a broken symbolic link"):
        real_file(tmp_path / "broken.mp4")
    out = tmp_path / "out"
    with pytest.raises(RuntimeError), staged_folder(out) as stage:
        place_media(stage, plan.files)
        raise RuntimeError("the write fails")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.mp4", "b.mp4", "broken.mp4", "link.mp4"]
    with staged_folder(out) as stage:
        place_media(stage, plan.files)
    assert (out / "media/x-2.mp4").read_bytes() == b"b"
    (out / "escape").symlink_to(tmp_path)
    with pytest.raises(InputError, match="a symbolic link inside the output folder"):
        refuse_links(out)
