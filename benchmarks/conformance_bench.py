"""The benchmark and the replies `conformance.py` scores: one preset's shipped example
(docs/examples/datasets/, imported by the preset itself), each question asked once per reply
form, answered by the scripted loopback server (`chat_server.ChatServer`), run by vqakit.

Each copy of a question gets a marker in its text (`[c0007]`) that the server keys its reply
on, and the breakdown keys the benchmark's own table reads (the card's `official`) are dealt
round the copies in turn (NExT-QA's eight type codes, MVBench's twenty tasks, ...), so that
every column of the table has questions: the official scripts divide by zero on an empty one.
Questions whose answers are hidden are left out (no reference can score them).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "docs/examples/datasets"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# preset -> (release, --videos), under DATASETS
RELEASES = {
    "videomme": ("videomme", "videomme/data"),
    "mvbench": ("mvbench", "mvbench/video"),
    "egoschema": ("egoschema", "egoschema/videos"),
    "nextqa": ("nextqa/dataset/nextqa", "nextqa/NExTVideo"),
    "perceptiontest": ("perceptiontest", "perceptiontest/videos"),
    "longvideobench": ("longvideobench", "longvideobench/videos"),
    "mlvu": ("mlvu/MLVU", "mlvu/MLVU/video"),
    "minerva-mcq": ("minerva", "minerva/videos"),
}

Reply = Callable[[str, str, str], str]  # (gold letter, another letter, gold option's text) -> reply

# (form, kind, reply): readable replies, unreadable ones, hedged ones, malformed ones. An empty
# reply is not among them: vqakit records it as a failed call (asked again, then an error left
# out of every accuracy), never as an answer.
FORMS: list[tuple[str, str, Reply]] = [
    ("letter", "readable", lambda g, w, t: g),
    ("another letter", "readable", lambda g, w, t: w),
    ("sentence", "readable", lambda g, w, t: f"The answer is ({g})."),
    ("answer tag", "readable", lambda g, w, t: f"<answer>{g}</answer>"),
    ("letter and text", "readable", lambda g, w, t: f"{g}. {t}"),
    ("option text", "readable", lambda g, w, t: t),
    (
        "reasoning, then answer",
        "readable",
        lambda g, w, t: f"The person does it twice, then leaves.\nAnswer: {g}",
    ),
    ("unreadable", "unreadable", lambda g, w, t: "I cannot tell from these frames."),
    ("article", "unreadable", lambda g, w, t: "A man opens the door; the frames do not show the rest."),
    ("hedged", "hedged", lambda g, w, t: f"I think it is {g}, but I am not sure."),
    ("two answers", "hedged", lambda g, w, t: f"Final answer: {g} (or {w})"),
    ("withdrawn", "hedged", lambda g, w, t: f"({g}) seems possible. Final answer: I cannot tell."),
    ("malformed tag", "malformed", lambda g, w, t: f"<answer>{g}</answr>"),
]


@dataclass(frozen=True)
class Case:
    """One question copy: its reply form and the reply the server gives."""

    sample_id: str
    form: str
    kind: str
    reply: str
    marker: str


def _cycles(official: Any) -> dict[str, list[str]]:
    """group -> the keys the table's columns name, in order, to deal round the copies."""
    found: dict[str, list[str]] = {}
    for column in official.columns if official else []:
        if column.group and column.keys:
            keys = found.setdefault(column.group, [])
            keys += [key for key in column.keys if key not in keys]
    return found


def _dealt(original: Any, key: str) -> Any:
    """`key` in the shape the release gave the field: a list, a number, or text."""
    if isinstance(original, list):
        return [key]
    if isinstance(original, int) and not isinstance(original, bool) and key.isdigit():
        return int(key)
    return key


def build(preset: str, work: Path) -> tuple[Path, dict[str, Case]]:
    """Import the preset's example into `work/imported`, then write `work/bench`: each question
    with a known answer once per reply form. Returns the benchmark and its cases by sample id."""
    from vqakit.schema import load_folder
    from vqakit.tables import presets

    release, videos = RELEASES[preset]
    imported = work / "imported"
    presets()[preset].run(DATASETS / release, DATASETS / videos, imported)
    benchmark = load_folder(imported)
    cycles = _cycles(benchmark.card.official)
    bench = work / "bench"
    shutil.copytree(imported, bench)
    lines, cases = [], {}
    for sample in benchmark.samples:
        if sample.answer is None or not sample.choices:
            continue
        for number, (form, kind, reply) in enumerate(FORMS):
            count = len(cases)
            data = sample.model_dump(mode="json", exclude_none=True)
            marker = f"[c{count:04d}]"
            data["id"] = f"{sample.id}~{number:02d}"
            data["question"] = f"{sample.question} {marker}"
            metadata = data.setdefault("metadata", {})
            for group, keys in cycles.items():
                metadata[group] = _dealt(metadata.get(group), keys[count % len(keys)])
            gold, other = LETTERS[sample.answer], LETTERS[(sample.answer + 1) % len(sample.choices)]
            text = reply(gold, other, sample.choices[sample.answer])
            cases[data["id"]] = Case(data["id"], form, kind, text, marker)
            lines.append(json.dumps(data, ensure_ascii=False))
    (bench / "samples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return bench, cases


def run_vqakit(bench: Path, run: Path, cases: dict[str, Case]) -> tuple[dict[str, dict], dict[str, Any]]:
    """vqakit's run of the benchmark against the scripted server: (score rows by id, results)."""
    from chat_server import ChatServer

    from vqakit.runner import EvalConfig, run_eval

    replies = {case.marker: case.reply for case in cases.values()}
    with ChatServer(0.0, replies) as server:
        config = EvalConfig(
            bench=str(bench), model=f"openai-compatible:{server.url}#conformance", frames="uniform:2"
        )
        done = run_eval(config, run)
    rows = [json.loads(line) for line in (run / "scores.jsonl").read_text("utf-8").splitlines() if line]
    return {row["sample_id"]: row for row in rows}, done.results
