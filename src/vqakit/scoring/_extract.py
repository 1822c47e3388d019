"""Which option a free-text reply chose, by rules, or nothing when the reply does not say.

One extractor serves every benchmark. Labels are letters (A..Z, 1 to 26 options, or a sparse
set such as `letters="ACXZ"`; a one-option alphabet is read like any other, its one label or
nothing) or, with `numbered=True` (as Minerva-Ego prints options), numbers 1..N; letters are also
read in numbered mode, by position. Lower-case labels count (`d. a cup`, `d:`).

Before the rules, reasoning blocks (`<think>`, `<thinking>`, `<reasoning>`) are removed (only an
unclosed one: abstain); full-width forms are folded to ASCII (`Ｂ`, `（C）`, `答案：B`); markdown
marks are removed and a label in quotes, italics or underscores (`"B"`, `*D*`, `_A_`) counts as
marked, like `(B)`. **An echo is not an answer**: lines listing the options in order from the
first (`A. red` / `B. blue` ...) are dropped, so a reply that only echoes them abstains.

Rules, tried in this order (the first that decides wins, an abstention included):

1. `tagged`: explicit final-answer statements: `<answer>B</answer>`, an answer tag never closed
   (`<answer> c`: what follows it), `\\boxed{B}`, JSON `{"answer": "B"}` (which, when present,
   alone decides), `Answer: B`, `the (correct|best) answer is B`, `I (choose|pick|select|'ll go
   with) B`, `B is correct`, `C seems (to be) right`, `not B but C`, and the Chinese, Japanese
   and Korean phrases of `_answer_phrases` (`答案是B`, `选B`, `答えはBです`, `Bが正解`, `정답은
   B입니다`, `B를 선택합니다`). **The last explicit final answer wins**, so a self-correction
   counts. **An invalid final answer abstains** instead of falling back to an earlier option: a
   label that is no option (`Answer: F` with four options), an empty or optionless answer tag,
   `\\boxed{}`, JSON naming nothing, two options (`A or C`, `B (or C)`, `B, or maybe C`), or
   a value that takes the answer back (`Answer: unknown`, `final answer: I cannot tell`). A
   statement whose value is free text naming no option (`the answer is in the clip`) is no
   statement. Statements right after a negation (`not`, `不是`) or right before one (`B가
   아니라`, `Bではありません`) are skipped. **Answer tags must pair up**: a `</answer>` that
   closes no `<answer>` (`<answr>B</answer>`, `B.</answer>`), or an open `<answer>` closed by
   a tag of another name or shape (`<answer>B</solution>`, `<answer>B</ answer>`), abstains.
2. `bare`: the whole reply is one label: `B`, `(b)`, `"C"`, `d:`, `Option D`, `옵션 C`, `Bです`.
3. `last_line` (or `leading`): a line of its own is a label, after reasoning (`last_line`) or
   before an explanation (`leading`); label lines naming different options abstain.
4. `trailing`: the last line closes with a label after a comma, semicolon or dash, or after
   "so"/"therefore" (`..., C.`, `...; D`, `So, B.`); not after a colon (`the sign says: X`),
   not one of a list (`A, B, C`); one that disagrees with a label opening the reply abstains.
5. `leading`: the first line starts with a label and text: `B) the knife`, `d. a red cup`,
   `(3) 00:45`, or a bare letter then prose: `B because ...`, `a, since ...`, `C - the kettle`.
   Before prose, a letter counts only before a comma or dash, its own option's text, or a word
   the article "a" cannot precede (`because`, `seems`, `is`, `the`: `a because ...`, never
   `a dog is shown`, `B cells ...`); `I` only before a word the pronoun cannot precede
   (`I because ...`, never `I was ...`). Several labels on that line (`a, b and c ...`, an
   inline echo) abstain.
6. `option_text`: the reply is, or contains, exactly one option's text (case and punctuation
   aside; the most specific when one option's text contains another's).
7. `single_mention`: exactly one option is mentioned in marked form (`(C)`, `C)`, `[C]`,
   `option C`, `选项C`, `選択肢C`, `보기 C`, `옵션 C`), negated mentions (`not (B)`, `(B) is
   wrong`) aside.

**A reply that does not commit abstains**, whichever rule read an option: one that takes the
answer back after it ("(B) seems possible. Final answer: I cannot tell", "B. Actually, none of
the options fit": words of `_answer_phrases.WITHDRAWALS` with no option read after them; "I
can't tell for sure, but the answer is B" commits), and one that offers a second option beside
it ("B; it could also be C", "B (C is also possible)"). A hedge on one option ("the answer is
B, though I cannot be certain") commits.

A label outside the options where a rule expects one abstains (a bare `F` with four options).
Guards: `A` followed by lower-case words is the article and `I` followed by a verb the pronoun;
a letter glued to others (`Bob`, `X-ray`, `e.g.`) is no label. The extractor never guesses:
anything else is an abstention with a reason. The label patterns are in `_extract_patterns`,
the reply's preparation and option-text matching in `_extract_text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from vqakit.scoring import _answer_phrases as phrases
from vqakit.scoring._extract_patterns import (
    CLOSING,
    CONTAINERS,
    INLINE_LABEL,
    LINE_LABEL,
    LISTED_LABEL,
    MARKED,
    TENTATIVE_END,
    WRAPPED,
    Options,
    answer_tag_problem,
    closed_answers,
    label_at,
    lone_label,
    prose_label,
    unclosed_answer,
)
from vqakit.scoring._extract_text import clean, drop_echo, json_answer, text_choice
from vqakit.scoring._labels import LETTERS


@dataclass(frozen=True)
class Extraction:
    choice: int | None  # 0-based option index, None when abstaining
    rule: str  # which rule decided, or "abstain"
    reason: str  # why, in words (for reports)
    labels: str = field(default=LETTERS, repr=False)  # the option labels, `letter` reads them

    @property
    def letter(self) -> str | None:
        return None if self.choice is None else self.labels[self.choice]


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
    """The option a reply chose among `n_choices` (1..26), or an abstention with its reason.

    `letters` are the labels the options were shown with when not A, B, C.. (`"ACXZ"`); the
    choice is then an index into them. `choices` are the option texts, for replies that restate one.
    """
    if not 1 <= n_choices <= len(LETTERS):
        raise ValueError(f"n_choices must be between 1 and {len(LETTERS)}, got {n_choices}")
    if choices is not None and len(choices) != n_choices:
        raise ValueError(f"{len(choices)} choice texts for {n_choices} choices")
    labels = LETTERS[:n_choices] if letters is None else letters.upper()
    if len(labels) != n_choices or len(set(labels)) != n_choices or not set(labels) <= set(LETTERS):
        raise ValueError(f"letters must be {n_choices} different letters A-Z, got {letters!r}")
    if reply is None or not reply.strip():
        return _abstain("empty reply")
    text = clean(reply)
    if text is None:
        return _abstain("only reasoning, no final answer")
    options = Options(labels, numbered, choices)
    in_json = json_answer(text)
    if in_json is not None:
        result = _decide(_contained(in_json, options), "the JSON answer")
    else:
        wrapped = WRAPPED.sub(r"(\1)", text)
        body = drop_echo(wrapped, options)
        if not body.strip():
            return _abstain("the reply only repeats the option list")
        result = _read(body, options)
        if result.choice is None and body != wrapped and result.reason.startswith("no option"):
            result = _abstain("the reply repeats the option list and chooses none")
        elif result.choice is not None and (withdrawn := _withdrawal(body, options)) is not None:
            result = _abstain(f"the reply takes its answer back ({withdrawn!r})")
        elif result.choice is not None and _alternative(body, options, result.choice):
            result = _abstain("the reply gives a second answer beside the first")
    return replace(result, labels=labels)


def _alternative(text: str, options: Options, choice: int) -> bool:
    """Whether the reply offers another option beside its answer ("B; it could also be C")."""
    for match in phrases.ALTERNATIVE.finditer(text):
        label = label_at(match[1] or match[2], options)
        if label is not None and label[0] is not None and label[0] != choice:
            return True
    return False


def _withdrawal(text: str, options: Options) -> str | None:
    """The words with which a reply takes its answer back ("final answer: I cannot tell", "none
    of the options"), when no option is read after them; None when there are none or an answer
    follows them ("I can't tell for sure, but the answer is B")."""
    last = next(reversed(list(phrases.WITHDRAWN.finditer(text))), None)
    if last is None or _read(text[last.end() :], options).choice is not None:
        return None
    return last[0]


def _read(text: str, options: Options) -> Extraction:
    """The rules in their priority order; the first that decides (or abstains) wins."""
    for rule in (_tagged, _bare, _label_lines, _trailing, _leading, _option_text, _single_mention):
        found = rule(text, options)
        if found is not None:
            return found
    return _abstain("no option can be read from the reply")


def _decide(value: int | str, what: str) -> Extraction:
    """The outcome of the deciding statement: its option, or an abstention when it is invalid."""
    if value == "ambiguous":
        return _abstain(f"{what} names more than one option")
    if value == "invalid":
        return _abstain(f"{what} names no valid option")
    if value == "withdrawn":
        return _abstain(f"{what} takes the answer back")
    return Extraction(int(value), "tagged", f"{what} names it")


def _tagged(text: str, options: Options) -> Extraction | None:
    """The last explicit final answer, or an abstention when that one is invalid or the answer
    tags do not pair up."""
    problem = answer_tag_problem(text)
    if problem is not None:
        return _abstain(problem)
    found: list[tuple[int, int | str]] = [
        (start, _contained(inside, options)) for start, inside in closed_answers(text)
    ]
    for pattern in CONTAINERS:
        found += [(m.start(), _contained(m[1], options)) for m in pattern.finditer(text)]
    if unclosed := unclosed_answer(text):
        found.append((unclosed[0], _contained(unclosed[1], options)))
    for m in phrases.ANSWER_AFTER.finditer(text):
        if not _negated_before(text, m.start()) and (value := _value(m[1], options)) is not None:
            found.append((m.start(1), value))
    for m in phrases.ANSWER_BEFORE.finditer(text):
        if _negated_before(text, m.start()) or phrases.NEGATED_AFTER.match(text, m.end()):
            continue
        label = label_at(m[1], options)
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


def _contained(content: str, options: Options) -> int | str:
    """What an answer tag, `\\boxed{}` or JSON answer holds; anything but one option is invalid."""
    content = WRAPPED.sub(r"(\1)", content.strip().translate(phrases.FOLD))
    if not content:
        return "invalid"
    value = _value(content, options)
    if value is None:
        value = _read(content, options).choice
    return "invalid" if value is None else value


def _value(fragment: str, options: Options) -> int | str | None:
    """The option a statement's value names: an index, "ambiguous", "invalid" (a label that is no
    option), "withdrawn" ("unknown", "I cannot tell") or None (free text naming no option, or a
    negated label: no statement)."""
    fragment = phrases.HEDGE.sub("", fragment.strip().strip("\"'"), count=1)
    if phrases.WITHDRAWN_VALUE.match(fragment):
        return "withdrawn"
    label = label_at(fragment, options)
    if label is None:
        return text_choice(fragment, options.choices)
    index, end = label
    rest = fragment[end:]
    if phrases.NEGATED_AFTER.match(rest):
        return None
    joined = phrases.SECOND_LABEL.match(rest)
    if joined and (other := label_at(rest[joined.end() :], options)) and other[0] not in (None, index):
        return "ambiguous"
    return _valid(index)


def _bare(text: str, options: Options) -> Extraction | None:
    label = lone_label(text, options)
    if label is None:
        return None
    if label[0] is None:
        return _abstain("the reply is a label that is no option")
    return Extraction(label[0], "bare", "the reply is an option label")


def _label_lines(text: str, options: Options) -> Extraction | None:
    """A label on a line of its own, after reasoning (last_line) or before an explanation."""
    lines = [line for line in text.splitlines() if line.strip()]
    found = {number: label[0] for number, line in enumerate(lines) if (label := lone_label(line, options))}
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


def _trailing(text: str, options: Options) -> Extraction | None:
    """A label closing the last line after a comma, semicolon, dash or "so" (`..., C.`)."""
    last = [line for line in text.splitlines() if line.strip()][-1]
    match = CLOSING.search(last)
    if not match:
        return None
    token = match[1] or match[2] or match[3]
    if not options.is_label(token) or (token.isdigit() and match[3]):
        return None  # a number closes a count ("1, 2, 3") unless marked: "(3)"
    before = last[: match.start()]
    if LISTED_LABEL.search(before) or TENTATIVE_END.search(before):
        return None  # one of several labels ("A, B, C", "the woman, A, ... the man, B"), "Perhaps, D"
    index = options.index(token)
    if index is None:
        return _abstain("the reply ends with a label that is no option")
    opening = _leading(text, options)
    if opening is not None and opening.choice != index:
        return _abstain("the reply opens with one option and ends with another")
    return Extraction(index, "trailing", "the reply ends with an option label")


def _leading(text: str, options: Options) -> Extraction | None:
    """A label opening the first line, before text (`B) the knife`) or prose (`B because`)."""
    first_line = text.strip().splitlines()[0]
    match = LINE_LABEL.match(first_line)
    prose = None if match else _prose_label(first_line, options)
    match = match or prose
    if not match or not options.is_label(match[1]):
        return None
    index = options.index(match[1])
    if index is None:
        return None if prose else _abstain("the reply opens with a label that is no option")
    if phrases.NEGATED_AFTER.match(first_line, match.end(1) if prose else match.end()):
        return None  # "(B) is wrong, ...", "B is wrong because ..."
    if prose and (joined := phrases.SECOND_LABEL.match(first_line, match.end(1))):
        other = label_at(first_line[joined.end() :], options)
        if other is not None and other[0] != index:
            return _abstain("the reply opens with several options")  # "B and C both ..."
    inline = {options.index(m[1]) for m in INLINE_LABEL.finditer(first_line)} - {None}
    if (_marked(first_line, options, negated=True) | inline) - {index}:
        return _abstain("the reply opens with several options")
    return Extraction(index, "leading", "the reply starts with an option label")


def _prose_label(line: str, options: Options) -> re.Match[str] | None:
    """A bare letter opening the line, when the prose after it reads as an answer's (`B because`,
    `a, since`) or restates that option's text (`C a wooden spoon`)."""
    found = prose_label(line)
    if found is None:
        return None
    match, reads_as_answer = found
    if reads_as_answer:
        return match
    index = options.index(match[1])
    restated = text_choice(line[match.end() :], options.choices)
    return match if index is not None and restated == index else None


def _option_text(text: str, options: Options) -> Extraction | None:
    by_text = text_choice(text, options.choices)
    if by_text is None:
        return None
    return Extraction(by_text, "option_text", "the reply restates one option's text")


def _single_mention(text: str, options: Options) -> Extraction | None:
    marked = _marked(text, options)
    if len(marked) == 1:
        return Extraction(marked.pop(), "single_mention", "exactly one option is mentioned")
    if marked:
        return _abstain("several options are mentioned and none is marked as the answer")
    return None


def _marked(text: str, options: Options, *, negated: bool = False) -> set[int]:
    """Options mentioned in marked form, (C) / [C] / C) / option C, unless negated around them
    (`negated=True` keeps those too)."""
    found = set()
    for match in MARKED.finditer(text):
        index = options.index(next(group for group in match.groups() if group))
        if not negated and (
            _negated_before(text, match.start()) or phrases.NEGATED_AFTER.match(text, match.end())
        ):
            continue
        if index is not None:
            found.add(index)
    return found
