"""Preparing a reply for `_extract` and matching option texts: reasoning blocks, folding and
emphasis removed (`clean`), echoed option lists dropped (`drop_echo`), a JSON answer found
(`json_answer`), the one option a text restates (`text_choice`)."""

from __future__ import annotations

import json
import re

from vqakit.scoring import _answer_phrases as phrases
from vqakit.scoring._extract_patterns import EMPHASIS, JSON, LINE_LABEL, REASONING, Options


def clean(reply: str) -> str | None:
    """The reply without reasoning blocks (cut at an unclosed one), folded, without emphasis."""
    kept, lower, start = [], reply.lower(), 0
    while opening := REASONING.search(reply, start):
        kept.append(reply[start : opening.start()])
        closing = lower.find(f"</{opening[1].lower()}>", opening.end())
        if closing < 0:
            start = len(reply)
            break
        kept.append(" ")
        start = closing + len(opening[1]) + 3
    text = ("".join(kept) + reply[start:]).replace("</think>", " ").translate(phrases.FOLD)
    text = EMPHASIS.sub("", text)
    return text.strip() or None


def drop_echo(text: str, options: Options) -> str:
    """The reply without runs of two or more lines that list the options in order from the first."""
    lines = text.splitlines()
    dropped: set[int] = set()
    start = 0
    while start < len(lines):
        run, expected, number = [], 0, start
        while number < len(lines):
            if not lines[number].strip() and run:
                number += 1
                continue
            match = LINE_LABEL.match(lines[number])
            if not match or options.index(match[1]) != expected:
                break
            run.append(number)
            expected += 1
            number += 1
        if len(run) >= 2:
            dropped.update(range(run[0], run[-1] + 1))
            start = run[-1] + 1
        else:
            start += 1
    return "\n".join(line for number, line in enumerate(lines) if number not in dropped)


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text.translate(phrases.FOLD).lower()).strip()


def text_choice(text: str, choices: list[str] | None) -> int | None:
    """The one option whose text the reply is or contains (the most specific), else None."""
    if not choices:
        return None
    said = _norm(text)
    if not said:
        return None
    options = [_norm(choice) for choice in choices]
    exact = [i for i, option in enumerate(options) if option and said == option]
    if len(exact) == 1:
        return exact[0]
    inside = [
        i
        for i, option in enumerate(options)
        if option and re.search(rf"(?<![a-z0-9]){re.escape(option)}(?![a-z0-9])", said)
    ]
    # a longer option may contain a shorter one ("red" / "dark red"): keep the most specific
    inside = [i for i in inside if not any(j != i and options[i] in options[j] for j in inside)]
    return inside[0] if len(inside) == 1 else None


def json_answer(text: str) -> str | None:
    """The value of the first JSON object's answer key ("answer", "final_answer", "choice",
    "option"), or None when the reply holds none."""
    match = JSON.search(text)
    if not match:
        return None
    try:
        data = json.loads(match[0])
    except ValueError:
        return None
    if isinstance(data, dict):
        for key, value in data.items():
            if key.lower() in ("answer", "final_answer", "choice", "option") and isinstance(value, str | int):
                return str(value)
    return None
