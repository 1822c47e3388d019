"""The sample cards of a run report: question, options, frames sent, reply, how it was read."""

from __future__ import annotations

import base64
import io
from typing import Any

from PIL import Image

from vqakit.report._hooks import detail_hooks, frames_hooks
from vqakit.schema import Benchmark, Prediction, Sample
from vqakit.scoring import LETTERS, judge_for_kind

THUMB_SHORT_SIDE = 72


def _shown_video(
    benchmark: Benchmark, sample: Sample, prediction: Prediction
) -> tuple[str, list[float]] | None:
    """(video path, frame times) of the frames to show: a system's choice (e.g. a retrieved
    clip's), else the sample's own video at the times sent."""
    for hook in frames_hooks():
        shown = hook(benchmark, sample, prediction)
        if shown is not None:
            return shown
    if prediction.retrieval is None and prediction.frames_s and sample.videos:
        return sample.videos[0].path, prediction.frames_s
    return None


def _thumbnails(benchmark: Benchmark, sample: Sample, prediction: Prediction) -> tuple[list[dict], str]:
    """(thumbnails as data URLs with their times, error text)."""
    shown = _shown_video(benchmark, sample, prediction)
    if shown is None:
        return [], ""
    from vqakit.models import clock
    from vqakit.video import Resize, Timestamps, VideoError, sample_frames

    try:
        frames = sample_frames(
            benchmark.root / shown[0], Timestamps(tuple(shown[1])), resize=Resize(short_side=THUMB_SHORT_SIDE)
        )
    except VideoError as error:
        return [], str(error)
    thumbnails = []
    for frame in frames:
        buffer = io.BytesIO()
        Image.fromarray(frame.image).save(buffer, format="JPEG", quality=70)
        data = base64.b64encode(buffer.getvalue()).decode()
        thumbnails.append(
            {"src": f"data:image/jpeg;base64,{data}", "time_s": frame.time_s, "clock": clock(frame.time_s)}
        )
    return thumbnails, ""


def _note(prediction: Prediction, score: dict[str, Any]) -> str:
    """How the answer was read, or why there is none."""
    note = prediction.extraction or ""
    if score.get("extracted_by") == "model extractor":
        note = f"read by the model extractor ({note})"
    if "judge_raw" in score:
        note = f"judge said: {score['judge_raw']}"
    if prediction.error is not None:
        note = f"error {prediction.error.type}: {prediction.error.message}"
    return note


def sample_card(
    benchmark: Benchmark,
    sample: Sample,
    prediction: Prediction,
    score: dict[str, Any],
    records: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """What the report template shows for one sample."""
    status = score["status"]
    kind = ("correct" if score["correct"] else "wrong") if status == "answered" else status.split(":")[0]
    kind = kind.split(" ")[0]
    thumbnails, frames_error = _thumbnails(benchmark, sample, prediction)
    judgments = []
    for record_kind, record in records.items():
        judge = judge_for_kind(record_kind)
        if judge is None or judge.decides is not None:
            continue  # deciding judges show in the note
        said = record.get("raw") if record.get("error") is None else f"error: {record['error']}"
        judgments.append(f"{judge.title or judge.name} judge said: {said}")
    return {
        "id": sample.id,
        "status": status,
        "classes": f"{kind} {'wrong' if kind in ('abstained', 'error') else ''}",
        "tags": [tag for tag in [sample.metadata.category, *sample.metadata.skills] if tag],
        "question": sample.question,
        "options": [
            {"letter": LETTERS[i], "text": text, "gold": i == sample.answer, "chosen": i == prediction.choice}
            for i, text in enumerate(sample.choices or [])
        ],
        "reference": None if sample.choices is not None else str(sample.answer),
        "thumbnails": thumbnails,
        "frames_error": frames_error,
        "details": [d for hook in detail_hooks() if (d := hook(sample, prediction)) is not None],
        "reply": prediction.reply,
        "judgments": judgments,
        "note": _note(prediction, score),
    }
