"""lmms-eval 0.7.3's own task code as the peer of each preset in `conformance.py`: its
`process_results` on each reply and its aggregation, imported from the installed package (the
`peers` extra) and called on documents shaped as its task's dataset rows are.

Where the task code picks a random letter for a reply it cannot read (NExT-QA, EgoSchema,
LongVideoBench, MINERVA), the pick is recorded: the module's `random` is replaced, for the call,
by a seeded stand-in that notes that `choice` was called, so such samples are told apart from
deterministic readings. LongVideoBench's task module imports `decord` at its top for loading
videos, which its scoring functions never use; where decord is not installed a placeholder
module stands in for it, and calling it fails.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import random
import sys
import types
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Outcome:
    """A reference's verdict on one reply."""

    correct: bool | None  # None: the reference leaves the reply out of its accuracy
    read: str | None = None  # the letter it read ("" for none), None where it does not say
    random: bool = False  # it picked a letter at random


@dataclass
class Reference:
    name: str
    outcomes: dict[str, Outcome]
    headline: float | None  # a share, 0-1; None where the reference reports none
    headline_name: str
    columns: dict[str, float] = field(default_factory=dict)  # its breakdown, shares
    note: str = ""


class _RecordingRandom:
    """`random` for one call: seeded, and noting whether a letter was picked at random."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self.used = False

    def choice(self, seq: Any) -> Any:
        self.used = True
        return self._rng.choice(seq)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rng, name)


def _task(name: str) -> types.ModuleType:
    """lmms-eval's `tasks/<name>/utils.py`, imported quietly, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    if name == "longvideobench" and importlib.util.find_spec("decord") is None:
        placeholder = types.ModuleType("decord")

        def missing(*args: Any, **kwargs: Any) -> Any:
            raise ImportError("decord is not installed: the conformance script calls only scoring functions")

        placeholder.VideoReader = placeholder.cpu = missing  # type: ignore[attr-defined]
        sys.modules.setdefault("decord", placeholder)
    from loguru import logger

    logger.disable("lmms_eval")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return importlib.import_module(f"lmms_eval.tasks.{name}.utils")


def _with_random(module: types.ModuleType, seed: int, call: Any) -> tuple[Any, bool]:
    if not hasattr(module, "random"):
        return call(), False
    saved, recorder = module.random, _RecordingRandom(seed)
    module.random = recorder
    try:
        return call(), recorder.used
    finally:
        module.random = saved


def _meta(sample: Any) -> dict[str, Any]:
    return {
        **(sample.metadata.model_extra or {}),
        "skills": sample.metadata.skills,
        "category": sample.metadata.category,
    }


# preset -> (task module, how to shape a document, how to read process_results' item)
def _videomme(s: Any) -> dict[str, Any]:
    m = _meta(s)
    return {
        "question_id": s.id,
        "duration": m["duration"],
        "domain": m["domain"],
        "sub_category": m["sub_category"],
        "task_type": m["task_type"],
        "answer": LETTERS[s.answer],
        "videoID": s.id,
    }


def _mvbench(s: Any) -> dict[str, Any]:
    return {"question": s.question, "candidates": s.choices, "answer": s.choices[s.answer]}


def _egoschema(s: Any) -> dict[str, Any]:
    options = [f"{LETTERS[i]}. {choice}" for i, choice in enumerate(s.choices)]
    return {"video_idx": s.id, "question": s.question, "option": options, "answer": str(s.answer)}


def _nextqa(s: Any) -> dict[str, Any]:
    return {"question": s.question, "answer": s.answer, **{f"a{i}": c for i, c in enumerate(s.choices)}}


def _perceptiontest(s: Any) -> dict[str, Any]:
    return {"video_name": s.id, "question": s.question, "options": s.choices, "answer_id": s.answer}


def _longvideobench(s: Any) -> dict[str, Any]:
    m = _meta(s)
    options = {f"option{i}": s.choices[i] if i < len(s.choices) else "N/A" for i in range(5)}
    return {
        "id": s.id,
        "question": s.question,
        "duration_group": m["duration_group"],
        "question_category": m["question_category"],
        "correct_choice": s.answer,
        **options,
    }


MLVU_TASKS = {"findNeedle": "needle", "needleQA": "needle"}  # the release's names -> lmms-eval's


def _mlvu(s: Any) -> dict[str, Any]:
    options = "\n".join(f"({LETTERS[i]}) {choice}" for i, choice in enumerate(s.choices))
    task = _meta(s)["question_type"]
    return {
        "question": f"{s.question}\n{options}",
        "answer": LETTERS[s.answer],
        "task_type": MLVU_TASKS.get(task, task),
    }


def _minerva(s: Any) -> dict[str, Any]:
    m = _meta(s)
    return {
        "key": s.id,
        "question": s.question,
        "answer": s.choices[s.answer],
        "answer_id": s.answer,
        "question_type": ", ".join(m["skills"]),
        "split": m.get("split"),
        "category": m.get("category"),
        **{f"answer_choice_{i}": c for i, c in enumerate(s.choices)},
    }


def _score(preset: str, u: types.ModuleType, doc: dict[str, Any], reply: str) -> tuple[Outcome, Any]:
    """(the outcome, the item its aggregation takes) of process_results on one reply."""
    if preset == "videomme":
        item = u.videomme_process_results(doc, [reply])["videomme_perception_score"]
        return Outcome(item["score"] == 1.0, item["pred_answer"]), item
    if preset == "mvbench":
        item = u.mvbench_process_results(doc, [reply])["mvbench_accuracy"]
        return Outcome(bool(item["score"]) if item["pred_answer"] != "" else None), item
    if preset == "egoschema":
        item = u.egoschema_process_results_generation(doc, [reply])["score"]
        read = LETTERS[item["pred"]] if item["pred"] >= 0 else ""
        return Outcome(str(item["pred"]) == str(item["ground_truth"]), read), item
    if preset == "nextqa":
        return Outcome(bool(u.nextqa_mc_process_results(doc, [reply])["exact_match"])), None
    if preset == "perceptiontest":
        item = u.perceptiontest_val_process_results_mc(doc, [reply])["accuracy"]
        return Outcome(item["correct"] == 1, "ABCD"[item["pred_id"]] if item["pred_id"] >= 0 else ""), item
    if preset == "longvideobench":
        item = u.longvideobench_process_results(doc, [reply])["lvb_acc"]
        return Outcome(item["parsed_pred"] == item["answer"], item["parsed_pred"]), item
    if preset == "mlvu":
        item = u.mlvu_process_results(doc, [reply])["mlvu_percetion_score"]
        return Outcome(item["pred_answer"] == item["answer"], item["pred_answer"]), item
    item = u.minerva_process_results(doc, [reply])["minerva_acc"]
    return Outcome(item["score"] == 1.0, item["pred_answer"]), item


TASKS = {
    "videomme": (_videomme, "videomme"),
    "mvbench": (_mvbench, "mvbench"),
    "egoschema": (_egoschema, "egoschema"),
    "nextqa": (_nextqa, "nextqa"),
    "perceptiontest": (_perceptiontest, "perceptiontest.val"),
    "longvideobench": (_longvideobench, "longvideobench"),
    "mlvu": (_mlvu, "mlvu"),
    "minerva-mcq": (_minerva, "minerva"),
}


def lmms_eval_reference(preset: str, samples: list[Any], replies: dict[str, str]) -> Reference:
    """lmms-eval's verdict on each reply, and its headline from its own aggregation."""
    from importlib.metadata import version

    shape, module = TASKS[preset]
    u = _task(module)
    outcomes: dict[str, Outcome] = {}
    items: list[tuple[Any, Any]] = []
    for number, sample in enumerate(samples):
        (outcome, item), picked = _with_random(
            u, number, lambda s=sample: _score(preset, u, shape(s), replies[s.id])
        )
        outcomes[sample.id] = Outcome(outcome.correct, outcome.read, picked)
        items.append((sample, item))
    name = f"lmms-eval {version('lmms_eval')}"
    headline, columns, what, note = None, {}, "", ""
    with contextlib.redirect_stdout(io.StringIO()):
        if preset == "videomme":
            headline, what = u.videomme_aggregate_results([i for _, i in items]) / 100, "perception score"
        elif preset == "mvbench":
            by_task: dict[str, list[Any]] = defaultdict(list)
            for sample, item in items:
                by_task[_meta(sample)["task"]].append(item)
            columns = {task: u.mvbench_aggregate_results(found) / 100 for task, found in by_task.items()}
            note = "reports each of the 20 tasks apart (its mvbench group has no total); no headline"
        elif preset == "egoschema":
            headline, what = u.egoschema_aggregate_score([i for _, i in items], None), "score (subset)"
        elif preset == "nextqa":
            scored = [o.correct for o in outcomes.values()]
            headline, what = sum(map(bool, scored)) / len(scored), "exact_match (mean)"
        elif preset == "perceptiontest":
            headline, what = u.perceptiontest_val_aggregate_accuracy([i for _, i in items], None), "accuracy"
        elif preset == "longvideobench":
            headline, what = u.longvideobench_aggregate_results([i for _, i in items]), "lvb_acc"
        elif preset == "mlvu":
            headline, what = (
                u.mlvu_aggregate_results_dev([i for _, i in items]) / 100,
                "average of 7 task types",
            )
        else:
            headline, what = u.minerva_aggregate_results([i for _, i in items]) / 100, "minerva_acc"
    return Reference(name, outcomes, headline, what, columns, note)
