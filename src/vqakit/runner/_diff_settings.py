"""The settings of two run folders that differ, each in words (the first half of `vqakit diff`).

A run's settings are read from its own files only (config.yaml and manifest.json), so runs made
on other machines compare: the benchmark is named by its content hash, name and version, never
by where it lay, and a value that differs only in the folders of the files it names (a replay
file, a local model, an imported answers file) is listed apart, as a location. Settings that
change how work is spread (concurrency, engine, batches, the frame store) are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from vqakit.runner._config import identity
from vqakit.runs import RunFolder
from vqakit.scoring import judges

# the order categories are listed in, with their headings
CATEGORIES = {
    "benchmark": "benchmark",
    "method": "method and model",
    "frames": "frames and their times",
    "pixels": "pixels and encoding",
    "prompt": "prompt text",
    "generation": "generation settings",
    "reading": "answer reading",
    "judges": "judges and their prompts",
    "scoring": "scoring",
    "versions": "vqakit and dependency versions",
}

# flat setting key (or its first part) -> (category, words); keys not named here are listed
# under "method" with their key as words
_NAMED = {
    "benchmark_hash": ("benchmark", "benchmark content (hash)"),
    "benchmark_name": ("benchmark", "benchmark name"),
    "benchmark_version": ("benchmark", "benchmark version"),
    "limit": ("benchmark", "samples run (--limit)"),
    "method": ("method", "method"),
    "model": ("method", "model"),
    "fallback": ("method", "fallback model"),
    "participant": ("method", "person who answered"),
    "protocol.method": ("method", "the benchmark's default method"),
    "protocol.frames": ("frames", "frames sampled"),
    "protocol.input": ("frames", "what the model is shown of the video"),
    "video": ("frames", "how the video is sent"),
    "protocol.short_side": ("pixels", "frames' short side (px)"),
    "protocol.upscale": ("pixels", "small frames enlarged"),
    "protocol.prompt": ("prompt", "answer prompt"),
    "protocol.subtitles": ("prompt", "subtitles in the prompt"),
    "seed": ("generation", "seed"),
    "reasoning_source": ("reading", "what judges read as reasoning"),
    "protocol.scorer": ("scoring", "scorer"),
    "protocol.min_group_size": ("scoring", "smallest breakdown row shown"),
    "errors_as_wrong": ("scoring", "failed MCQ samples counted as wrong"),
    "keep_errors": ("scoring", "failed samples kept when resuming"),
}
# config fields that repeat the protocol's effective values (None: the protocol's), or that do
# not change what a run predicts or scores
_SKIPPED = {"frames", "short_side", "upscale", "prompt", "input", "subtitles", "group_by", "bench"}
_MANIFEST_SKIPPED = {"benchmark", "benchmark_hash", "shown", "frames_sent", "input"}
_NOT_SET = "not set"


@dataclass(frozen=True)
class Setting:
    """One setting that differs: its key, category, words, and each run's value."""

    key: str
    category: str
    words: str
    a: Any
    b: Any

    def text(self) -> str:
        return f"{self.words}: {_shown(self.a)} in A, {_shown(self.b)} in B"

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "category": self.category, "text": self.text(), "a": self.a, "b": self.b}


def _shown(value: Any) -> str:
    if value is None:
        return _NOT_SET
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mappings as {dotted key: value} (lists and other values kept whole)."""
    found: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            found.update(_flat(value, name + "."))
        elif not (isinstance(value, dict) and not value):
            found[name] = value
    return found


def run_settings(run: RunFolder) -> tuple[dict[str, Any], set[str]]:
    """A run's settings as {dotted key: value}: its config (upgraded to today's shape, with
    defaults filled in) and what its manifest records (versions, prompt hashes, image encoding,
    the benchmark's name and version); and which keys came from the manifest (a run made by an
    earlier version may not record them all)."""
    config = run.config
    saved = identity(config)
    settings = {key: value for key, value in saved.items() if key not in _SKIPPED}
    if "protocol" not in config:  # runs of an early version kept only the overrides
        settings.update({key: saved.get(key) for key in ("frames", "short_side", "prompt")})
    for key in ("limit", "errors_as_wrong", "keep_errors"):
        settings[key] = config.get(key)
    manifest = run.manifest
    recorded = {key: value for key, value in manifest.items() if key not in _MANIFEST_SKIPPED}
    recorded["images"] = {"sent_as": (manifest.get("images") or {}).get("sent_as")}
    from_manifest = _flat(recorded)
    return {**_flat(settings), **from_manifest}, set(from_manifest)


def _describe(key: str, protocol_prompt: str | None) -> tuple[str, str]:
    """(category, words) of a flat setting key."""
    if key in _NAMED:
        return _NAMED[key]
    head, _, rest = key.partition(".")
    if head == "versions":
        return "versions", f"{rest} version"
    if head == "model_args":
        return "generation", f"generation setting {rest}"
    if head == "method_args":
        return "method", f"method option {rest}"
    if head == "images":
        return "pixels", f"image encoding {rest.removeprefix('sent_as.')}"
    if head == "video":
        return "frames", f"video sent: {rest}"
    if head == "prompt_hashes":
        if rest == protocol_prompt:
            return "prompt", f"answer prompt text ({rest}, hash)"
        return "judges", f"prompt file {rest} (read by the judge or method step that uses it; hash)"
    if head in ("judges", "judge_args"):
        name, _, setting = rest.partition(".")
        judge = judges().get(name)
        category = "reading" if judge is not None and judge.decides == "choice" else "judges"
        if head == "judges":
            return category, f"judge {name} (model)"
        return category, f"judge {name}'s generation setting {setting}"
    return "method", key.replace("_", " ")


_PATH = re.compile(r"(?:[A-Za-z]:)?[^\s:#=]*[/\\]([^\s:#=/\\]+)")


def without_locations(value: Any) -> Any:
    """A value with the folders of every path it names left out (`replay:/a/b/x.jsonl` is
    `replay:x.jsonl`): what stays the same when a run is made on another machine."""
    if isinstance(value, str):
        return _PATH.sub(r"\1", value)
    if isinstance(value, list):
        return [without_locations(item) for item in value]
    return value


@dataclass
class SettingsDiff:
    """The settings that differ (in category order); those that differ only in where files lay
    (`locations`); and those one run's manifest does not record (`unrecorded`: an earlier
    version wrote it), which are not compared."""

    settings: list[Setting]
    locations: list[Setting]
    unrecorded: list[str]


def differing_settings(a: RunFolder, b: RunFolder) -> SettingsDiff:
    """The settings of two runs that differ, in words (`SettingsDiff`)."""
    (first, recorded_a), (second, recorded_b) = run_settings(a), run_settings(b)
    prompt_a = first.get("protocol.prompt")
    found = SettingsDiff([], [], [])
    for key in dict.fromkeys([*first, *second]):
        value_a, value_b = first.get(key), second.get(key)
        if value_a == value_b:
            continue
        if (key in recorded_a) != (key in recorded_b) and _prefix(key) not in ("versions", "prompt_hashes"):
            found.unrecorded.append(key)
            continue
        category, words = _describe(key, prompt_a if prompt_a == second.get("protocol.prompt") else None)
        setting = Setting(key, category, words, value_a, value_b)
        same_place = without_locations(value_a) == without_locations(value_b)
        (found.locations if same_place else found.settings).append(setting)
    order = list(CATEGORIES)
    found.settings.sort(key=lambda setting: order.index(setting.category))
    return found


def _prefix(key: str) -> str:
    return key.partition(".")[0]
