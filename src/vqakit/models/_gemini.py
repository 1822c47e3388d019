"""Gemini through the official google-genai SDK (`gemini:<model>`, key GEMINI_API_KEY or
GOOGLE_API_KEY). Images are sent inline as JPEG; frames as timed images."""

from __future__ import annotations

import base64
import os
from typing import Any

from vqakit.models._images import data_url
from vqakit.models._messages import Completion, Message, Text, Usage, as_timed_images
from vqakit.models._retry import BackendError, classify_status
from vqakit.models._spec import ModelSpec


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
        key = os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
        if not key:
            raise ValueError("gemini: set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment")
        self.spec = spec
        self.image_max_side = image_max_side
        self.types = types
        options = types.HttpOptions(timeout=int(request_timeout_s * 1000), base_url=base_url)
        self.client = genai.Client(api_key=key, http_options=options)

    def _image(self, image: Any) -> Any:
        data = base64.b64decode(data_url(image, self.image_max_side).split(",", 1)[1])
        return self.types.Part.from_bytes(data=data, mime_type="image/jpeg")

    def prepare(
        self, messages: list[Message], params: dict[str, Any], sample_id: str | None
    ) -> dict[str, Any]:
        types = self.types
        system = "\n".join(
            p.text for m in messages if m.role == "system" for p in m.parts if isinstance(p, Text)
        )
        contents = []
        for message in messages:
            if message.role == "system":
                continue
            parts = [
                types.Part.from_text(text=part.text) if isinstance(part, Text) else self._image(part.image)
                for part in as_timed_images(message.parts)
            ]
            contents.append(
                types.Content(role="model" if message.role == "assistant" else "user", parts=parts)
            )
        config = types.GenerateContentConfig(
            system_instruction=system or None,
            temperature=params.get("temperature"),
            max_output_tokens=params.get("max_tokens"),
            seed=params.get("seed"),
            top_p=params.get("top_p"),
        )
        return {"model": self.spec.model, "contents": contents, "config": config}

    async def send(self, request: dict[str, Any]) -> Completion:
        from google.genai import errors

        try:
            reply = await self.client.aio.models.generate_content(**request)
        except errors.APIError as error:
            raise classify_status(int(error.code or 500), str(error)[:500]) from None
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
        return Completion(
            text=text,
            model=str(self.spec),
            reasoning=thinking or None,
            usage=Usage(usage.prompt_token_count or 0, usage.candidates_token_count or 0)
            if usage
            else Usage(),
            finish_reason="refused" if finish in ("safety", "prohibited_content", "blocklist") else finish,
        )
