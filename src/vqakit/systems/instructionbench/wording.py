"""The paper's wording rules for generated question-answer pairs, as validators that name the
rule a pair breaks, so the generator can reject it and tell the model what to fix.

The annotations never cover a whole video, so a pair must not claim absolute positions; it must
read as if someone watched the video (no annotation jargon, no clock times or durations); and in
third-person videos the actors are unknown, so no pronoun may stand for them.

Decisions on borderline words (each one tested):
- ordinals: "first-person", "first aid", "not only", "a second coat", "a third of", "end up",
  "the other end" and plural "ends" pass; "at the end", "the end of the rope" and "at the start"
  do not. "finally" closes a listed sequence in an answer and passes there, but not in a question.
- actors: he/she forms always fail; "they" fails unless it is the subject of a passive or a state
  ("they are boiled", "they were golden"); "their" fails; "them" passes (mostly objects). Third
  person: I/me/my/we/us/our/you/your fail too. First person: "the person", "the individual",
  "the user", "the wearer" fail (the actor is "I" in questions and "you" in answers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from vqakit.systems.instructionbench.video_info import Perspective

Field = Literal["question", "answer"]
MAX_ANSWER_WORDS = 20  # answers must stay under this many words

RULES: dict[str, str] = {
    "ordinal": "uses an absolute position word (the annotations never cover the whole video)",
    "jargon": "names the annotations (step, action, video info) instead of what is seen",
    "time": "gives a clock time or a duration",
    "actor": "uses a pronoun or label for an actor the viewer cannot know",
    "answer_length": f"has {MAX_ANSWER_WORDS} words or more (answers stay under {MAX_ANSWER_WORDS})",
}

_I = re.IGNORECASE
_ORDINALS = [
    re.compile(r"\bfirst(?:ly)?\b(?![- ](?:person|hand|aid)\b)", _I),
    re.compile(r"\blast(?:ly)?\b", _I),
    re.compile(r"(?<!\bnot )\bonly\b", _I),
    re.compile(r"\bbeginning\b", _I),
    re.compile(r"\b(?:at|from|in) the (?:very )?start\b|\bthe (?:very )?start of\b", _I),
    re.compile(r"\bfinal\b", _I),
    re.compile(r"\binitial(?:ly)?\b", _I),
    re.compile(r"\b\d+(?:st|nd|rd|th)\b", _I),
    # "a second coat", "one third of": another one or a fraction, not a position
    re.compile(
        r"(?<!\ba )(?<!\bone )\b(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\b"
        r"(?![- ](?:person|hand)\b)",
        _I,
    ),
    # "end up" and physical ends ("the other end", plural "ends") pass
    re.compile(
        r"(?<!\bother )(?<!\bone )(?<!\beither )(?<!\beach )(?<!\bopposite )(?<!\bloose )(?<!\bfree )"
        r"(?<!\bfar )(?<!\bcut )(?<!\bsharp )(?<!\bpointed )\bend\b(?! up\b)",
        _I,
    ),
]
_FINALLY = re.compile(r"\bfinally\b", _I)
_JARGON = re.compile(
    r"\b(?:sub-?)?steps?\b(?![- ]?(?:ladder|stool)\b)|\b(?:sub-?)?actions?\b"
    r"|\bvideo[ _-]?info(?:rmation)?\b|\bannotations?\b|\bannotated\b",
    _I,
)
_TIME = [
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b"),
    re.compile(r"\b\d+(?:\.\d+)?\s*(?:s|secs?|seconds?|mins?|minutes?|hrs?|hours?)\b", _I),
    re.compile(r"\b(?:seconds|minutes|hours|secs|mins|hrs)\b", _I),
    re.compile(r"\b(?:an?|one|half an?|per)\s+(?:minute|hour)\b", _I),
    re.compile(r"\btime[ -]?stamps?\b|\btime intervals?\b|\bdurations?\b", _I),
]
_GENDERED = re.compile(r"\b(?:he|she|him|his|her|hers|himself|herself)\b", _I)
_THEY = re.compile(r"\bthey\b", _I)
_THEIR = re.compile(r"\b(?:their|theirs|themselves)\b", _I)
# "they are boiled", "they're golden": "they" as the subject of a passive or a state names objects
_STATE_AFTER = re.compile(r"(?:\s+(?:are|were|have been|had been|become|became)|['’]re)\s+(\w+)", _I)
_WORD_AFTER = re.compile(r"\s+(\w+)")
_SPEAKERS = re.compile(
    r"\b(?:me|my|mine|myself|we|us|our|ours|ourselves|you|your|yours|yourself|yourselves)\b", _I
)
_I_PRONOUN = re.compile(r"\bI\b")  # case-sensitive: "I", "I'm", "I've"
_OBSERVER = re.compile(r"\bthe (?:person|individual|user|wearer|camera wearer)\b", _I)


@dataclass(frozen=True)
class Violation:
    """One broken rule: which (a key of `RULES`), in which field, and the words that broke it."""

    rule: str
    field: Field
    found: str

    @property
    def reason(self) -> str:
        return f"{self.field} {RULES[self.rule]}: {self.found!r}"


def _hits(patterns: list[re.Pattern[str]], text: str) -> list[str]:
    return [match.group(0) for pattern in patterns for match in pattern.finditer(text)]


def absolute_ordinals(text: str, *, question: bool = True) -> list[str]:
    """Absolute position words ("first", "last", "only", "beginning", "end", ...)."""
    found = _hits(_ORDINALS, text)
    return found + (_hits([_FINALLY], text) if question else [])


def jargon(text: str) -> list[str]:
    """Words about the annotations rather than the video: step(s), action(s), video info, ..."""
    return _hits([_JARGON], text)


def time_mentions(text: str) -> list[str]:
    """Clock times ("12:30"), durations ("45 s", "3 minutes", "a minute") and time jargon."""
    return _hits(_TIME, text)


def _actor_they(text: str) -> list[str]:
    """Each "they" that stands for actors: not "they are boiled" nor "where are they placed"
    (a passive or a state), but "they cut" and "what are they cutting"."""
    found = []
    for match in _THEY.finditer(text):
        state = _STATE_AFTER.match(text, match.end())
        inverted = text[: match.start()].split()[-1:] in (["are"], ["were"], ["Are"], ["Were"])
        following = _WORD_AFTER.match(text, match.end())
        if state is not None and not state.group(1).lower().endswith("ing"):
            continue
        if inverted and following is not None and not following.group(1).lower().endswith("ing"):
            continue
        found.append(match.group(0))
    return found


def actor_words(text: str, perspective: Perspective) -> list[str]:
    """Pronouns (or labels) for actors the viewer cannot know: he/she and "they" as an actor
    always; speaker pronouns in third person; "the person"-style labels in first person."""
    found = _hits([_GENDERED], text) + _actor_they(text) + _hits([_THEIR], text)
    if perspective == "third":
        found += _hits([_I_PRONOUN, _SPEAKERS], text)
    else:
        found += _hits([_OBSERVER], text)
    return found


def word_count(text: str) -> int:
    return len(text.split())


def check_pair(question: str, answer: str, perspective: Perspective) -> list[Violation]:
    """Every rule the pair breaks (empty: the pair is worded as the paper asks)."""
    found: list[Violation] = []
    for field, text in (("question", question), ("answer", answer)):
        checks = {
            "ordinal": absolute_ordinals(text, question=field == "question"),
            "jargon": jargon(text),
            "time": time_mentions(text),
            "actor": actor_words(text, perspective),
        }
        for rule, hits in checks.items():
            found += [Violation(rule, field, hit) for hit in dict.fromkeys(hits)]  # type: ignore[arg-type]
    if word_count(answer) >= MAX_ANSWER_WORDS:
        found.append(Violation("answer_length", "answer", f"{word_count(answer)} words"))
    return found
