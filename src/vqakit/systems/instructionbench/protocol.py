"""InstructionBench's evaluation protocol (docs/protocols/instructionbench.md, "Evaluation").

The card carries the defaults a plain `vqakit eval` uses: 8 uniformly sampled frames of the
clip's window and an MCQ prompt that asks for the option letter only. The paper's second
setting is 16 frames (`--frames uniform:16`). API models got frames shrunk to a quarter of
their size; `--short-side PX` is vqakit's frame-size option (half of each side of a 1080p
frame is `--short-side 540`). Replies that are not a bare letter go to the `extract` judge;
open-ended answers are graded yes/no by the `open` judge. Open-ended samples are asked with the
generic `open_short` prompt (the `direct` method's prompt for questions without options).

Results give MCQ and open-ended accuracy apart (`mcq`, `open_ended` in results.json: the paper's
two benchmarks, built here into one folder), and every breakdown keeps the two apart too
(`groups` for MCQ, `open_ended_groups`). Registered here: the `source` group, the dataset of the
question's clip, beside the default `category`.
"""

from vqakit.schema import Protocol, Sample
from vqakit.scoring import register_group

PROTOCOL = Protocol(frames="uniform:8", prompt="ib_mcq_eval")

FRAME_SETTINGS = ("uniform:8", "uniform:16")  # the paper's two frame budgets
JUDGES = ("extract", "open")  # MCQ replies the rules abstain on; open-ended answers, yes/no
SOURCE = "source"


@register_group(SOURCE, rank=14)
def source(sample: Sample) -> list[str]:
    """The dataset of the question's clip (`youcook2`, `hirest`, `goalstep`, `keystep`, `table`)."""
    value = (sample.metadata.model_extra or {}).get("source")
    return [value] if isinstance(value, str) and value else []


__all__ = ["FRAME_SETTINGS", "JUDGES", "PROTOCOL", "SOURCE"]
