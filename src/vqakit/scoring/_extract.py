"""Which option a free-text reply chose, by rules, or nothing when the reply does not say.

One extractor serves every benchmark. Rules, tried in this order (the first that decides wins):

1. `tagged`: an explicit final-answer statement: `<answer>B</answer>`, `\\boxed{B}`, JSON
   `{"answer": "B"}`, `Answer: B`, `Final answer - (B)`, `the (correct|best) answer is B`,
   `I (choose|pick|select) B`, `answer is option 3`. The last such statement counts, so an
   answer given after reasoning wins over options discussed earlier. A tagged statement that
   names two different options (`A or C`) abstains.
2. `bare`: the whole reply is an option label: `B`, `(B)`, `B.`, `[2]`, `Option B`.
3. `leading`: the reply starts with a label followed by text: `B) the knife`, `(3) 00:45`.
4. `option_text`: the reply is, or contains, exactly one option's full text (case and
   punctuation aside) and no other option's.
5. `single_mention`: exactly one distinct label appears in marked form (`(C)`, `C)`, `[C]`,
   `option C`, `choice C`) anywhere in the reply.

Before the rules, reasoning blocks (`<think>...</think>`, `<reasoning>`, `<thinking>`) are
removed, and so are markdown emphasis and code marks. A reply whose only content is an unclosed
reasoning block abstains. Labels are letters A.. (A-H at most) or, with `numbered=True` (as
Minerva-Ego prints options), numbers 1..N; letters are also read in numbered mode, by position.
The extractor never guesses: anything else is an abstention with a reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from vqakit.scoring._labels import LETTERS

_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_UNCLOSED = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_EMPHASIS = re.compile(r"\*\*|__|`+|^#+\s*", re.MULTILINE)
_LABEL = r"\(?\[?(?:option|choice|letter)?\s*\(?([A-Ha-h]|[1-9])\)?\]?"
_TAGGED = [
    re.compile(r"<answer>\s*(.*?)\s*</answer>", re.IGNORECASE | re.DOTALL),
    re.compile(r"\\boxed\{\s*(?:\\text\{)?\s*([^{}]*?)\s*\}?\s*\}", re.IGNORECASE),
    re.compile(
        r"(?:final\s+answer|correct\s+answer|best\s+answer|right\s+answer|answer|final\s+choice|my\s+choice|"
        r"correct\s+option|best\s+option|the\s+option)"
        r"\s*(?:is|would\s+be|should\s+be|=|:|-|–)\s*(?:therefore\s+|thus\s+)?(.{1,80})",
        re.IGNORECASE,
    ),
    re.compile(
        r"\bI\s+(?:choose|pick|select|go\s+with|would\s+choose|will\s+choose)\s+(.{1,60})", re.IGNORECASE
    ),
]
_VALUE = re.compile(
    r"^\s*(?:option|choice|letter)?\s*[\(\[]?\s*([A-Ha-h]|[1-9])\s*[\)\]]?(?=$|[\s.,:;!)\]]|$)", re.IGNORECASE
)
_MARKED = re.compile(
    r"(?:\(([A-H1-9])\)|\[([A-H1-9])\]|(?<![\w(])([A-H])\)|\b(?:option|choice)\s+\(?([A-Ha-h1-9])\b\)?)",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(not|isn't|is not|cannot be|can't be|rule out|eliminate)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    choice: int | None  # 0-based option index, None when abstaining
    rule: str  # which rule decided, or "abstain"
    reason: str  # why, in words (for reports)

    @property
    def letter(self) -> str | None:
        return None if self.choice is None else LETTERS[self.choice]


def _label_index(token: str, n: int, numbered: bool) -> int | None:
    token = token.strip().upper()
    if token in LETTERS[:n]:
        return LETTERS.index(token)
    if numbered and token.isdigit() and 1 <= int(token) <= n:
        return int(token) - 1
    return None


def _clean(reply: str) -> str | None:
    text = _REASONING.sub(" ", reply)
    unclosed = _UNCLOSED.search(text)
    if unclosed:
        text = text[: unclosed.start()]
    text = text.replace("</think>", " ")
    text = _EMPHASIS.sub("", text)
    return text.strip() or None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _value(fragment: str, n: int, numbered: bool, choices: list[str] | None) -> int | str | None:
    """Index named by a tagged answer's value; "ambiguous" when it names two different options."""
    fragment = fragment.strip().strip("\"'")
    match = _VALUE.match(fragment)
    if match:
        index = _label_index(match[1], n, numbered)
        if index is not None:
            rest = fragment[match.end() :]
            other = re.match(r"\s*(?:or|and|/|,)\s*" + _LABEL + r"(?=$|[\s.,:;!)\]])", rest, re.IGNORECASE)
            if other and _label_index(other[1], n, numbered) not in (None, index):
                return "ambiguous"
            # a lone "A" followed by lower-case words is the article, not option A
            if (
                match[1] == "A"
                and re.match(r"\s+[a-z]", rest)
                and not match[0].strip().startswith(("(", "["))
            ):
                return _text_choice(fragment, choices)
            return index
    return _text_choice(fragment, choices)


def _text_choice(text: str, choices: list[str] | None) -> int | None:
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
        i for i, option in enumerate(options) if option and re.search(rf"\b{re.escape(option)}\b", said)
    ]
    # a longer option may contain a shorter one ("red" / "dark red"): keep the most specific
    inside = [i for i in inside if not any(j != i and options[i] in options[j] for j in inside)]
    return inside[0] if len(inside) == 1 else None


def extract_choice(
    reply: str | None, n_choices: int, *, choices: list[str] | None = None, numbered: bool = False
) -> Extraction:
    """The option a reply chose among `n_choices` (2..8), or an abstention with its reason."""
    if not 2 <= n_choices <= len(LETTERS):
        raise ValueError(f"n_choices must be between 2 and {len(LETTERS)}, got {n_choices}")
    if choices is not None and len(choices) != n_choices:
        raise ValueError(f"{len(choices)} choice texts for {n_choices} choices")
    if reply is None or not reply.strip():
        return Extraction(None, "abstain", "empty reply")
    text = _clean(reply)
    if text is None:
        return Extraction(None, "abstain", "only reasoning, no final answer")

    json_answer = _json_answer(text)
    tagged: list[tuple[int, int | str | None]] = []
    if json_answer is not None:
        tagged.append((len(text), _value(json_answer, n_choices, numbered, choices)))
    for pattern in _TAGGED:
        for match in pattern.finditer(text):
            if _NEGATED.search(text[: match.start()]):
                continue
            tagged.append((match.start(), _value(match[1], n_choices, numbered, choices)))
    decided = [(pos, value) for pos, value in tagged if value is not None]
    if decided:
        _, value = max(decided, key=lambda item: item[0])
        if value == "ambiguous":
            return Extraction(None, "abstain", "the final answer names more than one option")
        return Extraction(int(value), "tagged", "explicit answer statement")

    first_line = text.splitlines()[0].strip()
    whole = re.fullmatch(
        r"(?:option|choice|answer)?\s*[\(\[]?\s*([A-Ha-h]|[1-9])\s*[\)\]]?\s*[.!]?",
        text.strip(),
        re.IGNORECASE,
    )
    if whole and (index := _label_index(whole[1], n_choices, numbered)) is not None:
        return Extraction(index, "bare", "the reply is an option label")
    leading = re.match(r"^[\(\[]?([A-H]|[1-9])[\)\]:.]\s+\S", first_line)
    if leading and (index := _label_index(leading[1], n_choices, numbered)) is not None:
        if _marked(first_line, n_choices, numbered) - {index}:
            return Extraction(None, "abstain", "the reply opens with several options")
        return Extraction(index, "leading", "the reply starts with an option label")

    by_text = _text_choice(text, choices)
    if by_text is not None:
        return Extraction(by_text, "option_text", "the reply restates one option's text")

    marked = _marked(text, n_choices, numbered)
    if len(marked) == 1:
        return Extraction(marked.pop(), "single_mention", "exactly one option is mentioned")
    if len(marked) > 1:
        return Extraction(None, "abstain", "several options are mentioned and none is marked as the answer")
    return Extraction(None, "abstain", "no option can be read from the reply")


def _marked(text: str, n_choices: int, numbered: bool) -> set[int]:
    """Options mentioned in marked form, (C) / [C] / C) / option C, unless negated just before."""
    found = set()
    for match in _MARKED.finditer(text):
        token = next(group for group in match.groups() if group)
        index = _label_index(token, n_choices, numbered)
        if index is not None and not _NEGATED.search(text[: match.start()]):
            found.add(index)
    return found


def _json_answer(text: str) -> str | None:
    match = re.search(r"\{[^{}]*\}", text, re.DOTALL)
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
