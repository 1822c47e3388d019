"""Tiny randomly initialised vision-language models, built from configs at test time.

No weights are downloaded: each builder writes a real model folder (config, safetensors,
tokenizer, processor, chat template) that `from_pretrained` loads like any hub checkpoint.
Replies are random text; the tests prove the loading, templating and generation code.
"""

from __future__ import annotations

from pathlib import Path

CHAT_TEMPLATE_QWEN = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% elif part['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'video' %}<|vision_start|><|video_pad|><|vision_end|>{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

CHAT_TEMPLATE_SMOLVLM = (
    "<|im_start|>{% for message in messages %}{{ message['role'] | capitalize }}:"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}{% elif part['type'] == 'image' %}<image>{% endif %}"
    "{% endfor %}{% endif %}<end_of_utterance>\n{% endfor %}"
    "{% if add_generation_prompt %}Assistant:{% endif %}"
)


def seeded(seed: int = 0) -> None:
    """Random weights, but the same ones every time: a test of generation then sees the same
    (random) reply on every machine instead of, now and then, an end-of-text token first."""
    import torch

    torch.manual_seed(seed)


def byte_tokenizer(special: list[str], chat_template: str):
    """A byte-level BPE tokenizer without merges, plus the model's special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {symbol: i for i, symbol in enumerate(sorted(alphabet))}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core)
    tokenizer.add_special_tokens({"additional_special_tokens": special})
    tokenizer.chat_template = chat_template
    return tokenizer


def build_tiny_qwen25_vl(folder: Path) -> Path:
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
        Qwen2VLVideoProcessor,
    )

    special = [
        "<|im_start|>",
        "<|im_end|>",
        "<|endoftext|>",
        "<|vision_start|>",
        "<|vision_end|>",
        "<|image_pad|>",
        "<|video_pad|>",
    ]
    tokenizer = byte_tokenizer(special, CHAT_TEMPLATE_QWEN)
    tokenizer.pad_token, tokenizer.eos_token = "<|endoftext|>", "<|im_end|>"
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in special}
    config = Qwen2_5_VLConfig(
        text_config={
            "vocab_size": len(tokenizer),
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "max_position_embeddings": 4096,
            "rope_parameters": {"rope_type": "default", "rope_theta": 1e4, "mrope_section": [2, 3, 3]},
            "eos_token_id": ids["<|im_end|>"],
            "pad_token_id": ids["<|endoftext|>"],
            "bos_token_id": None,
        },
        vision_config={
            "depth": 2,
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_heads": 2,
            "out_hidden_size": 64,
            "patch_size": 14,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "window_size": 56,
            "fullatt_block_indexes": [1],
        },
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        eos_token_id=ids["<|im_end|>"],
        pad_token_id=ids["<|endoftext|>"],
    )
    seeded()
    model = Qwen2_5_VLForConditionalGeneration(config)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    pixels = {"min_pixels": 28 * 28 * 4, "max_pixels": 28 * 28 * 16}
    processor = Qwen2_5_VLProcessor(
        image_processor=Qwen2VLImageProcessor(**pixels),
        video_processor=Qwen2VLVideoProcessor(**pixels),
        tokenizer=tokenizer,
        chat_template=CHAT_TEMPLATE_QWEN,
    )
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def build_tiny_smolvlm(folder: Path) -> Path:
    from transformers import (
        Idefics3ImageProcessor,
        Idefics3Processor,
        SmolVLMConfig,
        SmolVLMForConditionalGeneration,
    )

    rows = [f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7)]
    special = [
        "<fake_token_around_image>",
        "<image>",
        "<global-img>",
        "<end_of_utterance>",
        "<|im_start|>",
        *rows,
    ]
    tokenizer = byte_tokenizer(special, CHAT_TEMPLATE_SMOLVLM)
    tokenizer.pad_token, tokenizer.eos_token = "<end_of_utterance>", "<end_of_utterance>"
    image_id = tokenizer.convert_tokens_to_ids("<image>")
    end_id = tokenizer.convert_tokens_to_ids("<end_of_utterance>")
    config = SmolVLMConfig(
        text_config={
            "vocab_size": len(tokenizer),
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "eos_token_id": end_id,
            "pad_token_id": end_id,
        },
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
        },
        image_token_id=image_id,
        scale_factor=2,
        pad_token_id=end_id,
    )
    seeded()
    model = SmolVLMForConditionalGeneration(config)
    model.generation_config.eos_token_id = end_id
    model.generation_config.pad_token_id = end_id
    processor = Idefics3Processor(
        image_processor=Idefics3ImageProcessor(
            size={"longest_edge": 64}, max_image_size={"longest_edge": 32}
        ),
        tokenizer=tokenizer,
        chat_template=CHAT_TEMPLATE_SMOLVLM,
        image_seq_len=4,
    )
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def _dual_encoder_configs(tokenizer) -> tuple[dict, dict]:
    """Tiny text and vision tower configs for CLIP-like models (CLIP, SigLIP, OWLv2)."""
    text = {
        "vocab_size": len(tokenizer),
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "max_position_embeddings": tokenizer.model_max_length,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
        "pad_token_id": tokenizer.pad_token_id,
    }
    vision = {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "image_size": 32,
        "patch_size": 8,
    }
    return text, vision


def build_tiny_clip(folder: Path, family: str = "clip") -> Path:
    """A tiny CLIP or SigLIP (text + vision towers, projection) with its processor."""
    if family == "clip":
        from transformers import CLIPConfig as Config
        from transformers import CLIPImageProcessor as ImageProcessor
        from transformers import CLIPModel as Model
        from transformers import CLIPProcessor as Processor
    else:
        from transformers import SiglipConfig as Config
        from transformers import SiglipImageProcessor as ImageProcessor
        from transformers import SiglipModel as Model
        from transformers import SiglipProcessor as Processor
    tokenizer = byte_tokenizer(["<|startoftext|>", "<|endoftext|>", "<pad>"], "")
    tokenizer.bos_token, tokenizer.eos_token, tokenizer.pad_token = (
        "<|startoftext|>",
        "<|endoftext|>",
        "<pad>",
    )
    tokenizer.model_max_length = 32
    text, vision = _dual_encoder_configs(tokenizer)
    extra = {"projection_dim": 16} if family == "clip" else {}
    seeded()
    model = Model(Config(text_config=text, vision_config=vision, **extra))
    if family == "clip":
        images = ImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    else:
        images = ImageProcessor(size={"height": 32, "width": 32})
    Processor(image_processor=images, tokenizer=tokenizer).save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


CHAT_TEMPLATE_LLAVA = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% elif part['type'] == 'image' %}<image>{% elif part['type'] == 'video' %}<video>{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_tiny_llava_onevision(folder: Path) -> Path:
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
    )

    tokenizer = byte_tokenizer(
        ["<|im_start|>", "<|im_end|>", "<image>", "<video>", "<|endoftext|>"], CHAT_TEMPLATE_LLAVA
    )
    tokenizer.pad_token, tokenizer.eos_token = "<|endoftext|>", "<|im_end|>"
    end_id, pad_id = (
        tokenizer.convert_tokens_to_ids("<|im_end|>"),
        tokenizer.convert_tokens_to_ids("<|endoftext|>"),
    )
    pinpoints = [[32, 32], [32, 64], [64, 32], [64, 64]]
    config = LlavaOnevisionConfig(
        text_config={
            "model_type": "qwen2",
            "vocab_size": len(tokenizer),
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "eos_token_id": end_id,
            "pad_token_id": pad_id,
        },
        vision_config={
            "model_type": "siglip_vision_model",
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
        },
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        video_token_index=tokenizer.convert_tokens_to_ids("<video>"),
        image_grid_pinpoints=pinpoints,
        vision_feature_layer=-1,
    )
    seeded()
    model = LlavaOnevisionForConditionalGeneration(config)
    model.generation_config.eos_token_id, model.generation_config.pad_token_id = end_id, pad_id
    processor = LlavaOnevisionProcessor(
        image_processor=LlavaOnevisionImageProcessor(
            size={"height": 32, "width": 32}, image_grid_pinpoints=pinpoints
        ),
        video_processor=LlavaOnevisionVideoProcessor(size={"height": 32, "width": 32}),
        tokenizer=tokenizer,
        chat_template=CHAT_TEMPLATE_LLAVA,
        num_image_tokens=16,
        vision_feature_select_strategy="full",
    )
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def build_tiny_owlv2(folder: Path) -> Path:
    from transformers import Owlv2Config, Owlv2ForObjectDetection, Owlv2ImageProcessor, Owlv2Processor

    tokenizer = byte_tokenizer(["<|startoftext|>", "<|endoftext|>", "!"], "")
    tokenizer.bos_token, tokenizer.eos_token, tokenizer.pad_token = "<|startoftext|>", "<|endoftext|>", "!"
    tokenizer.model_max_length = 16
    text, vision = _dual_encoder_configs(tokenizer)
    seeded()
    model = Owlv2ForObjectDetection(Owlv2Config(text_config=text, vision_config=vision, projection_dim=32))
    Owlv2Processor(
        image_processor=Owlv2ImageProcessor(size={"height": 32, "width": 32}), tokenizer=tokenizer
    ).save_pretrained(folder)
    model.save_pretrained(folder)
    return folder
