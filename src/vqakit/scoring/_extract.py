"""Which option a free-text reply chose, by rules, or nothing when the reply does not say.

One extractor serves every benchmark. Labels are letters (A..Z, up to 26 options, or a sparse
set such as `letters="ACXZ"`) or, with `numbered=True` (as Minerva-Ego prints options), numbers
1..N; letters are also read in numbered mode, by position. Lower-case labels count (`d. a cup`).

Before the rules, reasoning blocks (`<think>`, `<thinking>`, `<reasoning>`) are removed (only an
unclosed one: abstain); full-width forms are folded to ASCII (`Ｂ`, `（C）`, `答案：B`); markdown
marks are removed and a label in quotes, italics or underscores (`"B"`, `*D*`, `_A_`) counts as
marked, like `(B)`. **An echo is not an answer**: lines listing the options in order from the
first (`A. red` / `B. blue` ...) are dropped, so a reply that only echoes them abstains.

Rules, tried in this order (the first that decides wins, an abstention included):

1. `tagged`: explicit final-answer statements: `<answer>B</answer>`, `\\boxed{B}`, JSON
   `{"answer": "B"}` (which, when present, alone decides), `Answer: B`, `the (correct|best)
   answer is B`, `I (choose|pick|select|'ll go with) B`, `B is correct`, `not B but C`, and the
   Chinese, Japanese and Korean phrases of `_answer_phrases` (`答案是B`, `选B`, `答えはBです`,
   `Bが正解`, `정답은 B입니다`, `B를 선택합니다`). **The last explicit final answer wins**, so a
   self-correction counts. **An invalid final answer abstains** instead of falling back to an
   earlier option: a label that is no option (`Answer: F` with four options), an empty or
   optionless answer tag, `\\boxed{}`, JSON naming nothing, or two options (`A or C`).
   A statement whose value is free text naming no option (`the answer is in the clip`) is no
   statement. Statements right after a negation (`not`, `不是`) or right before one (`B가
   아니라`, `Bではありません`) are skipped.
2. `bare`: the whole reply is one label: `B`, `(b)`, `"C"`, `Option D`, `Bです`, `C입니다`.
3. `last_line` (or `leading`): a line of its own is a label, after reasoning (`last_line`) or
   before an explanation (`leading`); label lines naming different options abstain.
4. `leading`: the first line starts with a label and text: `B) the knife`, `d. a red cup`,
   `(3) 00:45`; several labels on that line (an inline echo) abstain.
5. `option_text`: the reply is, or contains, exactly one option's text (case and punctuation
   aside; the most specific when one option's text contains another's).
6. `single_mention`: exactly one option is mentioned in marked form (`(C)`, `C)`, `[C]`,
   `option C`, `选项C`, `選択肢C`, `보기 C`), negated mentions (`not (B)`, `(B) is wrong`) aside.

A label outside the options where a rule expects one abstains (a bare `F` with four options).
Guards: `A` followed by lower-case words is the article and `I` followed by a verb the pronoun;
a letter glued to others (`Bob`, `X-ray`, `e.g.`) is no label. The extractor never guesses:
anything else is an abstention with a reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from vqakit.scoring import _answer_phrases as phrases
from vqakit.scoring._labels import LETTERS

_I = re.IGNORECASE
_REASONING = re.compile(r"<(think|thinking|reasoning)>", _I)
_EMPHASIS = re.compile(r"\*\*|__|`+|^#+\s*", re.MULTILINE)
_TOKEN = r"(?:[A-Za-z]|[1-9][0-9]?)"
_WRAPPED = re.compile(rf"(?<![A-Za-z0-9])[\"'*_]\s*({_TOKEN})\s*[\"'*_](?![A-Za-z0-9])")
_CONTAINERS = [
    re.compile(r"<answer>(.*?)</answer>", _I | re.DOTALL),
    re.compile(r"\\boxed\{(?:\s*\\text\{)?([^{}]*)\}", _I),
]
_LABEL_AT = re.compile(
    rf"\s*(?:(?:{phrases.OPTION_WORDS})\s*)?([(\[]\s*)?({_TOKEN})\s*[)\]]?"
    r"(?![A-Za-z0-9]|[-.'’][A-Za-z]|[.,:][0-9])",
    _I,
)
_BARE = re.compile(
    rf"\s*(?:(?:{phrases.OPTION_WORDS}|answer)\s*(?::\s*)?)?(?:[(\[]\s*)?({_TOKEN})(?:\s*[)\]])?"
    r"(?:\s*(?:です|입니다|이다))?(?:\s*[.!])?\s*",
    _I,
)
# a label opening a line: "B) text", "d. text", "(3) 00:45", and with no space in CJK ("B.刀")
_LINE_LABEL = re.compile(rf"\s*(?:[(\[]\s*)?({_TOKEN})\s*(?:[)\]](?=\s+\S)|[:.](?=\s+\S|[^\x00-\x7f]))", _I)
_INLINE_LABEL = re.compile(r"(?<=\s)([A-Z]|[1-9][0-9]?)[.)]\s", _I)
_MARKED = re.compile(
    rf"(?<![A-Za-z0-9])\(\s*({_TOKEN})\s*\)|\[\s*({_TOKEN})\s*\]|(?<![A-Za-z0-9(\[])([A-Z])\)"
    rf"|(?i:(?:{phrases.OPTION_WORDS}))\s*(?:[(\[]\s*)?({_TOKEN})(?![A-Za-z0-9])"
)
_JSON = re.compile(r"\{[^{}]*\}", re.DOTALL)


@dataclass(frozen=True)
class Extraction:
    choice: int | None  # 0-based option index, None when abstaining
    rule: str  # which rule decided, or "abstain"
    reason: str  # why, in words (for reports)
    labels: str = field(default=LETTERS, repr=False)  # the option labels, `letter` reads them

    @property
    def letter(self) -> str | None:
        return None if self.choice is None else self.labels[self.choice]


@dataclass(frozen=True)
class _Options:
    labels: str
    numbered: bool
    choices: list[str] | None

    def is_label(self, token: str) -> bool:
        """Whether a token can be a label: a letter, or in numbered mode a number."""
        return self.numbered or not token.isdigit()

    def index(self, token: str) -> int | None:
        """The option a label token names, or None when it names none."""
        if token.isdigit():
            number = int(token)
            return number - 1 if self.numbered and 1 <= number <= len(self.labels) else None
        token = token.upper()
        return self.labels.index(token) if token in self.labels else None


def _abstain(reason: str) -> Extraction:
    return Extraction(None, "abstain", reason)


def extract_choice(
    reply: str | None,
    n_choices: int,
    *,
    choices: list[str] | None = None,
    numbered: bool = False,
    letters: str | None = None,
) -> Extraction:
    """The option a reply chose among `n_choices` (2..26), or an abstention with its reason.

    `letters` are the labels the options were shown with when not A, B, C.. (`"ACXZ"`); the
    choice is then an index into them. `choices` are the option texts, for replies that restate one.
    """
    if not 2 <= n_choices <= len(LETTERS):
        raise ValueError(f"n_choices must be between 2 and {len(LETTERS)}, got {n_choices}")
    if choices is not None and len(choices) != n_choices:
        raise ValueError(f"{len(choices)} choice texts for {n_choices} choices")
    labels = LETTERS[:n_choices] if letters is None else letters.upper()
    if len(labels) != n_choices or len(set(labels)) != n_choices or not set(labels) <= set(LETTERS):
        raise ValueError(f"letters must be {n_choices} different letters A-Z, got {letters!r}")
    if reply is None or not reply.strip():
        return _abstain("empty reply")
    text = _clean(reply)
    if text is None:
        return _abstain("only reasoning, no final answer")
    options = _Options(labels, numbered, choices)
    json_answer = _json_answer(text)
    if json_answer is not None:
        result = _decide(_contained(json_answer, options), "the JSON answer")
    else:
        wrapped = _WRAPPED.sub(r"(\1)", text)
        body = _drop_echo(wrapped, options)
        if not body.strip():
            return _abstain("the reply only repeats the option list")
        result = _read(body, options)
        if result.choice is None and body != wrapped and result.reason.startswith("no option"):
            result = _abstain("the reply repeats the option list and chooses none")
    return replace(result, labels=labels)


def _read(text: str, options: _Options) -> Extraction:
    """The rules in their priority order; the first that decides (or abstains) wins."""
    for rule in (_tagged, _bare, _label_lines, _leading, _option_text, _single_mention):
        found = rule(text, options)
        if found is not None:
            return found
    return _abstain("no option can be read from the reply")


def _clean(reply: str) -> str | None:
    """The reply without reasoning blocks (cut at an unclosed one), folded, without emphasis."""
    kept, lower, start = [], reply.lower(), 0
    while opening := _REASONING.search(reply, start):
        kept.append(reply[start : opening.start()])
        closing = lower.find(f"</{opening[1].lower()}>", opening.end())
        if closing < 0:
            start = len(reply)
            break
        kept.append(" ")
        start = closing + len(opening[1]) + 3
    text = ("".join(kept) + reply[start:]).replace("</think>", " ").translate(phrases.FOLD)
    text = _EMPHASIS.sub("", text)
    return text.strip() or None


def _decide(value: int | str, what: str) -> Extraction:
    """The outcome of the deciding statement: its option, or an abstention when it is invalid."""
    if value == "ambiguous":
        return _abstain(f"{what} names more than one option")
    if value == "invalid":
        return _abstain(f"{what} names no valid option")
    return Extraction(int(value), "tagged", f"{what} names it")


def _tagged(text: str, options: _Options) -> Extraction | None:
    """The last explicit final answer, or an abstention when that one is invalid."""
    found: list[tuple[int, int | str]] = []
    for pattern in _CONTAINERS:
        found += [(m.start(), _contained(m[1], options)) for m in pattern.finditer(text)]
    for m in phrases.ANSWER_AFTER.finditer(text):
        if not _negated_before(text, m.start()) and (value := _value(m[1], options)) is not None:
            found.append((m.start(1), value))
    for m in phrases.ANSWER_BEFORE.finditer(text):
        if _negated_before(text, m.start()) or phrases.NEGATED_AFTER.match(text, m.end()):
            continue
        label = _label_at(m[1], options)
        if label is not None:
            joined = phrases.JOINED_BEFORE.search(text, max(0, m.start() - 20), m.start())
            found.append((m.start(1), "ambiguous" if joined else _valid(label[0])))
    if not found:
        return None
    return _decide(max(found, key=lambda item: item[0])[1], "the final answer")


def _negated_before(text: str, start: int) -> bool:
    """Whether a negation ("not", "rule out", "不是") stands just before `start`."""
    return phrases.NEGATED_BEFORE.search(text, max(0, start - 40), start) is not None


def _valid(index: int | None) -> int | str:
    return "invalid" if index is None else index


def _contained(content: str, options: _Options) -> int | str:
    """What an answer tag, `\\boxed{}` or JSON answer holds; anything but one option is invalid."""
    content = _WRAPPED.sub(r"(\1)", content.strip().translate(phrases.FOLD))
    if not content:
        return "invalid"
    value = _value(content, options)
    if value is None:
        value = _read(content, options).choice
    return "invalid" if value is None else value


def _value(fragment: str, options: _Options) -> int | str | None:
    """The option a statement's value names: an index, "ambiguous", "invalid" (a label that is no
    option) or None (free text naming no option, or a negated label: no statement)."""
    fragment = phrases.HEDGE.sub("", fragment.strip().strip("\"'"), count=1)
    label = _label_at(fragment, options)
    if label is None:
        return _text_choice(fragment, options.choices)
    index, end = label
    rest = fragment[end:]
    if phrases.NEGATED_AFTER.match(rest):
        return None
    joined = phrases.SECOND_LABEL.match(rest)
    if joined and (other := _label_at(rest[joined.end() :], options)) and other[0] not in (None, index):
        return "ambiguous"
    return _valid(index)


def _label_at(fragment: str, options: _Options) -> tuple[int | None, int] | None:
    """(option index or None, end) when the fragment opens with a label; None when it does not."""
    match = _LABEL_AT.match(fragment)
    if not match:
        return None
    token, rest = match[2], fragment[match.end() :]
    if not options.is_label(token):
        return None  # in letter mode a number is text ("12 seconds")
    if not match[1] and (
        (token in "Aa" and phrases.ARTICLE.match(rest)) or (token in "Ii" and phrases.PRONOUN.match(rest))
    ):
        return None  # the article "a", the pronoun "I"
    return options.index(token), match.end()


def _lone_label(line: str, options: _Options) -> tuple[int | None] | None:
    """(the option, or None when it names none,) when the line is one label alone; else None."""
    match = _BARE.fullmatch(line)
    return (options.index(match[1]),) if match and options.is_label(match[1]) else None


def _bare(text: str, options: _Options) -> Extraction | None:
    label = _lone_label(text, options)
    if label is None:
        return None
    if label[0] is None:
        return _abstain("the reply is a label that is no option")
    return Extraction(label[0], "bare", "the reply is an option label")


def _label_lines(text: str, options: _Options) -> Extraction | None:
    """A label on a line of its own, after reasoning (last_line) or before an explanation."""
    lines = [line for line in text.splitlines() if line.strip()]
    found = {number: label[0] for number, line in enumerate(lines) if (label := _lone_label(line, options))}
    if not found:
        return None
    if len(set(found.values())) > 1:
        return _abstain("several lines are option labels")
    index = next(iter(found.values()))
    if len(lines) - 1 in found:
        if index is None:
            return _abstain("the last line is a label that is no option")
        return Extraction(index, "last_line", "the last line is an option label")
    if 0 in found and index is not None:
        return Extraction(index, "leading", "the first line is an option label")
    return None


def _leading(text: str, options: _Options) -> Extraction | None:
    first_line = text.strip().splitlines()[0]
    match = _LINE_LABEL.match(first_line)
    if not match or not options.is_label(match[1]):
        return None
    index = options.index(match[1])
    if index is None:
        return _abstain("the reply opens with a label that is no option")
    if phrases.NEGATED_AFTER.match(first_line, match.end()):
        return None  # "(B) is wrong, ..."
    inline = {options.index(m[1]) for m in _INLINE_LABEL.finditer(first_line)} - {None}
    if (_marked(first_line, options, negated=True) | inline) - {index}:
        return _abstain("the reply opens with several options")
    return Extraction(index, "leading", "the reply starts with an option label")


def _option_text(text: str, options: _Options) -> Extraction | None:
    by_text = _text_choice(text, options.choices)
    if by_text is None:
        return None
    return Extraction(by_text, "option_text", "the reply restates one option's text")


def _single_mention(text: str, options: _Options) -> Extraction | None:
    marked = _marked(text, options)
    if len(marked) == 1:
        return Extraction(marked.pop(), "single_mention", "exactly one option is mentioned")
    if marked:
        return _abstain("several options are mentioned and none is marked as the answer")
    return None


def _marked(text: str, options: _Options, *, negated: bool = False) -> set[int]:
    """Options mentioned in marked form, (C) / [C] / C) / option C, unless negated around them
    (`negated=True` keeps those too)."""
    found = set()
    for match in _MARKED.finditer(text):
        index = options.index(next(group for group in match.groups() if group))
        if not negated and (
            _negated_before(text, match.start()) or phrases.NEGATED_AFTER.match(text, match.end())
        ):
            continue
        if index is not None:
            found.add(index)
    return found


def _drop_echo(text: str, options: _Options) -> str:
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
            match = _LINE_LABEL.match(lines[number])
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
        i
        for i, option in enumerate(options)
        if option and re.search(rf"(?<![a-z0-9]){re.escape(option)}(?![a-z0-9])", said)
    ]
    # a longer option may contain a shorter one ("red" / "dark red"): keep the most specific
    inside = [i for i in inside if not any(j != i and options[i] in options[j] for j in inside)]
    return inside[0] if len(inside) == 1 else None


def _json_answer(text: str) -> str | None:
    match = _JSON.search(text)
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
