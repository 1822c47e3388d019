"""A run's config.yaml: written when a run starts, checked against the run already in a folder
(a changed configuration is refused with a diff, unless the change only adds judges, which
grade finished predictions), and the protocol as it is saved."""

from __future__ import annotations

import difflib
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
                diff = "\n".join(
                    difflib.unified_diff(
                        yaml.safe_dump(identity(saved), sort_keys=True).splitlines(),
                        yaml.safe_dump(identity(config), sort_keys=True).splitlines(),
                        "saved config.yaml",
                        "this run",
                        lineterm="",
                    )
                )
                raise RunConfigError(
                    f"{folder} holds a run with another configuration; pass --new-run to start a fresh "
                    f"one beside it, or choose another --out.\n{diff}"
                )
            config = added
    write_text_atomic(path, yaml.safe_dump(config, sort_keys=False))
    return config


# Protocol fields added after run folders were first written: saved only when not at their
# default, so a run made before them resumes (its config.yaml has no such key)
LATER_PROTOCOL_FIELDS = {"upscale": False}


def saved_protocol(protocol: Any) -> dict[str, Any]:
    """The protocol as config.yaml keeps it (see `LATER_PROTOCOL_FIELDS`)."""
    dumped = protocol.model_dump()
    return {
        k: v for k, v in dumped.items() if not (k in LATER_PROTOCOL_FIELDS and v == LATER_PROTOCOL_FIELDS[k])
    }
