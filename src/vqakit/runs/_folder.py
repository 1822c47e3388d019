"""Reading a run folder: the one place that parses run files (report, compare, audit, rank and
sweep all read runs through `RunFolder`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from vqakit.files import id_digest, slug
from vqakit.runs._logs import read_predictions
from vqakit.schema import Prediction

CONFIG = "config.yaml"
MANIFEST = "manifest.json"
PREDICTIONS = "predictions.jsonl"
JUDGMENTS = "judgments.jsonl"
JUDGE_BATCHES = "judge_batches.jsonl"  # the judges' batch journal: batches submitted and ended
JUDGE_BATCH_RESULTS = "judge_batch_results.jsonl"  # their replies, by request key
SCORES = "scores.jsonl"
RESULTS = "results.json"
REPORT = "report.html"
FRAMES = "frames"  # strips of the frames sent, one JPEG per sample (or per described clip)


def strip_path(key: str) -> str:
    """The file of the frame strip kept under `key` (a sample id, or sample and clip), relative to
    the run folder: a readable name plus a digest of the whole key, so any id maps to one safe
    file name. (8 digits, not `id_name`'s 12: runs written before find their strips by name.)"""
    return f"{FRAMES}/{slug(key, 80)}-{id_digest(key, 8)}.jpg"


class RunFolderError(ValueError):
    """A folder is not a run folder, or one of its files cannot be read."""


class RunFolder:
    """A run folder on disk, read lazily; nothing here writes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not (self.path / CONFIG).is_file():
            raise RunFolderError(f"{self.path}: not a run folder (no {CONFIG})")

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    @cached_property
    def config(self) -> dict[str, Any]:
        """config.yaml as written (see `vqakit.runner.EvalConfig` for its fields)."""
        try:
            data = yaml.safe_load((self.path / CONFIG).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            raise RunFolderError(f"{self.path / CONFIG}: cannot read ({error})") from None
        if not isinstance(data, dict):
            raise RunFolderError(f"{self.path / CONFIG}: expected a mapping of settings")
        return data

    def benchmark_location(self) -> str | Path:
        """Where the run's benchmark is: config.yaml names a folder by its path relative to the
        run folder, a shipped benchmark by its name (runs made by earlier versions wrote a path
        relative to where they ran, which is tried last)."""
        bench = str(self.config.get("bench", ""))
        beside = self.path / bench
        return beside if bench and beside.is_dir() else bench

    def _json(self, name: str) -> dict[str, Any]:
        path = self.path / name
        if not path.is_file():
            return {}
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except ValueError as error:
            raise RunFolderError(f"{path}: not valid JSON ({error})") from None

    @property
    def manifest(self) -> dict[str, Any]:
        return self._json(MANIFEST)

    @property
    def participant(self) -> str | None:
        """The person whose answers the run holds (manifest.json `participant`, written by
        `vqakit studio`); None for a run of a model or a baseline."""
        value = self.manifest.get("participant")
        return str(value) if value else None

    @property
    def results(self) -> dict[str, Any]:
        """results.json; empty when the run was never scored."""
        return self._json(RESULTS)

    def predictions(self) -> Mapping[str, Prediction]:
        """Each sample's latest prediction by sample id (a retried error is superseded), read
        from predictions.jsonl as it is used (`PredictionIndex`); `BadLogLines` naming each
        line of predictions.jsonl that cannot be read."""
        return read_predictions(self.path / PREDICTIONS)

    def judgments(self, name: str = JUDGMENTS) -> Mapping[str, dict[str, dict[str, Any]]]:
        """{sample id: {judge kind: latest record}} from judgments.jsonl (or another file), read
        as used (`JudgmentIndex`); `BadLogLines` naming each line that cannot be read."""
        from vqakit.runs._index import JudgmentIndex  # NumPy: not before a run's first request

        return JudgmentIndex(self.path / name)

    def scores(self) -> Mapping[str, dict[str, Any]]:
        """scores.jsonl rows by sample id, read as used (`RecordIndex`); empty when the run was
        never scored. `BadLogLines` for a line that cannot be read (`vqakit report RUN` writes
        the file again)."""
        path = self.path / SCORES
        hint = f"{path} is written from the run's logs: `vqakit report {self.path}` writes it again."
        from vqakit.runs._index import RecordIndex

        return RecordIndex(path, hint)

    def score_rows(self) -> list[dict[str, Any]]:
        return list(self.scores().values())
