"""Writing a built benchmark folder and checking that it loads."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from vqakit.files import place_file, write_text_atomic
from vqakit.schema import CARD, CLIPS, PASSAGES, SAMPLES, Benchmark, load_folder
from vqakit.video import VideoMediaChecker


def _jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def write_benchmark_folder(
    out: str | Path,
    *,
    card: Mapping[str, Any],
    samples: Sequence[Mapping[str, Any]],
    clips: Sequence[Mapping[str, Any]] | None = None,
    passages: Sequence[Mapping[str, Any]] | None = None,
    media: Mapping[str, Path] | None = None,
) -> Benchmark:
    """Place `media` ({path under media/: source file}; a file an earlier run placed is kept),
    write the corpora (a None corpus is not written), samples and card, then load the folder with
    its media checked. Raises `BenchmarkError` listing every problem."""
    out = Path(out)
    for relative, source in (media or {}).items():
        place_file(source, out / "media" / relative)
    if clips is not None:
        write_text_atomic(out / CLIPS, _jsonl(clips))
    if passages is not None:
        write_text_atomic(out / PASSAGES, _jsonl(passages))
    write_text_atomic(out / SAMPLES, _jsonl(samples))
    write_text_atomic(out / CARD, yaml.safe_dump(dict(card), sort_keys=False))
    return load_folder(out, VideoMediaChecker())
