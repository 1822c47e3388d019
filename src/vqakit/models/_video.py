"""Sending the video itself (`--input video`) to the backends that take it.

- OpenAI-compatible servers (vLLM, SGLang) take a `video_url` part: the clip, cut to the window
  and re-encoded by the caller, as a `data:` URL, or as a `file://` URL of the clip on disk for
  a server on the same machine (vLLM needs `--allowed-local-media-path` for that).
- Gemini takes the source file through its file API, with `video_metadata` (start and end
  offsets, frame rate) saying which part to look at, so nothing is cut.

`video_input(backend)` says which of the two a backend takes (`clip`, `file`), or None, as its
registration says (`register_backend(video=...)`); `VIDEO_INPUT` maps every such backend.
"""

from __future__ import annotations

import base64
from typing import Any

from vqakit.models._backends import VIDEO_INPUT, find_backend
from vqakit.models._messages import Video

__all__ = ["VIDEO_INPUT", "offset", "openai_video", "video_input"]


def video_input(backend: str) -> str | None:
    """`clip`, `file`, or None when the backend takes frames only."""
    info = find_backend(backend)
    return info.video if info is not None else None


def openai_video(part: Video) -> dict[str, Any]:
    """A chat-completions `video_url` content part for a cut clip."""
    if part.url is not None:  # a local server reads the clip from disk
        url = part.url
    elif part.data is not None:
        url = f"data:{part.mime};base64,{base64.b64encode(part.data).decode('ascii')}"
    else:
        raise ValueError("an OpenAI-compatible server takes the cut clip, not the source file")
    return {"type": "video_url", "video_url": {"url": url}}


def offset(seconds: float) -> str:
    """A duration as Gemini writes it: `12.5s`."""
    return f"{seconds:.3f}".rstrip("0").rstrip(".") + "s"
