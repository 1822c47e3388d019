"""The checkable parts of the writing rules, as small pure functions: each returns None when the
text passes, or the reason it fails (`rule NAME: detail`, the drop reason).

Facts must be one sentence, must not open with a pronoun (names instead of pronouns), and may
hold at most one embedded clause; the clause count is a cue-word count (who, which, because,
...), so it can miss clauses but rarely flags a sound fact. Questions must be questions.
"""

from __future__ import annotations

import re

_WORDS = "he she they it his her hers their theirs its him them this these those we i you"
PRONOUNS = frozenset(_WORDS.split())
_CLAUSES = "who whom whose which because although though whereas unless"
CLAUSE_WORDS = frozenset(_CLAUSES.split())
_TITLES = "mr mrs ms dr st jr sr prof capt lt sgt gen col sen rep gov rev fr vs etc no mt ft"
ABBREVIATIONS = frozenset(_TITLES.split())
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z']+")


def normalise(text: str) -> str:
    """Lower-case words only: how repeated facts and questions are recognised."""
    return " ".join(word.lower() for word in _WORD.findall(text))


def sentence_count(text: str) -> int:
    """Sentences in `text`; a full stop after a title or initial ("Dr.", "J.") ends none."""
    count = 1
    for match in _BOUNDARY.finditer(text.strip()):
        before = text[: match.start()].rstrip("\"')]").rstrip(".!?")
        last = before.split()[-1] if before.split() else ""
        if last.lower().strip(".") in ABBREVIATIONS or (len(last) == 1 and last.isupper()):
            continue
        count += 1
    return count


def fact_problem(text: str) -> str | None:
    """Why a fact breaks the rules, or None."""
    text = text.strip()
    if sentence_count(text) > 1:
        return f"rule sentences: {sentence_count(text)} sentences"
    words = _WORD.findall(text)
    if words and words[0].lower() in PRONOUNS:
        return f"rule pronoun: opens with {words[0]!r}"
    clauses = [word for word in words if word.lower() in CLAUSE_WORDS]
    if len(clauses) > 1:
        return f"rule clauses: {len(clauses)} embedded clauses ({', '.join(w.lower() for w in clauses)})"
    return None


def question_problem(text: str) -> str | None:
    """Why a question is not one, or None."""
    if not text.strip().endswith("?"):
        return "not a question: no question mark"
    return None


def names_kept(verbose: str, simple: str) -> list[str]:
    """Capitalised words of the verbose question (not its first word) still in the simplified
    one: names the simplification was asked to remove."""
    words = _WORD.findall(verbose)[1:]
    names = {word for word in words if word[:1].isupper() and word.lower() not in PRONOUNS}
    found = set(_WORD.findall(simple))
    return sorted(names & found)
