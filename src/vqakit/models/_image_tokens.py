"""What a provider counts for an image, and how much a request may carry: the published rules,
as data, by backend and model family (the one place a model's name is matched, against the
patterns below; `vqakit plan` says which rule it used). Each rule and limit names where it was
published; docs/plan.md lists the pages and when they were read.

A rule gives the input tokens of one image from its size as sent (after vqakit's own resizing:
`--short-side`, then the backend's longest side). Text is estimated at about 4 characters a
token, the providers' own rule of thumb, for every backend (no tokenizer is downloaded).
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable
from dataclasses import dataclass

CHARS_PER_TOKEN = 4
TEXT_RULE = "about 4 characters a token (OpenAI's and Google's rule of thumb for English)"


@dataclass(frozen=True)
class TokenRule:
    name: str  # what the rule is, in a few words
    source: str  # where it is published
    tokens: Callable[[int, int], int]  # image width, height as sent -> input tokens


@dataclass(frozen=True)
class RequestLimits:
    """What one request may carry (None: no published limit)."""

    images: int | None
    request_bytes: int | None  # the whole request (or its image bytes, where that is the rule)
    source: str


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


# --- OpenAI ------------------------------------------------------------------------------

OPENAI_VISION = "OpenAI API docs, Images and vision: Calculating costs"


def openai_tiles(base: int, tile: int) -> Callable[[int, int], int]:
    """High detail (what `auto` gives the frames vqakit sends): fit in 2048 x 2048, shortest side
    to 768, then `base` + `tile` for each 512 px square covering the image."""

    def tokens(width: int, height: int) -> int:
        scale = min(1.0, 2048 / max(width, height))
        width, height = width * scale, height * scale
        scale = 768 / min(width, height)
        if scale < 1:
            width, height = width * scale, height * scale
        return base + tile * math.ceil(width / 512) * math.ceil(height / 512)

    return tokens


def openai_patches(multiplier: float, cap: int = 1536) -> Callable[[int, int], int]:
    """32 px patches covering the image, at most `cap` (a larger image is scaled down, whole
    patches along its width), times the model's multiplier."""

    def tokens(width: int, height: int) -> int:
        patches = math.ceil(width / 32) * math.ceil(height / 32)
        if patches > cap:
            scale = math.sqrt(32 * 32 * cap / (width * height))
            wide, high = width * scale / 32, height * scale / 32  # in patches
            scale *= min(math.floor(wide) / wide, math.floor(high) / high)  # whole patches across
            patches = math.ceil(width * scale / 32) * math.ceil(height * scale / 32)
        return math.ceil(min(patches, cap) * multiplier)

    return tokens


# --- Anthropic ---------------------------------------------------------------------------

ANTHROPIC_VISION = "Anthropic docs, Vision: Evaluate image size / Calculate image costs"


def anthropic_tokens(width: int, height: int) -> int:
    """(width x height) / 750, after the image is scaled down (aspect kept) to at most 1568 px on
    its long edge and about 1,600 tokens (1.15 megapixels)."""
    scale = min(1.0, 1568 / max(width, height), math.sqrt(1600 * 750 / (width * height)))
    return math.ceil(round(width * scale) * round(height * scale) / 750)


# --- Gemini ------------------------------------------------------------------------------

GEMINI_IMAGES = "Gemini API docs, Image understanding: Token calculation"
GEMINI_RESOLUTION = "Gemini API docs, Media resolution: Token counts (Gemini 3)"


def gemini_tiles(width: int, height: int) -> int:
    """258 tokens when both sides are at most 384 px; else 258 for each tile of a crop unit of
    floor(min side / 1.5) pixels along each side (the docs' example: 960 x 540 is 6 tiles)."""
    if width <= 384 and height <= 384:
        return 258
    unit = max(1, math.floor(min(width, height) / 1.5))
    return 258 * math.ceil(width / unit) * math.ceil(height / unit)


def gemini_fixed(tokens: int) -> Callable[[int, int], int]:
    return lambda width, height: tokens


# --- Qwen-VL on OpenAI-compatible servers ------------------------------------------------

QWEN_VL = "Qwen2-VL / Qwen2.5-VL model cards and image processor (transformers Qwen2VLImageProcessor)"


def qwen_vl_tokens(
    factor: int = 28, min_pixels: int = 4 * 28 * 28, max_pixels: int = 16384 * 28 * 28
) -> Callable[[int, int], int]:
    """One token for each 28 x 28 patch (14 px patches merged 2 x 2) of the image resized to
    multiples of 28 with min_pixels <= area <= max_pixels (the processor's defaults), plus the
    two tokens that open and close an image."""

    def tokens(width: int, height: int) -> int:
        h, w = round(height / factor) * factor, round(width / factor) * factor
        if h * w > max_pixels:
            beta = math.sqrt(height * width / max_pixels)
            h = max(factor, math.floor(height / beta / factor) * factor)
            w = max(factor, math.floor(width / beta / factor) * factor)
        elif h * w < min_pixels:
            beta = math.sqrt(min_pixels / (height * width))
            h = math.ceil(height * beta / factor) * factor
            w = math.ceil(width * beta / factor) * factor
        return (h // factor) * (w // factor) + 2

    return tokens


# --- the tables: (backend, model pattern, ...), first match wins --------------------------

TILES_4O = "512 px tiles, 85 + 170 a tile (gpt-4o, gpt-4.1)"

_RULES: list[tuple[str, str, TokenRule]] = [
    (
        "openai",
        "gpt-4o-mini*",
        TokenRule("512 px tiles, 2833 + 5667 a tile", OPENAI_VISION, openai_tiles(2833, 5667)),
    ),
    ("openai", "gpt-4.1-mini*", TokenRule("32 px patches x 1.62", OPENAI_VISION, openai_patches(1.62))),
    ("openai", "gpt-5-mini*", TokenRule("32 px patches x 1.62", OPENAI_VISION, openai_patches(1.62))),
    ("openai", "gpt-4.1-nano*", TokenRule("32 px patches x 2.46", OPENAI_VISION, openai_patches(2.46))),
    ("openai", "gpt-5-nano*", TokenRule("32 px patches x 2.46", OPENAI_VISION, openai_patches(2.46))),
    ("openai", "o4-mini*", TokenRule("32 px patches x 1.72", OPENAI_VISION, openai_patches(1.72))),
    ("openai", "gpt-5*", TokenRule("512 px tiles, 70 + 140 a tile", OPENAI_VISION, openai_tiles(70, 140))),
    ("openai", "o1*", TokenRule("512 px tiles, 75 + 150 a tile", OPENAI_VISION, openai_tiles(75, 150))),
    ("openai", "o3*", TokenRule("512 px tiles, 75 + 150 a tile", OPENAI_VISION, openai_tiles(75, 150))),
    ("openai", "*", TokenRule(TILES_4O, OPENAI_VISION, openai_tiles(85, 170))),
    (
        "anthropic",
        "*",
        TokenRule("width x height / 750, within 1568 px and 1.15 MP", ANTHROPIC_VISION, anthropic_tokens),
    ),
    (
        "gemini",
        "gemini-3*",
        TokenRule(
            "1120 a picture (media resolution high, the default)", GEMINI_RESOLUTION, gemini_fixed(1120)
        ),
    ),
    ("gemini", "*", TokenRule("258 a picture up to 384 px, else 258 a tile", GEMINI_IMAGES, gemini_tiles)),
    ("openai-compatible", "*qwen2-vl*", TokenRule("Qwen2-VL: 28 px patches (+2)", QWEN_VL, qwen_vl_tokens())),
    (
        "openai-compatible",
        "*qwen2.5-vl*",
        TokenRule("Qwen2.5-VL: 28 px patches (+2)", QWEN_VL, qwen_vl_tokens()),
    ),
]

_LIMITS: list[tuple[str, str, RequestLimits]] = [
    (
        "openai",
        "*",
        RequestLimits(500, 50 * 2**20, "OpenAI API docs, Images and vision: Image input requirements"),
    ),
    ("anthropic", "*", RequestLimits(100, 32 * 2**20, "Anthropic docs, Vision: Basics and limits")),
    ("gemini", "*", RequestLimits(3600, 20 * 2**20, "Gemini API docs, Image understanding: File limit")),
]


def register_image_tokens(backend: str, pattern: str, rule: TokenRule) -> None:
    """Add a rule for models of `backend` whose name matches `pattern` (fnmatch, lower case),
    ahead of the built-in ones (a plug-in backend or a model family vqakit does not know)."""
    _RULES.insert(0, (backend, pattern.lower(), rule))


def register_request_limits(backend: str, pattern: str, limits: RequestLimits) -> None:
    _LIMITS.insert(0, (backend, pattern.lower(), limits))


def image_token_rule(backend: str, model: str) -> TokenRule | None:
    """The published image-token rule of this backend's model, or None when none is known."""
    name = model.lower()
    found = (rule for b, pattern, rule in _RULES if b == backend and fnmatch.fnmatch(name, pattern))
    return next(found, None)


def request_limits(backend: str, model: str) -> RequestLimits | None:
    name = model.lower()
    found = (limits for b, pattern, limits in _LIMITS if b == backend and fnmatch.fnmatch(name, pattern))
    return next(found, None)
