"""`vqakit build movierecapsqa`: MovieRecapsQA-style open-ended questions from recap videos and
their transcripts (docs/protocols/movierecapsqa.md), built with the shared kit of
`vqakit.builders`.

Inputs: a recap video and its transcript (SRT or WebVTT), optionally the movie and the movie's
subtitles; several recaps through a manifest (`manifest.py`).

1  segments        shots detected and merged into scenes, scenes joined into segments of at
                   least `min_segment_s` (about a minute); transcript cues assigned by their
                   middle; segments without transcript dropped
2  alignment       with a movie: the recap aligned shot by shot (`align_recap`), each segment's
                   movie window from the matches covering it; unaligned segments keep null
                   movie times
3  facts           atomic facts per segment from its transcript, the previous segment's facts
                   as context; facts breaking a checkable rule dropped
4  questions       question-answer pairs from one or more facts (`aligned_fact_ids`)
5  simplify        names and needless conditions removed, answers adjusted, a vague answer
                   written; the written question kept as `verbose_question`
6  classification  category (TEMP, CRD, NPA, STA, TH) and modality type (dialogue, scene,
                   multimodal), with the dialogue and a scene description (VLM) or the facts

Alignment comes second (the paper lists it apart) because the labels read the movie dialogue
of each segment, which only the alignment places.

Modules: `manifest` (inputs), `segments` (1), `alignment` (2), `facts` (3), `questions` (4-5),
`labels` (6), `rules` (checkable writing rules), `output` (tables, labels, benchmark folder),
`pipeline` (the order of the stages), `context` (settings and records).

Output at OUT: the benchmark folder (card, samples, media) written by the importer from
`tables/` (`recaps.json`, `segments.json`, `questions.json`, `facts.json` in the release's
shape, plus `labels.json`), and `build/` holding `calls.jsonl` (journaled model steps: a rerun
asks nothing it asked before), `drops.jsonl`, `stages.json`, `report.md`, `segments/` (shots
and scenes per recap), `alignment/` (matches, segments and plot per recap) and `media/` (the
CSVs the importer reads).
"""

from vqakit.builders import InputError
from vqakit.systems.movierecapsqa.builder.context import RecapInput, RecapsBuildConfig
from vqakit.systems.movierecapsqa.builder.manifest import read_manifest, single_recap
from vqakit.systems.movierecapsqa.builder.pipeline import (
    BuildOutcome,
    RecapsBuilder,
    build_movierecapsqa,
    build_movierecapsqa_from_specs,
)
from vqakit.systems.movierecapsqa.builder.segments import group_scenes

__all__ = [
    "BuildOutcome",
    "InputError",
    "RecapInput",
    "RecapsBuildConfig",
    "RecapsBuilder",
    "build_movierecapsqa",
    "build_movierecapsqa_from_specs",
    "group_scenes",
    "read_manifest",
    "single_recap",
]
