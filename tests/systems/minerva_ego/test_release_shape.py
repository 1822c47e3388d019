"""The real release shape (five `answer_choice_i`, `answer_id` indexing them), the older
four-decoy shape, records that fit neither, video ids and the trace time forms, on a fixture
written in the release's shape (tests/fixtures/minerva_ego_release_five_options.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqakit.benchmarks import check_benchmark, load_benchmark
from vqakit.schema import find_objects, parse_trace
from vqakit.systems.minerva_ego.importer import import_minerva
from vqakit.systems.minerva_ego.release import FIVE, FOUR_DECOYS, minerva_options, skills, video_key

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "minerva_ego_release_five_options.json"
VIDEOS = ("P01-20240202-110250.mp4", "P02-20240203-090000.mkv", "dQw4w9WgXcQ.mp4", "a1B2c3D4e5F.webm")


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    videos = tmp_path_factory.mktemp("videos")
    for name in VIDEOS:
        (videos / name).write_bytes(b"not decoded by the importer")
    out = tmp_path_factory.mktemp("bench") / "minerva"
    report = import_minerva(FIXTURE, videos, out)
    samples = {s.id: s for s in load_benchmark(out).samples}
    return out, report, samples


def test_five_options_with_duplicate_looking_texts(imported):
    _, report, samples = imported
    assert report.written == 6 and report.shapes == {FIVE: 5, FOUR_DECOYS: 1}
    expected = {
        "mego-r01": (["0", "2", "2 times", "1", "4"], 1),
        "mego-r02": (["a knife", "the knife", "the peeler", "a spoon", "my hands"], 1),
        # case-only differences are kept; trailing and doubled spaces are not part of an option
        "mego-r03": (
            ["Open the fridge", "open the fridge", "close the fridge", "open the oven", "Open the oven"],
            1,
        ),
        "minerva-r04": (["310 g", "250 g", "280 g", "190 g", "330 g"], 0),
        "minerva-r05": (["4", "1", "2", "5", "3"], 4),
    }
    for key, (choices, answer) in expected.items():
        assert samples[key].choices == choices and samples[key].answer == answer, key
    assert samples["mego-r01"].answer_text() == "2"


def test_four_decoy_shape_is_still_read(imported):
    _, _, samples = imported
    rice = samples["mego-r06"]
    assert rice.choices == [
        "I dry my hands",
        "I switch on the kettle",
        "I pour the rice into the pot",
        "I open the rice bag again",
        "I wipe the counter",
    ]
    assert rice.answer == 2


def test_records_that_fit_neither_shape_are_reported_with_their_key(imported):
    _, report, samples = imported
    assert not any(key.startswith("bad-") for key in samples)
    problems = {line.split(" (")[1].split(")")[0]: line for line in report.problems}
    assert set(problems) == {
        "bad-r07-wrong-answer-id",
        "bad-r08-case",
        "bad-r09-three-choices",
        "bad-r10-answer-among-decoys",
        "bad-r11-same-option-twice",
        "bad-r12-index-out-of-range",
        "bad-r13-no-answer-id",
        "bad-r14-six-choices",
    }
    assert problems["bad-r07-wrong-answer-id"] == (
        f"{FIXTURE}: record 7 (bad-r07-wrong-answer-id): -: "
        "answer_choice_2 is 'yellow' but answer is 'blue'; "
        "answer is the text of answer_choice_3, so answer_id may be off"
    )
    assert "differ in letter case" in problems["bad-r08-case"]
    assert "fits neither shape" in problems["bad-r09-three-choices"]
    assert "fits neither shape" in problems["bad-r14-six-choices"]
    assert "also answer_choice_1" in problems["bad-r10-answer-among-decoys"]
    assert "options 0 and 2 are the same text '2'" in problems["bad-r11-same-option-twice"]
    assert "answer_id 5" in problems["bad-r12-index-out-of-range"]
    assert problems["bad-r13-no-answer-id"] == (
        f"{FIXTURE}: record 13 (bad-r13-no-answer-id): -: missing answer_id"
    )


def test_skills_split_category_and_video_ids(imported):
    out, report, samples = imported
    assert report.missing_videos == {}
    flour, dog = samples["minerva-r04"], samples["minerva-r05"]
    assert flour.videos[0].path == "media/dQw4w9WgXcQ.mp4" and dog.videos[0].path == "media/a1B2c3D4e5F.webm"
    assert flour.metadata.skills == ["Counting", "Numerical Reasoning"]  # `question_type` spelling
    assert flour.metadata.category == "Cooking" and flour.metadata.model_extra["split"] == "test"
    assert dog.metadata.model_extra["video_id"] == "https://youtu.be/a1B2c3D4e5F?si=Xy12&t=3"
    knife = samples["mego-r02"]
    assert knife.metadata.skills == ["Object Recognition", "Temporal Reasoning"]  # `question type`, `;`
    assert knife.metadata.category == "Object Recognition" and knife.videos[0].path.endswith("110250.mp4")
    assert check_benchmark(out, media=False)[1] == []


def test_trace_times_and_objects_in_every_format(imported):
    _, _, samples = imported
    steps = {key: [step.times_s for step in parse_trace(samples[key].reasoning)] for key in samples}
    assert steps["mego-r01"] == [[(177, 177)], [(257, 270)], [(3966, 3966)]]  # MM:SS, MM:SS - MM:SS, H:MM:SS
    assert steps["mego-r02"] == [[(59, 64)], [(70, 75)], [(3723, 3723)]]  # MM:SS-MM:SS:, en dash, HH:MM:SS
    assert steps["mego-r03"] == [[(3, 7)], [(8, 12), (13, 14)], [(15, 15)]]  # between/from-to, em dash
    assert steps["minerva-r04"] == [[(117, 117), (127, 131), (133, 136), (140, 140)]]  # one paragraph
    assert steps["minerva-r05"] == [[(42, 42), (31, 43), (44, 47), (41, 41)]]
    assert steps["mego-r06"] == [[(1, 3)], [(4, 4)]]
    ids = [ref.id for ref in find_objects(samples["mego-r02"].reasoning)]
    assert ids == [
        "knife-2c3afc468fb10cb2",
        "dishwasher-1111222233334444",
        "knife2-067f49caca9d1aff",
        "bread-aaaabbbbccccdddd",
    ]


@pytest.mark.parametrize(
    "url",
    [
        "dQw4w9WgXcQ",
        " dQw4w9WgXcQ ",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s&list=PL123",
        "https://youtube.com/watch?feature=share&v=dQw4w9WgXcQ",
        "http://www.youtube.com/watch?v=dQw4w9WgXcQ#t=5",
        "https://youtu.be/dQw4w9WgXcQ?si=abc&t=10",
        "youtu.be/dQw4w9WgXcQ",
        "https://m.youtube.com/shorts/dQw4w9WgXcQ?feature=share",
        "https://www.youtube.com/embed/dQw4w9WgXcQ",
    ],
)
def test_youtube_ids_and_urls_give_the_bare_id(url):
    assert video_key(url) == "dQw4w9WgXcQ"


def test_hd_epic_ids_and_paths():
    assert video_key("P01-20240202-110250") == "P01-20240202-110250"
    assert video_key("videos/P01-20240202-110250.mp4") == "P01-20240202-110250"


def test_videos_found_through_a_csv_of_urls(tmp_path):
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips/one.webm").write_bytes(b"x")
    (tmp_path / "videos.csv").write_text("video_id,path\nhttps://youtu.be/dQw4w9WgXcQ,clips/one.webm\n")
    record = json.loads(FIXTURE.read_text())[3]  # video_id: a youtube.com/watch URL of the same id
    (tmp_path / "release.json").write_text(json.dumps([record]))
    report = import_minerva(tmp_path / "release.json", tmp_path / "videos.csv", tmp_path / "out")
    assert report.written == 1 and (tmp_path / "out/media/dQw4w9WgXcQ.webm").exists()


def test_options_accept_numbers_and_string_indexes():
    record = {
        "answer": 2,
        "answer_id": "1",
        **{f"answer_choice_{i}": v for i, v in enumerate([1, 2, 3, 4, 5])},
    }
    assert minerva_options(record) == (["1", "2", "3", "4", "5"], 1, FIVE)
    with pytest.raises(ValueError, match="not an integer"):
        minerva_options({**record, "answer_id": True})


def test_skills_field_spellings():
    assert skills({"question type": "Counting, Temporal Reasoning"}) == (
        "Counting, Temporal Reasoning",
        ["Counting", "Temporal Reasoning"],
    )
    assert skills({"question_type": ["Counting", " OCR "]}) == ("Counting, OCR", ["Counting", "OCR"])
    assert skills({}) == (None, [])
