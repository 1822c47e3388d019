"""The presets (the seven standard benchmarks and MINERVA) import their release-shaped examples
(docs/examples/datasets, written by scripts/make_dataset_fixtures.py), the results validate,
evaluate through the loopback server (replies scripted by `fake_server`, a test double at the
HTTP boundary) and break down as each benchmark reports; benchmarks with hidden answers write
their submission files."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import av
import pytest
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval
from vqakit.schema import load_folder
from vqakit.tables import presets
from vqakit.video import read_frame_index

FIXTURES = Path(__file__).resolve().parents[3] / "docs/examples/datasets"
# preset -> (release, --videos, extra arguments, questions written, questions in the table)
CASES = {
    "videomme": ("videomme", "videomme/data", [], 3, 4),
    "mvbench": ("mvbench", "mvbench/video", [], 4, 5),
    "egoschema": ("egoschema", "egoschema/videos", [], 3, 4),
    "nextqa": ("nextqa/dataset/nextqa", "nextqa/NExTVideo", [], 5, 6),
    "perceptiontest": ("perceptiontest", "perceptiontest/videos", [], 3, 3),
    "longvideobench": ("longvideobench", "longvideobench/videos", [], 3, 3),
    "mlvu": ("mlvu/MLVU", "mlvu/MLVU/video", [], 3, 3),
    "minerva-mcq": ("minerva", "minerva/videos", [], 3, 4),
}


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def imported(name: str, out: Path, *extra: str) -> tuple[Path, str]:
    release, videos, arguments, _, _ = CASES[name]
    result = CliRunner().invoke(
        main,
        ["import", name, str(FIXTURES / release), "--videos", str(FIXTURES / videos), "--out", str(out),
         *arguments, *extra],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, result.output


def evaluate(bench: Path, run: Path, reply: str = "ok:A", **settings) -> dict:
    with FakeServer(default=reply) as server:
        outcome = run_eval(
            EvalConfig(
                bench=str(bench), model=f"openai-compatible:{server.url}#fake", frames="uniform:2", **settings
            ),
            run,
        )
    return outcome.results


def test_every_preset_is_registered_and_has_a_command():
    assert set(presets()) == set(CASES)
    listed = CliRunner().invoke(main, ["import", "--help"]).output
    assert all(name in listed for name in CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_preset_imports_validates_evaluates_and_breaks_down(name: str, tmp_path: Path):
    bench, output = imported(name, tmp_path / name)
    written, rows = CASES[name][3:]
    assert f"wrote {written} of {rows} questions" in output
    benchmark = load_folder(bench)
    assert len(benchmark.samples) == written and benchmark.card.groups
    results = evaluate(bench, tmp_path / "run")
    assert results["errors"]["n"] == 0
    for group in benchmark.card.groups:
        assert group in results["groups"], (group, list(results["groups"]))
    group = benchmark.card.groups[0]
    table = CliRunner().invoke(main, ["table", str(tmp_path / "run"), "--by", group])
    assert table.exit_code == 0, table.output
    for key in results["groups"][group]:
        assert key in table.output


def test_videomme_strips_subtitle_markup_and_has_both_settings(tmp_path: Path):
    bench, _ = imported("videomme", tmp_path / "videomme")
    srt = (bench / "media/fFjv93ACGo8.srt").read_text()
    assert "<font" not in srt and "Mercury, Venus" in srt
    sample = next(s for s in load_folder(bench).samples if s.id == "001-1")
    assert (
        sample.choices == ["Two.", "Three.", "Four.", "Five."] and sample.answer == 2
    )  # "C", labels dropped
    assert sample.metadata.model_extra["duration"] == "short"
    with FakeServer(default="ok:C") as server:
        spec = f"openai-compatible:{server.url}#fake"
        run_eval(EvalConfig(bench=str(bench), model=spec, frames="uniform:2", limit=1), tmp_path / "plain")
        run_eval(
            EvalConfig(bench=str(bench), model=spec, frames="uniform:2", limit=1, subtitles=True),
            tmp_path / "subs",
        )
    plain, subs = (request["body"]["messages"][0]["content"][-1]["text"] for request in server.requests)
    assert plain.startswith("Select the best answer") and "based on the video." in plain
    assert plain.endswith("D. Five.\nThe best answer is:")
    assert "This video's subtitles are listed below:" in subs and "Mercury, Venus" in subs
    assert "based on the video and the subtitles" in subs


def test_mvbench_frame_folders_become_videos_at_three_frames_a_second(tmp_path: Path):
    bench, output = imported("mvbench", tmp_path / "mvbench")
    assert "1 window(s) ended past their video and were cut at its end" in output
    samples = {s.id: s for s in load_folder(bench).samples}
    episodic = samples["episodic_reasoning-1"]
    assert episodic.metadata.model_extra["task"] == "Episodic Reasoning"
    assert (episodic.videos[0].start_s, episodic.videos[0].end_s) == (0.5, 3.5)
    assert samples["action_sequence-2"].videos[0].end_s == 6.0  # 7.5 s cut at the video's end
    assert samples["object_shuffle-1"].videos[0].start_s is None  # an unbounded task: the whole clip
    with av.open(str(bench / episodic.videos[0].path)) as container:
        frames = list(container.decode(video=0))
    assert [read_frame_index(f.to_ndarray(format="rgb24")) for f in frames] == list(range(12))
    assert [round(float(f.time) * 3) for f in frames] == list(range(12))  # 00001.jpg at 0 s, 3 a second


def test_egoschema_scores_the_subset_and_submits_every_answer(tmp_path: Path):
    bench, _ = imported("egoschema", tmp_path / "egoschema")
    answers = {s.id: s.answer for s in load_folder(bench).samples}
    assert answers == {
        "0074f737-11cb-497d-8d07-77c3a8127391": 3,
        "00b9a0de-c59e-49cb-a127-6081e2fb8c8e": 4,
        "001934bb-81bd-4cd8-a574-0472ef3f6678": None,  # outside the public subset
    }
    results = evaluate(bench, tmp_path / "run", reply="ok:D")
    assert results["mcq"]["n"] == 2 and results["mcq"]["accuracy"] == 0.5
    assert results["counts"]["unscored (answer hidden)"] == 1
    result = CliRunner().invoke(
        main, ["export", str(tmp_path / "run"), "--format", "egoschema", "--out", str(tmp_path / "sub.csv")]
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO((tmp_path / "sub.csv").read_text())))
    assert rows[0] == ["q_uid", "answer"] and sorted(rows[1:]) == sorted([[uid, "3"] for uid in answers])
    CliRunner().invoke(main, ["export", str(tmp_path / "run"), "--format", "egoschema-json"])
    assert json.loads((tmp_path / "run/submission-egoschema-json.json").read_text()) == dict.fromkeys(
        answers, 3
    )
    subset, _ = imported("egoschema", tmp_path / "subset", "--subset")
    assert all(s.answer is not None for s in load_folder(subset).samples)


def test_nextqa_reports_type_codes_and_their_groups(tmp_path: Path):
    bench, output = imported("nextqa", tmp_path / "nextqa")
    assert "missing video 1100/9999999999.mp4" in output
    results = evaluate(bench, tmp_path / "run")
    assert set(results["groups"]["type"]) == {"CH", "CW", "TN", "TP", "DC"}
    assert {k: v["n"] for k, v in results["groups"]["type_group"].items()} == {
        "Causal": 2, "Temporal": 2, "Descriptive": 1
    }  # fmt: skip
    sample = load_folder(bench).samples[0]
    assert sample.videos[0].path == "media/0029/4010069381.mp4"  # placed through map_vid_vidorID.json
    assert sample.metadata.model_extra["qid"] == 6 and sample.metadata.model_extra["video_id"] == 4010069381
    test, _ = imported("nextqa", tmp_path / "test", "--split", "test")
    assert load_folder(test).card.name == "nextqa-test" and load_folder(test).samples[0].answer == 0


def test_perceptiontest_test_split_is_hidden_and_submitted(tmp_path: Path):
    bench, _ = imported("perceptiontest", tmp_path / "valid")
    sample = next(s for s in load_folder(bench).samples if s.id == "video_10909-1")
    assert (
        sample.metadata.skills == ["counting", "collections"]
        and sample.metadata.model_extra["area"] == "memory"
    )
    test, _ = imported("perceptiontest", tmp_path / "test", "--split", "test")
    assert [s.answer for s in load_folder(test).samples] == [None, None]
    evaluate(test, tmp_path / "run", reply="ok:B")
    result = CliRunner().invoke(main, ["export", str(tmp_path / "run"), "--format", "perceptiontest"])
    assert result.exit_code == 0, result.output
    submitted = json.loads((tmp_path / "run/submission-perceptiontest.json").read_text())
    assert submitted == {
        "video_1002": [
            {"id": 0, "answer_id": 1, "answer": "it stays"},
            {"id": 1, "answer_id": 1, "answer": "the book"},
        ]
    }


def test_longvideobench_subtitles_move_to_the_video_clock(tmp_path: Path):
    bench, _ = imported("longvideobench", tmp_path / "lvb")
    srt = (bench / "media/86CxyhFV9MI_en.srt").read_text()
    assert "00:00:00,500 --> 00:00:02,000\nThis is the first layer." in srt  # 10.5 s less the start of 10 s
    assert "00:00:02,500 --> 00:00:04,000\nNow the second one." in srt
    benchmark = load_folder(bench)
    assert benchmark.card.protocol.frames == "fps:1,max=64" and benchmark.card.protocol.subtitles
    test, _ = imported("longvideobench", tmp_path / "test", "--split", "test")
    evaluate(test, tmp_path / "run", reply="ok:The answer is (C).")
    CliRunner().invoke(main, ["export", str(tmp_path / "run"), "--format", "longvideobench"])
    assert json.loads((tmp_path / "run/submission-longvideobench.json").read_text()) == {
        "86CxyhFV9MI_t0": "C"
    }


def test_mlvu_test_split_writes_the_leaderboard_list(tmp_path: Path):
    release, videos = FIXTURES / "mlvu/MLVU_Test", FIXTURES / "mlvu/MLVU_Test/video"
    result = CliRunner().invoke(
        main,
        [
            "import",
            "mlvu",
            str(release),
            "--videos",
            str(videos),
            "--out",
            str(tmp_path / "t"),
            "--split",
            "test",
        ],
    )
    assert result.exit_code == 0, result.output
    evaluate(tmp_path / "t", tmp_path / "run", reply="ok:C")
    CliRunner().invoke(main, ["export", str(tmp_path / "run"), "--format", "mlvu"])
    assert json.loads((tmp_path / "run/submission-mlvu.json").read_text()) == [
        {"question_id": "AR_0", "question_type": "anomaly_reco", "option": "C"},
        {"question_id": "TR_3", "question_type": "topic_reasoning", "option": "C"},
    ]


def test_a_submission_leaves_out_questions_without_a_readable_option(tmp_path: Path):
    bench, _ = imported("egoschema", tmp_path / "egoschema")
    evaluate(bench, tmp_path / "run", reply="ok:no idea")
    result = CliRunner().invoke(main, ["export", str(tmp_path / "run"), "--format", "egoschema"])
    assert result.exit_code == 0
    assert "3 question(s) left out, no option read from the reply" in result.output
    assert (tmp_path / "run/submission-egoschema.csv").read_text() == "q_uid,answer\n"


def test_minerva_reads_youtube_ids_skills_and_domains_with_minerva_s_card(tmp_path: Path):
    bench, output = imported("minerva-mcq", tmp_path / "minerva")
    assert "missing video https://www.youtube.com/watch?v=aaaaaaaaaaa" in output
    benchmark = load_folder(bench)
    assert benchmark.card.name == "minerva" and benchmark.card.groups == ["skills", "split", "category"]
    assert benchmark.card.official is not None and benchmark.card.official.headline == "Accuracy"
    sample = next(s for s in benchmark.samples if s.id == "mnv-003")
    assert sample.metadata.skills == ["Reading (OCR)", "Counting", "Numerical Reasoning"]
    assert sample.metadata.model_extra["split"] == "Sports" and sample.metadata.category == "Football"
    assert sample.videos[0].path == "media/9bZkp7q19f0.mp4" and sample.answer == 1
    results = evaluate(bench, tmp_path / "run", reply="ok:B")
    columns = {c["name"]: c for c in results["official"]["columns"]}
    assert (columns["Accuracy"]["n"], columns["Accuracy"]["accuracy"]) == (3, pytest.approx(1 / 3))
    assert columns["Counting"]["n"] == 2 and columns["Counting"]["block"] == "Skill"
    listed = [c["name"] for c in results["official"]["columns"]]
    assert listed[:2] == ["Accuracy", "Counting"]  # the skill with the most questions first
