from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from vqakit.models import Message, Model, complete_structured, parse_json_lenient


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"Answer": "B", "Explanation": "x"}', {"Answer": "B", "Explanation": "x"}),
        ('```json\n{"a": 1}\n```\nHope this helps!', {"a": 1}),
        ('Sure! Here it is: {"a": [1, 2,], "b": {"c": "}"},}. Done.', {"a": [1, 2], "b": {"c": "}"}}),
        ("{'a': 'single', 'ok': True, 'none': None}", {"a": "single", "ok": True, "none": None}),
        ('{\n  // a comment\n  "a": 1\n}', {"a": 1}),
        ("[1, 2, 3]", [1, 2, 3]),
        ('```\n{"x": "y"}\n```', {"x": "y"}),
        ('{"a": 1, "b": "cut off', {"a": 1, "b": "cut off"}),  # a reply cut at the token limit
        ('{"a": }', {"a": ""}),  # json-repair fills a missing value; the schema then judges it
    ],
)
def test_lenient_parse(reply, value):
    assert parse_json_lenient(reply) == value


@pytest.mark.parametrize("reply", ["no json here", '"only a string"', ""])
def test_lenient_parse_fails_clearly(reply):
    with pytest.raises(ValueError):
        parse_json_lenient(reply)


class Verdict(BaseModel):
    Answer: str
    Explanation: str


def test_repairs_with_validation_feedback(tmp_path):
    """A scripted model (replay) first forgets a field, then corrects itself."""

    class Scripted:  # test double at the model boundary: returns fixed replies in order
        def __init__(self, replies: list[str]) -> None:
            self.replies = replies
            self.seen: list[list[Message]] = []

        async def complete(self, messages, *, sample_id=None, **params):
            from vqakit.models import Completion

            self.seen.append(messages)
            return Completion(self.replies[len(self.seen) - 1], "scripted")

    scripted = Scripted(['{"Answer": "C"}', '{"Answer": "C", "Explanation": "the knife"}'])
    import asyncio

    value, _ = asyncio.run(complete_structured(scripted, [Message.user("q")], Verdict))
    assert value == Verdict(Answer="C", Explanation="the knife")
    assert len(scripted.seen) == 2
    feedback = scripted.seen[1][-1].parts[0].text
    assert "Explanation" in feedback and "Field required" in feedback


def test_replay_model_and_unknown_sample(tmp_path):
    path = tmp_path / "replies.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"sample_id": "s1", "reply": '{"Answer": "A", "Explanation": "e"}'},
                {"sample_id": "s2", "reply": "B", "delay_s": 0.01},
            ]
        )
    )
    m = Model(f"replay:{path}")
    assert m.complete_sync([Message.user("ignored")], sample_id="s2").text == "B"
    import asyncio

    value, _ = asyncio.run(complete_structured(m, [Message.user("q")], Verdict, sample_id="s1"))
    assert value.Answer == "A"
    missing = m.complete_sync([Message.user("q")], sample_id="nope")
    assert missing.error.type == "unknown_sample" and "nope" in missing.error.message


def test_replay_file_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"sample_id": "a", "reply": "x"}\n{"reply": "no id"}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:2:"):
        Model(f"replay:{path}")
