"""A model backend written the way a third party would, registered from this file alone:
`toy:<letter>` answers every question with that option, saying how many images it was sent. It
has its own spec check and a setting it cannot send. Run as `python toy_backend.py <vqakit
arguments>`: it registers the backend, then hands over to the vqakit command line
(test_backend_registry.py drives it)."""

from __future__ import annotations

import sys
from typing import Any

from vqakit.cli import main
from vqakit.models import Completion, GenerationSettings, Message, ModelSpec, Usage, register_backend


def check(spec: ModelSpec) -> None:
    if len(spec.model) != 1 or not spec.model.isalpha():
        raise ValueError(f"toy: {spec.model!r} is not one option letter")


def unsupported(settings: GenerationSettings) -> list[str]:
    return ["seed (the toy does not sample)"] if settings.seed is not None else []


@register_backend(
    "toy",
    form="toy:<letter>",
    example="toy:B",
    summary="answers every question with one option letter (a test backend)",
    check=check,
    unsupported=unsupported,
)
class ToyBackend:
    def __init__(self, spec: ModelSpec, **options: Any) -> None:
        self.spec = spec
        self.options = options

    def prepare(self, messages: list[Message], settings: GenerationSettings, sample_id: str | None) -> int:
        return sum(message.image_count() for message in messages)

    async def send(self, images: int) -> Completion:
        text = f"I was sent {images} images; the answer is ({self.spec.model})."
        return Completion(text=text, model=str(self.spec), finish_reason="stop", usage=Usage(images, 9))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
