"""What a method sent, kept in the run folder for people to check: the images as one strip per
sample (`frames/<sample>.jpg`, the frames side by side as sent: hinted frames carry their marks)
and the text of the request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vqakit.methods._registry import MethodContext
from vqakit.runs import strip_path

if TYPE_CHECKING:
    import numpy as np


def sent_images(parts: list[Any]) -> list[np.ndarray]:
    """The images among message parts, in order (each frame of a `Frames` part)."""
    import numpy as np

    from vqakit.models import Frames
    from vqakit.models import Image as ImagePart

    found: list[np.ndarray] = []
    for part in parts:
        if isinstance(part, Frames):
            found.extend(np.asarray(image) for image in part.images)
        elif isinstance(part, ImagePart):
            found.append(np.asarray(part.image))
    return found


def sent_text(parts: list[Any]) -> str:
    """The text parts of a request, joined as the model reads them."""
    from vqakit.models import Text

    texts = [part.text if isinstance(part, Text) else part for part in parts if isinstance(part, Text | str)]
    return "\n".join(texts)


def save_strip(context: MethodContext, key: str, images: list[np.ndarray]) -> list[str]:
    """Save the images as one strip in the run folder; its path relative to the run folder (in a
    list, for `Prediction.images`), or nothing when the run keeps no files or there are none."""
    if context.artifacts is None or not images:
        return []
    from vqakit.video import write_strip

    relative = strip_path(key)
    write_strip(Path(context.artifacts) / relative, images)
    return [relative]


async def keep_strip(
    context: MethodContext, identity: str, strip: Callable[[], Awaitable[bytes]], name: str | None = None
) -> list[str]:
    """Keep the strip of frames named by `identity` (made by `strip()`, JPEG bytes, only when the
    run folder lacks it): one file per distinct set of frames, shared by every sample that was
    sent them (as `save_strip`'s list). `name` keeps it under that name instead (`save_strip`'s
    key), for readers that look a strip up by sample."""
    if context.artifacts is None:
        return []
    import asyncio

    from vqakit.files import write_atomic

    relative = strip_path(name if name is not None else f"sent-{identity[:32]}")
    kept = context.shared.setdefault("kept_strips", set())  # written in this run: no need to look
    if relative in kept:
        return [relative]
    target = Path(context.artifacts) / relative
    if not target.exists():
        data = await strip()
        await asyncio.to_thread(write_atomic, target, lambda handle: handle.write(data))
    if len(kept) < 100_000:
        kept.add(relative)
    return [relative]
