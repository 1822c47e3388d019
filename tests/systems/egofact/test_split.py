"""The Video Split baseline (`rag+split`) on the sample: the fixed pieces of every clip are the
retrieval units (a tiny random CLIP built in the test embeds the frames; the packaged MiniLM the
passages), the top pieces are described from the frame budget, and what was retrieved reaches
the diagnostics and the report."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")
pytest.importorskip("transformers")

import test_rag
from test_rag import ScriptedModel, context_for

from vqakit.methods import MethodSetupError, get_method
from vqakit.models import ImageTextEmbedder
from vqakit.retrieval import CorpusIndex, IndexSettings, build_index, fixed_pieces, piece_id
from vqakit.runner import EvalConfig, run_eval
from vqakit.runs import RunFolder
from vqakit.scoring import LETTERS
from vqakit.systems.egofact.diagnostics import gold_caption, retrieval_fields
from vqakit.systems.egofact.rag import run_rag

bench, clip_spec = test_rag.bench, test_rag.clip_spec  # fixtures: the sample, a tiny random CLIP

QUERY = "A video that shows an animated rabbit on a hill"


def scripted_split_replies(sample_id: str, text: str) -> str:
    if sample_id.endswith(":rewrite"):
        return json.dumps({"query": QUERY})
    if sample_id.endswith(":keywords"):  # words the query has already: it stays as it is
        return json.dumps({"keywords": ["animated rabbit", "hill"]})
    if ":caption:" in sample_id:
        return f"1. Seen in {sample_id.split(':caption:')[1]}."
    return json.dumps({"Answer": "A", "Explanation": "scripted"})


def scripted() -> ScriptedModel:
    return ScriptedModel(scripted_split_replies)


@pytest.fixture(scope="module")
def index_folder(tmp_path_factory, bench, clip_spec) -> Path:
    folder = tmp_path_factory.mktemp("index")
    build_index(bench, folder, IndexSettings(image_embedder=clip_spec))
    return folder


def every_piece(index: CorpusIndex, window_s: float) -> list[tuple[str, str, float, float, np.ndarray]]:
    """(piece id, clip, start, end in seconds of the video, mean frame vector) of every piece."""
    pieces = []
    for clip_id in index.tables["clips"].ids:
        _, vectors = index.clip_frames(clip_id)
        start = index.clip_start(clip_id)
        for a, b in fixed_pieces(len(vectors), 2.0, window_s):
            mean = vectors[a:b].mean(axis=0)
            pieces.append((piece_id(clip_id, a / 2, b / 2), clip_id, start + a / 2, start + b / 2, mean))
    return pieces


def test_split_retrieves_the_top_pieces_of_all_clips(bench, clip_spec, index_folder):
    sample = next(s for s in bench.samples if s.id == "bunny-after-exit")
    model = scripted()
    context = context_for(bench, model, image_embedder=clip_spec, index=str(index_folder))
    prediction = asyncio.run(run_rag(sample, context, "rag+split", "split"))
    assert prediction.error is None and prediction.choice == 0
    trace = prediction.retrieval

    index = CorpusIndex(index_folder)
    query = ImageTextEmbedder(clip_spec).embed_texts([QUERY])[0]
    pieces = every_piece(index, 5.0)
    assert len(pieces) == sum(-(-extra["frames"] // 10) for extra in index.tables["clips"].extras)
    ranked = sorted(pieces, key=lambda piece: -float(piece[4] @ query / np.linalg.norm(piece[4])))[:5]
    assert trace["mode"] == "split" and trace["clip_source"] == "pieces" and trace["query"] == QUERY
    assert trace["pieces"] == [piece[0] for piece in ranked]
    assert trace["clips"] == list(dict.fromkeys(piece[1] for piece in ranked))
    assert trace["windows"] == {piece[0]: pytest.approx([piece[2], piece[3]], abs=1e-3) for piece in ranked}

    requests = {sample_id: (text, images) for sample_id, text, images in model.requests}
    for number, piece in enumerate(ranked):
        assert requests[f"{sample.id}:caption:{piece[0]}"][1] == 15  # the frame budget, per piece
        shown = prediction.frames_s[15 * number : 15 * (number + 1)]
        assert all(piece[2] - 0.05 <= t <= piece[3] for t in shown)
    answer = requests[sample.id][0]
    assert [answer.index(f"Seen in {piece[0]}.") for piece in ranked] == sorted(
        answer.index(f"Seen in {piece[0]}.") for piece in ranked
    )  # descriptions in rank order
    line = get_method("rag+split").shown(context.options, bench.card.protocol)
    assert line.startswith("top 5 pieces of 5 s (of all clips), 15 frames per piece")


def test_pieces_of_one_clip_are_one_clip_to_the_readers(bench, clip_spec, index_folder):
    """More pieces than clips: some clip has two. `clips` counts it once (a retrieved piece of the
    gold clip is a retrieved gold clip), and its description is its pieces' in time order."""
    sample = next(s for s in bench.samples if s.id == "bunny-after-exit")
    options = {"image_embedder": clip_spec, "index": str(index_folder), "top_clips": 12, "window_s": 10.0}
    prediction = asyncio.run(run_rag(sample, context_for(bench, scripted(), **options), "rag+split", "split"))
    trace = prediction.retrieval
    assert len(trace["pieces"]) == 12 and len(trace["clips"]) < 12
    for clip_id in trace["clips"]:
        own = sorted(
            (p for p in trace["pieces"] if p.startswith(f"{clip_id}@")), key=lambda p: trace["windows"][p]
        )
        assert trace["captions"][clip_id] == "\n\n".join(f"1. Seen in {p}." for p in own)
        assert len(trace["frames_s"][clip_id]) == 15 * len(own)
        assert trace["frames_s"][clip_id] == sorted(trace["frames_s"][clip_id])
    gold = next(s for s in bench.samples if set(s.gold_clips) & set(trace["clips"]))
    missed = gold.model_copy(update={"gold_clips": ["clip-never-retrieved"]})
    assert retrieval_fields(gold, prediction, None)["clip_hit"] is True
    assert retrieval_fields(missed, prediction, None)["clip_hit"] is False
    clip_id, caption = gold_caption(gold, prediction)
    assert clip_id in gold.gold_clips and caption == trace["captions"][clip_id]


def write_split_replay(path: Path, bench, index_folder: Path, limit: int) -> Path:
    pieces = [piece[0] for piece in every_piece(CorpusIndex(index_folder), 5.0)]
    lines = []
    for sample in bench.samples[:limit]:
        lines.append({"sample_id": f"{sample.id}:rewrite", "reply": json.dumps({"query": QUERY})})
        options = [f"A passage about {c}" for c in sample.choices or []]
        lines.append({"sample_id": f"{sample.id}:passage-queries", "reply": json.dumps({"queries": options})})
        lines += [{"sample_id": f"{sample.id}:caption:{p}", "reply": f"1. Seen in {p}."} for p in pieces]
        answer = LETTERS[int(sample.answer)] if sample.is_mcq else "something"
        lines.append({"sample_id": sample.id, "reply": json.dumps({"Answer": answer})})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_split_run_is_scored_and_reported(tmp_path, bench, clip_spec, index_folder):
    replies = write_split_replay(tmp_path / "replies.jsonl", bench, index_folder, 6)
    arguments = {"image_embedder": clip_spec, "index": str(index_folder)}
    run_eval(
        EvalConfig(
            bench="sample", method="rag+split", model=f"replay:{replies}", method_args=arguments, limit=6
        ),
        tmp_path / "run",
    )
    folder = RunFolder(tmp_path / "run")
    predictions = folder.predictions()
    assert len(predictions) == 6 and not [p for p in predictions.values() if p.error]
    assert all(len(p.retrieval["pieces"]) == 5 for p in predictions.values())
    gold = {s.id: set(s.gold_clips) for s in bench.samples}
    hits = [bool(set(p.retrieval["clips"]) & gold[i]) for i, p in predictions.items()]
    clips = folder.results["retrieval"]["clips"]
    assert clips["all"]["n"] == 6 and clips["all"]["rate"] == pytest.approx(sum(hits) / 6)
    cards = (tmp_path / "run/samples/page-001.html").read_text()
    assert len(re.findall(r'<img src="\.\./(frames/[^"]+)"', cards)) == 6  # a strip of the clip shown
    assert "Retrieval success" in (tmp_path / "run/report.html").read_text()


def test_what_split_and_the_localizing_methods_need(tmp_path, monkeypatch, bench, clip_spec):
    empty = str(tmp_path / "no-index")
    with pytest.raises(MethodSetupError, match="--image-embedder") as refused:
        get_method("rag+split").check(bench, {"index": empty, "localize_embedder": clip_spec})
    assert "descriptions" in str(refused.value)  # pieces cannot be told apart by clip descriptions
    with pytest.raises(MethodSetupError, match="localize_embedder"):
        get_method("rag+best-piece").check(bench, {"index": empty})
    get_method("rag+localize").check(bench, {"index": empty, "localize_embedder": clip_spec})
    get_method("rag+split").check(bench, {"index": empty, "image_embedder": clip_spec})
    with pytest.raises(MethodSetupError, match="clip:"):
        get_method("rag+localize").check(bench, {"localize_embedder": "metaclip"})
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MethodSetupError, match="OPENAI_API_KEY"):
        get_method("rag").check(bench, {"index": empty, "text_embedder": "openai:text-embedding-3-small"})
    with pytest.raises(MethodSetupError, match="unknown text embedder"):
        get_method("rag").check(bench, {"text_embedder": "word2vec"})

    # without clip frames in the index, a split run fails each sample with the reason
    sample = next(s for s in bench.samples if s.id == "bunny-after-exit")
    text_only = context_for(bench, scripted(), index=str(tmp_path / "text-index"))
    failed = asyncio.run(run_rag(sample, text_only, "rag+split", "split"))
    assert failed.error is not None and failed.error.type == "retrieval"
    assert "--image-embedder" in failed.error.message
