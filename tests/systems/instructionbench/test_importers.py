"""The step-annotation importers on fixtures in each real shape, and on malformed files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vqakit.builders import InputError
from vqakit.systems.instructionbench.importers import FORMATS, detect_format, read_label_map, read_steps

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "instructionbench"
GOAL = "c2d06df7-5d3a-4116-9edb-f1c81a4f669b"
TAKE = "77cd56fc-6b68-4c7f-814b-81545484dd2d"


def by_id(found):
    return {video.video_id: video for video in found.videos}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("youcookii_annotations_trainval.json", "youcook2"),
        ("youcookii_annotations_test_segments_only.json", "youcook2"),
        ("all_data_train.json", "hirest"),
        ("all_data_test.json", "hirest"),
        ("goalstep_train.json", "goalstep"),
        ("goalstep_test.json", "goalstep"),
        ("keystep_train.json", "keystep"),
        ("steps.csv", "table"),
        ("steps.jsonl", "table"),
    ],
)
def test_detect_format_reads_the_content_not_the_name(tmp_path, name, expected):
    assert detect_format(FIXTURES / name) == expected
    renamed = tmp_path / "annotations.txt"
    shutil.copy(FIXTURES / name, renamed)
    assert detect_format(renamed) == expected
    assert read_steps(renamed).format == expected


def test_every_time_is_float_seconds_and_steps_are_sorted():
    for name in ("youcookii_annotations_trainval.json", "all_data_train.json", "goalstep_train.json"):
        for video in read_steps(FIXTURES / name).videos:
            for steps in [video.steps] + [step.children for step in video.flat_steps()]:
                starts = [step.start for step in steps]
                assert starts == sorted(starts)
            for step in video.flat_steps():
                assert isinstance(step.start, float) and isinstance(step.end, float)


def test_youcook2_themes_steps_and_label_map():
    found = read_steps(FIXTURES / "youcookii_annotations_trainval.json")
    assert found.problems == []
    videos = by_id(found)
    assert [v.theme for v in found.videos] == ["recipe 113", "recipe 101", "recipe 205"]
    pasta = videos["sGzBQrg1adY"]
    assert [s.text for s in pasta.steps][:2] == [
        "boil the spaghetti in salted water",
        "add chopped garlic to the hot oil",
    ]
    assert (pasta.steps[0].start, pasta.steps[0].end, pasta.steps[0].level) == (21.0, 51.0, 0)
    assert pasta.duration == 304.8 and pasta.perspective == "third" and pasta.extra["subset"] == "training"
    named = read_steps(
        FIXTURES / "youcookii_annotations_trainval.json", label_map=FIXTURES / "label_foodtype.csv"
    )
    assert [v.theme for v in named.videos] == ["grilled cheese", "spaghetti carbonara", "sponge cake"]


def test_youcook2_segments_only_file_says_the_text_is_missing():
    found = read_steps(FIXTURES / "youcookii_annotations_test_segments_only.json")
    (video,) = found.videos
    assert [s.text for s in video.steps] == ["", ""] and video.missing == ["step text"]
    assert len(found.problems) == 1 and "without a sentence" in found.problems[0]


def test_label_map_shapes(tmp_path):
    with_header = tmp_path / "labels.csv"
    with_header.write_text("id,name\n101,spaghetti\n113,grilled cheese, with ham\n")
    assert read_label_map(with_header) == {"101": "spaghetti", "113": "grilled cheese, with ham"}
    as_json = tmp_path / "labels.json"
    as_json.write_text(json.dumps({"101": "spaghetti"}))
    assert read_label_map(as_json) == {"101": "spaghetti"}
    broken = tmp_path / "broken.csv"
    broken.write_text("101,spaghetti\r113\r")  # CR line ends; a bad line is skipped and listed
    problems: list[str] = []
    assert read_label_map(broken, problems) == {"101": "spaghetti"}
    assert problems == [f"{broken}:2: -: expected `code,name`, got '113'"]
    with pytest.raises(InputError, match=r"broken\.csv: no `code,name` lines"):
        broken.write_text("113,\n")
        read_label_map(broken)


def test_hirest_moments_queries_and_what_is_missing():
    found = read_steps(FIXTURES / "all_data_train.json")
    videos = by_id(found)
    assert set(videos) == {
        "IUK9kqnz5Hc",
        "vRGS6JMXzJ4",
        "_7urSjT6sQY",
        "DQ7DHE3MpOo",
    }  # the irrelevant one left out
    mask = videos["_7urSjT6sQY"]
    assert mask.theme == "Make a Plaster Mask" and (mask.start, mask.end) == (35.0, 79.0)
    assert [s.text for s in mask.steps][-2:] == ["put it under the neck", "dry it out"] and mask.missing == []
    whole = videos["IUK9kqnz5Hc"]
    assert (whole.start, whole.end, whole.duration) == (None, None, 529.0) and whole.missing == ["steps"]
    assert videos["vRGS6JMXzJ4"].missing == ["steps"] and videos["vRGS6JMXzJ4"].start == 45.0
    assert any("Qz0GTf2Lk1M.mp4" in p and "not relevant" in p for p in found.problems)
    assert len(found.problems) == 3


def test_hirest_test_split_keeps_theme_and_duration():
    found = read_steps(FIXTURES / "all_data_test.json")
    videos = by_id(found)
    assert videos["l2OTMq4aluc"].missing == ["moment bounds", "steps"] and videos["l2OTMq4aluc"].start is None
    assert videos["f5H_pGwv1TE"].missing == ["steps"] and videos["f5H_pGwv1TE"].duration == 290.37
    assert videos["8FG3HimgRHk"].theme == "Make Green Pancakes"
    assert len(found.problems) == 5 and all(
        p.startswith(str(FIXTURES / "all_data_test.json")) for p in found.problems
    )


def test_hirest_negative_samples_and_duplicates(tmp_path):
    negatives = tmp_path / "all_data_test_negative_samples.json"
    negatives.write_text(
        json.dumps({"negative video_0": {"vm9pY09Z8CY.mp4": {}}, "negative video_1": {"a.mp4": {}}})
    )
    found = read_steps(negatives, "hirest")
    assert found.videos == [] and found.problems == [
        f"{negatives}: 2 record(s) with no annotation (retrieval distractors); skipped"
    ]
    twice = tmp_path / "all_data_val.json"
    step = {"index": 0, "heading": "cut", "absolute_bounds": [1, 5]}
    record = {"relevant": True, "clip": True, "v_duration": 9.0, "bounds": [1, 5]}
    twice.write_text(
        json.dumps({"A": {"x.mp4": {**record, "steps": []}}, "B": {"x.mp4": {**record, "steps": [step]}}})
    )
    found = read_steps(twice)
    assert [(v.video_id, v.theme, len(v.steps)) for v in found.videos] == [("x", "A", 0), ("x", "B", 1)]
    assert found.note_kinds == {"videos listed under more than one query": 1}


def test_goalstep_levels_categories_and_quirks():
    found = read_steps(FIXTURES / "goalstep_train.json")
    videos = by_id(found)
    bread = videos[GOAL]
    assert bread.theme == "Makes the bread" and bread.perspective == "first"
    assert (bread.start, bread.end, bread.duration) == (
        0.0210286458333333,
        765.921028645834,
        765.921028645834,
    )
    assert len(bread.steps) == 15 and all(s.level == 0 for s in bread.steps)
    prepare = bread.steps[4]
    assert (
        prepare.category == "Make recipes: Cook or prepare bread or baked goods"
        and prepare.text == "Prepares the bread"
    )
    assert prepare.extra["is_continued"] is True and prepare.extra["summary"][0] == "weighs the doughs"
    assert [c.start for c in prepare.children] == [81.01371, 97.3678, 228.21807]  # the far substep left out
    assert all(c.level == 1 for c in prepare.children) and prepare.children[0].extra["is_procedural"] is False
    assert found.note_kinds == {"substeps outside their step": 3, "integer times": 2, "missing flags": 1}
    assert any("substep lies 51.2 s outside its step; left out" in p for p in found.problems)
    joined = videos["grp-9b58e3ab-7b6d-4e79-9eea-c21420b0eedc"]
    assert joined.extra["joined_videos"] is True and [s.text for s in joined.steps][1:] == [
        "Cooks the omelette",
        "Adds ketchup",
    ]
    assert any("grp-9b58e3ab" in p and "step 2: unusable times" in p for p in found.problems)


def test_goalstep_test_split_is_imported_without_times():
    found = read_steps(FIXTURES / "goalstep_test.json")
    first = found.videos[0]
    assert [s.text for s in first.steps] == ["slice broccoli", "add pasta to the boiling water", "stir pasta"]
    assert all(s.start is None and s.end is None for s in first.steps) and first.steps[2].extra == {
        "segment_count": 3
    }
    assert first.missing == ["step times", "duration", "theme"] and len(found.problems) == 2
    assert found.videos[1].extra == {"joined_videos": True}


def test_keystep_hierarchy_from_the_taxonomy():
    found = read_steps(FIXTURES / "keystep_train.json")
    take = by_id(found)[TAKE]
    assert take.theme == "Covid-19 Rapid Antigen Test" and take.extra["take_name"] == "georgiatech_covid_07_6"
    assert take.duration is None and take.missing == ["duration"] and "annotation_meta" in take.extra
    assert [(s.text, s.start, s.end, s.level) for s in take.steps] == [
        ("Preparation", 0.85598, 70.0, 0),
        ("Sample collection", 75.0, 150.0, 0),
        ("Testing", 150.0, 200.0, 0),
        ("Preparation", 200.0, 215.0, 0),
        ("Testing", 230.0, 275.0, 0),
    ]
    collection = take.steps[1]
    assert [c.category for c in collection.children] == ["4", "5", "6", "12"]
    nostrils = collection.children[3]
    assert (nostrils.text, nostrils.level, nostrils.start, nostrils.end) == (
        "Swab both nostrils",
        1,
        130.0,
        150.0,
    )
    leaf = nostrils.children[0]
    assert (leaf.text, leaf.level, leaf.category, leaf.extra["name"]) == (
        "Swab the right nostril",
        2,
        "13",
        "Repeat the process with the other nostril",
    )
    assert len([s for s in take.flat_steps() if not s.children]) == 12


def test_keystep_unknown_ids_and_bad_segments_are_reported():
    found = read_steps(FIXTURES / "keystep_train.json")
    cooking = by_id(found)["2b1c2f0e-4d5e-4a6b-9c8d-0e1f2a3b4c5d"]
    assert [(s.text, s.level, len(s.children)) for s in cooking.steps] == [
        ("Prepare ingredients", 0, 2),
        ("Crack three eggs into a bowl", 0, 0),
        ("Whisk the eggs", 0, 0),
    ]
    assert cooking.extra["annotation_meta"] == {"annotation_uid": "5a0c7a3e-2f6d-4bde-9f1e-3c2a1b0d9e8f"}
    assert len(found.problems) == 2 and "'99' is not in the scenario's taxonomy" in found.problems[0]


def test_table_csv_nesting_clock_times_and_extra_columns():
    found = read_steps(FIXTURES / "steps.csv")
    bike, cake = found.videos
    assert found.problems == [] and (bike.theme, bike.duration, bike.source) == (
        "Fix a flat tyre",
        420.0,
        "table",
    )
    assert [(s.text, s.start, s.end) for s in bike.steps] == [
        ("Remove the wheel", 0.0, 35.0),
        ("Take the tyre off", 35.0, 80.0),
        ("Patch the inner tube", 80.0, 150.5),
    ]
    assert [c.text for c in bike.steps[0].children] == ["Open the brake", "Undo the axle nut"]
    assert bike.steps[0].children[1].extra == {"tool": "spanner"} and bike.steps[0].category == "remove"
    lever = bike.steps[1].children[0]
    assert (lever.text, lever.level, lever.extra["tool"]) == ("Lever the bead off", 1, "tyre levers")
    assert cake.duration == 600.0 and cake.steps[1].end == 125.0


def test_table_jsonl_parent_and_perspective():
    (plant,) = read_steps(FIXTURES / "steps.jsonl").videos
    assert plant.perspective == "first" and plant.duration == 180.0
    assert [c.text for c in plant.steps[1].children] == ["Loosen the roots"]


def test_table_bad_rows_are_file_line_problems(tmp_path):
    table = tmp_path / "mine.csv"
    table.write_text(
        "video_id,theme,start,end,text,level\n"
        "v1,Tie a knot,0,10,Make a loop,0\n"
        "v1,,12,oops,Pull it through,0\n"
        "v1,,20,15,Tighten,0\n"
        ",,1,2,No video,0\n"
        "v1,,30,40,Trim the ends,-1\n"
        "v1,,41,50,Admire it,2\n"
        "v1,Another theme,50,60,Done,0\n"
    )
    found = read_steps(table)
    assert [s.text for s in found.videos[0].steps] == ["Make a loop", "Admire it", "Done"]
    expected = [
        f"{table}:3: record v1: not a time: 'oops'; row skipped",
        f"{table}:4: record v1: ends before it starts (20 > 15); row skipped",
        f"{table}:5: empty video_id; row skipped",
        f"{table}:6: record v1: negative level -1; row skipped",
        f"{table}:8: record v1: theme 'Another theme' differs from 'Tie a knot' given before; kept the first",
        f"{table}:7: record v1: no level-1 step contains it; kept at top level",
    ]
    assert found.problems == expected


def test_table_without_required_columns_is_an_error(tmp_path):
    table = tmp_path / "mine.csv"
    table.write_text("video_id,start,end,text\nv1,0,1,go\n")
    for chosen in ("table", "auto"):
        with pytest.raises(InputError, match=r"mine\.csv:1: the header lacks column\(s\) theme"):
            read_steps(table, chosen)


def test_table_jsonl_bad_line(tmp_path):
    table = tmp_path / "mine.jsonl"
    row = {"video_id": "v", "theme": "t", "start": 0, "end": 1, "text": "go"}
    table.write_text(json.dumps(row) + "\n{not json\n" + json.dumps([1]) + "\n")
    found = read_steps(table)
    assert len(found.videos[0].steps) == 1
    assert found.problems[0].startswith(f"{table}:2: -: malformed JSON") and found.problems[1].startswith(
        f"{table}:3: -: each line must be a JSON object"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"database": {"a": ', r"bad\.json: invalid JSON \(line 1 column \d+"),
        ("", r"bad\.json: cannot tell which step-annotation format"),
        ('{"something": 1}', r"bad\.json: cannot tell which step-annotation format"),
        ("just some words\n", r"bad\.json: cannot tell"),
        ('{"video": "a"}\n{"video": "b"}\n', r"bad\.json:1: JSONL rows need the columns video_id, theme"),
    ],
)
def test_unreadable_or_unknown_files_raise_naming_the_file(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(InputError, match=message):
        read_steps(bad)


def test_not_found_not_utf8_and_a_folder(tmp_path):
    with pytest.raises(InputError, match=r"nope\.json: file not found"):
        read_steps(tmp_path / "nope.json")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("video_id,theme,start,end,text\nv,caf\xe9,0,1,go\nw,tea,0,1,go\n".encode("latin-1"))
    found = read_steps(latin)  # the row holding the byte is skipped and listed, the others read
    assert [v.video_id for v in found.videos] == ["w"]
    assert found.problems == [f"{latin}:2: -: not UTF-8 text (byte 0xe9 at column 4); row skipped"]
    latin.write_bytes("video_id,th\xe8me,start,end,text\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin\.csv:1: the header row: not UTF-8 text \(byte 0xe8"):
        read_steps(latin)
    with pytest.raises(InputError, match="is a folder"):
        read_steps(tmp_path)


@pytest.mark.parametrize("chosen", FORMATS)
def test_a_format_given_that_does_not_fit_is_an_error(chosen):
    other = "steps.csv" if chosen != "table" else "keystep_train.json"
    with pytest.raises(InputError, match=other.replace(".", r"\.")):
        read_steps(FIXTURES / other, chosen)


def test_unknown_format_name():
    with pytest.raises(InputError, match="unknown format 'ego4d'"):
        read_steps(FIXTURES / "steps.csv", "ego4d")


@pytest.mark.parametrize(
    ("chosen", "data"),
    [
        (
            "youcook2",
            {
                "database": {
                    "bad": "text",
                    "ok": {
                        "duration": 9,
                        "recipe_type": "1",
                        "annotations": [
                            {"segment": [1, 2], "sentence": "go"},
                            {"segment": [5], "sentence": "x"},
                            {"segment": "no"},
                        ],
                    },
                }
            },
        ),
        (
            "hirest",
            {
                "Q": {
                    "bad.mp4": ["no"],
                    "ok.mp4": {
                        "relevant": True,
                        "clip": True,
                        "v_duration": 9,
                        "bounds": [1, 5],
                        "steps": [
                            {"index": 0, "heading": "go", "absolute_bounds": [1, 2]},
                            {"index": 1, "heading": ""},
                        ],
                    },
                }
            },
        ),
        (
            "goalstep",
            {
                "videos": [
                    "bad",
                    {
                        "video_uid": "ok",
                        "start_time": 0,
                        "end_time": 9,
                        "goal_description": "g",
                        "segments": [
                            {"start_time": 1, "end_time": 2, "step_description": "go"},
                            {"start_time": "x"},
                        ],
                    },
                ]
            },
        ),
        (
            "keystep",
            {
                "annotations": {
                    "bad": 3,
                    "ok": {
                        "scenario": "S",
                        "segments": [
                            {"start_time": 1, "end_time": 2, "step_id": 1, "step_name": "go"},
                            {"start_time": -4, "end_time": 2},
                        ],
                    },
                },
                "taxonomy": {
                    "S": {
                        "0": {"id": 0, "name": "S", "parent_id": None},
                        "1": {"id": 1, "name": "go", "parent_id": 0},
                    }
                },
            },
        ),
    ],
)
def test_one_bad_video_never_stops_the_import(tmp_path, chosen, data):
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(data))
    found = read_steps(path, chosen)
    (video,) = found.videos
    assert len(video.steps) == 1 and video.steps[0].text == "go"
    assert len(found.problems) >= 2 and all(p.startswith(f"{path}: record ") for p in found.problems)
    assert any("bad" in p for p in found.problems)


def test_label_map_on_another_format_is_reported():
    found = read_steps(FIXTURES / "steps.csv", label_map=FIXTURES / "label_foodtype.csv")
    assert found.problems == [
        f"{FIXTURES / 'steps.csv'}: the label map names YouCook2 recipe types; ignored for table"
    ]
