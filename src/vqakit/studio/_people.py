"""Who uses the studio: reviewers (review, annotate and answer), participants (answer only, so
that a participant of a human baseline never sees a gold answer) and adjudicators (who settle
the samples reviewers disagree on; their decision is final for `vqakit review apply`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Role = Literal["reviewer", "participant", "adjudicator"]
ROLES: tuple[Role, ...] = ("reviewer", "participant", "adjudicator")
MODES: dict[str, tuple[str, ...]] = {
    "reviewer": ("review", "annotate", "answer"),
    "participant": ("answer",),
    "adjudicator": ("adjudicate",),
}

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_RESERVED = ".set-aside"  # `<person>.set-aside.jsonl` is the quarantine file of a review log


def check_person(name: str) -> str:
    """A person's name as given, or ValueError: it names their review log and run folder, so it
    is 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit, and does not
    end in `.set-aside` (the quarantine file of another person's log would be theirs)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):  # no trailing newline either
        raise ValueError(
            f"person name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    if name.endswith(_RESERVED):
        raise ValueError(f"person name {name!r}: a name ending in {_RESERVED!r} is kept for set-aside lines")
    return name


@dataclass(frozen=True)
class Person:
    name: str
    role: Role = "reviewer"

    def __post_init__(self) -> None:
        check_person(self.name)
        if self.role not in ROLES:
            raise ValueError(f"role {self.role!r}: use {', '.join(ROLES)}")

    @property
    def modes(self) -> tuple[str, ...]:
        return MODES[self.role]
