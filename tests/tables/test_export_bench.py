"""`vqakit export-bench --format hf`: the shipped sample benchmark as a Hugging Face dataset
folder that `datasets.load_dataset` reads and `vqakit import table` turns back into the same
samples (corpora included); `--format lmms-eval` writes a task lmms-eval's loader reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from vqakit.benchmarks import load_benchmark
from vqakit.cli import main
from vqakit.schema import load_folder
from vqakit.tables import LmmsEvalTask, export_benchmark, import_table


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hf") / "sample-hf"
    result = CliRunner().invoke(
        main, ["export-bench", "sample", "--format", "hf", "--out", str(out), "--with-media"]
    )
    assert result.exit_code == 0, result.output
    return out


def test_load_dataset_reads_every_sample(exported: Path, tmp_path: Path, monkeypatch):
    import datasets  # the tables extra; CI installs every extra, so a missing one fails here

    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    loaded = datasets.load_dataset(str(exported))
    assert list(loaded) == ["test"]
    rows = {row["id"]: row for row in loaded["test"]}
    original = load_benchmark("sample")
    assert len(rows) == len(original.samples)
    for sample in original.samples:
        row = rows[sample.id]
        assert row["question"] == sample.question and row["options"] == (sample.choices or [])
        assert row["answer"] == (sample.answer if sample.choices else None)
        assert row["answer_text"] == sample.answer_text()
        assert "media/" + row["video"] == sample.videos[0].path
        assert (row["start"], row["end"]) == (sample.videos[0].start_s, sample.videos[0].end_s)
        assert row["skills"] == sample.metadata.skills and row["category"] == sample.metadata.category
        assert (exported / "media" / row["video"]).is_file()
    passages = datasets.load_dataset(str(exported), "passages")["test"]
    assert len(passages) == len(original.passages)


def test_the_dataset_card_has_the_hub_header(exported: Path):
    text = (exported / "README.md").read_text()
    header = yaml.safe_load(text.split("---")[1])
    assert header["configs"][0] == {
        "config_name": "default",
        "data_files": [{"split": "test", "path": ["data/test-00000-of-00001.parquet"]}],
    }
    features = {f["name"]: f for f in header["dataset_info"]["features"]}
    assert features["options"] == {"name": "options", "list": "string"}
    assert features["answer"]["dtype"] == "int64" and features["start"]["dtype"] == "float64"
    assert header["dataset_info"]["splits"][0]["num_examples"] == 46
    # the card's "Apache-2.0 (questions, passages, synthetic clips); media files keep their own ..."
    assert header["license"] == "apache-2.0" and header["task_categories"] == ["video-text-to-text"]


def test_import_table_gives_the_same_benchmark_back(exported: Path, tmp_path: Path):
    mapping = exported / "vqakit/mapping.yaml"
    report = import_table(exported, mapping, exported / "media", tmp_path / "back")
    original, back = load_benchmark("sample"), load_folder(tmp_path / "back")
    assert report.problems == [] and report.missing_videos == {}
    assert back.samples == original.samples
    assert back.clips == original.clips and back.passages == original.passages
    assert back.card.protocol == original.card.protocol and back.card.name == "sample"


def test_lmms_eval_task_folder(tmp_path: Path):
    from lmms_eval.utils import load_yaml_config  # the lmms-eval test extra: fails when missing

    done = export_benchmark("sample", "lmms-eval", tmp_path / "task")
    config = load_yaml_config(str(tmp_path / "task/vqakit_sample.yaml"))
    # lmms-eval resolves the rows' file against the task's folder and binds our functions
    assert config["dataset_kwargs"]["data_files"]["test"] == [
        str(tmp_path / "task/data/test-00000-of-00001.parquet")
    ]
    assert config["process_results"].__self__.settings["frames"] == "uniform:16"
    assert done.rows == 46
    task = LmmsEvalTask(tmp_path / "task")
    import pyarrow.parquet as pq

    docs = pq.read_table(tmp_path / "task/data/test-00000-of-00001.parquet").to_pylist()
    doc = docs[0]
    assert task.doc_to_text(doc, {"pre_prompt": "", "post_prompt": ""}).startswith("How is the camera placed")
    assert "Options:\nA. It is fixed" in doc["prompt"]
    assert task.process_results(doc, ["The answer is (A)."]) == {
        "vqakit_accuracy": {"id": doc["id"], "chosen": "A", "correct": 1.0}
    }
    assert task.process_results(doc, ["no idea"])["vqakit_accuracy"]["correct"] == 0.0
    failed = task.process_results(doc, ["[LMMS_EVAL_REQUEST_FAILED after 5 retries] boom"])["vqakit_accuracy"]
    assert failed["correct"] is None and "error" in failed
    frames = task.doc_to_visual(doc, {"visual": "frames"})
    assert len(frames) == 16 and min(frames[0].size) == 448
    assert task.doc_to_visual(doc, {"visual": "video"}) == [
        str(load_benchmark("sample").root / "media/pedestrians.mp4")
    ]
    assert task.aggregate([{"correct": 1.0}, {"correct": 0.0}, {"correct": None}]) == 0.5
    subtitled = next(d for d in docs if d["subtitles"])
    assert "Subtitles:" in subtitled["prompt"]  # the sample's protocol sends subtitles
    settings = json.loads((tmp_path / "task/vqakit_task.json").read_text())
    assert settings["media"] == str(load_benchmark("sample").root / "media")
