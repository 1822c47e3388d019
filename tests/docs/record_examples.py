"""Record the replies that docs/examples/ ships, so that every builder (and the pages that use
them) runs offline with `replay:` model specs. Not a test: run it when a builder's steps change
and the pages' test (test_doc_blocks.py) says a recorded reply is missing:

    PYTHONPATH=src python tests/docs/record_examples.py

Each builder runs over the example inputs with the scripted models of its own tests (test doubles
at the model boundary, answering by request id `step:item`); every (request id, reply) they gave
is written as a replay file. Evaluation answers and judges' replies are written the same way.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
EXAMPLES = ROOT / "docs/examples"
for folder in ("models", "systems/instructionbench", "systems/egofact", "systems/movierecapsqa"):
    sys.path.insert(0, str(TESTS / folder))
sys.path.insert(0, str(ROOT / "scripts"))

from make_example_videos import write_example_videos  # noqa: E402


def write_replay(path: Path, replies: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps({"sample_id": k, "reply": v}) + "\n" for k, v in sorted(replies.items()))
    )
    print(f"{path.relative_to(ROOT)}: {len(replies)} replies")


def instructionbench(work: Path) -> None:
    import test_build as ib

    from vqakit.benchmarks import load_benchmark
    from vqakit.scoring import LETTERS
    from vqakit.systems.instructionbench.builder import InstructionBenchBuildConfig, build_instructionbench

    example = EXAMPLES / "instructionbench"
    example.mkdir(parents=True, exist_ok=True)
    for path in [*ib.ANNOTATIONS, ib.CONFIG.label_map]:
        shutil.copy(path, example / path.name)
    videos = work / "ib-videos"
    write_example_videos("instructionbench", videos)
    # a checker's request ids carry its spec: name them as the page's replay specs
    names = [f"replay:docs/examples/instructionbench/replies/checker-{n}.jsonl" for n in (1, 2, 3)]
    writer, checkers = ib.scripted_models(names)
    config = InstructionBenchBuildConfig(label_map=example / "label_foodtype.csv", seed=0)
    annotations = [example / path.name for path in ib.ANNOTATIONS]
    outcome = build_instructionbench(
        annotations, videos, work / "ib-bench", llm=writer, checkers=checkers, config=config
    )
    write_replay(example / "replies/writer.jsonl", writer.recorded)
    for number, checker in enumerate(checkers, start=1):
        write_replay(example / f"replies/checker-{number}.jsonl", checker.recorded)
    answers, judge = {}, {}
    for number, sample in enumerate(load_benchmark(outcome.folder).samples):
        if sample.choices is None:
            answers[sample.id] = str(sample.answer)
            judge[sample.id] = "no - it names another tool" if number % 9 == 4 else "yes - the same tool"
        elif number % 7 == 3:  # a reply the rules cannot read: the `extract` judge reads it
            answers[sample.id] = "It has to be the one with the wooden spoon, I think."
            judge[sample.id] = LETTERS[int(sample.answer)]
        else:
            answers[sample.id] = LETTERS[int(sample.answer) if number % 11 else (int(sample.answer) + 1) % 5]
    write_replay(example / "replies/answers.jsonl", answers)
    write_replay(example / "replies/judge.jsonl", judge)


def egofact(work: Path) -> None:
    import test_builder as ef

    from vqakit.models import TextEmbedder
    from vqakit.systems.egofact.builder import EgoFactBuildConfig, build_egofact

    example = EXAMPLES / "egofact"
    example.mkdir(parents=True, exist_ok=True)
    (example / "events.jsonl").write_text(
        "".join(
            json.dumps(
                {"video": e[0], "time_s": e[1], "text": e[2], **({"kind": e[3]} if len(e) > 3 else {})}
            )
            + "\n"
            for e in ef.EVENTS
        )
    )
    (example / "passages.jsonl").write_text(
        "".join(
            json.dumps({"id": f"howto-{k}", "title": t, "text": x, "source": "written for the example"})
            + "\n"
            for k, (t, x) in ef.PASSAGES.items()
        )
    )
    videos = work / "egofact-videos"
    write_example_videos("egofact", videos)
    llm, vlm = ef.ScriptedBuildModel(), ef.ScriptedBuildModel()
    config = EgoFactBuildConfig(keep_ratio=0.8, passage_threshold=0.45, name="egofact-example")
    build_egofact(
        videos, example / "events.jsonl", example / "passages.jsonl", work / "egofact-bench",
        llm=llm, vlm=vlm, text_embedder=TextEmbedder("minilm"), config=config,
    )  # fmt: skip
    write_replay(example / "replies/llm.jsonl", llm.recorded)
    write_replay(example / "replies/vlm.jsonl", vlm.recorded)


def movierecapsqa(work: Path) -> None:
    import claim_loopback
    import test_recaps_build as mr

    from vqakit.benchmarks import load_benchmark
    from vqakit.models import Completion
    from vqakit.runner import EvalConfig, run_eval, run_judges
    from vqakit.runs import JudgmentLog, PredictionLog
    from vqakit.schema import Prediction
    from vqakit.systems.movierecapsqa.builder import build_movierecapsqa, read_manifest
    from vqakit.systems.movierecapsqa.importer import import_movierecapsqa
    from vqakit.systems.movierecapsqa.labeling import label_benchmark

    example = EXAMPLES / "movierecapsqa"
    # labels: valid ones for every segment of the release (the test's include failures on purpose)
    mr.LABELS.update(
        {
            "cmpRecap001.1": [("CRD", "dialogue"), ("NPA", "dialogue")],
            "cmpRecap001.2": [("STA", "scene"), ("CRD", "dialogue")],
            "cmpRecap001.5": [("NPA", "multimodal")],
            "nightOrbit02.0": [("TH", "dialogue"), ("STA", "scene")],
            "nightOrbit02.1": [("STA", "scene")],
        }
    )
    media = example / "media"
    bench = work / "mrqa"
    import_movierecapsqa(
        example / "release", media / "recaps.csv", media / "movies.csv", media / "subtitles.csv", out=bench
    )
    labeller, viewer = mr.ScriptedModel("labeller"), mr.ScriptedModel("viewer")
    label_benchmark(bench, llm=labeller, vlm=viewer)
    write_replay(example / "replies/labels.jsonl", {**labeller.recorded, **viewer.recorded})

    # answers (the same ones go into the official responses file of step 5) and the claim judges
    responses = [json.loads(line) for line in (example / "responses.jsonl").read_text().splitlines()]
    answers = {
        f"{r['video_id']}.{r['segment_id']}.{r['question_id']}": r["model_response"] for r in responses
    }
    write_replay(example / "replies/answers.jsonl", answers)
    server = claim_loopback.LoopbackJudges()

    class Recording:
        """Replies of the loopback claim judges (their repaired, complete form), recorded."""

        def __init__(self) -> None:
            self.recorded: dict[str, str] = {}

        def __str__(self) -> str:
            return "recorded-judge"

        async def complete(self, messages, *, sample_id=None, **params):
            text = "\n".join(p.text for m in messages for p in m.parts if hasattr(p, "text"))
            reply = server.reply([{"content": text}, {"content": "repair"}])
            self.recorded[sample_id] = reply
            return Completion(reply, "recorded-judge")

        async def aclose(self) -> None:
            pass

    run = run_eval(
        EvalConfig(
            bench=str(bench), method="movierecaps", model=f"replay:{example / 'replies/answers.jsonl'}"
        ),
        work / "mr-run",
    )
    predictions = PredictionLog(run.folder / "predictions.jsonl").finished
    for sample_id, reply in answers.items():  # step 5 judges the published answers of every question
        if sample_id not in predictions or predictions[sample_id].reply is None:
            predictions[sample_id] = Prediction(sample_id=sample_id, method="imported", reply=reply)
    judges = {name: Recording() for name in ("claims", "factuality", "relevance", "coherence")}
    log = JudgmentLog(work / "judgments.jsonl")
    asyncio.run(run_judges(judges, load_benchmark(bench).samples, predictions, log))
    for name, model in judges.items():
        write_replay(example / f"replies/{name}.jsonl", model.recorded)

    # a build from one recap and its narration (no movie: no alignment, no embedder)
    build = example / "build"
    llm, vlm = mr.ScriptedModel("writer"), mr.ScriptedModel("viewer")
    build_movierecapsqa(read_manifest(build / "manifest.csv"), work / "mr-built", llm=llm, vlm=vlm)
    write_replay(example / "replies/build-llm.jsonl", llm.recorded)
    write_replay(example / "replies/build-vlm.jsonl", vlm.recorded)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        for record in (instructionbench, egofact, movierecapsqa):
            record(Path(folder))
