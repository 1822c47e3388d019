"""`--input video`: the video itself instead of sampled frames, where the model's backend takes
video (`vqakit.models.video_input`).

- A backend that takes a clip (vLLM, SGLang through `openai-compatible:`) gets the sample's
  window cut and re-encoded at the protocol's frame rate and size (`vqakit.video.cut_clip`): as a
  `data:` URL, or with `video_url=file` as a `file://` URL of the clip kept in the run folder
  (`clips/<sample id's slug>-<digest of the id>.mp4`: ids that differ only in punctuation, or
  beyond their last characters, never share a clip), for a server on the same machine.
- Gemini gets the source file (uploaded once) with the window as `video_metadata` offsets and
  the protocol's rate as its `fps`: nothing is cut.

The protocol's frame spec sets the rate: `fps:F` is F frames per second, `uniform:N` is N frames
over the window (N / window seconds). What was sent is kept on the prediction (`video`) and
shown on the report's sample cards.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from vqakit.methods._registry import MethodContext
from vqakit.schema import Sample


class VideoOptions(BaseModel):
    """Options of methods that can send the video itself."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # how a cut clip travels to an OpenAI-compatible server: inline, or as a file:// URL
    video_url: Literal["data", "file"] = "data"


def video_parts(sample: Sample, context: MethodContext) -> tuple[list, list[float]]:
    """The message part carrying the sample's video (and no frame times)."""
    from vqakit.methods._direct import window_spec
    from vqakit.models import Video, video_input
    from vqakit.video import Resize, clip_rate, cut_clip, frame_index

    source = context.root / sample.videos[0].path
    spec = window_spec(sample, context.protocol.frames)
    kind = video_input(context.model.spec.backend) if context.model is not None else None
    if kind == "file":
        start, end, fps = clip_rate(spec, frame_index(source).duration_s)
        mime = mimetypes.guess_type(source.name)[0] or "video/mp4"
        return [Video(start, end, fps, path=str(source.resolve()), mime=mime)], []
    if kind != "clip":
        raise ValueError(f"{context.model} takes frames only: use --input frames")
    resize = Resize(short_side=context.protocol.short_side) if context.protocol.short_side else None
    clip = cut_clip(source, spec, resize)
    url = None
    if getattr(context.options, "video_url", "data") == "file" and context.artifacts is not None:
        from vqakit.files import id_name, write_atomic

        path = Path(context.artifacts) / "clips" / f"{id_name(sample.id, 120)}.mp4"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, lambda handle: handle.write(clip.data))
        url = path.resolve().as_uri()
    return [Video(clip.start_s, clip.end_s, clip.fps, data=clip.data, url=url)], []


def sent_video(parts: list[Any]) -> dict[str, Any] | None:
    """What a request carried of the video, for the prediction: the window, the rate, and how."""
    from vqakit.models import Video

    video = next((part for part in parts if isinstance(part, Video)), None)
    if video is None:
        return None
    if video.path is not None:
        how = "file with offsets"
    elif video.url is not None:
        how = "clip as a file URL"
    else:
        how = "clip as a data URL"
    sent: dict[str, Any] = {
        "how": how,
        "start_s": round(video.start_s, 3),
        "end_s": round(video.end_s, 3),
        "fps": round(video.fps, 4),
    }
    if video.data is not None:
        sent["bytes"] = len(video.data)
    return sent


def describe_video_input(backend: str | None, options: BaseModel, protocol: Any) -> str:
    """The manifest's line on what `--input video` sends with this model."""
    from vqakit.models import video_input

    kind = video_input(backend) if backend else None
    rate = f"at the rate of {protocol.frames}"
    if kind == "file":
        return f"the source video through the file API, with video_metadata offsets of the window, {rate}"
    size = f", short side {protocol.short_side} px" if protocol.short_side else ""
    carried = "a file:// URL" if getattr(options, "video_url", "data") == "file" else "a data URL"
    return f"the window cut and re-encoded {rate}{size}, as a video_url ({carried})"
