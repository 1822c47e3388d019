"""The sample cards of a run report: question, options, the frames sent (as the strip the run
kept), the prompt and reply, how the answer was read, and what judges said."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vqakit.files import id_name
from vqakit.report._hooks import ShownFrames, detail_hooks, frames_hooks, judged_detail_hooks
from vqakit.runs import strip_path
from vqakit.schema import NOT_APPLICABLE, Benchmark, Prediction, Sample
from vqakit.scoring import LETTERS, judge_for_kind


def _video_line(video: dict[str, Any] | None) -> str | None:
    """`video sent: 00:04-00:08 (4.0 s) at 2 fps, clip as a data URL (16.3 kB)`."""
    if not video:
        return None
    from vqakit.models import clock

    start, end = float(video["start_s"]), float(video["end_s"])
    window = f"{clock(start)}-{clock(end)} ({end - start:.1f} s)"
    line = f"video sent: {window} at {video['fps']:g} fps, {video['how']}"
    return line + (f" ({video['bytes'] / 1000:.1f} kB)" if video.get("bytes") else "")


def shown_frames(benchmark: Benchmark, sample: Sample, prediction: Prediction) -> ShownFrames | None:
    """A system's choice (e.g. a retrieved clip's frames), else the strip the prediction saved,
    else the sample's own video at the times sent."""
    for hook in frames_hooks():
        shown = hook(benchmark, sample, prediction)
        if shown is not None:
            return shown
    if prediction.retrieval is not None:
        return None
    if prediction.images:
        return ShownFrames(prediction.frames_s, strip=prediction.images[0])
    if prediction.frames_s and sample.videos:
        return ShownFrames(prediction.frames_s, video=sample.videos[0].path)
    return None


def frame_strip(
    run: Path, benchmark: Benchmark, sample: Sample, prediction: Prediction
) -> tuple[str | None, str]:
    """(the strip's path relative to the run folder, or None; why there is none). A run made
    before strips were kept has its frames decoded once and kept under `frames/`."""
    shown = shown_frames(benchmark, sample, prediction)
    if shown is None:
        return None, ""
    if shown.strip is not None and (run / shown.strip).is_file():
        return shown.strip, ""
    if shown.video is None or not shown.times_s:
        return None, ""
    relative = strip_path(f"{sample.id}:report:{shown.video}")
    if (run / relative).is_file():
        return relative, ""
    from vqakit.video import STRIP_HEIGHT, Resize, Timestamps, VideoError, sample_frames, write_strip

    try:
        frames = sample_frames(
            benchmark.root / shown.video,
            Timestamps(tuple(shown.times_s)),
            resize=Resize(short_side=STRIP_HEIGHT),
        )
    except VideoError as error:
        return None, str(error)
    write_strip(run / relative, [frame.image for frame in frames])
    return relative, ""


def _note(prediction: Prediction, score: dict[str, Any]) -> str:
    """How the answer was read, or why there is none."""
    note = prediction.extraction or ""
    if score.get("extracted_by") == "model extractor":
        note = f"read by the model extractor ({note})"
    if score.get("judge_raw") is not None:
        note = f"judge said: {score['judge_raw']}"
    if "judge_errors" in score and "error" in score:
        note = f"not scored: {score['error']} (the judge's failure is below; a rerun retries it)"
    if prediction.error is not None:
        if prediction.error.type == NOT_APPLICABLE:
            return f"not applicable: {prediction.error.message}"
        note = f"error {prediction.error.type}: {prediction.error.message}"
    return note


def kind_of(score: dict[str, Any]) -> str:
    """correct / wrong / abstained / error / unscored / graded / not (applicable): how a sample
    is filtered and coloured."""
    status = score["status"]
    kind = ("correct" if score["correct"] else "wrong") if status == "answered" else status.split(":")[0]
    return kind.split(" ")[0]


def sample_anchor(sample_id: str) -> str:
    """The HTML id of a sample's card on its page: the id's slug and digest (`id_name`), so a
    link finds the right card whatever the id holds (`q 1` and `q%201`, which a browser's
    percent-decoding of the link would otherwise confuse; spaces, which an HTML id may not hold)."""
    return "s-" + id_name(sample_id, 80)


def sample_row(sample: Sample, prediction: Prediction, score: dict[str, Any], page: str) -> dict[str, Any]:
    """One line of the report's sample table."""
    return {
        "id": sample.id,
        "kind": kind_of(score),
        "status": score["status"],
        "category": sample.metadata.category or "",
        "chosen": score.get("chosen", ""),
        "gold": score.get("gold", ""),
        "link": f"{page}#{sample_anchor(sample.id)}",
    }


def sample_card(
    run: Path,
    benchmark: Benchmark,
    sample: Sample,
    prediction: Prediction,
    score: dict[str, Any],
    records: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """What a samples page shows for one sample."""
    from vqakit.models import frame_clocks

    kind = kind_of(score)
    strip, frames_error = frame_strip(run, benchmark, sample, prediction)
    shown = shown_frames(benchmark, sample, prediction)
    judgments = []
    for record_kind, record in records.items():
        judge = judge_for_kind(record_kind)
        if judge is None:
            continue
        if record.get("error") is not None:  # every judge's failure, with its kind (`judge_errors`)
            kind = (score.get("judge_errors") or {}).get(judge.name, "error")
            judgments.append(f"{judge.title or judge.name} judge failed ({kind}): {record['error']}")
            continue
        if judge.decides is not None or not judge.show_raw:
            continue  # deciding judges show in the note; others in their own details
        judgments.append(f"{judge.title or judge.name} judge said: {record.get('raw')}")
    return {
        "id": sample.id,
        "anchor": sample_anchor(sample.id),
        "status": score["status"],
        "classes": f"{kind} {'wrong' if kind in ('abstained', 'error') else ''}",
        "tags": [tag for tag in [sample.metadata.category, *sample.metadata.skills] if tag],
        "question": sample.question,
        "options": [
            {
                "letter": LETTERS[i],
                "text": text,
                "gold": i == sample.answer,
                "chosen": LETTERS[i] == score.get("chosen"),
            }
            for i, text in enumerate(sample.choices or [])
        ],
        "reference": None if sample.choices is not None or sample.answer_hidden else str(sample.answer),
        "strip": f"../{strip}" if strip else None,
        "times": frame_clocks(shown.times_s) if shown and strip else [],
        "frames_error": frames_error,
        "video": _video_line(prediction.video),
        "details": [d for hook in detail_hooks() if (d := hook(sample, prediction)) is not None]
        + [d for hook in judged_detail_hooks() if (d := hook(sample, prediction, records)) is not None],
        "prompt": prediction.prompt,
        "reasoning": prediction.reasoning,
        "reply": prediction.reply,
        "judgments": judgments,
        "note": _note(prediction, score),
    }
