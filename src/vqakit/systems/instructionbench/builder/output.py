"""The benchmark folder of a build: open-ended and five-option samples of each question (linked
by `metadata.qa_id`), the clip corpus, the card with the paper's protocol, and the media."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from vqakit.systems.instructionbench.builder.context import InstructionBenchBuildConfig
from vqakit.systems.instructionbench.builder.records import Clip, Question
from vqakit.systems.instructionbench.protocol import FRAME_SETTINGS, JUDGES, PROTOCOL

OPEN, MCQ = "open-ended", "mcq"
SUFFIX = {OPEN: "open", MCQ: "mcq"}  # sample id = <qa_id>:<suffix>
DATASETS = {
    "youcook2": "YouCook2",
    "hirest": "HiREST",
    "goalstep": "Ego4D Goal-Step",
    "keystep": "Ego-Exo4D keysteps",
    "table": "the builder's own annotations",
}

FIELDS = {
    "format": "`open-ended` or `mcq`: the two forms of one generated question",
    "qa_id": "the generated question both forms come from (sample ids are `<qa_id>:open` and `<qa_id>:mcq`)",
    "source": "dataset of the step annotations: youcook2, hirest, goalstep, keystep or table",
    "perspective": "`third` (a viewer is quizzed) or `first` (the wearer of AR glasses asks an assistant)",
    "granularity": "`coarse` (sequences of steps) or `fine` (objects, their attributes and interactions)",
    "video_id": "the annotated video",
    "clip_id": "the clip (a trimmed part of a long first-person video, or the whole video); "
    "an id in corpus/clips.jsonl",
    "theme": "the recipe, goal, task or query of the clip",
    "rationale": "the question writer's reason for the answer, from the step annotations",
    "mcq_attempts": "mcq only: option designs it took to pass the incorrectness and strength checks",
}


def clip_video(clip: Clip) -> dict[str, Any]:
    return {"path": f"media/{clip.video}", "start_s": clip.start_s, "end_s": clip.end_s}


def _metadata(question: Question, form: str) -> dict[str, Any]:
    qa, info = question.qa, question.clip.info
    found = {
        "category": qa.category,
        "format": form,
        "qa_id": question.id,
        "source": info.source,
        "perspective": getattr(qa, "perspective", None) or info.perspective,
        "granularity": question.granularity,
        "video_id": info.video_id,
        "clip_id": question.clip.id,
        "theme": info.theme,
        "rationale": getattr(qa, "reason", None) or None,
    }
    if form == MCQ:
        found["mcq_attempts"] = question.mcq_attempts
    return {key: value for key, value in found.items() if value is not None}


def samples(questions: list[Question], with_options: list[Question]) -> list[dict[str, Any]]:
    """Each question's open-ended sample, followed by its MCQ sample when it has options."""
    mcq_ids = {q.id for q in with_options}
    records = []
    for question in questions:
        common = {"question": question.qa.question, "videos": [clip_video(question.clip)]}
        records.append(
            {
                "id": f"{question.id}:{SUFFIX[OPEN]}",
                **common,
                "answer": question.qa.answer,
                "metadata": _metadata(question, OPEN),
                "gold_clips": [question.clip.id],
            }
        )
        if question.id in mcq_ids:
            records.append(
                {
                    "id": f"{question.id}:{SUFFIX[MCQ]}",
                    **common,
                    "choices": question.options,
                    "answer": question.answer_index,
                    "metadata": _metadata(question, MCQ),
                    "gold_clips": [question.clip.id],
                }
            )
    return records


def clip_records(clips: list[Clip]) -> list[dict[str, Any]]:
    """The clips that have questions, as the clip corpus: window, theme, dataset."""
    return [
        {
            "id": clip.id,
            "video": clip_video(clip),
            "description": clip.info.theme,
            "metadata": {
                "source": clip.info.source,
                "perspective": clip.info.perspective,
                "video_id": clip.info.video_id,
                "steps": len(clip.info.flat_steps()),
            },
        }
        for clip in clips
    ]


def clip_steps(clips: list[Clip]) -> list[dict[str, Any]]:
    """`build/clip_steps.jsonl`: the step annotations each clip's questions were written from
    (times in seconds of the video file), for the people who review the questions."""
    return [
        {
            "clip_id": clip.id,
            "video": f"media/{clip.video}",
            "start_s": clip.start_s,
            "end_s": clip.end_s,
            "theme": clip.info.theme,
            "steps": [
                {"start_s": step.start, "end_s": step.end, "text": step.text, "level": step.level}
                for step in clip.info.flat_steps()
            ],
        }
        for clip in clips
    ]


def card(
    config: InstructionBenchBuildConfig,
    questions: list[Question],
    with_options: list[Question],
    clips: list[Clip],
) -> dict[str, Any]:
    datasets = sorted({DATASETS[c.info.source] for c in clips})
    videos = len({c.video for c in clips})
    frames = " and ".join(s.split(":")[1] for s in FRAME_SETTINGS)
    by_source: dict[str, list[str]] = defaultdict(list)
    for video in sorted({(c.info.source, c.video) for c in clips}):
        by_source[video[0]].append(f"media/{video[1]}")
    return {
        "name": config.name,
        "version": "1",
        "license": config.license,
        "description": (
            f"InstructionBench-style questions built by vqakit from step-annotated instructional videos "
            f"({', '.join(datasets)}): {len(questions)} open-ended and {len(with_options)} five-option "
            f"questions over {len(clips)} clips of {videos} videos, written from the step annotations, "
            f"kept when they passed four filters (blind, hallucination, tricky, unspecific answer); the "
            f"options were checked by three models with and without the annotations. The paper evaluates "
            f"with {frames} uniform frames of the clip, the option letter read from the reply (judge "
            f"`{JUDGES[0]}` for replies that are not a bare letter) and open-ended answers judged yes/no "
            f"against the reference (judge `{JUDGES[1]}`)."
        ),
        "protocol": PROTOCOL.model_dump(exclude_defaults=True),
        "sources": [
            {
                "files": files,
                "origin": f"{DATASETS[source]} videos given to the build",
                "license": "the video dataset's own terms",
            }
            for source, files in sorted(by_source.items())
        ],
        "fields": FIELDS,
    }
