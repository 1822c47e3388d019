"""Retrieval-augmented answering over a clip corpus and a passage corpus (EgoFact).

Every method here runs the same pipeline and differs only in which clips it looks at and which
part of each clip it describes:

    rag           rewrite the question into "A video that ..." and retrieve the top clips;
                  describe each clip from uniform frames over the whole clip
    rag+localize  as rag, but a model step names the anchor event and its position
                  (before / after / within); inside each clip the frames (embedded at 2 fps in
                  the index) are scored against that description and the frames come from the
                  best `window_s` window, moved `shift_s` for before/after questions
    rag+split     as rag, but each clip is cut into fixed `window_s` pieces and the piece that
                  best matches the rewritten query is described
    oracle-clip   the gold clips, described whole (the upper bound for clip retrieval)

Then, for two-hop questions, one "A passage about ..." query per option retrieves one passage
per option; and the model answers from the clip descriptions and passages with JSON
`{"Answer", "Explanation"}`. A refusal goes to the run's fallback model (see `Model`).

Model steps use sub-ids of the sample (`ID:rewrite`, `ID:localize`, `ID:caption:CLIP`,
`ID:passage-queries`; the answer uses `ID`), which is how a replay file scripts each step.
Everything retrieved and shown is kept in the prediction's `retrieval` field.
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from vqakit.methods._base import MethodContext, method
from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, PredictionError, Sample
from vqakit.scoring import LETTERS, extract_choice

Mode = Literal["rag", "localize", "split", "oracle"]

RAG_DEFAULTS: dict[str, Any] = {
    "text_embedder": None,  # None: the index's, else minilm
    "image_embedder": None,  # None: the index's, else no visual retrieval
    "index": None,  # index folder; None: the default one for the benchmark
    "top_clips": 5,
    "window_s": 5.0,
    "shift_s": 1.0,
    "caption_frames": 15,
    "approximate": False,
}


class RewrittenQuery(BaseModel):
    query: str = Field(min_length=1)


class Localization(BaseModel):
    description: str = Field(min_length=1)
    position: Literal["before", "after", "within"] = "within"

    @field_validator("position", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class PassageQueries(BaseModel):
    queries: list[str]


class RagAnswer(BaseModel):
    Answer: str
    Explanation: str = ""

    @field_validator("Answer", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) else value


def rag_option(context: MethodContext, name: str) -> Any:
    value = context.options.get(name)
    return RAG_DEFAULTS[name] if value is None else value


_PROCESS_RETRIEVERS: dict[tuple, tuple[Any, Any]] = {}
_PROCESS_LOCK = threading.Lock()


def shared_retriever(context: MethodContext) -> Any:
    """The run's retriever, built once (index checked and brought up to date, embedders loaded).

    It is also kept for the life of the process, keyed by the benchmark, the retrieval options
    and the modification times of the corpus files and the index, so that engines that make a
    context per batch (Ray workers) load embedders once per worker, not once per batch.
    """
    lock = context.shared.setdefault("retriever_lock", threading.Lock())
    with lock:
        if "retriever" not in context.shared:
            key = _process_key(context)
            with _PROCESS_LOCK:
                if key not in _PROCESS_RETRIEVERS:
                    _PROCESS_RETRIEVERS[key] = open_retriever(context)
                context.shared["retriever"], context.shared["benchmark"] = _PROCESS_RETRIEVERS[key]
        return context.shared["retriever"]


def _process_key(context: MethodContext) -> tuple:
    def seen(path: Any) -> float | None:
        try:
            return os.stat(path).st_mtime_ns
        except OSError:
            return None

    root = context.root.resolve()
    index = rag_option(context, "index")
    files = [root / "corpus/clips.jsonl", root / "corpus/passages.jsonl"]
    if index:
        files.append(os.path.join(index, "index.json"))
    options = tuple(
        rag_option(context, name) for name in ("index", "text_embedder", "image_embedder", "approximate")
    )
    return (str(root), options, tuple(seen(path) for path in files))


def open_retriever(context: MethodContext) -> tuple[Any, Any]:
    from vqakit.benchmarks import load_benchmark
    from vqakit.models import EmbeddingCache, ImageTextEmbedder, TextEmbedder
    from vqakit.retrieval import CorpusIndex, IndexSettings, Retriever, build_index, default_index_folder

    benchmark = load_benchmark(context.root)
    folder = rag_option(context, "index") or default_index_folder(benchmark)
    stored = CorpusIndex(folder).settings  # defaults when there is no index yet
    settings = IndexSettings(
        text_embedder=rag_option(context, "text_embedder") or stored.text_embedder,
        image_embedder=rag_option(context, "image_embedder") or stored.image_embedder,
        fps=stored.fps,
        frame_side=stored.frame_side,
        ivf_lists=stored.ivf_lists,
        store=stored.store,
    )
    cache = EmbeddingCache()
    text = TextEmbedder(settings.text_embedder, cache=cache)
    image = ImageTextEmbedder(settings.image_embedder, cache=cache) if settings.image_embedder else None
    index, _ = build_index(benchmark, folder, settings, text_embedder=text, image_embedder=image)
    approximate = bool(rag_option(context, "approximate"))
    if approximate:
        for table in index.tables.values():
            if not table.has_ivf:
                table.build_ivf()
    return Retriever(index, text, image, approximate=approximate), benchmark


@dataclass
class _Steps:
    """Cost of the model steps of one sample."""

    latency_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    errors: dict[str, str] = field(default_factory=dict)

    def add(self, completion: Any) -> None:
        self.latency_s += completion.latency_s
        self.input_tokens += completion.usage.input_tokens
        self.output_tokens += completion.usage.output_tokens


async def _structured(
    context: MethodContext, steps: _Steps, step: str, sample_id: str, prompt: str, schema: type[BaseModel]
) -> Any:
    from vqakit.models import Message, complete_structured

    found, completion = await complete_structured(
        context.model, [Message.user(prompt)], schema, sample_id=sample_id
    )
    steps.add(completion)
    if found is None and completion.error is not None:
        steps.errors[step] = f"{completion.error.type}: {completion.error.message}"
    return found


def _clip_frames(context: MethodContext, clip: Any, start: float | None, end: float | None) -> Any:
    from vqakit.models import Frames
    from vqakit.schema import Uniform
    from vqakit.video import Resize, sample_frames

    count = int(rag_option(context, "caption_frames"))
    resize = Resize(short_side=context.protocol.short_side) if context.protocol.short_side else None
    frames = sample_frames(context.root / clip.video.path, Uniform(count, start, end), resize=resize)
    return Frames(tuple(f.image for f in frames), tuple(f.time_s for f in frames))


async def _caption(
    sample: Sample,
    context: MethodContext,
    steps: _Steps,
    clip: Any,
    window: tuple[float | None, float | None],
) -> tuple[str | None, list[float]]:
    from vqakit.models import Message

    try:
        frames = await asyncio.to_thread(_clip_frames, context, clip, *window)
    except Exception as error:  # a clip that cannot be decoded is reported, not fatal
        steps.errors[f"caption:{clip.id}"] = f"video: {error}"
        return None, []
    prompt = render_prompt("rag_caption", count=str(len(frames.images)), question=sample.question)
    completion = await context.model.complete(
        [Message.user(frames, prompt)], sample_id=f"{sample.id}:caption:{clip.id}"
    )
    steps.add(completion)
    if completion.error is not None:
        steps.errors[f"caption:{clip.id}"] = f"{completion.error.type}: {completion.error.message}"
        return None, list(frames.times_s)
    return completion.text, list(frames.times_s)


async def _passages(
    sample: Sample, context: MethodContext, steps: _Steps, retriever: Any, trace: dict[str, Any]
) -> list[Any]:
    """One passage per option, each found with that option's "A passage about ..." query."""
    assert sample.choices is not None
    options = "\n".join(f"{i + 1}. {text}" for i, text in enumerate(sample.choices))
    found = await _structured(
        context,
        steps,
        "passage-queries",
        f"{sample.id}:passage-queries",
        render_prompt("rag_passage_queries", options=options),
        PassageQueries,
    )
    queries = list(found.queries) if found is not None else []
    if len(queries) != len(sample.choices):
        if found is not None:
            steps.errors["passage-queries"] = f"{len(queries)} queries for {len(sample.choices)} options"
        queries = [f"A passage about {text}" for text in sample.choices]  # the option itself
    chosen: list[Any] = []
    for query in queries:
        hits = await asyncio.to_thread(
            retriever.search_passages, query, 1, exclude=tuple(hit.id for hit in chosen)
        )
        chosen.extend(hits)
    trace["passage_queries"] = queries
    trace["passages"] = [hit.id for hit in chosen]
    trace["passage_scores"] = [round(hit.score, 4) for hit in chosen]
    return chosen


def _answer_prompt(sample: Sample, captions: list[str], passages: list[Any], benchmark: Any) -> str:
    from vqakit.retrieval import passage_text

    blocks = ["Video clips found:"] if captions else ["No video clip could be described."]
    blocks += [f"Video {i + 1}:\n{text.strip()}" for i, text in enumerate(captions)]
    if passages:
        blocks.append("Passages found:")
        blocks += [
            f"Passage {i + 1}: {passage_text(benchmark.passages[hit.id]).strip()}"
            for i, hit in enumerate(passages)
        ]
    context = "\n\n".join(blocks) + "\n"
    note = " and how-to passages found for the answer options" if passages else ""
    if sample.choices is None:
        return render_prompt("rag_answer_open", context=context, question=sample.question, passage_note=note)
    options = "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(sample.choices))
    return render_prompt(
        "rag_answer", context=context, question=sample.question, options=options, passage_note=note
    )


def _read_answer(sample: Sample, reply: str) -> tuple[int | None, str]:
    """The option a JSON `{"Answer": ...}` reply names; the rules read the whole reply otherwise."""
    from vqakit.models import parse_json_lenient

    assert sample.choices is not None
    try:
        parsed = RagAnswer.model_validate(parse_json_lenient(reply))
        extraction = extract_choice(parsed.Answer, len(sample.choices), choices=sample.choices)
        if extraction.choice is not None:
            return extraction.choice, f"json:{extraction.rule}"
    except ValueError:
        pass
    extraction = extract_choice(reply, len(sample.choices), choices=sample.choices)
    return extraction.choice, extraction.rule if extraction.choice is not None else extraction.reason


class _StepFailed(Exception):
    """A pipeline step that leaves nothing to answer from; becomes the prediction's error."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


async def _find_clips(
    sample: Sample, context: MethodContext, steps: _Steps, retriever: Any, mode: Mode, trace: dict[str, Any]
) -> tuple[list[str], str]:
    """(clip ids, the text clips were retrieved with): the gold clips for the oracle, else the top
    clips for the rewritten question."""
    if mode == "oracle":
        if not sample.gold_clips:
            raise _StepFailed("no_gold_clips", "oracle-clip needs gold_clips on the sample")
        return list(sample.gold_clips), sample.question
    prompt = render_prompt("rag_rewrite", question=sample.question)
    rewritten = await _structured(context, steps, "rewrite", f"{sample.id}:rewrite", prompt, RewrittenQuery)
    query = rewritten.query if rewritten is not None else sample.question
    trace["query"] = query
    try:
        hits = await asyncio.to_thread(retriever.search_clips, query, int(rag_option(context, "top_clips")))
    except ValueError as error:
        raise _StepFailed("retrieval", str(error)) from None
    trace["clip_scores"] = [round(hit.score, 4) for hit in hits]
    return [hit.id for hit in hits], query


async def _windows(
    sample: Sample,
    context: MethodContext,
    steps: _Steps,
    retriever: Any,
    mode: Mode,
    clips: list[Any],
    query: str,
    trace: dict[str, Any],
) -> dict[str, tuple[float | None, float | None]]:
    """The part of each clip to describe: all of it, the localized window, or the best fixed piece."""
    windows: dict[str, tuple[float | None, float | None]] = {
        clip.id: (clip.video.start_s, clip.video.end_s) for clip in clips
    }
    if mode not in ("localize", "split"):
        return windows
    window_s = float(rag_option(context, "window_s"))
    try:
        if mode == "localize":
            prompt = render_prompt("rag_localize", question=sample.question)
            where = await _structured(
                context, steps, "localize", f"{sample.id}:localize", prompt, Localization
            )
            where = where or Localization(description=sample.question, position="within")
            trace["localization"] = where.model_dump()
            shift_s = float(rag_option(context, "shift_s"))
            for clip in clips:
                windows[clip.id] = await asyncio.to_thread(
                    retriever.localize, clip.id, where.description, window_s, where.position, shift_s
                )
        else:
            for clip in clips:
                windows[clip.id] = await asyncio.to_thread(retriever.best_piece, clip.id, query, window_s)
    except ValueError as error:
        raise _StepFailed("localization", str(error)) from None
    trace["windows"] = {clip_id: [round(a, 3), round(b, 3)] for clip_id, (a, b) in windows.items()}  # type: ignore[arg-type]
    return windows


async def run_rag(sample: Sample, context: MethodContext, name: str, mode: Mode) -> Prediction:
    from vqakit.models import Message

    model = str(context.model) if context.model else None
    if context.model is None:
        error = PredictionError(type="no_model", message=f"{name} needs --model")
        return Prediction(sample_id=sample.id, method=name, error=error)
    steps = _Steps()
    trace: dict[str, Any] = {"mode": mode}
    frames_s: list[float] = []
    try:
        try:
            retriever = await asyncio.to_thread(shared_retriever, context)
        except Exception as error:
            raise _StepFailed("index", f"{type(error).__name__}: {error}") from None
        benchmark = context.shared["benchmark"]
        trace["clip_source"] = retriever.clip_source
        clip_ids, query = await _find_clips(sample, context, steps, retriever, mode, trace)
        trace["clips"] = clip_ids
        clips = [benchmark.clips[clip_id] for clip_id in clip_ids]
        windows = await _windows(sample, context, steps, retriever, mode, clips, query, trace)
        described = await asyncio.gather(*(_caption(sample, context, steps, c, windows[c.id]) for c in clips))
        captions = {c.id: text for c, (text, _) in zip(clips, described, strict=True) if text is not None}
        frames_s = [time for _, times in described for time in times]
        trace["captions"] = captions
        trace["frames_s"] = {c.id: times for c, (_, times) in zip(clips, described, strict=True)}
        passages: list[Any] = []
        if sample.metadata.hop == 2 and sample.choices is not None and benchmark.passages:
            passages = await _passages(sample, context, steps, retriever, trace)
        if not captions and not passages:
            raise _StepFailed("caption", "no retrieved clip could be described")
    except _StepFailed as failure:
        if steps.errors:
            trace["step_errors"] = steps.errors
        error = PredictionError(type=failure.kind, message=str(failure))
        return Prediction(
            sample_id=sample.id, method=name, model=model, error=error, retrieval=trace, frames_s=frames_s
        )

    prompt = _answer_prompt(sample, [captions[c] for c in clip_ids if c in captions], passages, benchmark)
    completion = await context.model.complete([Message.user(prompt)], sample_id=sample.id)
    steps.add(completion)
    if steps.errors:
        trace["step_errors"] = steps.errors
    base = {
        "sample_id": sample.id,
        "method": name,
        "model": model,
        "reply": completion.text,
        "frames_s": frames_s,
        "latency_s": steps.latency_s,
        "input_tokens": steps.input_tokens,
        "output_tokens": steps.output_tokens,
        "retrieval": trace,
    }
    if completion.error is not None:
        return Prediction(
            **base, error=PredictionError(type=completion.error.type, message=completion.error.message)
        )
    if sample.choices is None:
        return Prediction(**base)
    choice, how = _read_answer(sample, completion.text or "")
    return Prediction(**base, choice=choice, extraction=how)


@method("rag", needs_model=True)
async def rag(sample: Sample, context: MethodContext) -> Prediction:
    return await run_rag(sample, context, "rag", "rag")


@method("rag+localize", needs_model=True)
async def rag_localize(sample: Sample, context: MethodContext) -> Prediction:
    return await run_rag(sample, context, "rag+localize", "localize")


@method("rag+split", needs_model=True)
async def rag_split(sample: Sample, context: MethodContext) -> Prediction:
    return await run_rag(sample, context, "rag+split", "split")


@method("oracle-clip", needs_model=True)
async def oracle_clip(sample: Sample, context: MethodContext) -> Prediction:
    return await run_rag(sample, context, "oracle-clip", "oracle")
