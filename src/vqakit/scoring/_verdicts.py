"""Reading a judge's yes/no at the start of its reply."""

from __future__ import annotations

import re

_YES_NO = re.compile(r"^\W*(?:(?:answer|verdict|judgement|judgment)\W*)?(y|n|yes|no)\b", re.IGNORECASE)


def parse_yes_no(reply: str | None) -> bool | None:
    """`yes`/`Y` -> True and `no`/`N` -> False at the start of a reply, optionally after
    `Answer:` or `Verdict -` and markdown; None when the reply does not start with either."""
    if not reply:
        return None
    match = _YES_NO.match(reply.strip())
    return None if match is None else match[1].lower().startswith("y")


def yes_no_reason(reply: str | None) -> str | None:
    """What a judge wrote after its yes/no (its reason), without the separator; None when the
    reply does not start with a verdict or gives nothing after it."""
    if not reply:
        return None
    match = _YES_NO.match(reply.strip())
    if match is None:
        return None
    reason = reply.strip()[match.end() :].strip(" \t\n.,;:-–—*")
    return reason or None
