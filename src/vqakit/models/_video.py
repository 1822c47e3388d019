"""Sending the video itself (`--input video`) to the backends that take it.

- OpenAI-compatible servers (vLLM, SGLang) take a `video_url` part: the clip, cut to the window
  and re-encoded by the caller, as a `data:` URL, or as a `file://` URL of the clip on disk for
  a server on the same machine (vLLM needs `--allowed-local-media-path` for that).
- Gemini takes the source file through its file API, with `video_metadata` (start and end
  offsets, frame rate) saying which part to look at, so nothing is cut.

`video_input(backend)` says which of the two a backend takes (`clip`, `file`), or None.
"""

from __future__ import annotations

import base64
from typing import Any

from vqakit.models._messages import Video

# backend -> what it takes of a video: the cut clip, or the source file with offsets. `replay:`
# replays recorded replies whatever was sent, so it takes either.
VIDEO_INPUT = {"openai-compatible": "clip", "gemini": "file", "replay": "clip"}


def video_input(backend: str) -> str | None:
    """`clip`, `file`, or None when the backend takes frames only."""
    return VIDEO_INPUT.get(backend)


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
