"""Frames a method shows a model, named rather than held: a request to the run's frame provider
(`context.frames`) and the message part that carries it, fetched only when a request is really
sent. Every method that shows frames goes through here, so that its frames are decoded once per
run, kept in the frame store, and keyed in the response cache by identity (a cached re-run
decodes nothing)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from vqakit.methods._frames import FrameRequest
from vqakit.methods._registry import MethodContext
from vqakit.models import Model  # bound here: a test may stand another model in for the name
from vqakit.schema import Protocol, SamplingSpec
from vqakit.video import Resize


def protocol_resize(protocol: Protocol) -> Resize | None:
    """The frames' size the protocol asks for (its short side), or None for frames as decoded."""
    if not protocol.short_side:
        return None
    return Resize(short_side=protocol.short_side, upscale=protocol.upscale)


def sent_encoding(context: MethodContext) -> dict[str, Any] | None:
    """How the run's model is sent images (`Model.image_encoding`); None: it takes pixels."""
    return getattr(context.model, "image_encoding", None)


def request_frames(
    context: MethodContext, video: str | Path, spec: SamplingSpec, resize: Resize | None = None
) -> FrameRequest:
    """The frames `spec` asks of `video` (a path), at `resize` (None: the protocol's size), as
    the run's model is sent them; VideoError when the video cannot be read. Decodes nothing."""
    resize = resize if resize is not None else protocol_resize(context.protocol)
    return context.frames.request(str(video), spec, resize, sent_encoding(context))


def known_frames(
    context: MethodContext, video: str | Path, spec: SamplingSpec, resize: Resize | None = None
) -> FrameRequest | None:
    """`request_frames`' request when the run's frame provider has it already (planned ahead),
    else None; reads nothing, so an async method may ask on the event loop."""
    resize = resize if resize is not None else protocol_resize(context.protocol)
    return context.frames.known(str(video), spec, resize, sent_encoding(context))


def frames_part(
    context: MethodContext,
    request: FrameRequest,
    *,
    times_s: Sequence[float] | None = None,
    label_times: bool = True,
) -> Any:
    """The message part (`models.Frames`) of the request's frames, named by its identity and
    fetched from the frame provider when sent; `times_s` are the labels (default: the frames'
    times in the video)."""
    from vqakit.models import Frames

    provider = context.frames
    times = tuple(times_s) if times_s is not None else request.times_s
    return Frames((), times, label_times, identity=request.identity, fetch=lambda: provider.images(request))


def frames_strip(context: MethodContext, *requests: FrameRequest) -> Callable[[], Awaitable[bytes]]:
    """How to get the strip of the requests' frames side by side (JPEG bytes), made once."""
    provider = context.frames

    async def strip() -> bytes:
        return await provider.strip(*requests)

    return strip


async def sendable(context: MethodContext, message: Any) -> Any:
    """The message as the run's model takes it: a vqakit `Model` fetches named frames itself,
    only when it really sends them (not for a cached reply); any other model (a test double, a
    plug-in) is given them fetched. Raises what fetching raises (e.g. a VideoError)."""
    return message if isinstance(context.model, Model) else await message.loaded()
