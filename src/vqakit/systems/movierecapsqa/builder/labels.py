"""Stage 6: each question's category and modality type (`classify.label_segment`), the
questions of a segment together.

The dialogue a segment is labelled with is the one its questions will be answered with: the
movie subtitles cut to the segment's movie window, when the segment is aligned and the movie
subtitles were given. Otherwise it is the recap's narration of the segment, and the prompt says
so. With a VLM, a strip of `description_frames` frames of the recap segment is described first;
without one, the segment's facts stand in for the description. A question left without labels
(failed step, left out of the reply, unknown label) is dropped with the reason.
"""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path
from typing import Any

from vqakit.schema import Uniform
from vqakit.systems.movierecapsqa.builder.context import QA, BuildContext, RecapSegment
from vqakit.systems.movierecapsqa.classify import LabelQuestion, SegmentContext, label_segment
from vqakit.systems.movierecapsqa.inputs import dialogue_lines
from vqakit.video import Cue, Resize, VideoError, cut_cues, read_subtitles, sample_frames

LABELS = "6 classification"
MOVIE_DIALOGUE = "movie subtitles of the aligned movie segment"
NARRATION = "the recap's narration of this part; no movie dialogue is available for it"


@cache
def _movie_cues(path: Path) -> list[Cue] | None:
    try:
        return read_subtitles(path)
    except VideoError:
        return None


def segment_context(segment: RecapSegment) -> SegmentContext:
    """The segment's dialogue (movie subtitles in its movie window, else the narration) and
    facts, as the labeller reads them."""
    subtitles = segment.recap.movie_subtitles
    cues = _movie_cues(subtitles) if subtitles is not None and segment.movie_window else None
    if cues is not None and segment.movie_window is not None:
        dialogue, source = dialogue_lines(cut_cues(cues, *segment.movie_window)), MOVIE_DIALOGUE
    else:
        dialogue, source = segment.narration(), NARRATION
    return SegmentContext(
        item=segment.id,
        movie_name=segment.recap.movie_name,
        dialogue=dialogue,
        dialogue_source=source,
        facts=[fact.text for fact in segment.facts],
    )


def _frames(ctx: BuildContext, segment: RecapSegment) -> Any:
    spec = Uniform(ctx.config.description_frames, segment.start_s, segment.end_s)
    resize = Resize(short_side=ctx.config.frame_short_side)
    return lambda: [frame.image for frame in sample_frames(segment.recap.recap, spec, resize=resize)]


async def classify(ctx: BuildContext, questions: list[QA]) -> list[QA]:
    """Stage 6: the questions that got both labels, in their order."""
    by_segment: dict[str, list[QA]] = {}
    for qa in questions:
        by_segment.setdefault(qa.segment.id, []).append(qa)

    async def one(members: list[QA]) -> None:
        segment = members[0].segment
        asked = [LabelQuestion(qa.key, qa.question or qa.verbose_question, qa.answer) for qa in members]
        try:
            result = await label_segment(
                ctx.steps, ctx.llm, ctx.vlm, segment_context(segment), asked, _frames(ctx, segment)
            )
        except VideoError as error:
            for qa in members:
                ctx.log.drop(LABELS, qa.key, f"unreadable video: {error}")
            return
        for qa in members:
            found = result.labels.get(qa.key)
            if found is None:
                ctx.log.drop(LABELS, qa.key, result.unlabelled.get(qa.key, "not classified"))
            else:
                qa.category, qa.modality = found.category, found.modality

    await asyncio.gather(*(one(members) for members in by_segment.values()))
    _movie_cues.cache_clear()
    kept = [qa for qa in questions if qa.category is not None]
    ctx.log.close(LABELS, "questions", len(questions), len(kept))
    return kept
