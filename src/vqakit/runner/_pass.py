"""One ordered decode pass over a video for all the questions on it.

Questions whose windows overlap want frames from the same GOPs. Planned question by question (or
in batches of questions), each batch decodes the GOPs its frames fall in, and the next batch,
whose windows overlap the same stretch, decodes them again: on a 30-minute video with 100
questions in sliding 5-minute windows, about five times the work of decoding the frames once.

`ordered_parts` plans instead one forward pass over the frames every question wants: it hands the
questions over in the order their last frame comes (a question is ready once all its frames are
decoded), and cuts the pass into parts at GOP ends. A part decodes every wanted frame up to its
end, also the frames of questions whose later frames come in a later part: those are held until
their question is ready. The frames so held are bounded (`hold`): where holding more would pass
the bound (windows that all span the whole video), a part decodes only what the questions it
hands over need, and the others' frames in its stretch are decoded with their own questions
later (a GOP decoded twice rather than memory without bound).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass
class Part:
    """A stretch of the pass: the frames it decodes, then the questions ready after it (indices into
    the planned list, in the order their last frame comes)."""

    frames: set[int] = field(default_factory=set)
    ready: list[int] = field(default_factory=list)


def ordered_parts(
    wanted: Sequence[frozenset[int]],
    gop_of: Callable[[int], int] | None = None,
    *,
    share: int,
    hold: int,
) -> list[Part]:
    """The parts of one forward pass over the frame numbers `wanted[i]` of each question i (of one
    video, at one size and encoding). `gop_of(n)`: the GOP frame n is decoded from (its keyframe's
    decode position, `video.decode_starts`); parts end at GOP ends, so that no GOP is decoded by
    two parts (without it, parts end after a question's last frame). A part takes at least `share`
    new frames (but the last), and the frames the questions it hands over still need are at most
    `share` more than one question's (a GOP in which more questions end is split between parts);
    at most `hold` frames are decoded ahead for questions not yet handed over. Every question
    appears in exactly one part's `ready`, every wanted frame in at least one part's `frames` at
    or before the part its question is handed over in."""
    order = sorted(range(len(wanted)), key=lambda i: (max(wanted[i], default=-1), i))
    union = sorted(set().union(*wanted)) if wanted else []
    pending = Counter(n for frames in wanted for n in frames)  # questions not handed over, per frame
    decoded: set[int] = set()
    held: set[int] = set()  # decoded frames that a question not yet handed over wants
    parts = [Part()]
    boundary = -1  # every wanted frame up to here is decoded, or left to its questions
    cursor = 0  # first question of `order` not handed over

    def gop_end(number: int) -> int:
        """The last wanted frame decoded from the same GOP as `number`."""
        if gop_of is None or number < 0:
            return number
        group = gop_of(number)
        at = bisect.bisect_right(union, number)
        while at < len(union) and gop_of(union[at]) == group:
            at += 1
        return union[at - 1]

    def last(i: int) -> int:
        return max(wanted[i], default=-1)

    now = 0  # frames the current part decodes for the questions it hands over
    while cursor < len(order):
        target = gop_end(last(order[cursor]))
        ready: list[int] = []
        needed: set[int] = set()
        full = False
        while cursor < len(order) and last(order[cursor]) <= target:
            more = wanted[order[cursor]] - decoded - needed
            if now + len(needed) + len(more) > share and (ready or parts[-1].ready):
                full = True  # the part is full: one GOP in which many questions end is split
                if ready:
                    target = last(ready[-1])
                break
            ready.append(order[cursor])
            needed |= more
            cursor += 1
        if not ready:  # the part filled up before this GOP: the GOP starts the next part
            parts.append(Part())
            now = 0
            continue
        taken = Counter(n for i in ready for n in wanted[i])  # what handing them over releases
        stretch = union[bisect.bisect_right(union, boundary) : bisect.bisect_right(union, target)]
        ahead = {n for n in stretch if n not in decoded and n not in needed}
        for n, count in taken.items():
            pending[n] -= count
        held = {n for n in held | needed if pending[n] > 0}
        if len(held) + len(ahead) > hold:  # frames of later questions: decoded now where the bound allows
            ahead = set()
        held |= ahead
        part = parts[-1]
        part.frames |= needed | ahead
        decoded |= needed | ahead
        part.ready += ready
        now += len(needed)
        boundary = max(boundary, target)
        if (full or len(part.frames) >= share) and cursor < len(order):
            parts.append(Part())
            now = 0
    return [part for part in parts if part.ready or part.frames]
