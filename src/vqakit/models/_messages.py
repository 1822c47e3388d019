"""What is sent to a model and what comes back, independent of any backend."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import pairwise
from typing import Any, Literal

from vqakit.models._secrets import redact_known, redact_secrets

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Image:
    """One picture: an RGB array (H, W, 3), a PIL image or an `EncodedImage` (JPEG as sent)."""

    image: Any


@dataclass(frozen=True, eq=False)
class Frames:
    """Video frames with their times; each frame is sent as an image, optionally preceded by its
    time as `[MM:SS]` (or `[HH:MM:SS]`) so the model can ground its answer in time.

    Frames from a video can be named instead of held: `identity` says which frames they are
    (the video's content digest, the frame numbers, the resize and the encoding), and `fetch`
    loads them. The response cache keys such frames by their identity, so a cached reply needs
    no frame at all; `Model` calls `fetch` only when the request is really sent (`loaded`)."""

    images: tuple[Any, ...]  # RGB arrays, PIL images or EncodedImages; () while not fetched
    times_s: tuple[float, ...]
    label_times: bool = True
    identity: str | None = None
    fetch: Callable[[], Awaitable[tuple[Any, ...]]] | None = None

    def __post_init__(self) -> None:
        if self.fetch is not None and self.identity is None:
            raise ValueError("frames fetched on demand need an identity")
        if len(self.images) != len(self.times_s) and not (self.fetch is not None and not self.images):
            raise ValueError(f"{len(self.images)} frames but {len(self.times_s)} times")

    @property
    def pending(self) -> bool:
        """Named but not fetched yet."""
        return self.fetch is not None and not self.images and bool(self.times_s)

    async def loaded(self) -> Frames:
        """These frames with their images fetched."""
        if not self.pending:
            return self
        assert self.fetch is not None
        images = tuple(await self.fetch())
        if len(images) != len(self.times_s):
            raise ValueError(f"fetched {len(images)} frames for {len(self.times_s)} times")
        return replace(self, images=images, fetch=None)


@dataclass(frozen=True)
class Video:
    """The video itself, for backends that take video (`--input video`): the clip already cut
    to the window and re-encoded (`data`; with a `file://` `url` of it on disk, the URL is
    sent, for a server on the same machine), or the source file (`path`) with the window and the
    frame rate to sample at, for backends that cut it themselves (Gemini's `video_metadata`).
    `start_s`/`end_s` are the window in the source video's time either way."""

    start_s: float
    end_s: float
    fps: float
    data: bytes | None = None
    url: str | None = None
    path: str | None = None
    mime: str = "video/mp4"

    def __post_init__(self) -> None:
        if self.data is None and self.url is None and self.path is None:
            raise ValueError("a video part needs its clip (data or url) or its source file (path)")


Part = Text | Image | Frames | Video


@dataclass(frozen=True)
class Message:
    role: Role
    parts: tuple[Part, ...]

    @classmethod
    def of(cls, role: Role, *parts: Part | str) -> Message:
        return cls(role, tuple(Text(p) if isinstance(p, str) else p for p in parts))

    @classmethod
    def user(cls, *parts: Part | str) -> Message:
        return cls.of("user", *parts)

    @classmethod
    def system(cls, text: str) -> Message:
        return cls.of("system", text)

    def image_count(self) -> int:
        return sum(
            1 if isinstance(p, Image) else len(p.times_s) if isinstance(p, Frames) else 0 for p in self.parts
        )

    @property
    def pending(self) -> bool:
        return any(isinstance(p, Frames) and p.pending for p in self.parts)

    async def loaded(self) -> Message:
        """This message with every named `Frames` part fetched."""
        if not self.pending:
            return self
        return replace(
            self, parts=tuple([await p.loaded() if isinstance(p, Frames) else p for p in self.parts])
        )


def clock(seconds: float, decimals: int = 0) -> str:
    """`[MM:SS]` under an hour, `[HH:MM:SS]` from an hour on; with `decimals`, fractions of a
    second too (`[00:01.2]`), rounded to that many."""
    if not decimals:
        whole, fraction = int(seconds), ""
    else:
        steps = round(seconds * 10**decimals)
        whole, part = divmod(steps, 10**decimals)
        fraction = f".{part:0{decimals}d}"
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"[{hours:02d}:{minutes:02d}:{secs:02d}{fraction}]"
    return f"[{minutes:02d}:{secs:02d}{fraction}]"


def frame_clocks(times_s: Sequence[float]) -> list[str]:
    """The time labels of a set of frames: whole seconds, or tenths (hundredths if need be)
    where frames are less than a second apart, so that no two frames at different times get
    the same label."""
    return list(_frame_clocks(tuple(times_s)))


@lru_cache(maxsize=4096)  # questions on one video ask for the same frames
def _frame_clocks(times_s: tuple[float, ...]) -> tuple[str, ...]:
    ordered = sorted(set(times_s))
    close = any(later - earlier < 1.0 for earlier, later in pairwise(ordered))
    decimals = 1 if close else 0
    while decimals < 2 and len({clock(t, decimals) for t in ordered}) < len(ordered):
        decimals += 1
    return tuple(clock(t, decimals) for t in times_s)


def as_timed_images(parts: tuple[Part, ...]) -> list[Text | Image]:
    """Parts with every `Frames` spelled out as its images, each preceded by its time label
    (when the frames ask for labels): the form backends without native video send."""
    flat: list[Text | Image] = []
    for part in parts:
        if isinstance(part, Video):
            raise ValueError("this backend takes frames only, not a video: use --input frames")
        if isinstance(part, Frames):
            labels = frame_clocks(part.times_s)
            for image, label in zip(part.images, labels, strict=True):
                if part.label_times:
                    flat.append(Text(label))
                flat.append(Image(image))
        else:
            flat.append(part)
    return flat


@dataclass(frozen=True)
class Usage:
    """Tokens of one call. `output_tokens` counts all generated tokens, thinking included;
    `reasoning_tokens` is the thinking part of them, where the API reports it."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0


def split_think_tags(text: str | None) -> tuple[str | None, str | None]:
    """(answer, thinking) from a reply that carries its thinking inline as `<think>...</think>`
    (servers without a reasoning parser, local chat templates). A reply cut inside its
    thinking is all thinking; a reply without the tags is all answer."""
    if not text or ("</think>" not in text and not text.lstrip().startswith("<think>")):
        return text, None
    thinking, closed, answer = text.partition("</think>")
    thinking = thinking.strip().removeprefix("<think>").strip()
    return (answer.strip() if closed else ""), (thinking or None)


@dataclass(frozen=True)
class CallError:
    """Why a call finally failed; a prediction carries this instead of a made-up answer."""

    # "rate_limit", "server", "timeout", "connection", "refused", "empty", "truncated" (cut at the
    # token limit; the partial reply stays in `Completion.text`), "bad_request", "auth", ...
    type: str
    message: str

    def __post_init__(self) -> None:
        # however it was made, an error text holds no key (`redact_secrets`)
        object.__setattr__(self, "message", redact_secrets(self.message))


@dataclass(frozen=True)
class Completion:
    """A model's reply, or why there is none. Every reply becomes one of these (from a backend,
    a batch, the response cache or a journal), and none holds a known key value: a server that
    echoes the key in its reply has it replaced by `[redacted]` here, before the reply can be
    cached, journaled or written to a run (`redact_known`)."""

    text: str | None
    model: str
    reasoning: str | None = None  # separated thinking text, when the backend returns it
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str | None = None
    error: CallError | None = None
    cached: bool = False
    attempts: int = 1

    def __post_init__(self) -> None:
        for name in ("text", "reasoning"):
            value = getattr(self, name)
            if isinstance(value, str) and value:
                object.__setattr__(self, name, redact_known(value))

    @property
    def ok(self) -> bool:
        return self.error is None
