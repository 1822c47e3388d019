"""`vqakit validate`: one FILE:LINE: field: message line per problem, never a traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vqakit.schema import check_folder

CARD = "name: broken\nversion: '1'\nlicense: CC0-1.0\ndescription: a benchmark with one problem per line\n"


def good(sample_id: str, **changes) -> dict:
    record = {
        "id": sample_id,
        "videos": [{"path": "media/clip.mp4"}],
        "question": "Which frame?",
        "choices": ["first", "second"],
        "answer": 0,
    }
    record.update(changes)
    return {k: v for k, v in record.items() if v is not None}


@pytest.fixture
def broken(tmp_path: Path, index_clip: Path) -> Path:
    (tmp_path / "media").mkdir()
    shutil.copy(index_clip, tmp_path / "media/clip.mp4")  # 20 s long
    (tmp_path / "media/bad.srt").write_text("1\n00:00:01 --> 00:00:02\nno millis\n")
    (tmp_path / "benchmark.yaml").write_text(CARD + "protocol:\n  frames: sometimes\n")
    lines = [
        json.dumps(good("ok")),  # 1
        '{"id": "broken-json", "question": ',  # 2 malformed JSON
        json.dumps(good("no-question", question=None)),  # 3 missing field
        json.dumps(good("extra", colour="red")),  # 4 unknown field
        json.dumps(good("ok")),  # 5 duplicate id
        json.dumps(good("range", answer=2)),  # 6 answer out of range
        json.dumps(good("one-choice", choices=["only"])),  # 7 fewer than 2 choices
        json.dumps(good("missing-media", videos=[{"path": "media/gone.mp4"}])),  # 8
        json.dumps(good("escape", videos=[{"path": "../outside.mp4"}])),  # 9 escapes the folder
        json.dumps(good("window", videos=[{"path": "media/clip.mp4", "start_s": 5, "end_s": 3}])),  # 10
        json.dumps(good("late", videos=[{"path": "media/clip.mp4", "start_s": 1, "end_s": 25}])),  # 11 beyond
        json.dumps(good("late-trace", reasoning="1. At 00:45 the frame changes.")),  # 12 beyond
        json.dumps(good("bad-subs", subtitles="media/bad.srt")),  # 13 unreadable subtitles
        json.dumps(good("open-int", choices=None, answer=3)),  # 14 open-ended needs text
        json.dumps(
            good(
                "track",
                objects=[
                    {
                        "id": "cup-0123456789abcdef",
                        "label": "cup",
                        "points": [{"time_s": 30, "box": [0, 0, 5, 5]}],
                    }
                ],
            )
        ),  # 15 beyond
        json.dumps(good("gold", gold_passages=["nowhere"])),  # 16 unknown passage id
        "[1, 2]",  # 17 not an object
        json.dumps(good("27", choices=[chr(65 + i) for i in range(27)])),  # 18 more than A..Z
        json.dumps(good("nine", choices=[chr(65 + i) for i in range(9)], answer=8)),  # 19 fine
        json.dumps(good("bool", answer=True)),  # 20 a boolean is not an index
        json.dumps(good("missing-again", videos=[{"path": "media/gone.mp4"}])),  # 21 named again
        json.dumps(good("subs-escape", subtitles="../outside.srt")),  # 22
        '{"id": "nul", "question": "\x00"}',  # 23 a NUL byte
        '{"id": "deep", "metadata": ' + "[" * 5000 + "]" * 5000 + "}",  # 24
    ]
    (tmp_path / "samples.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


EXPECTED = [
    ("benchmark.yaml", 6, "protocol.frames", "cannot read frame spec"),
    ("samples.jsonl", 2, "-", "malformed JSON"),
    ("samples.jsonl", 3, "question", "missing required field"),
    ("samples.jsonl", 4, "colour", "unknown field"),
    ("samples.jsonl", 5, "id", "duplicate id 'ok' (first on line 1)"),
    ("samples.jsonl", 6, "answer", "out of range"),
    ("samples.jsonl", 7, "choices", "at least 2 choices"),
    ("samples.jsonl", 8, "videos.0.path", "missing media file"),
    ("samples.jsonl", 9, "videos.0.path", "escapes the benchmark folder"),
    ("samples.jsonl", 10, "videos.0.start_s", "must be before end_s"),
    ("samples.jsonl", 11, "videos.0.end_s", "beyond the video's duration"),
    ("samples.jsonl", 12, "reasoning", "beyond the video's duration"),
    ("samples.jsonl", 13, "subtitles", "unreadable subtitles"),
    ("samples.jsonl", 14, "answer", "needs the reference answer as text"),
    ("samples.jsonl", 15, "objects.0.points.0.time_s", "beyond the video's duration"),
    ("samples.jsonl", 16, "gold_passages", "not in corpus/passages.jsonl"),
    ("samples.jsonl", 17, "-", "must be a JSON object"),
    ("samples.jsonl", 18, "choices", "at most 26 choices"),
    ("samples.jsonl", 20, "answer", "true is not an answer"),
    ("samples.jsonl", 21, "videos.0.path", "missing media file"),
    ("samples.jsonl", 22, "subtitles", "escapes the benchmark folder"),
    ("samples.jsonl", 23, "-", "malformed JSON (Invalid control character at column"),
    ("samples.jsonl", 24, "metadata.0.0", "nested deeper than 100 levels"),
]


def run_validate(folder: Path | str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vqakit", "validate", str(folder)], capture_output=True, text=True, check=False
    )


def test_each_problem_is_one_line(broken):
    result = run_validate(broken)
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == len(EXPECTED), result.stdout
    for line, (file, number, field, words) in zip(lines, EXPECTED, strict=True):
        assert line.startswith(f"{file}:{number}: {field}: "), line
        assert words in line, line


def test_library_returns_the_same_problems(broken):
    from vqakit.video import VideoMediaChecker

    benchmark, problems = check_folder(broken, VideoMediaChecker())
    assert benchmark is None  # the card is invalid
    assert [(p.file, p.line, p.field) for p in problems] == [e[:3] for e in EXPECTED]


def test_shipped_sample_is_valid():
    result = run_validate("sample")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "valid" in result.stdout


def test_missing_folder_and_files(tmp_path):
    missing = run_validate(tmp_path / "nothing")  # a mistake in the command: exit 2, said plainly
    assert missing.returncode == 2 and "no such benchmark folder" in missing.stderr
    result = run_validate(tmp_path)
    assert result.returncode == 1
    assert "benchmark.yaml:0: -: file not found" in result.stdout
    assert "samples.jsonl:0: -: file not found" in result.stdout


def test_yaml_syntax_error_names_line(tmp_path):
    (tmp_path / "benchmark.yaml").write_text("name: x\nversion: [1\n")
    (tmp_path / "samples.jsonl").write_text("")
    result = run_validate(tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("benchmark.yaml:"), result.stdout
    assert "not valid YAML" in result.stdout


def test_two_hop_pair_structure_is_checked(tmp_path, index_clip):
    (tmp_path / "media").mkdir()
    shutil.copy(index_clip, tmp_path / "media/clip.mp4")
    (tmp_path / "benchmark.yaml").write_text(CARD)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus/passages.jsonl").write_text(
        "".join(json.dumps({"id": f"p{i}", "text": f"passage {i}"}) + "\n" for i in range(3))
    )
    pairs = [
        {"object": "cup", "passage": "p0", "counterfactual": 0, "factual": 1},
        {"object": "pan", "passage": "p1", "counterfactual": 2, "factual": 3},
        {"object": "jar", "passage": "p2", "counterfactual": 4, "factual": 5},
    ]

    def two_hop(sample_id: str, answer: int = 5, **changes) -> str:
        meta = {"hop": 2, "grounding": "local", "pairs": changes.pop("pairs", pairs)}
        return json.dumps(
            good(
                sample_id,
                choices=[f"statement {i}" for i in range(6)],
                answer=answer,
                metadata=meta,
                **changes,
            )
        )

    moved = [dict(pairs[0]), dict(pairs[1]), {**pairs[2], "factual": 9}]
    reused = [dict(pairs[0]), {**pairs[1], "counterfactual": 1}, dict(pairs[2])]
    lines = [
        two_hop("fine", gold_passages=["p2"]),  # 1
        two_hop("counterfactual-answer", answer=4),  # 2
        two_hop("out-of-range", pairs=moved),  # 3
        two_hop("index-twice", pairs=reused),  # 4
        two_hop("unknown-passage", pairs=[*pairs[:2], {**pairs[2], "passage": "p9"}]),  # 5
        two_hop("wrong-gold", gold_passages=["p0"]),  # 6
        two_hop("not-a-pair", pairs=[*pairs[:2], {"object": "jar"}]),  # 7
        json.dumps(good("open", choices=None, answer="x", metadata={"pairs": pairs})),  # 8
    ]
    (tmp_path / "samples.jsonl").write_text("\n".join(lines) + "\n")
    result = run_validate(tmp_path)
    assert result.returncode == 1
    found = result.stdout.strip().splitlines()
    expected = [
        "samples.jsonl:2: metadata.pairs.2.counterfactual: the answer cannot be a counterfactual statement",
        "samples.jsonl:3: metadata.pairs.2.factual: option 9 is out of range for 6 choices",
        "samples.jsonl:4: metadata.pairs.1.counterfactual: option 1 is already the factual statement "
        "of pair 0",
        "samples.jsonl:5: metadata.pairs.2.passage: id 'p9' is not in corpus/passages.jsonl",
        "samples.jsonl:6: metadata.pairs: the answer's pair uses passage 'p2', not a gold passage",
        "samples.jsonl:7: metadata.pairs.2.passage: missing or not str",
        "samples.jsonl:8: metadata.pairs: pairs describe options, but the sample has no choices",
    ]
    for line in expected:
        assert line in found, result.stdout
    assert not any(line.startswith("samples.jsonl:1:") for line in found)
