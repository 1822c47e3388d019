"""The InstructionBench builder end to end: stages 1-9 in order, then the benchmark folder, the
stage report and the statistics."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vqakit.builders import (
    BuildJournal,
    InputError,
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
from vqakit.files import refuse_links, write_text_atomic
from vqakit.systems.instructionbench.builder import output
from vqakit.systems.instructionbench.builder.clips import import_annotations, make_clips
from vqakit.systems.instructionbench.builder.context import BuildContext, InstructionBenchBuildConfig
from vqakit.systems.instructionbench.builder.filtering import apply_filters
from vqakit.systems.instructionbench.builder.generation import generate
from vqakit.systems.instructionbench.builder.options import design_options, place_letters
from vqakit.systems.instructionbench.builder.records import Clip, Question
from vqakit.systems.instructionbench.builder.stats import build_stats, build_stats_lines

REPORT_TITLE = "InstructionBench build"
STATS = "stats.json"
CLIP_STEPS = "clip_steps.jsonl"
WRITER = "build instructionbench"  # the command, as the output folder's marker records it


@dataclass
class BuildOutcome:
    folder: Path
    stages: list[Stage]
    open_ended: int
    mcq: int
    clips: int
    videos: int
    reused_calls: int
    letters: dict[str, int]
    stats: dict[str, Any]
    notes: list[str]


class InstructionBenchBuilder:
    """Runs stages 1-9 over one set of inputs, journaling model steps and drops in `out/build`."""

    def __init__(
        self,
        config: InstructionBenchBuildConfig,
        llm: Any,
        checkers: Sequence[Any],
        embedder: Any,
        out: Path,
        on_stage: Callable[[Stage], None] | None = None,
        on_step: Callable[[int, int], None] | None = None,
    ) -> None:
        folder = out / "build"
        self.out = out
        self.journal = BuildJournal(folder)
        self.log = StageLog(folder, on_stage)
        self.context = BuildContext(
            config, llm, list(checkers), embedder, ModelSteps(self.journal, on_step), self.log, folder
        )
        self.videos: dict[str, Path] = {}
        self.media: dict[str, Path] = {}  # placed before the first model step: name -> file
        self.clips: list[Clip] = []
        self.questions: list[Question] = []  # passed the four filters: the open-ended questions
        self.with_options: list[Question] = []  # also got verified options: the MCQs
        self.letters: dict[str, int] = {}

    async def run(self, annotations: Sequence[Path], videos_dir: Path) -> None:
        ctx = self.context
        if not annotations:
            raise InputError("no annotation files given")
        self.videos = list_videos(videos_dir)
        infos = import_annotations(ctx, list(annotations))
        clips = make_clips(ctx, infos, self.videos)
        self.media = prepare_media(self.out, {clip.video: self.videos[clip.video] for clip in clips})
        generated = await generate(ctx, clips)
        self.questions = await apply_filters(ctx, generated)
        self.with_options = await design_options(ctx, self.questions)
        self.letters = place_letters(ctx, self.with_options)
        used = {q.clip.id for q in self.questions}
        self.clips = [clip for clip in clips if clip.id in used]


def check_checkers(names: Sequence[str]) -> None:
    """The MCQ checks need three or more different models (the paper's majority of three)."""
    if len(names) < 3 or len(set(names)) != len(names):
        raise InputError(
            f"the option checks need three or more different models, got {', '.join(names) or 'none'}"
        )


async def _close(models: Sequence[Any]) -> None:
    """Close each model once (a checker may be the same model as the writer)."""
    for model in {id(m): m for m in models if m is not None}.values():
        if hasattr(model, "aclose"):
            await model.aclose()


def build_instructionbench(
    annotations: Sequence[str | Path],
    videos_dir: str | Path,
    out: str | Path,
    *,
    llm: Any,
    checkers: Sequence[Any],
    embedder: Any = None,
    config: InstructionBenchBuildConfig | None = None,
    on_stage: Callable[[Stage], None] | None = None,
    on_step: Callable[[int, int], None] | None = None,
) -> BuildOutcome:
    """Run stages 1-9 into `out` (resuming journaled model steps), write the benchmark folder,
    the stage report (`build/report.md`, `build/stages.json`, `build/drops.jsonl`) and the
    statistics (`build/stats.json`, also at the end of the report).

    `llm` writes and filters the questions and writes distractors; `checkers` are the models of
    the MCQ checks (the paper uses three different ones); all have the async `complete` of
    `vqakit.models.Model`. `embedder` (optional) has `embed(texts)` for the duplicate check of
    options. Raises `InputError` for unusable inputs and `BenchmarkError` when the folder does not
    validate.
    """
    check_checkers([str(m) for m in checkers])
    config = config or InstructionBenchBuildConfig()
    out = Path(out)
    start_build(out, WRITER, [*annotations, videos_dir])  # nothing written if refused
    refuse_links(out)  # before the journal is opened in it
    builder = InstructionBenchBuilder(config, llm, checkers, embedder, out, on_stage, on_step)

    async def run_and_close() -> None:
        try:
            await builder.run([Path(a) for a in annotations], Path(videos_dir))
        finally:
            await _close([llm, *checkers])

    asyncio.run(run_and_close())
    clips, questions, with_options = builder.clips, builder.questions, builder.with_options
    write_stage_report(out / "build", REPORT_TITLE, builder.log, builder.journal.reused)
    if not questions:
        raise nothing_built(builder.log)
    benchmark = write_benchmark_folder(
        out,
        card=output.card(config, questions, with_options, clips),
        samples=output.samples(questions, with_options),
        clips=output.clip_records(clips),
        media={clip.video: builder.media[clip.video] for clip in clips},
        writer=WRITER,
    )
    steps = output.clip_steps(clips)
    write_text_atomic(out / "build" / CLIP_STEPS, "".join(json.dumps(line) + "\n" for line in steps))
    stats = build_stats(benchmark)
    write_text_atomic(out / "build" / STATS, json.dumps(stats, indent=1) + "\n")
    report = out / "build/report.md"
    lines = build_stats_lines(stats)
    write_text_atomic(
        report, report.read_text(encoding="utf-8") + "\n## Statistics\n\n```\n" + "\n".join(lines) + "\n```\n"
    )
    return BuildOutcome(
        folder=out,
        stages=builder.log.stages,
        open_ended=len(questions),
        mcq=len(with_options),
        clips=len(clips),
        videos=len({clip.video for clip in clips}),
        reused_calls=builder.journal.reused,
        letters=builder.letters,
        stats=stats,
        notes=builder.log.notes,
    )


def build_instructionbench_from_specs(
    annotations: Sequence[str | Path],
    videos_dir: str | Path,
    out: str | Path,
    *,
    llm: str,
    checkers: Sequence[str],
    embedder: str | None = "minilm",
    config: InstructionBenchBuildConfig | None = None,
    concurrency: int = 8,
    on_stage: Callable[[Stage], None] | None = None,
    on_step: Callable[[int, int], None] | None = None,
    engine: str = "local",
    ray_address: str | None = None,
) -> BuildOutcome:
    """`build_instructionbench` with models and the embedder named by spec strings (`vqakit build
    instructionbench`). A checker spec equal to `llm` shares its model (and its concurrency).
    With `engine="ray"` the model steps run as tasks on the Ray cluster at `ray_address`."""
    from vqakit.models import EmbeddingCache, Model, TextEmbedder
    from vqakit.runner import on_engine

    models: dict[str, Any] = {llm: on_engine(Model(llm, concurrency=concurrency), engine, ray_address)}
    for spec in checkers:
        if spec not in models:
            models[spec] = on_engine(Model(spec, concurrency=concurrency), engine, ray_address)
    return build_instructionbench(
        annotations,
        videos_dir,
        out,
        llm=models[llm],
        checkers=[models[spec] for spec in checkers],
        embedder=TextEmbedder(embedder, cache=EmbeddingCache()) if embedder else None,
        config=config,
        on_stage=on_stage,
        on_step=on_step,
    )
