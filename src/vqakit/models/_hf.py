"""Local vision-language models through transformers (`hf:<hub id or local folder>`).

Loads `AutoProcessor` + `AutoModelForImageTextToText` and formats every request with the
model's own chat template, so one code path serves the Qwen2/2.5-VL, SmolVLM/Idefics3,
LLaVA-OneVision and LLaVA-NeXT-Video families. Frames go in as one video where the processor
has a video processor (with their times listed in text), as timed images otherwise.

Requests that arrive together are generated as one left-padded batch (up to `batch_size`,
same generation settings); generation runs in a worker thread so the event loop stays free.
torch and transformers are imported here only, when an `hf:` model is created. A hub id that
is neither in the local cache nor reachable fails in seconds (`_check.hf_load_options`).

Generation settings: `max_new_tokens` (1024 when max_tokens is unset), `do_sample` from
temperature (greedy at 0; the model's own generation config when temperature is unset),
top_p, seed, `stop_strings`; thinking, thinking_budget and reasoning_effort go to the chat
template as `enable_thinking`, `thinking_budget` and `reasoning_effort` (templates that know
them use them). `<think>...</think>` in the output becomes `Completion.reasoning`.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from vqakit.models._backends import register_backend
from vqakit.models._check import hf_load_options
from vqakit.models._messages import (
    Completion,
    Frames,
    Image,
    Message,
    Text,
    Usage,
    as_timed_images,
    frame_clocks,
    split_think_tags,
)
from vqakit.models._retry import BackendError
from vqakit.models._settings import HF_MAX_NEW_TOKENS, GenerationSettings
from vqakit.models._spec import ModelSpec
from vqakit.prompts import render_prompt


def _pil(image: Any) -> Any:
    """A PIL image (RGB) of an array or a PIL image (Pillow is imported when a local model runs)."""
    import numpy as np
    from PIL import Image as PILImage

    if isinstance(image, PILImage.Image):
        return image.convert("RGB")
    return PILImage.fromarray(np.asarray(image, dtype=np.uint8))


@dataclass
class _Request:
    conversation: list[dict[str, Any]]
    generation: dict[str, Any]
    template: dict[str, Any] = field(default_factory=dict)  # chat template variables
    stop: tuple[str, ...] = ()
    future: asyncio.Future | None = None
    settings_key: str = field(default="")


def _check_hf(spec: ModelSpec) -> None:
    hf_load_options(spec.model)  # a folder, or a hub id that is cached or reachable


@register_backend(
    "hf",
    form="hf:<hub id or local folder>",
    example="hf:HuggingFaceTB/SmolVLM2-256M-Video-Instruct?max_tokens=256",
    summary="local transformers vision-language model (pip install 'vqakit[hf]'); loads from the "
    "local cache or folder",
    requires=("torch", "transformers"),
    install="pip install 'vqakit[hf]'",
    check=_check_hf,
    model_names=r"^[\w.-]+/[\w.-]+$|^[./~]",  # a hub id, a local folder
)
class HFBackend:
    def __init__(
        self,
        spec: ModelSpec,
        *,
        device: str = "cpu",
        dtype: str = "auto",
        batch_size: int = 4,
        batch_wait_s: float = 0.05,
        request_timeout_s: float | None = None,
        image_max_side: int | None = None,
    ) -> None:
        """`request_timeout_s` and `image_max_side` are not used: generation here has no request
        to time out, and a local model takes images at their own size."""
        load_options = hf_load_options(spec.model)  # before torch: a missing model fails fast
        try:
            import torch
            from transformers import AutoModelForImageTextToText, AutoProcessor
        except ImportError as error:
            raise ValueError(
                f"hf: models need torch and transformers ({error}); pip install 'vqakit[hf]'"
            ) from None
        self.spec = spec
        self.torch = torch
        self.batch_size = batch_size
        self.batch_wait_s = batch_wait_s  # how long a batch waits to fill up (small next to generation)
        try:
            self.processor = AutoProcessor.from_pretrained(spec.model, **load_options)
            torch_dtype = getattr(torch, dtype) if dtype != "auto" else "auto"
            self.model = (
                AutoModelForImageTextToText.from_pretrained(spec.model, dtype=torch_dtype, **load_options)
                .to(device)
                .eval()
            )
        except (OSError, ValueError) as error:
            raise ValueError(f"hf: cannot load {spec.model!r}: {error}") from None
        self.device = device
        tokenizer = getattr(self.processor, "tokenizer", None)
        if tokenizer is not None:
            tokenizer.padding_side = "left"
        self.pad_id = tokenizer.pad_token_id if tokenizer is not None else None
        self.eos_ids = self._eos_ids()
        self.has_video = getattr(self.processor, "video_processor", None) is not None
        self._lock = threading.Lock()
        self._queues: dict[int, asyncio.Queue] = {}
        self._drainers: dict[int, asyncio.Task] = {}

    def _eos_ids(self) -> set[int]:
        eos = self.model.generation_config.eos_token_id
        return set(eos if isinstance(eos, list) else [eos] if eos is not None else [])

    def _content(self, part: Any) -> list[dict[str, Any]]:
        if isinstance(part, Text):
            return [{"type": "text", "text": part.text}]
        if isinstance(part, Image):
            return [{"type": "image", "image": _pil(part.image)}]
        assert isinstance(part, Frames)
        if self.has_video:
            times = " ".join(frame_clocks(part.times_s))
            label = (
                [{"type": "text", "text": render_prompt("video_frame_times", times=times)}]
                if part.label_times
                else []
            )
            return [*label, {"type": "video", "video": [_pil(image) for image in part.images]}]
        return [
            {"type": "text", "text": item.text}
            if isinstance(item, Text)
            else {"type": "image", "image": _pil(item.image)}
            for item in as_timed_images((part,))
        ]

    def prepare(
        self, messages: list[Message], settings: GenerationSettings, sample_id: str | None
    ) -> _Request:
        conversation = [
            {"role": m.role, "content": [item for part in m.parts for item in self._content(part)]}
            for m in messages
        ]
        generation: dict[str, Any] = {"max_new_tokens": settings.max_tokens or HF_MAX_NEW_TOKENS}
        if settings.temperature is not None:
            generation["do_sample"] = settings.temperature > 0
            if settings.temperature > 0:
                generation["temperature"] = settings.temperature
                if settings.top_p is not None:
                    generation["top_p"] = settings.top_p
        if settings.seed is not None:
            generation["seed"] = settings.seed
        template: dict[str, Any] = {}
        if settings.thinks is not None:
            template["enable_thinking"] = settings.thinks
        if settings.thinking_budget:
            template["thinking_budget"] = settings.thinking_budget
        if settings.reasoning_effort is not None:
            template["reasoning_effort"] = settings.reasoning_effort
        stop = settings.stop or ()
        key = json.dumps([generation, template, stop], sort_keys=True)
        return _Request(conversation, generation, template, stop, settings_key=key)

    async def send(self, request: _Request) -> Completion:
        loop = asyncio.get_running_loop()
        queue = self._queues.get(id(loop))
        if queue is None:
            queue = self._queues[id(loop)] = asyncio.Queue()
        request.future = loop.create_future()
        queue.put_nowait(request)
        drainer = self._drainers.get(id(loop))
        if drainer is None or drainer.done():
            self._drainers[id(loop)] = loop.create_task(self._drain(queue))
        return await request.future

    async def _drain(self, queue: asyncio.Queue) -> None:
        """Generate batches until the queue is empty, then stop (no task outlives the work)."""
        while not queue.empty():
            waited = 0.0
            while queue.qsize() < self.batch_size and waited < self.batch_wait_s:
                await asyncio.sleep(0.005)  # let requests sent together join one batch
                waited += 0.005
            first: _Request = queue.get_nowait()
            batch, held = [first], []
            while not queue.empty() and len(batch) < self.batch_size:
                other = queue.get_nowait()
                (batch if other.settings_key == first.settings_key else held).append(other)
            for other in held:
                queue.put_nowait(other)
            try:
                completions = await asyncio.to_thread(self._generate, batch)
            except BackendError as error:
                for request in batch:
                    request.future.set_exception(error)
                continue
            for request, completion in zip(batch, completions, strict=True):
                if not request.future.done():
                    request.future.set_result(completion)

    def _generate(self, batch: list[_Request]) -> list[Completion]:
        torch = self.torch
        first = batch[0]
        generation = dict(first.generation)
        seed = generation.pop("seed", None)
        if first.stop:
            generation.update(stop_strings=list(first.stop), tokenizer=self.processor.tokenizer)
        with self._lock, torch.inference_mode():
            try:
                inputs = self.processor.apply_chat_template(
                    [request.conversation for request in batch],
                    add_generation_prompt=True,
                    tokenize=True,
                    return_dict=True,
                    return_tensors="pt",
                    processor_kwargs={"padding": True},
                    **first.template,
                ).to(self.device)
                if seed is not None:
                    torch.manual_seed(seed)
                output = self.model.generate(**inputs, **generation, pad_token_id=self.pad_id)
            except (ValueError, RuntimeError, TypeError) as error:
                raise BackendError(
                    "bad_request", f"{self.spec}: {type(error).__name__}: {error}", retryable=False
                ) from None
        prompt_length = inputs["input_ids"].shape[1]
        ends = self.eos_ids | ({self.pad_id} if self.pad_id is not None else set())
        completions = []
        for row in range(len(batch)):
            new_tokens = output[row, prompt_length:].tolist()
            stopped = next((i for i, token in enumerate(new_tokens) if token in ends), None)
            kept = new_tokens if stopped is None else new_tokens[:stopped]
            text = self.processor.batch_decode([kept], skip_special_tokens=True)[0]
            cut = min((i for i in (text.find(s) for s in first.stop) if i >= 0), default=None)
            if cut is not None:  # stopped at a stop string: it is not part of the reply
                text, stopped = text[:cut], cut
            text, reasoning = split_think_tags(text)
            completions.append(
                Completion(
                    text=text,
                    model=str(self.spec),
                    reasoning=reasoning,
                    usage=Usage(int(inputs["attention_mask"][row].sum()), len(kept)),
                    finish_reason="stop" if stopped is not None else "length",
                )
            )
        return completions
