"""Write the release-shaped examples of the benchmark presets (docs/examples/datasets/).

Run from the repository root:  python scripts/make_dataset_fixtures.py
Each folder holds what a user has after downloading and unpacking that benchmark's release, in
miniature: the annotation files with the release's own field names and nesting (see
docs/datasets.md for where each shape comes from), and tiny synthetic videos whose frames draw
their own number (`vqakit.video.write_index_clip`), 6 s at 10 fps. Questions and options are
written for these fixtures; one video of each release is left out on purpose, so that the
importers' "missing video" path runs too.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from vqakit.video import draw_index, write_index_clip

ROOT = Path(__file__).resolve().parents[1] / "docs/examples/datasets"


def clip(path: Path, seed: int = 0) -> None:
    write_index_clip(path, seconds=6, fps=10, width=96, height=64, gop=20, crf=35, seed=seed)


def dump(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n")


def videomme() -> None:
    base = ROOT / "videomme"
    rows = [
        {
            "video_id": "001",
            "duration": "short",
            "domain": "Knowledge",
            "sub_category": "Astronomy",
            "url": "https://www.youtube.com/watch?v=fFjv93ACGo8",
            "videoID": "fFjv93ACGo8",
            "question_id": "001-1",
            "task_type": "Counting Problem",
            "question": "How many planets does the narrator name?",
            "options": ["A. Two.", "B. Three.", "C. Four.", "D. Five."],
            "answer": "C",
        },
        {
            "video_id": "001",
            "duration": "short",
            "domain": "Knowledge",
            "sub_category": "Astronomy",
            "url": "https://www.youtube.com/watch?v=fFjv93ACGo8",
            "videoID": "fFjv93ACGo8",
            "question_id": "001-2",
            "task_type": "Temporal Reasoning",
            "question": "What is shown right after the title?",
            "options": ["A. A telescope.", "B. The Moon.", "C. A map.", "D. A rocket."],
            "answer": "A",
        },
        {
            "video_id": "302",
            "duration": "medium",
            "domain": "Sports Competition",
            "sub_category": "Football",
            "url": "https://www.youtube.com/watch?v=MMm9i8jkCR4",
            "videoID": "MMm9i8jkCR4",
            "question_id": "302-1",
            "task_type": "Action Recognition",
            "question": "What does the goalkeeper do at the end?",
            "options": [
                "A. He dives left.",
                "B. He catches the ball.",
                "C. He kicks it away.",
                "D. He falls.",
            ],
            "answer": "B",
        },
        {
            "video_id": "640",
            "duration": "long",
            "domain": "Life Record",
            "sub_category": "Travel",
            "url": "https://www.youtube.com/watch?v=zzMissing01",
            "videoID": "zzMissing01",
            "question_id": "640-1",
            "task_type": "Information Synopsis",
            "question": "Where does the trip end?",
            "options": ["A. At a port.", "B. In a city.", "C. In the mountains.", "D. At home."],
            "answer": "D",
        },
    ]
    (base / "videomme").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), base / "videomme/test-00000-of-00001.parquet")
    (base / "README.md").write_text(
        "---\nconfigs:\n- config_name: videomme\n  data_files:\n  - split: test\n"
        "    path: videomme/test-*\n---\n\nVideo-MME (a miniature fixture in the release's layout).\n"
    )
    (base / "subtitle").mkdir(exist_ok=True)
    (base / "subtitle/fFjv93ACGo8.srt").write_text(
        '1\n00:00:00,500 --> 00:00:02,000\n<font color="white" size=".72c">Mercury, Venus</font>\n\n'
        '2\n00:00:02,500 --> 00:00:04,000\n<font color="white" size=".72c">Earth and Mars.</font>\n'
    )
    clip(base / "data/fFjv93ACGo8.mp4", 1)
    clip(base / "data/MMm9i8jkCR4.mp4", 2)


def mvbench() -> None:
    base = ROOT / "mvbench"
    dump(
        base / "json/action_sequence.json",
        [
            {
                "video": "3MSZA.mp4",
                "question": "What happened after the person took the cup?",
                "candidates": [
                    "Put down the cup.",
                    "Opened the door.",
                    "Threw the towel.",
                    "Sat on the bed.",
                ],
                "answer": "Put down the cup.",
                "start": 1.2,
                "end": 4.8,
            },
            {
                "video": "3MSZA.mp4",
                "question": "What did the person do first?",
                "candidates": ["Took the cup.", "Closed the window.", "Ate the sandwich.", "Held the book."],
                "answer": "Took the cup.",
                "start": 0.0,
                "end": 7.5,
            },
        ],
    )
    dump(
        base / "json/object_shuffle.json",
        [
            {
                "video": "video_8532.mp4",
                "question": "Where is the ball hidden at the end?",
                "candidates": ["under the first object", "under the second object", "under the third object"],
                "answer": "under the second object",
            },
        ],
    )
    dump(
        base / "json/episodic_reasoning.json",
        [
            {
                "video": "castle_s01e01_seg02_clip_00",
                "question": "Why does Castle leave the room?",
                "candidates": [
                    "To answer the phone.",
                    "To find Beckett.",
                    "To get coffee.",
                    "To hide.",
                    "To read.",
                ],
                "answer": "To find Beckett.",
                "start": 0.5,
                "end": 3.5,
            },
            {
                "video": "castle_s01e01_seg02_clip_99",
                "question": "Who enters first?",
                "candidates": ["Castle.", "Beckett.", "Ryan.", "Esposito.", "Alexis."],
                "answer": "Ryan.",
            },
        ],
    )
    clip(base / "video/star/Charades_v1_480/3MSZA.mp4", 3)
    clip(base / "video/perception/videos/video_8532.mp4", 4)
    frames = base / "video/tvqa/frames_fps3_hq/castle_s01e01_seg02_clip_00"
    frames.mkdir(parents=True, exist_ok=True)
    for number in range(1, 13):  # 4 s at 3 frames per second, 00001.jpg first
        image = np.full((64, 96, 3), 90, np.uint8)
        draw_index(image, number - 1)
        Image.fromarray(image).save(frames / f"{number:05d}.jpg", quality=95)


def egoschema() -> None:
    base = ROOT / "egoschema"
    uids = [
        "0074f737-11cb-497d-8d07-77c3a8127391",
        "00b9a0de-c59e-49cb-a127-6081e2fb8c8e",
        "001934bb-81bd-4cd8-a574-0472ef3f6678",
        "0354b658-b59e-476c-ac9d-739ee656bed0",
    ]
    questions = []
    for number, uid in enumerate(uids):
        questions.append(
            {
                "q_uid": uid,
                "google_drive_id": f"1fixtureDriveId{number}",
                "question": f"What is the overall goal of c's actions in video {number + 1}?",
                "option 0": "c cleans the kitchen.",
                "option 1": "c cooks a meal.",
                "option 2": "c repairs a bicycle.",
                "option 3": "c paints a wall.",
                "option 4": "c plants flowers.",
            }
        )
    dump(base / "questions.json", questions)
    dump(base / "subset_answers.json", {uids[0]: 3, uids[1]: 4})
    for number, uid in enumerate(uids[:3]):
        clip(base / f"videos/{uid}.mp4", 10 + number)


def nextqa() -> None:
    base = ROOT / "nextqa"
    header = "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4"
    val = [
        [
            "4010069381",
            "how do the two man play the instrument",
            0,
            6,
            "CH",
            "roll the handle",
            "tap their feet",
            "strum the string",
            "hit with sticks",
            "pat with hand",
        ],
        [
            "4010069381",
            "why did the man move to the sofa",
            2,
            1,
            "CW",
            "share with the girl",
            "approach lady",
            "unwrap it",
            "play with toy",
            "gesture something",
        ],
        [
            "3462517143",
            "what does the dog do after going to the cushion",
            1,
            8,
            "TN",
            "drink again",
            "shake its body",
            "smell the cat",
            "wag tail",
            "touch lady",
        ],
        [
            "3462517143",
            "what did the dog do before lying down",
            3,
            9,
            "TP",
            "bark",
            "jump",
            "run",
            "circle around",
            "sleep",
        ],
        ["3462517143", "how many dogs are in the video", 4, 4, "DC", "three", "four", "two", "five", "one"],
        [
            "9999999999",
            "where is this video taken",
            1,
            2,
            "DL",
            "beach",
            "living room",
            "park",
            "kitchen",
            "garden",
        ],
    ]
    val = [",".join(map(str, [row[0], 60, 96, 64, *row[1:]])) for row in val]
    (base / "dataset/nextqa").mkdir(parents=True, exist_ok=True)
    (base / "dataset/nextqa/val.csv").write_text("\n".join([header, *val]) + "\n")
    test = ["3462517143,60,96,64,what is the dog wearing,0,3,DO,a collar,a hat,a coat,shoes,nothing"]
    (base / "dataset/nextqa/test.csv").write_text("\n".join([header, *test]) + "\n")
    dump(
        base / "dataset/nextqa/map_vid_vidorID.json",
        {"4010069381": "0029/4010069381", "3462517143": "1006/3462517143", "9999999999": "1100/9999999999"},
    )
    clip(base / "NExTVideo/0029/4010069381.mp4", 20)
    clip(base / "NExTVideo/1006/3462517143.mp4", 21)


def perceptiontest() -> None:
    base = ROOT / "perceptiontest"

    def video(video_id: str, questions: list[dict], frames: int = 60) -> dict:
        meta = {
            "split": "valid",
            "video_id": video_id,
            "frame_rate": 10,
            "num_frames": frames,
            "resolution": [64, 96],
            "audio_samples": 0,
            "audio_sample_rate": 0,
            "is_cup_game": False,
            "is_camera_moving": False,
        }
        return {"metadata": meta, "mc_question": questions}

    valid = {
        "video_10909": video(
            "video_10909",
            [
                {
                    "id": 0,
                    "question": "Is the camera moving or static?",
                    "options": ["I don't know", "moving", "static or shaking"],
                    "answer_id": 2,
                    "area": "physics",
                    "reasoning": "descriptive",
                    "tag": ["motion"],
                },
                {
                    "id": 1,
                    "question": "How many objects were put in the bowl?",
                    "options": ["2", "1", "3"],
                    "answer_id": 0,
                    "area": "memory",
                    "reasoning": "descriptive",
                    "tag": ["counting", "collections"],
                },
            ],
        ),
        "video_7061": video(
            "video_7061",
            [
                {
                    "id": 0,
                    "question": "Where is the hidden object at the end?",
                    "options": ["under the left cup", "under the middle cup", "under the right cup"],
                    "answer_id": 1,
                    "area": "abstraction",
                    "reasoning": "predictive",
                    "tag": ["cup game", "object permanence"],
                },
            ],
        ),
    }
    dump(base / "mc_question_valid.json", valid)
    test = {
        "video_1002": video(
            "video_1002",
            [
                {
                    "id": 0,
                    "question": "What will happen if the cup is pushed?",
                    "options": ["it falls", "it stays", "it breaks"],
                    "area": "physics",
                    "reasoning": "counterfactual",
                    "tag": ["stability"],
                },
                {
                    "id": 1,
                    "question": "Which object was moved first?",
                    "options": ["the cup", "the book", "the pen"],
                    "area": "memory",
                    "reasoning": "descriptive",
                    "tag": ["sequencing"],
                },
            ],
        ),
    }
    dump(base / "mc_question_test.json", test)
    for number, name in enumerate(("video_10909", "video_7061", "video_1002")):
        clip(base / f"videos/{name}.mp4", 30 + number)


def longvideobench() -> None:
    base = ROOT / "longvideobench"
    common = {
        "topic_category": "KS-Knowledge-Science",
        "level": "L2-Relation",
        "duration": 6.0,
        "starting_timestamp_for_subtitles": 10.0,
        "view_count": 1234,
    }
    val = [
        {
            **common,
            "video_id": "86CxyhFV9MI",
            "id": "86CxyhFV9MI_0",
            "video_path": "86CxyhFV9MI.mp4",
            "subtitle_path": "86CxyhFV9MI_en.json",
            "duration_group": 15,
            "question_category": "TOS",
            "question": "When the subtitle says 'first layer', what is on the table?",
            "question_wo_referring_query": "What is on the table?",
            "position": [1, 3],
            "candidates": ["a glass", "a book", "a plant", "a lamp"],
            "correct_choice": 2,
        },
        {
            **common,
            "video_id": "86CxyhFV9MI",
            "id": "86CxyhFV9MI_1",
            "video_path": "86CxyhFV9MI.mp4",
            "subtitle_path": "86CxyhFV9MI_en.json",
            "duration_group": 15,
            "question_category": "S2E",
            "question": "What happens after the person stands up?",
            "question_wo_referring_query": "What happens next?",
            "position": [3, 5],
            "candidates": ["they wave", "they sit down", "they leave", "they laugh", "they clap"],
            "correct_choice": 0,
        },
        {
            **common,
            "video_id": "Kb4wO1Pg0sA",
            "id": "Kb4wO1Pg0sA_0",
            "video_path": "Kb4wO1Pg0sA.mp4",
            "subtitle_path": "Kb4wO1Pg0sA_en.json",
            "duration_group": 60,
            "question_category": "E2O",
            "question": "Which object appears with the red light?",
            "question_wo_referring_query": "Which object appears?",
            "position": [2, 4],
            "candidates": ["a car", "a bus", "a bike", "a tram"],
            "correct_choice": 3,
        },
    ]
    dump(base / "lvb_val.json", val)
    test = [
        {key: value for key, value in val[0].items() if key != "correct_choice"} | {"id": "86CxyhFV9MI_t0"}
    ]
    dump(base / "lvb_test_wo_gt.json", test)
    dump(
        base / "subtitles/86CxyhFV9MI_en.json",
        [
            {"start": "00:00:10.500", "end": "00:00:12.000", "line": "This is the first layer."},
            {"timestamp": [12.5, 14.0], "text": "Now the second one."},
        ],
    )
    dump(
        base / "subtitles/Kb4wO1Pg0sA_en.json",
        [{"start": "00:00:11.000", "end": "00:00:13.000", "line": "Red light."}],
    )
    clip(base / "videos/86CxyhFV9MI.mp4", 40)
    clip(base / "videos/Kb4wO1Pg0sA.mp4", 41)


def mlvu() -> None:
    base = ROOT / "mlvu"
    dump(
        base / "MLVU/json/1_plotQA.json",
        [
            {
                "video": "movie101_66.mp4",
                "duration": 6,
                "question": "What color is the main character's coat?",
                "candidates": ["Yellow", "Red", "Green", "Blue"],
                "answer": "Yellow",
                "question_type": "plotQA",
            },
            {
                "video": "movie101_66.mp4",
                "duration": 6,
                "question": "Who opens the door?",
                "candidates": ["The boy", "The woman", "The dog", "Nobody"],
                "answer": "The woman",
                "question_type": "plotQA",
            },
        ],
    )
    dump(
        base / "MLVU/json/4_count.json",
        [
            {
                "video": "count_7.mp4",
                "duration": 6,
                "question": "How many times does the ball bounce?",
                "candidates": ["1", "2", "3", "4"],
                "answer": "3",
                "question_type": "count",
            },
        ],
    )
    dump(
        base / "MLVU_Test/test_question.json",
        [
            {
                "question_id": "AR_0",
                "question_type": "anomaly_reco",
                "video": "test_ar_1.mp4",
                "question": "Does this video show anything unusual?",
                "candidates": ["Fighting", "Shoplifting", "Normal", "Robbery"],
            },
            {
                "question_id": "TR_3",
                "question_type": "topic_reasoning",
                "video": "test_ar_1.mp4",
                "question": "What is the video about?",
                "candidates": ["A trip", "A game", "Cooking", "A repair"],
            },
        ],
    )
    clip(base / "MLVU/video/1_plotQA/movie101_66.mp4", 50)
    clip(base / "MLVU/video/4_count/count_7.mp4", 51)
    clip(base / "MLVU_Test/video/test_ar_1.mp4", 52)


def minerva() -> None:
    """MINERVA's release (google-deepmind/neptune's minerva.json): YouTube URLs as video ids,
    five choices with answer_id, `question type` a comma-separated list of skills."""
    base = ROOT / "minerva"
    video = "https://www.youtube.com/watch?v="

    def record(key, video_id, question, choices, answer_id, skills, split, category):
        return {
            "key": key,
            "video_id": video + video_id,
            "question": question,
            "answer": choices[answer_id],
            **{f"answer_choice_{i}": choice for i, choice in enumerate(choices)},
            "answer_id": answer_id,
            "reasoning": f"At 00:02 the answer shows: {choices[answer_id]}.",
            "question type": skills,
            "split": split,
            "category": category,
        }

    dump(
        base / "minerva.json",
        [
            record(
                "mnv-001",
                "dQw4w9WgXcQ",
                "How many cups are on the table when the host sits down?",
                ["one", "two", "three", "four", "five"],
                2,
                "Counting, Temporal Reasoning",
                "Short Films",
                "Comedy",
            ),
            record(
                "mnv-002",
                "dQw4w9WgXcQ",
                "Why does the host leave the room?",
                [
                    "to answer the door",
                    "to fetch a cup",
                    "to take a call",
                    "to turn off the oven",
                    "to find the cat",
                ],
                0,
                "Cause and Effect, Event Occurrence",
                "Short Films",
                "Comedy",
            ),
            record(
                "mnv-003",
                "9bZkp7q19f0",
                "What score is shown after the second goal?",
                ["1-0", "2-0", "2-1", "3-1", "1-1"],
                1,
                "Reading (OCR), Counting, Numerical Reasoning",
                "Sports",
                "Football",
            ),
            record(
                "mnv-004",
                "aaaaaaaaaaa",
                "Which player scores first?",
                ["the keeper", "number 9", "number 10", "the captain", "nobody"],
                1,
                "Temporal Reasoning, Object Recognition",
                "Sports",
                "Football",
            ),
        ],
    )
    clip(base / "videos/dQw4w9WgXcQ.mp4", 70)
    clip(base / "videos/9bZkp7q19f0.mp4", 71)


def table() -> None:
    """Any table, for `vqakit import table` with a mapping of your own (docs/datasets.md)."""
    base = ROOT / "table"
    base.mkdir(parents=True, exist_ok=True)
    (base / "questions.csv").write_text(
        "clip,qid,question,option_a,option_b,option_c,correct,skill,from_s,to_s\n"
        "kitchen,1,What does the person pick up first?,a knife,a cup,a towel,B,objects,0.5,4.0\n"
        "kitchen,2,How many times is the tap turned on?,once,twice,never,A,counting,,\n"
        "garden,1,Where does the dog go at the end?,to the gate,to the shed,under a tree,C,spatial,2.0,6.0\n"
        "garden,2,What colour is the ball?,red,blue,green,Z,objects,,\n"
        "street,1,Which way does the bus turn?,left,right,it goes straight,A,motion,,\n"
    )
    (base / "mapping.yaml").write_text(
        "# a mapping for questions.csv: which columns make which fields of a sample\n"
        'id: "{clip}-{qid}"\n'
        "question: question\n"
        "options: [option_a, option_b, option_c]\n"
        "answer: {column: correct, kind: letter}\n"
        'video: "{clip}.mp4"\n'
        "extensions: [mkv, webm]\n"
        "start: from_s\n"
        "end: to_s\n"
        "groups: [skill]\n"
        "metadata: [qid]\n"
        "card:\n"
        "  name: my-table\n"
        "  protocol: {frames: uniform:8}\n"
    )
    clip(base / "videos/kitchen.mp4", 60)
    clip(base / "videos/garden.mp4", 61)


def main() -> None:
    if ROOT.exists():
        shutil.rmtree(ROOT)
    for make in (videomme, mvbench, egoschema, nextqa, perceptiontest, longvideobench, mlvu, minerva, table):
        make()
    size = sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file())
    print(f"wrote {ROOT} ({size / 1000:.0f} kB)")


if __name__ == "__main__":
    main()
