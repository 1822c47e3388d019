"""`vqakit build egofact`: EgoFact-style multi-hop QA from egocentric videos, event annotations and
how-to passages (the nine construction steps of docs/protocols/egofact.md), built with the shared kit
of `vqakit.builders`.

1  windows       cut each video into full `window_s` windows; a screenshot every 3 s, each
                 captioned by the VLM; captions, events and sounds merged into a timeline
2  narration     the LLM writes a concise and a detailed "a video that ..." narration, the
                 activity, and weighted keywords (1-10)
3  selection     windows embedded as the weight-averaged vectors of their keywords, clustered
                 (k = keep_ratio x windows), one representative kept per cluster; windows with
                 fewer than `min_events` events dropped
4  events        every event structured (agent, action, patient, locations, instrument, ...);
                 events without an object dropped
5  templates     local: "In <video>, what is the object that <agent> <action> <place>?";
                 temporal: "... Before/After <anchor event>, what is the object ...?" for events
                 at most `temporal_gap_s` apart; questions that name their answer are dropped
6  disambiguate  a question is dropped when another clip is visually similar (> 0.7), has an
                 event with a similar action (> 0.8) and a different object (< 0.9)
7  distractors   five wrong options + the answer and a quality score; kept at score >= 7;
                 then a text-only model answers without the video and solved questions go
8  two-hop       for each option object the best passage above `passage_threshold`; four
                 statements per object-passage pair (1 factual, 3 counterfactual), verified as
                 a 4-option question with the passage (must be solved) and without it (must
                 not be); three verified pairs make six options "When <task>. <statement>",
                 each pair set in the task of its own passage ("How to fit a bell" -> "When
                 fitting a bell.")
9  reliability   every question must be answered correctly from the gold event (and passage)
                 (valid), two-hop ones not without it (non-trivial); unambiguity is step 6

Modules: `windows` (1-3), `questions` (4-7), `two_hop` (8), `reliability` (9), `pipeline` (the
order of the steps and the output), `steps` (what each model step returns), `inputs`.

Every model step asks for JSON validated by a schema (with repair turns), is journaled so a
rerun reuses it, and every dropped item is logged with its reason. The output is a benchmark
folder (card, samples, clip and passage corpora, media) plus `build/` holding `stages.json`,
`report.md`, `drops.jsonl` and `calls.jsonl`.
"""

from vqakit.builders import InputError
from vqakit.systems.egofact.builder.context import EgoFactBuildConfig
from vqakit.systems.egofact.builder.inputs import Event, read_events, read_passages
from vqakit.systems.egofact.builder.pipeline import (
    BuildOutcome,
    EgoFactBuilder,
    build_egofact,
    build_egofact_from_specs,
)

__all__ = [
    "BuildOutcome",
    "EgoFactBuildConfig",
    "EgoFactBuilder",
    "Event",
    "InputError",
    "build_egofact",
    "build_egofact_from_specs",
    "read_events",
    "read_passages",
]
