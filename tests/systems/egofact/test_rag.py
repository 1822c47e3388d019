"""Retrieval methods end to end on the sample benchmark: a tiny random CLIP (built in the test) for
clip frames, the packaged MiniLM for passages, and scripted model replies."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("sentence_transformers")
pytest.importorskip("transformers")

from tiny_models import build_tiny_clip

from vqakit.benchmarks import load_benchmark
from vqakit.methods import MethodContext
from vqakit.models import Completion, Model, Text
from vqakit.retrieval import CorpusIndex, best_window, frames_table
from vqakit.runner import EvalConfig, run_eval, run_sweep
from vqakit.scoring import LETTERS
from vqakit.systems.egofact.diagnostics import SufficiencyJudge
from vqakit.systems.egofact.rag import run_rag
from vqakit.systems.egofact.rag_steps import RagOptions


class ScriptedModel:
    """Test double for a chat model: replies come from a function of (sample id, prompt text),
    and every request is recorded with its text and image count."""

    def __init__(self, reply) -> None:
        self.reply = reply
        self.requests: list[tuple[str | None, str, int]] = []

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        text = "\n".join(p.text for m in messages for p in m.parts if isinstance(p, Text))
        self.requests.append((sample_id, text, sum(m.image_count() for m in messages)))
        return Completion(self.reply(sample_id, text), "scripted")

    async def aclose(self) -> None:
        pass

    def __str__(self) -> str:
        return "scripted"


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("sample")


@pytest.fixture(scope="module")
def clip_spec(tmp_path_factory) -> str:
    return "clip:" + str(build_tiny_clip(tmp_path_factory.mktemp("clip") / "clip"))


@pytest.fixture(scope="module")
def siglip_spec(tmp_path_factory) -> str:
    return "clip:" + str(build_tiny_clip(tmp_path_factory.mktemp("siglip") / "siglip", "siglip"))


@pytest.fixture(scope="module")
def index_folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("index")


def chosen_for(sample) -> int:
    """Scripted answers: the gold option, except on some two-hop samples, where the counterfactual
    statement of the right object or the factual statement of a wrong object is chosen."""
    if sample.metadata.hop != 2:
        return int(sample.answer)
    pairs = sample.metadata.model_extra["pairs"]
    right = next(p for p in pairs if p["factual"] == sample.answer)
    wrong = next(p for p in pairs if p is not right)
    return {0: right["factual"], 1: right["counterfactual"], 2: wrong["factual"]}[len(sample.id) % 3]


def write_replay(path: Path, bench, position: str = "after") -> Path:
    lines = []
    for sample in bench.samples:
        steps = {
            "rewrite": {"query": f"A video that shows {sample.question.lower()}"},
            "keywords": {"keywords": ["hand", "kitchen counter"]},
            "localize": {"description": "a hand picks up an object", "position": position},
            "passage-queries": {"queries": [f"A passage about {c}" for c in sample.choices or []]},
        }
        lines += [{"sample_id": f"{sample.id}:{k}", "reply": json.dumps(v)} for k, v in steps.items()]
        lines += [
            {"sample_id": f"{sample.id}:caption:{clip}", "reply": f"1. The camera shows {clip}."}
            for clip in bench.clips
        ]
        answer = (
            {"Answer": LETTERS[chosen_for(sample)], "Explanation": "scripted"}
            if sample.is_mcq
            else {"Answer": "something", "Explanation": "scripted"}
        )
        lines.append({"sample_id": sample.id, "reply": json.dumps(answer)})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def write_judge(path: Path, bench) -> Path:
    path.write_text(
        "".join(
            json.dumps({"sample_id": f"{s.id}:sufficiency", "reply": "Y" if i % 2 else "N"}) + "\n"
            for i, s in enumerate(bench.samples)
        )
    )
    return path


def test_rag_localize_run_on_the_sample(tmp_path, bench, clip_spec, index_folder):
    config = EvalConfig(
        bench="sample",
        method="rag+localize",
        model=f"replay:{write_replay(tmp_path / 'replies.jsonl', bench)}",
        image_embedder=clip_spec,
        index=str(index_folder),
        sufficiency_judge=f"replay:{write_judge(tmp_path / 'judge.jsonl', bench)}",
        concurrency=4,
    )
    outcome = run_eval(config, tmp_path / "run")
    predictions = [json.loads(line) for line in (tmp_path / "run/predictions.jsonl").read_text().splitlines()]
    assert len(predictions) == 46 and not [p for p in predictions if p["error"]]

    from vqakit.models import ImageTextEmbedder, TextEmbedder
    from vqakit.retrieval import CorpusIndex, Retriever

    index = CorpusIndex(index_folder)
    assert index.visual and len(index.tables["clips"]) == 10
    retriever = Retriever(index, TextEmbedder("minilm"), ImageTextEmbedder(clip_spec))
    _, scores = retriever.frame_similarities("clip-bikes", "a hand picks up an object")
    expected = best_window(scores, 2.0, 5.0, "after", 1.0)
    by_id = {s.id: s for s in bench.samples}
    for prediction in predictions:
        trace = prediction["retrieval"]
        assert trace["clip_source"] == "frames" and len(trace["clips"]) == 5
        assert trace["localization"] == {"description": "a hand picks up an object", "position": "after"}
        assert len(prediction["frames_s"]) == 15 * 5
        for number, clip_id in enumerate(trace["clips"]):
            start, end = trace["windows"][clip_id]
            clip = bench.clips[clip_id].video
            assert (clip.start_s or 0.0) <= start < end
            frames = prediction["frames_s"][15 * number : 15 * (number + 1)]
            assert all(start - 0.05 <= t <= end for t in frames)
            if clip_id == "clip-bikes":
                assert [start, end] == pytest.approx(list(expected), abs=1e-3)
        sample = by_id[prediction["sample_id"]]
        if sample.metadata.hop == 2:
            assert len(trace["passages"]) == 6 == len(set(trace["passages"]))
            assert prediction["choice"] == chosen_for(sample)
            assert prediction["extraction"].startswith("json:")

    results = outcome.results
    families = results["groups"]["hop_grounding"]
    assert set(families) == {"1-hop local", "1-hop temporal", "2-hop local", "2-hop temporal"}
    clips = results["retrieval"]["clips"]
    assert clips["all"]["n"] == 46 and clips["correct"]["n"] + clips["wrong"]["n"] == 36
    assert results["retrieval"]["passages"]["all"] == {"n": 6, "rate": 1.0}
    statements = results["statements"]["all"]
    assert statements["n"] == 6 and statements["counterfactual"] == sum(
        1 for s in bench.samples if s.metadata.hop == 2 and len(s.id) % 3 == 1
    )
    judged = [json.loads(line) for line in (tmp_path / "run/judgments.jsonl").read_text().splitlines()]
    hits = sum(1 for p in predictions if set(p["retrieval"]["clips"]) & set(by_id[p["sample_id"]].gold_clips))
    assert len(judged) == hits == results["sufficiency"]["n"]
    report = (tmp_path / "run/report.html").read_text()
    for heading in ("Retrieval success", "sufficiency judge", "chosen statements", "By hop_grounding"):
        assert heading in report
    cards = (tmp_path / "run/samples/page-001.html").read_text()
    assert "localized on: a hand picks up an object (after)" in cards
    strips = re.findall(r'<img src="\.\./(frames/[^"]+)"', cards)
    assert len(strips) == 46  # the frames described of one clip per sample, kept as a strip
    shown = Image.open(tmp_path / "run" / strips[0])
    assert shown.width > 10 * shown.height  # 15 frames side by side


def context_for(bench, model, **options) -> MethodContext:
    return MethodContext(
        root=bench.root,
        protocol=bench.card.protocol,
        model=model,
        options=RagOptions(**options),
        benchmark=bench,
    )


def scripted_rag_replies(sample_id: str, text: str) -> str:
    if sample_id.endswith(":rewrite"):
        return '{"query": "A video that shows an animated rabbit on a hill"}'
    if sample_id.endswith(":keywords"):
        return '{"keywords": ["rabbit", "carrot", "Carrot", " ", "hill"]}'
    if sample_id.endswith(":localize"):
        return '{"description": "a rabbit stretches", "position": "Before"}'
    if sample_id.endswith(":passage-queries"):
        return '{"queries": ["A passage about caring for a rabbit"]}'  # too few: options are used
    if ":caption:" in sample_id:
        return f"1. Clip shown for {sample_id.split(':')[-1]}."
    return '```json\n{"Answer": "B", "Explanation": "because"}\n```'


def test_what_each_step_is_shown(bench, index_folder, clip_spec):
    sample = next(s for s in bench.samples if s.id == "hop2-rabbit")
    model = ScriptedModel(scripted_rag_replies)
    context = context_for(bench, model, image_embedder=clip_spec, index=str(index_folder))
    prediction = asyncio.run(run_rag(sample, context, "rag+localize", "localize"))
    assert prediction.error is None and prediction.choice == 1
    trace = prediction.retrieval
    assert trace["localization"]["position"] == "before"
    # the keyword step: blanks and repeats dropped, words the rewrite has already left out
    assert trace["keywords"] == ["rabbit", "carrot", "hill"]
    assert trace["query"] == "A video that shows an animated rabbit on a hill. carrot."
    keywords_text, _ = next((t, i) for sid, t, i in model.requests if sid == "hop2-rabbit:keywords")
    assert sample.question in keywords_text and "keywords" in keywords_text
    assert "passage-queries" in trace["step_errors"] and trace["passage_queries"][0].startswith(
        "A passage about"
    )
    requests = {sample_id: (text, images) for sample_id, text, images in model.requests}
    for clip in trace["clips"]:
        text, images = requests[f"hop2-rabbit:caption:{clip}"]
        assert images == 15 and sample.question in text
        assert "Look especially for: rabbit, carrot, hill." in text
    answer_text, answer_images = requests["hop2-rabbit"]
    assert answer_images == 0
    for clip in trace["clips"]:
        assert f"Clip shown for {clip}." in answer_text
        assert f"{clip}\n" not in answer_text.replace(f"for {clip}.", "")  # clip ids are not shown
    for passage in trace["passages"]:
        assert bench.passages[passage].text in answer_text
    assert all(f"{LETTERS[i]}. {c}" in answer_text for i, c in enumerate(sample.choices))


def test_oracle_clip_best_piece_and_description_retrieval(bench, index_folder, clip_spec):
    sample = next(s for s in bench.samples if s.id == "bunny-after-exit")
    model = ScriptedModel(scripted_rag_replies)
    oracle = asyncio.run(
        run_rag(sample, context_for(bench, model, index=str(index_folder)), "oracle-clip", "oracle")
    )
    assert oracle.retrieval["clips"] == ["clip-bunny"] and "query" not in oracle.retrieval
    assert not any(sample_id.endswith(":rewrite") for sample_id, _, _ in model.requests)

    best = asyncio.run(
        run_rag(
            sample,
            context_for(bench, model, image_embedder=clip_spec, index=str(index_folder), window_s=3.0),
            "rag+best-piece",
            "best-piece",
        )
    )
    assert list(best.retrieval["windows"]) == best.retrieval["clips"] and len(best.retrieval["clips"]) == 5
    for clip_id, (start, end) in best.retrieval["windows"].items():
        origin = bench.clips[clip_id].video.start_s or 0.0
        assert (start - origin) % 3.0 == pytest.approx(0.0, abs=1e-6) and end - start <= 3.0 + 1e-6

    text_only = asyncio.run(
        run_rag(sample, context_for(bench, model, index=str(tmp_index(index_folder))), "rag", "rag")
    )
    assert text_only.retrieval["clip_source"] == "descriptions"
    assert text_only.retrieval["clips"][0] == "clip-bunny"  # "animated rabbit on a hill"
    no_gold = sample.model_copy(update={"gold_clips": []})
    failed = asyncio.run(run_rag(no_gold, context_for(bench, model), "oracle-clip", "oracle"))
    assert failed.error is not None and failed.error.type == "no_gold_clips"


def test_localize_embedder_scores_the_frames_of_retrieved_clips(
    tmp_path, bench, index_folder, clip_spec, siglip_spec
):
    """CLIP retrieves, SigLIP localizes: its frame vectors are a table of their own in the index,
    of the same frames, and the windows are those of SigLIP's similarities."""
    folder = tmp_path / "index"
    if (index_folder / "index.json").exists():
        shutil.copytree(index_folder, folder)
    sample = next(s for s in bench.samples if s.id == "hop2-rabbit")
    model = ScriptedModel(scripted_rag_replies)
    both = context_for(
        bench, model, image_embedder=clip_spec, localize_embedder=siglip_spec, index=str(folder)
    )
    prediction = asyncio.run(run_rag(sample, both, "rag+localize", "localize"))
    assert prediction.error is None
    index = CorpusIndex(folder)
    assert index.settings.localize_embedders == (siglip_spec,)
    assert len(index.tables[frames_table(siglip_spec)]) == len(index.tables["frames"])
    from vqakit.models import ImageTextEmbedder

    text = ImageTextEmbedder(siglip_spec).embed_texts(["a rabbit stretches"])[0]
    for clip_id in prediction.retrieval["clips"]:
        times, vectors = index.clip_frames(clip_id, siglip_spec)
        np.testing.assert_allclose(times, index.clip_frames(clip_id)[0])
        start, end = best_window(vectors @ text, 2.0, 5.0, "before", 1.0)
        offset = bench.clips[clip_id].video.start_s or 0.0
        assert prediction.retrieval["windows"][clip_id] == pytest.approx(
            [offset + start, offset + end], abs=1e-3
        )

    clip_only = context_for(bench, model, image_embedder=clip_spec, index=str(folder))
    plain = asyncio.run(run_rag(sample, clip_only, "rag+localize", "localize"))
    assert plain.retrieval["clips"] == prediction.retrieval["clips"]  # retrieval is CLIP's either way
    assert CorpusIndex(folder).settings.localize_embedders == (siglip_spec,)  # kept, like the image embedder

    from vqakit.methods import get_method

    line = get_method("rag+localize").shown(both.options, bench.card.protocol)
    assert f"localize embedder {siglip_spec}" in line


def tmp_index(folder: Path) -> Path:
    return folder.parent / (folder.name + "-text")


def test_refusal_goes_to_the_fallback_model(tmp_path, bench, index_folder):
    sample = next(s for s in bench.samples if s.id == "bunny-animal")
    main = tmp_path / "main.jsonl"
    main.write_text(
        json.dumps({"sample_id": sample.id, "reply": "  "})
        + "\n"
        + "".join(
            json.dumps({"sample_id": f"{sample.id}:caption:{clip}", "reply": "1. A rabbit."}) + "\n"
            for clip in bench.clips
        )
    )
    gold = LETTERS[int(sample.answer)]
    backup = tmp_path / "backup.jsonl"
    backup.write_text(json.dumps({"sample_id": sample.id, "reply": json.dumps({"Answer": gold})}) + "\n")
    model = Model(f"replay:{main}", fallback=Model(f"replay:{backup}"))
    prediction = asyncio.run(
        run_rag(sample, context_for(bench, model, index=str(tmp_index(index_folder))), "rag", "rag")
    )
    assert prediction.error is None and prediction.choice == sample.answer
    assert "rewrite" in prediction.retrieval["step_errors"]  # no recorded rewrite: the question is used
    assert prediction.retrieval["query"] == sample.question


def test_sufficiency_judge_sees_the_stem_and_the_gold_caption_only(bench):
    from vqakit.schema import Prediction

    sample = next(s for s in bench.samples if s.id == "hop2-helmet")
    prediction = Prediction(
        sample_id=sample.id,
        method="rag",
        retrieval={
            "clips": ["clip-world", "clip-bikes"],
            "captions": {"clip-bikes": "1. A cyclist in a helmet."},
        },
    )
    judge = ScriptedModel(lambda sample_id, text: "Y, it does")
    record = asyncio.run(SufficiencyJudge().grade(judge, sample, prediction, {}))
    assert record["verdict"] is True and record["clip"] == "clip-bikes"
    ((sample_id, text, _),) = judge.requests
    assert (
        sample_id == "hop2-helmet:sufficiency"
        and sample.question in text
        and "A cyclist in a helmet." in text
    )
    assert not any(choice in text for choice in sample.choices)


def test_window_sweep_runs_one_rag_localize_run_per_window(tmp_path, bench, clip_spec, index_folder):
    base = EvalConfig(
        bench="sample",
        method="rag+localize",
        model=f"replay:{write_replay(tmp_path / 'replies.jsonl', bench, position='within')}",
        image_embedder=clip_spec,
        index=str(index_folder),
        limit=4,
    )
    outcomes = run_sweep(base, "window_s", [1.0, 3.0, 30.0], tmp_path / "sweep")
    assert [value for value, _ in outcomes] == [1.0, 3.0, 30.0]
    from vqakit.retrieval import CorpusIndex

    clips = CorpusIndex(index_folder).tables["clips"]
    for value, outcome in outcomes:
        for line in (outcome.folder / "predictions.jsonl").read_text().splitlines():
            for clip_id, (start, end) in json.loads(line)["retrieval"]["windows"].items():
                clip_s = clips.extra_of(clip_id)["frames"] / 2.0  # frames embedded at 2 fps
                assert np.isclose(end - start, min(value, clip_s))  # a short clip comes back whole
    sweep = json.loads((tmp_path / "sweep/sweep.json").read_text())
    assert sweep["parameter"] == "window_s" and len(sweep["runs"]) == 3
