"""The MovieRecapsQA builder end to end: stages 1-6 in order, then the tables, the benchmark
folder and the stage report."""

from __future__ import annotations

import asyncio
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
    nothing_built,
    start_build,
    write_stage_report,
)
from vqakit.files import refuse_links, write_text_atomic
from vqakit.systems.movierecapsqa.builder.alignment import align_segments
from vqakit.systems.movierecapsqa.builder.context import QA, BuildContext, RecapInput, RecapsBuildConfig
from vqakit.systems.movierecapsqa.builder.facts import extract_facts
from vqakit.systems.movierecapsqa.builder.labels import classify
from vqakit.systems.movierecapsqa.builder.output import WRITER, label_counts, write_output
from vqakit.systems.movierecapsqa.builder.questions import simplify, write_questions
from vqakit.systems.movierecapsqa.builder.segments import make_segments
from vqakit.systems.movierecapsqa.importer import ImportReport

REPORT_TITLE = "MovieRecapsQA build"


@dataclass
class BuildOutcome:
    folder: Path
    stages: list[Stage]
    recaps: int
    segments: int
    facts: int
    questions: int
    reused_calls: int
    notes: list[str]
    imported: ImportReport


class RecapsBuilder:
    """Runs stages 1-6 over a list of recaps, journaling model steps and drops in `out/build`."""

    def __init__(
        self,
        config: RecapsBuildConfig,
        llm: Any,
        vlm: Any,
        embedder: Any,
        out: Path,
        on_stage: Callable[[Stage], None] | None = None,
        on_step: Callable[[int, int], None] | None = None,
    ) -> None:
        folder = out / "build"
        self.journal = BuildJournal(folder)
        self.log = StageLog(folder, on_stage)
        self.context = BuildContext(
            config, llm, vlm, embedder, ModelSteps(self.journal, on_step), self.log, folder
        )
        self.questions: list[QA] = []

    async def run(self, recaps: Sequence[RecapInput]) -> None:
        ctx = self.context
        segments = align_segments(ctx, make_segments(ctx, list(recaps)))
        segments = await extract_facts(ctx, segments)
        questions = await simplify(ctx, await write_questions(ctx, segments))
        self.questions = await classify(ctx, questions)


def check_inputs(recaps: Sequence[RecapInput], embedder: Any, out: Path | None = None) -> None:
    """What about the inputs can be known before the first model step: recaps given once each,
    the output folder free of symbolic links (the media are placed there at the end, resolved
    to their real files). A recap file missing or unreadable drops that recap at its stage."""
    if not recaps:
        raise InputError("no recaps given")
    from vqakit.extras import require_extra

    require_extra("scenes", "vqakit build movierecapsqa (shots are found with PySceneDetect)")
    if isinstance(embedder, str) and embedder.startswith("clip:"):
        require_extra("hf", f"the image embedder {embedder}")
    if out is not None:
        refuse_links(out)
    ids = [recap.video_id for recap in recaps]
    if len(set(ids)) != len(ids):
        raise InputError(f"video_id repeats: {sorted({i for i in ids if ids.count(i) > 1})}")
    if embedder is None and any(recap.movie is not None for recap in recaps):
        raise InputError(
            "aligning a recap to its movie needs an image embedder (e.g. --embedder clip:<folder>)"
        )


async def _close(models: Sequence[Any]) -> None:
    for model in {id(m): m for m in models if m is not None}.values():
        if hasattr(model, "aclose"):
            await model.aclose()


def build_movierecapsqa(
    recaps: Sequence[RecapInput],
    out: str | Path,
    *,
    llm: Any,
    vlm: Any = None,
    embedder: Any = None,
    config: RecapsBuildConfig | None = None,
    on_stage: Callable[[Stage], None] | None = None,
    on_step: Callable[[int, int], None] | None = None,
) -> BuildOutcome:
    """Run stages 1-6 into `out` (resuming journaled model steps and cached detection and
    alignment), write `out/tables/` and the benchmark folder at `out`, and the stage report
    (`build/report.md`, `build/stages.json`, `build/drops.jsonl`).

    `llm` and `vlm` have the async `complete` of `vqakit.models.Model` (`vlm` optional: without
    it the labels read the facts instead of a scene description); `embedder` has
    `embed_images` and is needed when a recap has a movie. Raises `InputError` for unusable
    inputs or when no question survives, `BenchmarkError` when the folder does not validate.
    """
    out = Path(out)
    given = [
        path
        for recap in recaps
        for path in (recap.recap, recap.recap_subtitles, recap.movie, recap.movie_subtitles)
    ]
    start_build(out, WRITER, given)  # nothing written if refused
    check_inputs(recaps, embedder, out)
    config = config or RecapsBuildConfig()
    builder = RecapsBuilder(config, llm, vlm, embedder, out, on_stage, on_step)

    async def run_and_close() -> None:
        try:
            await builder.run(recaps)
        finally:
            await _close([llm, vlm])

    asyncio.run(run_and_close())
    questions, log = builder.questions, builder.log
    folder = out / "build"
    if not questions:
        write_stage_report(folder, REPORT_TITLE, log, builder.journal.reused)
        raise nothing_built(log)
    tables, imported = write_output(out, questions, config)
    for problem in imported.problems:
        log.note(f"import: {problem}")
    lacking = sorted({lack for lacks in imported.lacking.values() for lack in lacks})
    if lacking:
        log.note(f"import: {len(imported.lacking)} question(s) lack something: {'; '.join(lacking)}")
    write_stage_report(folder, REPORT_TITLE, log, builder.journal.reused)
    report = folder / "report.md"
    counts = [
        f"{len(tables.recaps)} recaps, {len(tables.segments)} segments, {len(tables.facts)} facts, "
        f"{len(tables.questions)} questions",
        *label_counts(questions),
    ]
    write_text_atomic(
        report,
        report.read_text(encoding="utf-8") + "\n## Output\n\n" + "\n".join(f"- {c}" for c in counts) + "\n",
    )
    return BuildOutcome(
        folder=out,
        stages=log.stages,
        recaps=len(tables.recaps),
        segments=len(tables.segments),
        facts=len(tables.facts),
        questions=len(tables.questions),
        reused_calls=builder.journal.reused,
        notes=log.notes,
        imported=imported,
    )


def build_movierecapsqa_from_specs(
    recaps: Sequence[RecapInput],
    out: str | Path,
    *,
    llm: str,
    vlm: str | None = None,
    embedder: str | None = None,
    config: RecapsBuildConfig | None = None,
    concurrency: int = 8,
    on_stage: Callable[[Stage], None] | None = None,
    on_step: Callable[[int, int], None] | None = None,
    engine: str = "local",
    ray_address: str | None = None,
) -> BuildOutcome:
    """`build_movierecapsqa` with the models and the image embedder named by spec strings
    (`vqakit build movierecapsqa`); a VLM spec equal to `llm` shares its model. With
    `engine="ray"` the model steps run as tasks on the Ray cluster at `ray_address`."""
    from vqakit.models import Model
    from vqakit.runner import on_engine

    check_inputs(recaps, embedder)
    text_model = on_engine(Model(llm, concurrency=concurrency), engine, ray_address)
    vision = None
    if vlm is not None:
        vision = (
            text_model if vlm == llm else on_engine(Model(vlm, concurrency=concurrency), engine, ray_address)
        )
    images = None
    if embedder is not None:
        from vqakit.models import ImageTextEmbedder

        images = ImageTextEmbedder(embedder)
    return build_movierecapsqa(
        recaps,
        out,
        llm=text_model,
        vlm=vision,
        embedder=images,
        config=config,
        on_stage=on_stage,
        on_step=on_step,
    )
