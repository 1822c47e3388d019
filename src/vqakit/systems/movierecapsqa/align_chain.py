"""Which recap-to-movie matches to keep, and how kept matches group into segments.

Recaps mostly follow the movie's order but move whole passages (a teaser first, a character's
backstory later) and skip most of the film, so a plain longest increasing subsequence would
throw away every moved passage. The rules, in order:

1. Confidence: a match anchors only if its probability margin (best minus second softmax
   probability) is at least `min_margin` and its rate (movie seconds per recap second) is in
   `rate_range`; a confident match with an impossible rate is "implausible".
2. Main chain: the heaviest chain of anchors, in recap order, whose movie starts never step back
   more than `back_tolerance_s` (a weighted longest increasing subsequence; weight = margin x
   recap duration, so long sure shots outvote short doubtful ones). Its anchors are "kept".
3. Moved passages: anchors off the chain that follow one another (adjacent among the off-chain
   anchors, in movie order, no jump over `max_jump_s`) in runs of at least `min_run` are a
   passage the recap moved: "reordered", kept. A lone off-chain anchor is "off-chain", dropped:
   one recap shot is more often a look-alike than a moved scene.
4. Smoothing: a shot left out (not confident, off-chain or implausible) that sits between two
   kept neighbours in movie order takes the most probable of its top candidates that falls
   between them in movie time with a plausible rate ("filled"); at either end of the recap, one
   neighbour and the recap time since it bound the window.
5. Segments: kept matches in recap order join while the movie goes on within `join_gap_s`
   (stepping back at most `back_tolerance_s`) and the recap skips at most `join_gap_s`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from vqakit.video import Shot

KEPT = frozenset({"kept", "reordered", "filled"})


class ChainSettings(Protocol):
    """The knobs these rules read (`align.AlignSettings` has them)."""

    min_margin: float
    back_tolerance_s: float
    max_jump_s: float
    min_run: int
    fill_min_probability: float
    rate_range: tuple[float, float]
    join_gap_s: float


@dataclass(frozen=True)
class Candidate:
    """A movie shot a recap shot may show, with the timed span inside it."""

    movie_shot: int
    movie_start_s: float
    movie_end_s: float
    probability: float
    rate: float


def _plausible(candidate: Candidate, settings: ChainSettings) -> bool:
    low, high = settings.rate_range
    return low <= candidate.rate <= high


def heaviest_chain(spans: Sequence[tuple[float, float, float]], back_tolerance_s: float) -> list[int]:
    """Positions of the heaviest subsequence of (movie start, movie end, weight) in which each
    start is no earlier than the previous end minus `back_tolerance_s` (O(n^2), n = anchors)."""
    if not spans:
        return []
    score = [weight for _, _, weight in spans]
    previous = [-1] * len(spans)
    for i, (start, _, weight) in enumerate(spans):
        for j in range(i):
            if start >= spans[j][1] - back_tolerance_s and score[j] + weight > score[i]:
                score[i], previous[i] = score[j] + weight, j
    chain, at = [], max(range(len(spans)), key=score.__getitem__)
    while at >= 0:
        chain.append(at)
        at = previous[at]
    return chain[::-1]


def _follows(before: Candidate, after: Candidate, settings: ChainSettings) -> bool:
    step = after.movie_start_s - before.movie_end_s
    return -settings.back_tolerance_s <= step <= settings.max_jump_s


def _window(
    r: int, shots: Sequence[Shot], chosen: list[Candidate], kept: list[int], settings: ChainSettings
) -> tuple[float, float] | None:
    """Movie-time window that recap shot `r` must fall in to sit between its kept neighbours."""
    before = [k for k in kept if k < r]
    after = [k for k in kept if k > r]
    tolerance, high = settings.back_tolerance_s, settings.rate_range[1]
    if before and after:
        p, n = chosen[before[-1]], chosen[after[0]]
        return (p.movie_end_s - tolerance, n.movie_start_s + tolerance) if _follows(p, n, settings) else None
    if before:
        p = chosen[before[-1]]
        reach = settings.join_gap_s + high * (shots[r].end_s - shots[before[-1]].end_s)
        return p.movie_end_s - tolerance, p.movie_end_s + reach
    if after:
        n = chosen[after[0]]
        reach = settings.join_gap_s + high * (shots[after[0]].start_s - shots[r].start_s)
        return n.movie_start_s - reach, n.movie_start_s + tolerance
    return None


def choose_matches(
    shots: Sequence[Shot],
    candidates: Sequence[Sequence[Candidate]],
    margins: Sequence[float],
    settings: ChainSettings,
) -> list[tuple[Candidate, str]]:
    """For each recap shot, its chosen candidate and status (see the module docstring)."""
    chosen = [options[0] for options in candidates]
    status = ["low-confidence"] * len(shots)
    anchors = []
    for r, margin in enumerate(margins):
        if margin >= settings.min_margin:
            status[r] = "implausible" if not _plausible(chosen[r], settings) else "off-chain"
            if status[r] == "off-chain":
                anchors.append(r)
    spans = [
        (chosen[r].movie_start_s, chosen[r].movie_end_s, margins[r] * shots[r].duration_s) for r in anchors
    ]
    for position in heaviest_chain(spans, settings.back_tolerance_s):
        status[anchors[position]] = "kept"
    runs: list[list[int]] = []
    for r in (a for a in anchors if status[a] == "off-chain"):
        last = runs[-1][-1] if runs else None
        if (
            last is not None
            and _follows(chosen[last], chosen[r], settings)
            and not any(status[k] == "kept" for k in range(last + 1, r))
        ):
            runs[-1].append(r)
        else:
            runs.append([r])
    for run in runs:
        if len(run) >= settings.min_run:
            for r in run:
                status[r] = "reordered"
    kept = [r for r in range(len(shots)) if status[r] in KEPT]
    for r in range(len(shots)):
        if status[r] in KEPT:
            continue
        window = _window(r, shots, chosen, kept, settings)
        if window is None:
            continue
        for option in candidates[r]:
            inside = window[0] <= option.movie_start_s and option.movie_end_s <= window[1]
            if (
                inside
                and option.probability >= settings.fill_min_probability
                and _plausible(option, settings)
            ):
                chosen[r], status[r] = option, "filled"
                break
    return list(zip(chosen, status, strict=True))


def build_segments(
    spans: Sequence[tuple[float, float, float, float] | None], settings: ChainSettings
) -> list[list[int]]:
    """Group kept matches (recap start, recap end, movie start, movie end; None when dropped),
    in recap order, into runs that continue one another: lists of recap shot positions."""
    groups: list[list[int]] = []
    last: tuple[float, float, float, float] | None = None
    for r, span in enumerate(spans):
        if span is None:
            continue
        if last is not None:
            step = span[2] - last[3]
            if (
                -settings.back_tolerance_s <= step <= settings.join_gap_s
                and span[0] - last[1] <= settings.join_gap_s
            ):
                groups[-1].append(r)
                last = span if span[3] >= last[3] else (span[0], span[1], span[2], last[3])
                continue
        groups.append([r])
        last = span
    return groups
