"""Replays recorded replies: `{"sample_id": ..., "reply": ..., "delay_s"?: ...}` per line.
Generation settings are ignored."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from vqakit.files import InputError, read_table
from vqakit.models._backends import register_backend
from vqakit.models._messages import Completion, Message
from vqakit.models._retry import BackendError
from vqakit.models._settings import GenerationSettings
from vqakit.models._spec import ModelSpec


def _check_replay(spec: ModelSpec) -> None:
    if not Path(spec.model).is_file():
        raise ValueError(f"replay: file {spec.model} not found")


@register_backend(
    "replay",
    form="replay:<file.jsonl>",
    example="replay:runs/recorded.jsonl",
    summary='replays {"sample_id", "reply"} lines',
    check=_check_replay,
    video="clip",  # it replays recorded replies whatever was sent, so it takes either
    cached=False,  # the file is the record
    model_names=r"\.jsonl$",
)
class ReplayBackend:
    def __init__(self, spec: ModelSpec, **options: Any) -> None:
        """`options` (the request time limit, image size, backend options) do not change a
        recorded reply and are not used."""
        path = Path(spec.model)
        self.spec = spec
        self.replies: dict[str, tuple[str, float]] = {}
        table = read_table(path, "jsonl")
        if table.problems:
            raise InputError(str(table.problems[0]))
        for line in table.records:
            number, record = line.line, line.data or {}
            try:
                sample_id, reply = str(record["sample_id"]), record["reply"]
                delay = float(record.get("delay_s", 0.0))
            except (KeyError, TypeError, ValueError) as error:
                raise ValueError(f'{path}:{number}: expected {{"sample_id", "reply"}} ({error})') from None
            if not isinstance(reply, str):
                raise ValueError(f"{path}:{number}: reply must be text")
            self.replies[sample_id] = (reply, delay)

    def prepare(
        self, messages: list[Message], settings: GenerationSettings, sample_id: str | None
    ) -> str | None:
        return sample_id  # generation settings do not change a recorded reply

    async def send(self, sample_id: str | None) -> Completion:
        if sample_id is None or sample_id not in self.replies:
            raise BackendError(
                "unknown_sample",
                f"{self.spec.model}: no recorded reply for sample {sample_id!r}",
                retryable=False,
            )
        reply, delay = self.replies[sample_id]
        if delay:
            await asyncio.sleep(delay)
        return Completion(text=reply, model=str(self.spec), finish_reason="stop")
