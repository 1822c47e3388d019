"""A benchmark system written the way a third party would: a method with its own options, a judge,
a metric, a group, a report section, a sample-card detail and a validation check, all registered
from this file alone. Run as `python toy_system.py <vqakit arguments>`: it registers everything,
then hands over to the vqakit command line (test_plugins.py drives it)."""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from vqakit.cli import main
from vqakit.methods import MethodContext, method
from vqakit.report import SampleDetail, Section, Table, register_sample_detail, register_section
from vqakit.schema import Corpora, Prediction, Sample, register_sample_check
from vqakit.scoring import (
    Judge,
    judge_reply,
    mean_summary,
    register_group,
    register_judge,
    register_metric,
    register_score_fields,
)
from vqakit.systems import System, register_system


class PickOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pick: int = Field(0, ge=0, le=3)  # the option this method always chooses
    loud: bool = False


async def always_pick(sample: Sample, context: MethodContext) -> Prediction:
    """Always the same option, said in words (a toy)."""
    reply = f"I pick option {context.options.pick}" + ("!" if context.options.loud else ".")
    return Prediction(sample_id=sample.id, method="toy-pick", reply=reply, choice=context.options.pick)


method("toy-pick", needs_model=False, options=PickOptions)(always_pick)


@register_judge
class Politeness(Judge):
    """Is the reply polite? A model answers yes or no."""

    name = "politeness"
    title = "Politeness (0-1)"

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        raw, error = await judge_reply(model, f"Is this polite? {prediction.reply}", f"{sample.id}:polite")
        return {"raw": raw, "polite": None if error else raw.strip().lower() == "yes", "error": error}

    def fields(self, sample: Sample, record: dict[str, Any]) -> dict[str, Any]:
        return {} if record["polite"] is None else {"polite": record["polite"]}

    def summarise(self, samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        values = [float(row["polite"]) for row in rows if "polite" in row]
        return {"polite": mean_summary(values)} if values else None


@register_score_fields
def reply_length(sample: Sample, prediction: Prediction, choice: int | None) -> dict[str, Any]:
    return {"reply_words": len((prediction.reply or "").split())}


@register_metric
def toy_metric(samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any]:
    words = [row["reply_words"] for row in rows if "reply_words" in row]
    return {"toy_words": {"n": len(words), "mean": sum(words) / len(words) if words else None}}


@register_group("toy_colour", default=False)
def colour(sample: Sample) -> list[str]:
    extra = sample.metadata.model_extra or {}
    return [f"colour {extra['colour']}"] if "colour" in extra else []


@register_section
def toy_section(results: dict[str, Any]) -> list[Section]:
    if "toy_words" not in results:
        return []
    words = results["toy_words"]
    table = Table(["replies", "mean words"], [[str(words["n"]), f"{words['mean']}"]])
    return [Section("Toy words per reply", table)]


@register_sample_detail
def toy_detail(sample: Sample, prediction: Prediction) -> SampleDetail | None:
    return SampleDetail([f"toy detail of {sample.id}"])


@register_sample_check
def no_purple(sample: Sample, corpora: Corpora) -> list[tuple[str, str]]:
    extra = sample.metadata.model_extra or {}
    if extra.get("colour") != "purple":
        return []
    return [("metadata.colour", "the toy system does not allow purple")]


register_system(System(name="toy", title="A toy system", reference="tests", methods=("toy-pick",)))

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
