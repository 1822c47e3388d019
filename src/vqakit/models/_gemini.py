"""Gemini through the official google-genai SDK (`gemini:<model>`, key GEMINI_API_KEY or
GOOGLE_API_KEY). Images are sent inline as JPEG; frames as timed images. A video (`--input
video`) goes up once per file through the file API and is sent by its URI with `video_metadata`
(start and end offsets, frame rate), so Gemini itself looks at the window and nothing is cut.

Generation settings on the wire (`GenerateContentConfig`): `max_output_tokens`, temperature,
top_p, seed, `stop_sequences`, `system_instruction`, and `thinking_config` where a reasoning
setting is given: `thinking_budget` (0 = off; -1, the model's own choice, for `thinking=true`
without a budget), `thinking_level` from reasoning_effort, `include_thoughts` while thinking
is on (the thought parts come back as `Completion.reasoning`).
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from dataclasses import dataclass
from typing import Any

from vqakit.models._backends import register_backend
from vqakit.models._images import data_url
from vqakit.models._messages import Completion, Message, Part, Text, Usage, Video, as_timed_images
from vqakit.models._retry import BackendError, classify_status
from vqakit.models._secrets import api_key
from vqakit.models._settings import GenerationSettings
from vqakit.models._spec import ModelSpec
from vqakit.models._video import offset

UPLOAD_WAIT_S = 600.0  # how long an uploaded video may stay PROCESSING before the call fails


@dataclass(frozen=True)
class _WithVideo:
    """A message whose video part waits for its upload (done in `send`, which may await)."""

    role: str
    parts: list[Any]


def _gemini_unsupported(settings: GenerationSettings) -> list[str]:
    if settings.reasoning_effort in ("none", "max"):
        return [f"reasoning_effort={settings.reasoning_effort} (Gemini: minimal..xhigh)"]
    return []


async def _preflight(session: Any, spec: ModelSpec, timeout_s: float) -> str | None:
    """The API's record of the model (404 for a model it lacks)."""
    from vqakit.models._preflight import check_model_record

    root = (os.environ.get("GOOGLE_GEMINI_BASE_URL") or "https://generativelanguage.googleapis.com").rstrip(
        "/"
    )
    name = spec.model.removeprefix("models/")
    headers = {"x-goog-api-key": api_key("gemini") or ""}
    return await check_model_record(session, f"{root}/v1beta/models/{name}", headers, timeout_s)


@register_backend(
    "gemini",
    form="gemini:<model>",
    example="gemini:gemini-2.5-pro",
    summary="Gemini API; key from GEMINI_API_KEY or GOOGLE_API_KEY",
    api=True,
    keys=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    requires=("google.genai",),
    install="pip install 'vqakit[gemini]'",
    unsupported=_gemini_unsupported,
    video="file",
    preflight=_preflight,
    model_names=r"^(models/)?(gemini|gemma)-",
)
class GeminiBackend:
    def __init__(
        self,
        spec: ModelSpec,
        *,
        request_timeout_s: float,
        image_max_side: int | None,
        base_url: str | None = None,
    ) -> None:
        try:
            from google import genai
            from google.genai import types
        except ImportError:
            raise ValueError("gemini: pip install 'vqakit[gemini]'") from None
        key = api_key("gemini")
        self.spec = spec
        self.image_max_side = image_max_side
        self.types = types
        options = types.HttpOptions(timeout=int(request_timeout_s * 1000), base_url=base_url)
        self.client = genai.Client(api_key=key, http_options=options)
        self._uploads: dict[str, Any] = {}  # source path -> uploaded File
        self._upload_locks: dict[str, asyncio.Lock] = {}

    def _image(self, image: Any) -> Any:
        data = base64.b64decode(data_url(image, self.image_max_side).split(",", 1)[1])
        return self.types.Part.from_bytes(data=data, mime_type="image/jpeg")

    def _parts(self, part: Part) -> list[Any]:
        """SDK parts for one message part; a video stays itself until `send` has uploaded it."""
        if isinstance(part, Video):
            if part.path is None:
                raise ValueError("gemini: send the source video file (path), not a cut clip")
            return [part]
        return [
            self.types.Part.from_text(text=item.text) if isinstance(item, Text) else self._image(item.image)
            for item in as_timed_images((part,))
        ]

    async def _uploaded(self, path: str, mime: str) -> Any:
        """The file API's record of `path`, uploading it the first time (one upload per file
        and process, however many samples share it), once it is ACTIVE."""
        lock = self._upload_locks.setdefault(path, asyncio.Lock())
        async with lock:
            if path in self._uploads:
                return self._uploads[path]
            file = await self.client.aio.files.upload(file=path, config={"mime_type": mime})
            deadline = time.monotonic() + UPLOAD_WAIT_S
            while str(getattr(file.state, "name", file.state)) == "PROCESSING":
                if time.monotonic() > deadline:
                    raise BackendError("video", f"{path}: still processing after {UPLOAD_WAIT_S:g}s")
                await asyncio.sleep(2.0)
                file = await self.client.aio.files.get(name=file.name)
            if str(getattr(file.state, "name", file.state)) == "FAILED":
                raise BackendError("video", f"{path}: the file API could not process the video")
            self._uploads[path] = file
            return file

    async def _with_videos(self, request: dict[str, Any]) -> dict[str, Any]:
        """The request with every video part replaced by its uploaded file and offsets."""
        types = self.types
        contents = []
        for content in request["contents"]:
            if not isinstance(content, _WithVideo):
                contents.append(content)
                continue
            parts = []
            for part in content.parts:
                if isinstance(part, Video):
                    file = await self._uploaded(str(part.path), part.mime)
                    part = types.Part(
                        file_data=types.FileData(file_uri=file.uri, mime_type=file.mime_type or part.mime),
                        video_metadata=types.VideoMetadata(
                            start_offset=offset(part.start_s), end_offset=offset(part.end_s), fps=part.fps
                        ),
                    )
                parts.append(part)
            contents.append(types.Content(role=content.role, parts=parts))
        return {**request, "contents": contents}

    def _thinking(self, settings: GenerationSettings) -> Any:
        if settings.thinks is None and settings.reasoning_effort is None:
            return None
        budget = settings.thinking_budget
        if budget is None and settings.thinks is not None and settings.reasoning_effort is None:
            budget = -1 if settings.thinks else 0
        return self.types.ThinkingConfig(
            thinking_budget=budget,
            thinking_level=settings.reasoning_effort.upper() if settings.reasoning_effort else None,
            include_thoughts=True if settings.thinks is not False else None,
        )

    def prepare(
        self, messages: list[Message], settings: GenerationSettings, sample_id: str | None
    ) -> dict[str, Any]:
        types = self.types
        system = "\n".join(
            p.text for m in messages if m.role == "system" for p in m.parts if isinstance(p, Text)
        )
        contents = []
        for message in messages:
            if message.role == "system":
                continue
            parts = [item for part in message.parts for item in self._parts(part)]
            role = "model" if message.role == "assistant" else "user"
            has_video = any(isinstance(part, Video) for part in parts)
            contents.append(_WithVideo(role, parts) if has_video else types.Content(role=role, parts=parts))
        config = types.GenerateContentConfig(
            system_instruction=system or None,
            temperature=settings.temperature,
            max_output_tokens=settings.max_tokens,
            seed=settings.seed,
            top_p=settings.top_p,
            stop_sequences=list(settings.stop) if settings.stop else None,
            thinking_config=self._thinking(settings),
        )
        return {"model": self.spec.model, "contents": contents, "config": config}

    async def send(self, request: dict[str, Any]) -> Completion:
        from google.genai import errors

        try:
            if any(isinstance(content, _WithVideo) for content in request["contents"]):
                request = await self._with_videos(request)
            reply = await self.client.aio.models.generate_content(**request)
        except errors.APIError as error:
            url = getattr(getattr(error, "response", None), "url", None)
            raise classify_status(int(error.code or 500), str(error)[:500], url=url and str(url)) from None
        except TimeoutError as error:
            raise BackendError("timeout", str(error) or "timed out", retryable=True) from None
        except OSError as error:
            raise BackendError("connection", f"{type(error).__name__}: {error}", retryable=True) from None
        candidate = (reply.candidates or [None])[0]
        parts = (candidate.content.parts or []) if candidate is not None and candidate.content else []
        text = "".join(p.text for p in parts if p.text and not p.thought)
        thinking = "".join(p.text for p in parts if p.text and p.thought)
        finish = (
            str(candidate.finish_reason.value if candidate and candidate.finish_reason else "").lower()
            or None
        )
        if reply.prompt_feedback is not None and reply.prompt_feedback.block_reason is not None:
            finish = "refused"
        usage = reply.usage_metadata
        thoughts = (usage.thoughts_token_count or 0) if usage else 0
        return Completion(
            text=text,
            model=str(self.spec),
            reasoning=thinking or None,
            usage=Usage(
                usage.prompt_token_count or 0, (usage.candidates_token_count or 0) + thoughts, thoughts
            )
            if usage
            else Usage(),
            finish_reason="refused" if finish in ("safety", "prohibited_content", "blocklist") else finish,
        )
