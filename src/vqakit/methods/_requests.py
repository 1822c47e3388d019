"""What a method asks of the frame provider: a `FrameRequest` names frames without decoding
them (the video's content digest, the exact frame numbers, the resize, the encoding, and what
is drawn on them, an `Overlay`), and gives the keys they are shared and stored under."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any

from vqakit.methods._frame_jobs import Drawing
from vqakit.video import Resize, frame_key


@dataclass(frozen=True, eq=False)
class Overlay:
    """What a method draws on frames before they are sent (hints' marks). `draw(image, what)`
    gets a frame as decoded (RGB, at the request's resize) and returns the picture to send, which
    is then encoded like any frame; it must be a module-level function (worker processes import
    it by name) and `what` plain data. `what` and `keys` are by frame number: `keys[n]` names
    everything `draw` uses for frame n (a digest), so that a drawn frame is stored, shared and
    cached under its own key. Frames without an entry are sent as decoded."""

    draw: Callable[[Any, Any], Any]
    what: Mapping[int, Any]
    keys: Mapping[int, str]

    def __post_init__(self) -> None:
        if set(self.what) != set(self.keys):
            raise ValueError("an overlay names (keys) exactly the frames it draws on (what)")

    @property
    def name(self) -> str:
        return f"{self.draw.__module__}.{self.draw.__qualname__}"


@dataclass(frozen=True, eq=False)
class FrameRequest:
    """Which frames of which video, at which size, encoded how (and drawn on how, with an
    overlay); nothing decoded."""

    path: str
    digest: str
    numbers: tuple[int, ...]
    times_s: tuple[float, ...]
    resize: Resize | None
    encoding: dict[str, Any] | None
    overlay: Overlay | None = None

    @cached_property
    def identity(self) -> str:
        what: dict[str, Any] = {
            "video": self.digest,
            "frames": list(self.numbers),
            "resize": self.resize.key() if self.resize else None,
            "encoding": self.encoding,
        }
        if self.overlay is not None:
            what["overlay"] = [self.overlay.name, [self.overlay.keys.get(n) for n in self.numbers]]
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()

    @cached_property
    def frame_keys(self) -> tuple[str, ...]:
        encoding = json.dumps(self.encoding, sort_keys=True)
        keys = tuple(_frame_key(self.digest, n, self.resize, encoding) for n in self.numbers)
        if self.overlay is None:
            return keys
        overlay = self.overlay
        return tuple(
            _drawn_key(key, overlay.name, overlay.keys[n]) if n in overlay.keys else key
            for n, key in zip(self.numbers, keys, strict=True)
        )

    def drawing(self, number: int) -> Drawing | None:
        """What is drawn on frame `number` before it is sent, if anything."""
        if self.overlay is None or number not in self.overlay.what:
            return None
        return self.overlay.draw, self.overlay.what[number]

    def drawn(self, overlay: Overlay | None) -> FrameRequest:
        """These frames with `overlay` drawn on them."""
        return replace(self, overlay=overlay)

    def subset(self, positions: Sequence[int]) -> FrameRequest:
        """The frames at these positions of this request (in that order)."""
        return replace(
            self,
            numbers=tuple(self.numbers[i] for i in positions),
            times_s=tuple(self.times_s[i] for i in positions),
        )

    @property
    def strip_key(self) -> str:
        return "strip:" + self.identity

    @cached_property  # asked of each request several times while a run plans and decodes
    def group(self) -> tuple[str, Resize | None, str]:
        """Requests of one group can share a decode job: frames of one video's content (under
        any path), at one size, encoded one way."""
        return self.digest, self.resize, json.dumps(self.encoding, sort_keys=True)


def joined_identity(requests: Sequence[FrameRequest]) -> str:
    return hashlib.sha256(" ".join(r.identity for r in requests).encode()).hexdigest()


@lru_cache(maxsize=65536)
def _frame_key(digest: str, number: int, resize: Resize | None, encoding: str) -> str:
    return frame_key(digest, number, resize, json.loads(encoding))


def _drawn_key(frame_key: str, draw: str, drawn: str) -> str:
    """A drawn frame's key: the frame's own key, the drawing function and what it draws."""
    return "drawn:" + hashlib.sha256(json.dumps([frame_key, draw, drawn]).encode()).hexdigest()
