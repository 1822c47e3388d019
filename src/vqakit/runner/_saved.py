"""A run's config.yaml: written when a run starts, checked against the run already in a folder
(a changed configuration is refused with a diff, unless the change only adds judges, which
grade finished predictions), and the protocol as it is saved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from vqakit.files import write_text_atomic
from vqakit.runner._config import identity
from vqakit.runs import CONFIG


class RunConfigError(Exception):
    """The run folder holds a run with a different configuration."""


JUDGE_FIELDS = ("judges", "judge_args")


def _added_judges(saved: dict[str, Any], config: dict[str, Any]) -> dict[str, Any] | None:
    """`config` with the saved run's judges kept, when the two runs differ only in judges that
    `config` adds (a judge already in the run keeps its model and settings); else None."""
    if {k: v for k, v in identity(saved).items() if k not in JUDGE_FIELDS} != {
        k: v for k, v in identity(config).items() if k not in JUDGE_FIELDS
    }:
        return None
    saved_judges, saved_args = saved.get("judges") or {}, saved.get("judge_args") or {}
    for name, spec in (config.get("judges") or {}).items():
        if name in saved_judges and (
            saved_judges[name] != spec or saved_args.get(name) != (config.get("judge_args") or {}).get(name)
        ):
            return None
    return {
        **config,
        "judges": {**saved_judges, **(config.get("judges") or {})},
        "judge_args": {**saved_args, **(config.get("judge_args") or {})},
    }


def check_or_write_config(folder: Path, config: dict[str, Any]) -> dict[str, Any]:
    """Write config.yaml, or check it against the run already in the folder, and return what the
    run is: the same configuration, or the saved run with the judges this call adds (judges
    grade finished predictions, so adding one does not make a new run)."""
    path = folder / CONFIG
    if path.exists():
        saved = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if identity(saved) != identity(config):
            added = _added_judges(saved, config)
            if added is None:
                changes = "\n".join(
                    f"  - {line}" for line in config_changes(identity(saved), identity(config))
                )
                raise RunConfigError(
                    f"{folder} holds a run with another configuration; pass --new-run to start a fresh "
                    f"one beside it, or choose another --out. What differs:\n{changes}"
                )
            config = added
    write_text_atomic(path, yaml.safe_dump(config, sort_keys=False))
    return config


# what each setting of a run is, in words, and the option that sets it
SETTINGS_IN_WORDS = {
    "benchmark_hash": "the benchmark's files (its samples, card or corpus changed since the run, or "
    "this is another benchmark; its content hash)",
    "method": "the method (--method)",
    "model": "the model (--model)",
    "fallback": "the fallback model (--fallback)",
    "model_args": "the model's generation setting {key} (--model-arg)",
    "method_args": "the method's option {key} (--method-arg)",
    "judges": "the model of judge {key} (--judge)",
    "judge_args": "a generation setting of judge {key} (--judge-arg)",
    "seed": "the seed",
    "reasoning_source": "what judges read as reasoning (--reasoning-source)",
    "protocol.frames": "the frames sent (--frames)",
    "protocol.short_side": "the frames' short side (--short-side)",
    "protocol.upscale": "whether small frames are enlarged (--upscale)",
    "protocol.prompt": "the prompt (--prompt)",
    "protocol.subtitles": "whether subtitles are shown (--subtitles)",
    "protocol.input": "what the model is shown of the video (--input)",
}
# run settings that override the protocol: a change shows in `protocol.<field>` already
_OVERRIDES = ("frames", "short_side", "upscale", "prompt", "subtitles", "input")


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _words(key: str, sub: str | None = None) -> str:
    words = SETTINGS_IN_WORDS.get(key)
    if words is None:
        return (
            f"the benchmark protocol's {key.removeprefix('protocol.')}"
            if key.startswith("protocol.")
            else key
        )
    return words.format(key=sub) if "{key}" in words else words


def _line(words: str, before: Any, after: Any) -> str:
    return f"{words}: {_shown(before)} in the run, {_shown(after)} now"


def config_changes(saved: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """One line per setting that differs between two run identities (`identity`), in words:
    `the frames sent (--frames): uniform:16 in the run, uniform:8 now`."""
    lines = []
    for key in sorted(set(saved) | set(now)):
        before, after = saved.get(key), now.get(key)
        if before == after or (key in _OVERRIDES and "protocol" in saved):
            continue
        if not (isinstance(before, dict) or isinstance(after, dict)):
            lines.append(_line(_words(key), before, after))
            continue
        before, after = before or {}, after or {}
        for sub in sorted(set(before) | set(after)):
            if before.get(sub) != after.get(sub):
                words = _words(f"{key}.{sub}" if key == "protocol" else key, sub)
                lines.append(_line(words, before.get(sub), after.get(sub)))
    return lines


# Protocol fields added after run folders were first written: saved only when not at their
# default, so a run made before them resumes (its config.yaml has no such key)
LATER_PROTOCOL_FIELDS = {"upscale": False}


def saved_protocol(protocol: Any) -> dict[str, Any]:
    """The protocol as config.yaml keeps it (see `LATER_PROTOCOL_FIELDS`)."""
    dumped = protocol.model_dump()
    return {
        k: v for k, v in dumped.items() if not (k in LATER_PROTOCOL_FIELDS and v == LATER_PROTOCOL_FIELDS[k])
    }
