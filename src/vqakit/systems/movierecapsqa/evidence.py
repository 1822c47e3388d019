"""What the claim judges check an answer against: the segment's atomic facts and the dialogue of
the aligned movie segment (docs/protocols/movierecapsqa.md, "Scoring"), as `importer.py` keeps
them in a sample:

- `metadata.segment_facts`: every fact of the recap segment (factuality checks against these);
- the sample's `facts`: the texts of the question's `aligned_fact_ids`, the facts it was made
  from (relevance shows these as context);
- the dialogue u_m: the movie subtitles cut to the aligned movie segment, on its clock, read by
  `inputs.segment_dialogue` so that the judges see the lines the answering model saw.

Subtitle paths are relative to the benchmark folder, which a judge reads from
`vqakit.scoring.benchmark_root()` (the runner sets it around its judging pass with
`use_benchmark_root`). When the dialogue cannot be read, the judges say why in their record
(`dialogue_problem`), never silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from vqakit.schema import Sample
from vqakit.scoring import benchmark_root
from vqakit.systems.movierecapsqa.inputs import InputMissing, dialogue_lines, release_fields, segment_dialogue


def _texts(value: object) -> list[str]:
    return [str(text) for text in value if str(text).strip()] if isinstance(value, list) else []


def segment_facts(sample: Sample) -> list[str]:
    """Every atomic fact of the sample's recap segment (the question's own when the segment's are
    not known)."""
    return _texts(release_fields(sample).get("segment_facts")) or list(sample.facts)


def question_facts(sample: Sample) -> list[str]:
    """The facts the question was made from; the segment's facts when those are not known."""
    if sample.facts:
        return list(sample.facts)
    fields = release_fields(sample)
    aligned = {str(i) for i in fields.get("aligned_fact_ids") or []}
    ids, texts = fields.get("segment_fact_ids") or [], fields.get("segment_facts") or []
    chosen = [str(text) for i, text in zip(ids, texts, strict=False) if str(i) in aligned]
    return chosen or segment_facts(sample)


@dataclass(frozen=True)
class Dialogue:
    lines: list[str]  # `[MM:SS] text`, times from the movie segment's start
    problem: str | None = None  # why there is no dialogue to show (None: read, maybe empty)


def dialogue(sample: Sample) -> Dialogue:
    """The dialogue of the sample's aligned movie segment, or why it cannot be shown."""
    root = benchmark_root()
    if root is None:
        return Dialogue(
            [], "the benchmark folder is unknown to the judge (vqakit.scoring.use_benchmark_root)"
        )
    try:
        return Dialogue(dialogue_lines(segment_dialogue(sample, root)))
    except InputMissing as missing:
        return Dialogue([], str(missing))
