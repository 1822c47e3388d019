"""Each provider's published image-token rule gives the numbers of the provider's own examples
(docs/plan.md says where each was published), and the rule a spec gets is the family's."""

from __future__ import annotations

import pytest

from vqakit.models import image_token_rule, request_limits, text_tokens
from vqakit.models._image_tokens import (
    anthropic_tokens,
    gemini_fixed,
    gemini_tiles,
    openai_patches,
    openai_tiles,
    qwen_vl_tokens,
)


def test_openai_tiles_give_the_documented_examples():
    """OpenAI, Images and vision, "Calculating costs" (gpt-4o at high detail): 1024 x 1024 is
    scaled to 768 x 768, 4 tiles, 765 tokens; 2048 x 4096 to 768 x 1536, 6 tiles, 1105."""
    tokens = openai_tiles(85, 170)
    assert tokens(1024, 1024) == 765 and tokens(2048, 4096) == 1105
    assert tokens(512, 512) == 255  # one tile, never enlarged to 768
    assert image_token_rule("openai", "gpt-4o-mini-2024-07-18").tokens(1024, 1024) == 2833 + 4 * 5667
    assert image_token_rule("openai", "gpt-4o").tokens(1024, 1024) == 765


def test_openai_patches_give_the_documented_examples():
    """32 px patches, at most 1536: 1024 x 1024 is 1024 patches; 1800 x 2400 is scaled to
    1056 x 1408 (whole patches across), 33 x 44 = 1452; times the model's multiplier (the
    docs' gpt-5-mini example: 1024 x 1024 -> 1659)."""
    assert openai_patches(1.0)(1024, 1024) == 1024
    assert openai_patches(1.0)(1800, 2400) == 1452
    assert image_token_rule("openai", "gpt-5-mini").tokens(1024, 1024) == 1659
    assert image_token_rule("openai", "gpt-4.1-nano").tokens(1024, 1024) == 2520  # x 2.46
    assert image_token_rule("openai", "o4-mini").tokens(4000, 4000) == 2617  # 39 x 39 patches x 1.72


def test_anthropic_gives_the_documented_table():
    """Anthropic, Vision, "Calculate image costs": tokens = width x height / 750; 200 x 200 is
    ~54, 1000 x 1000 ~1334, 1092 x 1092 ~1590 (the largest square not scaled down); a long edge
    over 1568 px is scaled down first."""
    assert [anthropic_tokens(s, s) for s in (200, 1000, 1092)] == [54, 1334, 1590]
    assert anthropic_tokens(3000, 1000) == anthropic_tokens(1568, 523)
    assert (
        anthropic_tokens(4000, 4000) <= 1600
        and image_token_rule("anthropic", "claude-x").tokens(200, 200) == 54
    )


def test_gemini_gives_the_documented_tiles_and_resolutions():
    """Gemini API, Image understanding: 258 tokens when both sides are at most 384 px; larger
    images in tiles of a crop unit floor(min side / 1.5), 258 each: 960 x 540 is 6 tiles.
    Gemini 3 (Media resolution): 1120 tokens an image at the default (high)."""
    assert gemini_tiles(384, 384) == 258 and gemini_tiles(100, 50) == 258
    assert gemini_tiles(960, 540) == 6 * 258
    assert image_token_rule("gemini", "gemini-2.5-flash").tokens(960, 540) == 1548
    assert (
        image_token_rule("gemini", "gemini-3-pro-preview").tokens(960, 540)
        == 1120
        == gemini_fixed(1120)(1, 1)
    )


@pytest.mark.parametrize(
    "width,height", [(768, 432), (432, 768), (1092, 1092), (60, 40), (3840, 2160), (1280, 7)]
)
def test_qwen_vl_patches_are_the_processors_own(width, height):
    """Qwen2-VL and Qwen2.5-VL count one token per 28 x 28 patch of the image resized by the
    processor's `smart_resize` (transformers' Qwen2VLImageProcessor, its default min and max
    pixels), plus the vision start and end tokens: checked against transformers itself."""
    from transformers.models.qwen2_vl.image_processing_qwen2_vl import smart_resize

    h, w = smart_resize(height, width, factor=28, min_pixels=4 * 28 * 28, max_pixels=16384 * 28 * 28)
    assert qwen_vl_tokens()(width, height) == (h // 28) * (w // 28) + 2
    rule = image_token_rule("openai-compatible", "Qwen/Qwen2.5-VL-7B-Instruct")
    assert rule is not None and rule.tokens(width, height) == (h // 28) * (w // 28) + 2


def test_the_model_cards_token_range():
    """The Qwen2-VL model card: min_pixels 256*28*28 and max_pixels 1280*28*28 give 256 to 1280
    visual tokens an image."""
    bounded = qwen_vl_tokens(min_pixels=256 * 28 * 28, max_pixels=1280 * 28 * 28)
    assert all(256 <= bounded(w, h) - 2 <= 1280 for w, h in [(28, 28), (640, 480), (4000, 3000)])


def test_unknown_families_and_limits():
    assert image_token_rule("openai-compatible", "meta/llama-3-8b") is None
    assert request_limits("anthropic", "claude-sonnet-4-5").images == 100
    assert request_limits("openai", "gpt-4o").images == 500 and request_limits("hf", "x") is None
    assert text_tokens("a" * 9) == 3
