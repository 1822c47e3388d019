"""The EgoFact builder end to end: steps 1-9 in order, then the benchmark folder and the stage
report."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vqakit.builders import (
    BuildJournal,
    ModelSteps,
    Stage,
    StageLog,
    list_videos,
    nothing_built,
    prepare_media,
    start_build,
    write_benchmark_folder,
    write_stage_report,
)
from vqakit.files import InputProblem, refuse_links, write_text_atomic
from vqakit.schema import Passage
from vqakit.systems.egofact.builder.context import BuildContext, EgoFactBuildConfig
from vqakit.systems.egofact.builder.inputs import read_events, read_passages
from vqakit.systems.egofact.builder.questions import disambiguate, distractors, structure, templates
from vqakit.systems.egofact.builder.reliability import reliability
from vqakit.systems.egofact.builder.steps import Query, Window
from vqakit.systems.egofact.builder.two_hop import two_hop
from vqakit.systems.egofact.builder.windows import cut_windows, narrate, select
from vqakit.systems.egofact.protocol import PROTOCOL

REPORT_TITLE = "EgoFact build"
INPUT_PROBLEMS = "input_problems.txt"  # event and passage lines skipped, one per line
WRITER = "build egofact"  # the command, as the output folder's marker records it


@dataclass
class BuildOutcome:
    folder: Path
    stages: list[Stage]
    samples: int
    clips: int
    passages: int
    reused_calls: int
    notes: list[str]


class EgoFactBuilder:
    """Runs steps 1-9 over one set of inputs, journaling model steps and drops in `out/build`."""

    def __init__(
        self,
        config: EgoFactBuildConfig,
        llm: Any,
        vlm: Any,
        text_embedder: Any,
        image_embedder: Any,
        out: Path,
        on_stage: Callable[[Stage], None] | None = None,
        on_step: Callable[[int, int], None] | None = None,
    ) -> None:
        self.config = config
        self.out = out
        self.media: dict[str, Path] = {}  # placed before the first model step: name -> file
        folder = out / "build"
        self.journal = BuildJournal(folder)
        self.log = StageLog(folder, on_stage)
        self.context = BuildContext(
            config,
            llm,
            vlm,
            text_embedder,
            image_embedder,
            ModelSteps(self.journal, on_step),
            self.log,
            folder,
        )
        self.videos: dict[str, Path] = {}
        self.passages: dict[str, Passage] = {}
        self.kept_windows: list[Window] = []

    @property
    def stages(self) -> list[Stage]:
        return self.log.stages

    @property
    def notes(self) -> list[str]:
        return self.log.notes

    async def run(self, videos_dir: Path, events_path: Path, passages_path: Path) -> list[Query]:
        """Steps 1-9; returns the questions that passed every stage."""
        ctx = self.context
        self.videos = list_videos(videos_dir)
        problems: list[InputProblem] = []
        events = read_events(events_path, self.videos, problems)
        passages = read_passages(passages_path, problems)
        listing = ctx.folder / INPUT_PROBLEMS
        listing.unlink(missing_ok=True)
        if problems:
            write_text_atomic(listing, "".join(f"{problem}\n" for problem in problems))
            self.log.note(f"{len(problems)} input line(s) skipped (kept going): see build/{INPUT_PROBLEMS}")
        self.media = prepare_media(
            self.out, {video: self.videos[video] for video in {e.video for e in events}}
        )
        self.passages = {p.id: p for p in passages}
        windows = await cut_windows(ctx, self.videos, events)
        windows = await narrate(ctx, windows)
        self.kept_windows = select(ctx, windows)
        await structure(ctx, self.kept_windows)
        queries = templates(ctx, self.kept_windows)
        queries = await asyncio.to_thread(disambiguate, ctx, self.videos, queries)
        queries = await distractors(ctx, queries)
        made = await two_hop(ctx, queries, passages)
        return await reliability(ctx, [*queries, *made], self.passages)


def _sample(query: Query) -> dict[str, Any]:
    family = f"{query.grounding.capitalize()} {query.hop}-hop"
    window = query.window
    metadata: dict[str, Any] = {
        "category": family,
        "hop": query.hop,
        "grounding": query.grounding,
        "modality": "passages" if query.hop == 2 else "visual",
        "event": query.target.model_dump(),
        "event_time_s": round(query.target_time_s - window.start_s, 3),
        "quality": query.quality,
    }
    if query.anchor is not None:
        metadata["anchor"] = query.anchor.model_dump()
        metadata["anchor_time_s"] = round((query.anchor_time_s or 0.0) - window.start_s, 3)
        metadata["direction"] = query.direction
    if query.pairs:
        metadata["pairs"] = query.pairs
    record: dict[str, Any] = {
        "id": query.id,
        "videos": [{"path": f"media/{window.video}", "start_s": window.start_s, "end_s": window.end_s}],
        "question": query.question,
        "choices": query.options,
        "answer": query.answer_index,
        "metadata": metadata,
        "gold_clips": [window.id],
    }
    if query.passage_id:
        record["gold_passages"] = [query.passage_id]
    return record


def _clip(window: Window) -> dict[str, Any]:
    narration = window.narration
    assert narration is not None  # only narrated windows are kept
    return {
        "id": window.id,
        "video": {"path": f"media/{window.video}", "start_s": window.start_s, "end_s": window.end_s},
        "description": narration.detailed,
        "metadata": {"concise": narration.concise, "activity": narration.activity},
    }


def _card(
    config: EgoFactBuildConfig, videos: int, questions: int, clips: int, passages: int
) -> dict[str, Any]:
    return {
        "name": config.name,
        "version": "1",
        "license": config.license,
        "description": (
            f"EgoFact-style multi-hop questions built by vqakit from {videos} videos: "
            f"{questions} six-option questions over {clips} clips of {config.window_s:g} s and "
            f"{passages} passages."
        ),
        "protocol": PROTOCOL.model_dump(include={"frames", "method", "prompt"}),
        "fields": {
            "pairs": "two-hop only: the three object-passage pairs behind the six options, with the option "
            "index of each pair's counterfactual and factual statement and the passage's task their "
            'statements are set in (`context`: "When <context>. ...")',
            "event": "the structured target event the question is about",
            "anchor": "temporal only: the reference event; `direction` says whether the target comes before "
            "or after it",
            "quality": "the distractor step's quality score (0-10)",
        },
    }


def build_egofact(
    videos_dir: str | Path,
    events_path: str | Path,
    passages_path: str | Path,
    out: str | Path,
    *,
    llm: Any,
    vlm: Any = None,
    text_embedder: Any,
    image_embedder: Any = None,
    config: EgoFactBuildConfig | None = None,
    on_stage: Callable[[Stage], None] | None = None,
    on_step: Callable[[int, int], None] | None = None,
) -> BuildOutcome:
    """Run steps 1-9 into `out` (resuming journaled model steps) and write the benchmark folder.

    `llm`/`vlm` are `vqakit.models.Model`s (or anything with the same async `complete`);
    `text_embedder` has `embed(texts)`, `image_embedder` (optional) `embed_images(images)`.
    `on_stage(stage)` is called as each stage closes, `on_step(done, failed)` as model steps end.
    Raises `InputError` for unusable inputs and `BenchmarkError` when the folder does not validate.
    """
    config = config or EgoFactBuildConfig()
    out = Path(out)
    start_build(out, WRITER, [videos_dir, events_path, passages_path])  # nothing written if refused
    refuse_links(out)  # before the journal is opened in it
    builder = EgoFactBuilder(config, llm, vlm, text_embedder, image_embedder, out, on_stage, on_step)

    async def run_and_close() -> list[Query]:
        try:
            return await builder.run(Path(videos_dir), Path(events_path), Path(passages_path))
        finally:
            for model in (llm, vlm):
                if model is not None and hasattr(model, "aclose"):
                    await model.aclose()

    queries = asyncio.run(run_and_close())
    windows = builder.kept_windows
    used_passages = sorted({pair["passage"] for q in queries for pair in q.pairs})
    write_stage_report(out / "build", REPORT_TITLE, builder.log, builder.journal.reused)
    if not queries:
        raise nothing_built(builder.log)
    write_benchmark_folder(
        out,
        card=_card(config, len(builder.videos), len(queries), len(windows), len(used_passages)),
        samples=[_sample(q) for q in queries],
        clips=[_clip(w) for w in windows],
        passages=[builder.passages[i].model_dump(exclude_defaults=True) for i in used_passages],
        media={key: builder.media[key] for key in sorted({w.video for w in windows})},
        writer=WRITER,
    )
    return BuildOutcome(
        folder=out,
        stages=builder.stages,
        samples=len(queries),
        clips=len(windows),
        passages=len(used_passages),
        reused_calls=builder.journal.reused,
        notes=builder.notes,
    )


def build_egofact_from_specs(
    videos_dir: str | Path,
    events_path: str | Path,
    passages_path: str | Path,
    out: str | Path,
    *,
    llm: str,
    vlm: str | None = None,
    text_embedder: str = "minilm",
    image_embedder: str | None = None,
    config: EgoFactBuildConfig | None = None,
    concurrency: int = 8,
    on_stage: Callable[[Stage], None] | None = None,
    on_step: Callable[[int, int], None] | None = None,
    engine: str = "local",
    ray_address: str | None = None,
) -> BuildOutcome:
    """`build_egofact` with models and embedders named by spec strings (`vqakit build egofact`).
    With `engine="ray"` the model steps run as tasks on the Ray cluster at `ray_address`."""
    from vqakit.models import EmbeddingCache, ImageTextEmbedder, Model, TextEmbedder
    from vqakit.runner import on_engine

    cache = EmbeddingCache()
    return build_egofact(
        videos_dir,
        events_path,
        passages_path,
        out,
        llm=on_engine(Model(llm, concurrency=concurrency), engine, ray_address),
        vlm=on_engine(Model(vlm, concurrency=concurrency), engine, ray_address) if vlm else None,
        text_embedder=TextEmbedder(text_embedder, cache=cache),
        image_embedder=ImageTextEmbedder(image_embedder, cache=cache) if image_embedder else None,
        config=config,
        on_stage=on_stage,
        on_step=on_step,
    )
