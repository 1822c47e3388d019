"""The shapes of an option label in a reply, for `_extract`: compiled patterns, the option set
(`Options`) and the two label readers every rule shares (`label_at`, `lone_label`).

A label is a letter or, when options are numbered, a one- or two-digit number. The words around
a final answer, by language, are in `_answer_phrases`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vqakit.scoring import _answer_phrases as phrases

_I = re.IGNORECASE
TOKEN = r"(?:[A-Za-z]|[1-9][0-9]?)"

REASONING = re.compile(r"<(think|thinking|reasoning)>", _I)
EMPHASIS = re.compile(r"\*\*|__|`+|^#+\s*", re.MULTILINE)
# a label in quotes, italics or underscores: "B", *D*, _A_ (read as a marked label, (B))
WRAPPED = re.compile(rf"(?<![A-Za-z0-9])[\"'*_]\s*({TOKEN})\s*[\"'*_](?![A-Za-z0-9])")
# what holds a final answer: \boxed{} (answer tags: `closed_answers`, `unclosed_answer`)
CONTAINERS = [
    re.compile(r"\\boxed\{(?:\s*\\text\{)?([^{}]*)\}", _I),
]
JSON = re.compile(r"\{[^{}]*\}", re.DOTALL)

# a label opening a fragment: "B", "(b)", "option C", "옵션 3"; not glued to a word ("Bob", "X-ray")
LABEL_AT = re.compile(
    rf"\s*(?:(?:{phrases.OPTION_WORDS})\s*)?([(\[]\s*)?({TOKEN})\s*[)\]]?"
    r"(?![A-Za-z0-9]|[-.'’][A-Za-z]|[.,:][0-9])",
    _I,
)
# a whole line that is one label: "B", "(b).", "d:", "Option D", "Bです", "C입니다"
BARE = re.compile(
    rf"\s*(?:(?:{phrases.OPTION_WORDS}|answer)\s*(?::\s*)?)?(?:[(\[]\s*)?({TOKEN})(?:\s*[)\]])?"
    r"(?:\s*(?:です|입니다|이다))?(?:\s*[.!:])?\s*",
    _I,
)
# a label opening a line: "B) text", "d. text", "(3) 00:45", and with no space in CJK ("B.刀")
LINE_LABEL = re.compile(rf"\s*(?:[(\[]\s*)?({TOKEN})\s*(?:[)\]](?=\s+\S)|[:.](?=\s+\S|[^\x00-\x7f]))", _I)
# a bare letter opening a line, then prose: "B because ...", "a, since ...", "C - the kettle"
PROSE_LABEL = re.compile(r"\s*([A-Za-z])(\s*,\s*|\s+[-–—]\s+|\s+)(?=\S)")
# what may follow a bare letter opening a reply for it to be a label: a word the article "a"
# cannot precede ("A because ...", never "a dog"; "B the knife", never "B cells" or "C major");
# after "I", only words the pronoun cannot precede ("I because ...", never "I was")
PROSE_AFTER = re.compile(
    r"(?:because|since|as|seems|appears|looks|fits|matches|describes|shows|is|was|would|should"
    r"|could|might|must\s+be|the|this|these|those|it|its|he|she|they|his|her|their)\b(?![-'’])",
    _I,
)
PROSE_AFTER_I = re.compile(r"(?:because|since|seems|appears|fits|matches|describes|is)\b(?![-'’])", _I)
# a label closing the reply after a comma, semicolon or dash ("..., C." / "...; D" / "... - B"),
# or after "so"/"therefore" ("So, D."); groups: the label in (), in [], bare
CLOSING = re.compile(
    r"(?:(?:[,;]|\s[-–—])\s*(?:(?:so|thus|hence|therefore)\b[\s,:]*)?|^\s*(?:so|thus|hence|therefore)\b[\s,:]*)"
    rf"(?:\(\s*({TOKEN})\s*\)|\[\s*({TOKEN})\s*\]|({TOKEN}))\s*[.!]?\s*\Z",
    _I,
)
# what shows a closing label is one of several: a label just before it ("A, B, C") or one set
# off by commas earlier on the line ("the woman, A, walks to the man, B")
LISTED_LABEL = re.compile(rf"{phrases.LABEL}\s*\Z|(?:^|[,;])\s*{phrases.LABEL}\s*[,;]")
TENTATIVE_END = re.compile(rf"\b(?:{phrases.TENTATIVE})\s*\Z", _I)
INLINE_LABEL = re.compile(r"(?<=\s)([A-Z]|[1-9][0-9]?)[.):](?=\s|\Z)", _I)
MARKED = re.compile(
    rf"(?<![A-Za-z0-9])\(\s*({TOKEN})\s*\)|\[\s*({TOKEN})\s*\]|(?<![A-Za-z0-9(\[])([A-Z])\)"
    rf"|(?i:(?:{phrases.OPTION_WORDS}))\s*(?:[(\[]\s*)?({TOKEN})(?![A-Za-z0-9])"
)


def closed_answers(text: str) -> list[tuple[int, str]]:
    """(start, what is inside) of each `<answer>...</answer>`, in order, in one pass: a regex
    (`<answer>(.*?)</answer>`) scans to the end from every opening tag that is never closed,
    which took 29 s on a reply of 20,000 opening tags."""
    lower, found, at = text.lower(), [], 0
    while (start := lower.find("<answer>", at)) >= 0:
        end = lower.find("</answer>", start + len("<answer>"))
        if end < 0:
            break  # no later opening tag is closed either
        found.append((start, text[start + len("<answer>") : end]))
        at = end + len("</answer>")
    return found


def unclosed_answer(text: str) -> tuple[int, str] | None:
    """(start, what follows) of the last answer tag when no closing tag follows it: `<answer> c`."""
    lower = text.lower()
    start = lower.rfind("<answer>")
    if start < 0 or "</answer>" in lower[start:]:
        return None
    return start, text[start + len("<answer>") :]


# a closing tag, or an answer close that lost its `<`: `</answr>`, `</solution>`, `</ answer>`, `/answer>`
_CLOSING_LIKE = re.compile(r"<\s*/|/\s*answer\s*>", re.IGNORECASE)
_ANSWER_TAG = re.compile(r"</?answer>", re.IGNORECASE)


def answer_tag_problem(text: str) -> str | None:
    """Why the reply's answer tags do not pair up, or None when they do: a `</answer>` that
    closes no `<answer>`, or an `<answer>` left open whose rest holds a closing tag of another
    name or shape (`<answer>B</answr>`, `<answer>B</solution>`, `<answer>B/answer>`)."""
    open_tag = False
    for match in _ANSWER_TAG.finditer(text):
        if match[0][1] != "/":
            open_tag = True  # a second opening before a close: the later one counts, as always
        elif not open_tag:
            return "a closing answer tag closes no opening one"
        else:
            open_tag = False
    unclosed = unclosed_answer(text)
    if unclosed is not None and _CLOSING_LIKE.search(unclosed[1]):
        return "the answer tag is closed by a tag of another name or shape"
    return None


@dataclass(frozen=True)
class Options:
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


def label_at(fragment: str, options: Options) -> tuple[int | None, int] | None:
    """(option index or None, end) when the fragment opens with a label; None when it does not."""
    match = LABEL_AT.match(fragment)
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


def lone_label(line: str, options: Options) -> tuple[int | None] | None:
    """(the option, or None when it names none,) when the line is one label alone; else None."""
    match = BARE.fullmatch(line)
    return (options.index(match[1]),) if match and options.is_label(match[1]) else None


def prose_label(line: str) -> tuple[re.Match[str], bool] | None:
    """(the match, whether prose that reads as an answer follows) of a bare letter opening the
    line before prose: a comma or dash, or a word of `PROSE_AFTER` (`PROSE_AFTER_I` for "I")."""
    match = PROSE_LABEL.match(line)
    if not match:
        return None
    rest = line[match.end() :]
    if match[1] in "Ii":
        return match, bool(PROSE_AFTER_I.match(rest))
    return match, bool(match[2].strip() or PROSE_AFTER.match(rest))
