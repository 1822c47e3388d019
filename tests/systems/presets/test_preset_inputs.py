"""The presets read their releases through the hardened reader: a value that cannot be kept (a
number beyond any float, an unpaired surrogate, bytes that are not UTF-8) or is out of range for
its field is a `FILE:ROW:COLUMN` line for its question only, never the end of the import; a file
that cannot be read at all is named. MLVU's questions break down by video length too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.schema import load_folder
from vqakit.systems.presets.mlvu import duration_group

FIXTURES = Path(__file__).resolve().parents[3] / "docs/examples/datasets"


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def release(name: str, tmp_path: Path) -> Path:
    """A copy of the preset's example release, to spoil."""
    return Path(shutil.copytree(FIXTURES / name, tmp_path / name, ignore=shutil.ignore_patterns("*.mp4")))


def run(preset: str, release: Path, videos: Path, out: Path, *extra: str) -> tuple[int, str]:
    arguments = ["import", preset, str(release), "--videos", str(videos), "--out", str(out), *extra]
    result = CliRunner().invoke(main, arguments)
    return result.exit_code, result.output


def test_egoschema_a_surrogate_question_and_a_huge_answer_fail_their_questions_only(tmp_path: Path):
    folder = release("egoschema", tmp_path)
    questions = folder / "questions.json"
    questions.write_text(questions.read_text().replace("overall goal of c's actions in video 2", "\\ud800"))
    answers = folder / "subset_answers.json"
    answers.write_text(answers.read_text().replace(": 3", ": 1" + "0" * 400))
    code, output = run("egoschema", folder, FIXTURES / "egoschema/videos", tmp_path / "bench")
    assert code == 0, output
    assert f"skipped {questions}:2:question: holds an unpaired surrogate ('\\ud800')" in output
    uid = "0074f737-11cb-497d-8d07-77c3a8127391"
    assert f"skipped {answers}: {uid}: number 100000000000...(401 digits) does not fit in 64 bits" in output
    assert [s.id for s in load_folder(tmp_path / "bench").samples] == ["001934bb-81bd-4cd8-a574-0472ef3f6678"]


def test_mvbench_a_window_beyond_any_number_fails_its_question_only(tmp_path: Path):
    folder = release("mvbench", tmp_path)
    task = folder / "json/action_sequence.json"
    records = json.loads(task.read_text())
    records[0]["end"], records[1]["start"] = "@big@", -2.0
    task.write_text(json.dumps(records).replace('"@big@"', "1" + "0" * 400))
    code, output = run("mvbench", folder / "json", FIXTURES / "mvbench/video", tmp_path / "bench")
    assert code == 0, output
    assert f"skipped {task}:1:end: number 100000000000...(401 digits) does not fit in 64 bits" in output
    assert f"skipped {task}:2:window_start: -2.0 is not a time in seconds (0 or more)" in output
    assert "wrote 2 of 5 questions" in output and "VQAKIT_DEBUG" not in output


def test_nextqa_a_row_that_is_not_utf8_fails_alone(tmp_path: Path):
    folder = release("nextqa", tmp_path) / "dataset/nextqa"
    table = folder / "val.csv"
    table.write_bytes(table.read_bytes().replace(b"how do the two man", b"how do the tw\xff man"))
    code, output = run("nextqa", folder, FIXTURES / "nextqa/NExTVideo", tmp_path / "bench")
    assert code == 0, output
    assert f"skipped {table}:2:question: not UTF-8 text (byte 0xff at column 14)" in output
    assert "wrote 4 of 6 questions" in output


def test_nextqa_an_unreadable_video_map_names_its_file(tmp_path: Path):
    folder = release("nextqa", tmp_path) / "dataset/nextqa"
    (folder / "map_vid_vidorID.json").write_text('{"4010069381": "0029/4010069381",')
    code, output = run("nextqa", folder, FIXTURES / "nextqa/NExTVideo", tmp_path / "bench")
    assert code == 1 and output.startswith(f"Error: {folder / 'map_vid_vidorID.json'}:1: not valid JSON")


def test_longvideobench_subtitles_that_are_not_json_fail_their_questions_only(tmp_path: Path):
    folder = release("longvideobench", tmp_path)
    cues = folder / "subtitles/86CxyhFV9MI_en.json"
    cues.write_text('[{"start": "00:00:10.5", "end": ')
    code, output = run("longvideobench", folder, FIXTURES / "longvideobench/videos", tmp_path / "bench")
    assert code == 0, output
    table = folder / "lvb_val.json"
    for row in (1, 2):
        assert f"skipped {table}:{row}:subtitles: {cues}:1: not valid JSON" in output
    assert [s.id for s in load_folder(tmp_path / "bench").samples] == ["Kb4wO1Pg0sA_0"]


def test_mlvu_breaks_down_by_duration_group(tmp_path: Path):
    folder = release("mlvu", tmp_path) / "MLVU"
    task = folder / "json/1_plotQA.json"
    records = json.loads(task.read_text())
    records[0]["duration"] = 754.3  # 12.5 minutes
    records[1]["duration"] = -4
    task.write_text(json.dumps(records))
    code, output = run("mlvu", folder, FIXTURES / "mlvu/MLVU/video", tmp_path / "bench")
    assert code == 0, output
    assert f"skipped {task}:2:duration: -4 is not a duration in seconds (0 or more)" in output
    bench = load_folder(tmp_path / "bench")
    assert bench.card.groups == ["question_type", "duration_group"]
    assert {s.id: s.metadata.model_extra["duration_group"] for s in bench.samples} == {
        "1_plotQA-1": "10-30 min",
        "4_count-1": "<1 min",
    }
    assert [duration_group(v) for v in (None, 59.9, 60, "200", 3600)] == [
        None, "<1 min", "1-3 min", "3-10 min", ">1 h"
    ]  # fmt: skip
    with pytest.raises(ValueError, match="not a duration in seconds"):
        duration_group("1e400")


def test_videomme_shards_number_their_rows_and_check_their_cells(tmp_path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = release("videomme", tmp_path)
    shipped = folder / "videomme/test-00000-of-00001.parquet"
    rows = pq.read_table(shipped).to_pylist()
    shipped.unlink()
    first, second = (folder / f"videomme/test-0000{i}-of-00002.parquet" for i in (0, 1))
    pq.write_table(pa.Table.from_pylist(rows[:2]), first)
    spoiled = [{**rows[2], "answer": "Q"}, {**rows[3], "domain": "a\x00b"}]
    pq.write_table(pa.Table.from_pylist(spoiled), second)
    code, output = run("videomme", folder, FIXTURES / "videomme/data", tmp_path / "bench")
    assert code == 0, output
    assert f"skipped {second}:1:answer: Q is out of range for 4 options (letter)" in output
    assert f"skipped {second}:2:domain: holds a NUL character (\\u0000)" in output
    assert "wrote 2 of 4 questions" in output
