"""InstructionBench's evaluation protocol (../shared/specs/instructionbench.md, "Evaluation").

The card carries the defaults a plain `vqakit eval` uses: 8 uniformly sampled frames of the
clip's window and an MCQ prompt that asks for the option letter only. The paper's second
setting is 16 frames (`--frames uniform:16`). API models got frames shrunk to a quarter of
their size; `--short-side PX` is vqakit's frame-size option (half of each side of a 1080p
frame is `--short-side 540`). Replies that are not a bare letter go to the `extract` judge;
open-ended answers are graded yes/no by the `open` judge. Open-ended samples are asked with the
generic `open_short` prompt (the `direct` method's prompt for questions without options).

Results give MCQ and open-ended accuracy apart (`mcq`, `open_ended` in results.json: the paper's
two benchmarks, built here into one folder). The default `category` group mixes both forms of a
question, so two groups registered here split by form first: `format_category` ("mcq · step
sequencing") and `format_source` ("open-ended · youcook2"). `--group-by source` gives the mixed
per-dataset rows too.
"""

from vqakit.schema import Protocol, Sample
from vqakit.scoring import register_group

PROTOCOL = Protocol(frames="uniform:8", prompt="ib_mcq_eval")

FRAME_SETTINGS = ("uniform:8", "uniform:16")  # the paper's two frame budgets
JUDGES = ("extract", "open")  # MCQ replies the rules abstain on; open-ended answers, yes/no
FORMAT_CATEGORY, FORMAT_SOURCE = "format_category", "format_source"


def _by_format(sample: Sample, value: object) -> list[str]:
    """`<format> · <value>` for InstructionBench samples (they carry `metadata.format`)."""
    form = (sample.metadata.model_extra or {}).get("format")
    if not isinstance(form, str) or not isinstance(value, str) or not value:
        return []
    return [f"{form} · {value}"]


@register_group(FORMAT_CATEGORY, rank=12)
def format_category(sample: Sample) -> list[str]:
    """The question category within its form (MCQ or open-ended)."""
    return _by_format(sample, sample.metadata.category)


@register_group(FORMAT_SOURCE, rank=14)
def format_source(sample: Sample) -> list[str]:
    """The dataset of the question's clip (`youcook2`, `hirest`, `goalstep`, `keystep`, `table`)
    within its form (MCQ or open-ended)."""
    return _by_format(sample, (sample.metadata.model_extra or {}).get("source"))


__all__ = ["FORMAT_CATEGORY", "FORMAT_SOURCE", "FRAME_SETTINGS", "JUDGES", "PROTOCOL"]
