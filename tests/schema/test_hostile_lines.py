"""Hostile benchmark files: every problem is one FILE:LINE line, never a traceback, and values
that would break an eval later (booleans as numbers, more than 26 options) are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqakit.schema import MediaChecker, Problem, Sample, check_folder, register_sample_check

CARD = "name: hostile\nversion: '1'\nlicense: CC0-1.0\ndescription: lines written to break readers\n"


def sample(sample_id: str, **changes) -> dict:
    record = {"id": sample_id, "videos": [{"path": "clip.mp4"}], "question": "Which?", "choices": ["a", "b"]}
    record["answer"] = 0
    record.update(changes)
    return {k: v for k, v in record.items() if v is not None}


def line(sample_id: str, **changes) -> bytes:
    return json.dumps(sample(sample_id, **changes)).encode()


def check(tmp_path: Path, lines: list[bytes], card: str = CARD) -> list[Problem]:
    (tmp_path / "clip.mp4").write_bytes(b"not opened: no media checker")
    (tmp_path / "benchmark.yaml").write_text(card)
    (tmp_path / "samples.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    _, problems = check_folder(tmp_path)
    for problem in problems:
        assert "\n" not in str(problem) and "\r" not in str(problem), problem
    return problems


def test_up_to_26_choices(tmp_path):
    letters = [chr(ord("A") + i) for i in range(27)]
    problems = check(
        tmp_path,
        [
            line("nine", choices=letters[:9], answer=8),  # 1: was accepted, then crashed evals
            line("twenty-six", choices=letters[:26], answer=25),  # 2
            line("twenty-seven", choices=letters, answer=0),  # 3
        ],
    )
    assert [(p.line, p.field) for p in problems] == [(3, "choices")]
    assert "at most 26 choices (A to Z), got 27" in problems[0].message


@pytest.mark.parametrize("value", [True, False])
def test_boolean_answer_is_refused(tmp_path, value):
    problems = check(tmp_path, [line("mcq", answer=value), line("open", choices=None, answer=value)])
    assert [(p.line, p.field) for p in problems] == [(1, "answer"), (2, "answer")]
    assert all(f"{str(value).lower()} is not an answer" in p.message for p in problems)


def test_booleans_are_not_numbers_anywhere(tmp_path):
    track = {"id": "cup-0123456789abcdef", "label": "cup", "video": True}
    track["points"] = [{"time_s": False, "box": [0, 0, True, 4]}]
    problems = check(
        tmp_path,
        [
            line("track", objects=[track]),  # 1
            line("window", videos=[{"path": "clip.mp4", "start_s": True}]),  # 2
            line("hop", metadata={"hop": True}),  # 3
        ],
    )
    assert [(p.line, p.field) for p in problems] == [
        (1, "objects.0.video"),
        (1, "objects.0.points.0.time_s"),
        (1, "objects.0.points.0.box.2"),
        (2, "videos.0.start_s"),
        (3, "metadata.hop"),
    ]
    assert all("must be a number, not" in p.message for p in problems)
    assert Sample.model_validate(sample("ok", answer=1)).answer == 1


def test_hostile_lines_each_name_their_line(tmp_path):
    deep = b'{"id": "deep", "question": "q", "answer": "a", "metadata": {"x": ' + b"[" * 5000
    deep += b"]" * 5000 + b"}}"
    lines = [
        line("fine"),  # 1
        b'{"id": "raw-nul", "question": "a\x00b", "answer": "x"}',  # 2 NUL byte inside a string
        b'\x00{"id": "lead-nul"}',  # 3 NUL byte before the object
        line("escaped-nul", question="a\u0000b"),  # 4 valid JSON, but NUL in the text
        line("nul-path", videos=[{"path": "clip.mp4\u0000.txt"}]),  # 5
        deep,  # 6 deep enough to overflow Python's JSON parser
        line("nested", metadata={"x": json.loads("[" * 150 + "]" * 150)}),  # 7 parses, too deep to keep
        b'{"id": "latin-1", "question": "caf\xe9", "answer": "x"}',  # 8 not UTF-8
        b'{"id": "huge", "question": "q", "choices": ["a", "b"], "answer": 1' + b"0" * 5000 + b"}",  # 9
        b'{"id": "big", "question": "q", "choices": ["a", "b"], "answer": 0, "metadata": {"n": 1e999}}',  # 10
        b'{"id": "nan", "question": "q", "choices": ["a", "b"], "answer": NaN}',  # 11
        line("surrogate", question="\ud800 alone"),  # 12 not Unicode text
        line("key", metadata={"bad\nkey": 1, "nul\u0000key": 2}),  # 13
        line("twice", answer=5)[:-1] + b', "answer": 1}',  # 14 duplicate key: the last one wins
        b"   \t ",  # 15 blank
        b'"just a string"',  # 16
    ]
    problems = check(tmp_path, lines)
    found = {p.line: (p.field, p.message) for p in problems}
    assert sorted(found) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16], problems
    assert found[2] == ("-", "malformed JSON (Invalid control character at column 33)")
    assert found[3][1].startswith("malformed JSON")
    assert found[4] == ("question", "holds a NUL character (\\u0000)")
    assert found[5] == ("videos.0.path", "holds a NUL character (\\u0000)")
    assert found[6] == ("metadata.x.0", "nested deeper than 100 levels")
    assert found[7] == ("metadata.x.0", "nested deeper than 100 levels")
    assert found[8] == ("question", "not UTF-8 text (byte 0xe9)")
    assert "does not fit in 64 bits" in found[9][1]
    assert found[10] == ("metadata.n", "number 1e999 is too large")
    assert found[11] == ("answer", "NaN is not a JSON number")
    assert "unpaired surrogate" in found[12][1]
    assert found[13][0].startswith("metadata") and "a key holds a NUL character" in found[13][1]
    assert found[16] == ("-", "each line must be a JSON object")


def test_problem_lines_escape_line_breaks(tmp_path):
    problems = check(tmp_path, [line("extra", **{"colour\nred": 1})])
    assert str(problems[0]) == "samples.jsonl:1: colour\\nred: unknown field"


def test_byte_order_mark_and_crlf_are_accepted(tmp_path):
    lines = [b"\xef\xbb\xbf" + line("first") + b"\r", line("second") + b"\r"]
    assert check(tmp_path, lines) == []


@pytest.mark.parametrize(
    ("card", "line_number", "field", "words"),
    [
        (CARD.replace("hostile", "../../escape"), 1, "name", "cannot be part of a folder name"),
        (CARD.replace("hostile", "a/b"), 1, "name", "cannot be part of a folder name"),
        (CARD.replace("hostile", ".hidden"), 1, "name", "cannot be part of a folder name"),
        (CARD + "protocol:\n  min_group_size: true\n", 6, "protocol.min_group_size", "not true"),
        (CARD + 'fields:\n  x: "a\\0b"\n', 6, "fields.x", "NUL character"),
        (CARD + "fields:\n  x: " + "[" * 3000 + "]" * 3000 + "\n", 0, "-", "nested deeper"),
        (CARD + "homepage: \x00\n", 5, "-", "not valid YAML"),
    ],
)
def test_hostile_cards(tmp_path, card, line_number, field, words):
    problems = [p for p in check(tmp_path, [line("fine")], card=card) if p.file == "benchmark.yaml"]
    assert [(p.line, p.field) for p in problems] == [(line_number, field)], problems
    assert words in problems[0].message


def test_card_that_is_not_utf8(tmp_path):
    (tmp_path / "clip.mp4").write_bytes(b"")
    (tmp_path / "samples.jsonl").write_text(json.dumps(sample("fine")) + "\n")
    (tmp_path / "benchmark.yaml").write_bytes(CARD.encode() + b"citation: caf\xe9\n")
    _, problems = check_folder(tmp_path)
    assert [str(p) for p in problems] == ["benchmark.yaml:5: -: not UTF-8 text (byte 0xe9 at column 14)"]


def test_yaml_aliases_do_not_blow_up(tmp_path):
    bomb = "".join(f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 12))
    card = CARD + "fields:\n  l0: &l0 [x]\n" + bomb
    problems = check(tmp_path, [line("fine")], card=card)
    assert problems and all(p.file == "benchmark.yaml" and p.field.startswith("fields.") for p in problems)


class _BrokenCheck:
    """A media checker whose every call fails the way a buggy plug-in might."""

    def video_duration(self, path: Path) -> float:
        raise RecursionError("deep inside the decoder")

    def check_subtitles(self, path: Path) -> None:
        raise MemoryError

    def check_image(self, path: Path) -> None:
        raise ValueError("broken\nimage")


def test_media_checker_exceptions_become_problems(tmp_path):
    checker: MediaChecker = _BrokenCheck()
    (tmp_path / "clip.mp4").write_bytes(b"")
    (tmp_path / "subs.srt").write_text("")
    (tmp_path / "benchmark.yaml").write_text(CARD)
    point = {"time_s": 0, "mask": "subs.srt"}
    track = {"id": "cup-0123456789abcdef", "label": "cup", "points": [point]}
    (tmp_path / "samples.jsonl").write_text(json.dumps(sample("s", subtitles="subs.srt", objects=[track])))
    _, problems = check_folder(tmp_path, checker)
    assert [str(p) for p in problems] == [
        "samples.jsonl:1: videos.0.path: unreadable video: deep inside the decoder",
        "samples.jsonl:1: subtitles: unreadable subtitles: ",
        "samples.jsonl:1: objects.0.points.0.mask: unreadable mask: broken\\nimage",
    ]


@register_sample_check
def _explodes_on_one_id(sample: Sample, corpora: object) -> list[tuple[str, str]]:
    if sample.id == "explodes-in-a-check":
        raise KeyError("pairs")
    return []


def test_a_failing_plug_in_check_is_a_problem_on_its_line(tmp_path):
    problems = check(tmp_path, [line("fine"), line("explodes-in-a-check")])
    assert [str(p) for p in problems] == [
        "samples.jsonl:2: -: check _explodes_on_one_id failed: KeyError: 'pairs'"
    ]
