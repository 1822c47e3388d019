"""Benchmark construction pipelines: model steps with validated structured output, quality
filters, drop logs and resumable journals. `build_egofact` builds EgoFact-style benchmarks."""

from vqakit.build._egofact import BuildOutcome, EgoFactBuildConfig, EgoFactBuilder, Stage, build_egofact
from vqakit.build._inputs import Event, InputError, list_videos, read_events, read_passages
from vqakit.build._journal import BuildJournal

__all__ = [
    "BuildJournal",
    "BuildOutcome",
    "EgoFactBuildConfig",
    "EgoFactBuilder",
    "Event",
    "InputError",
    "Stage",
    "build_egofact",
    "list_videos",
    "read_events",
    "read_passages",
]
