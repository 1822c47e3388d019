"""Corpus indexes: the real MiniLM over the sample's passages, incremental re-indexing, and clip
frames embedded at 2 fps by a tiny random CLIP built in the test."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")

from tiny_models import build_tiny_clip

from vqakit.benchmarks import load_benchmark, resolve_benchmark
from vqakit.models import ImageTextEmbedder, TextEmbedder
from vqakit.retrieval import CorpusIndex, IndexSettings, Retriever, best_window, build_index
from vqakit.video import write_index_clip


@pytest.fixture(scope="module")
def minilm():
    return TextEmbedder("minilm")


@pytest.fixture(scope="module")
def tiny_clip_folder(tmp_path_factory) -> Path:
    return build_tiny_clip(tmp_path_factory.mktemp("clip") / "clip")


def test_sample_two_hop_passage_retrieval_with_minilm(tmp_path, minilm, capsys):
    """The rag method's passage step without the model: one "A passage about <option>" query per
    option, one passage per option; the gold passage must be among the six."""
    bench = load_benchmark("sample")
    index, report = build_index(bench, tmp_path / "index", IndexSettings(), text_embedder=minilm)
    assert report.embedded == {"passages": 7, "descriptions": 10}
    assert any("--image-embedder" in note for note in report.notes)
    retriever = Retriever(index, minilm)
    two_hop = [s for s in bench.samples if s.metadata.hop == 2]
    gold_found, option_to_pair = [], []
    for sample in two_hop:
        found: list[str] = []
        for option in sample.choices or []:
            hits = retriever.search_passages(f"A passage about {option}", 1, exclude=tuple(found))
            found.extend(hit.id for hit in hits)
        gold_found.append(sample.gold_passages[0] in found)
        for pair in sample.metadata.model_extra["pairs"]:
            for index_ in (pair["factual"], pair["counterfactual"]):
                top = retriever.search_passages(f"A passage about {sample.choices[index_]}", 1)[0].id
                option_to_pair.append(top == pair["passage"])
    with capsys.disabled():
        print(
            f"\nsample two-hop passage retrieval (MiniLM, one query per option): gold passage retrieved "
            f"{sum(gold_found)}/{len(two_hop)}; option -> its own pair's passage at top-1 "
            f"{sum(option_to_pair)}/{len(option_to_pair)}"
        )
    assert len(two_hop) == 6 and all(gold_found)
    assert sum(option_to_pair) / len(option_to_pair) >= 0.9


def copy_sample(tmp_path: Path) -> Path:
    folder = tmp_path / "bench"
    shutil.copytree(resolve_benchmark("sample"), folder)
    return folder


def test_reindexing_embeds_only_what_changed(tmp_path, minilm):
    folder = copy_sample(tmp_path)
    settings = IndexSettings()
    build_index(load_benchmark(folder), tmp_path / "index", settings, text_embedder=minilm)
    passages = [json.loads(line) for line in (folder / "corpus/passages.jsonl").read_text().splitlines()]
    passages[0]["text"] += " Check the lock every few months."
    removed = passages.pop(1)
    passages.append({"id": "howto-new", "text": "How to oil a bicycle chain: a drop on every link."})
    (folder / "corpus/passages.jsonl").write_text("".join(json.dumps(p) + "\n" for p in passages))
    samples = [
        line for line in (folder / "samples.jsonl").read_text().splitlines() if removed["id"] not in line
    ]
    (folder / "samples.jsonl").write_text("\n".join(samples) + "\n")

    calls: list[int] = []
    original = minilm.embed
    minilm.embed = lambda texts: calls.append(len(texts)) or original(texts)  # type: ignore[method-assign]
    try:
        index, report = build_index(
            load_benchmark(folder), tmp_path / "index", settings, text_embedder=minilm
        )
    finally:
        minilm.embed = original  # type: ignore[method-assign]
    assert report.embedded["passages"] == 2 and report.kept["passages"] == 5
    assert report.removed["passages"] == 1 and report.embedded["descriptions"] == 0
    assert calls == [2]
    table = index.tables["passages"]
    assert removed["id"] not in table and "howto-new" in table and len(table) == 7
    again = CorpusIndex(tmp_path / "index")
    assert again.tables["passages"].ids == table.ids
    assert json.loads((tmp_path / "index/index.json").read_text())["counts"]["passages"] == 7


def write_clip_bench(folder: Path) -> Path:
    """Two corpus clips cut from one 12 s synthetic video, one whole 4 s video."""
    (folder / "media").mkdir(parents=True)
    write_index_clip(folder / "media/long.mp4", seconds=12, fps=25, width=160, height=120)
    write_index_clip(folder / "media/short.mp4", seconds=4, fps=25, width=160, height=120, seed=1)
    (folder / "benchmark.yaml").write_text(
        "name: clips\nversion: '1'\nlicense: CC0-1.0\n"
        "description: two synthetic videos cut into corpus clips\n"
    )
    clips = [
        {"id": "first", "video": {"path": "media/long.mp4", "start_s": 0.0, "end_s": 6.0}},
        {"id": "second", "video": {"path": "media/long.mp4", "start_s": 6.0, "end_s": 12.0}},
        {"id": "short", "video": {"path": "media/short.mp4"}, "description": "a short clip"},
    ]
    (folder / "corpus").mkdir()
    (folder / "corpus/clips.jsonl").write_text("".join(json.dumps(c) + "\n" for c in clips))
    sample = {"id": "q", "question": "What is shown?", "answer": "numbers", "gold_clips": ["second"]}
    (folder / "samples.jsonl").write_text(json.dumps(sample) + "\n")
    return folder


@pytest.mark.parametrize("store", ["numpy", "lancedb"])
def test_clip_frames_at_two_fps_and_incremental_clips(tmp_path, minilm, tiny_clip_folder, store):
    if store == "lancedb":
        pytest.importorskip("lancedb")
    folder = write_clip_bench(tmp_path / "bench")
    image = ImageTextEmbedder(f"clip:{tiny_clip_folder}")
    settings = IndexSettings(image_embedder=f"clip:{tiny_clip_folder}", fps=2.0, frame_side=64, store=store)
    index, report = build_index(
        load_benchmark(folder), tmp_path / "index", settings, text_embedder=minilm, image_embedder=image
    )
    assert report.embedded["clips"] == 3 and report.embedded["frames"] == 12 + 12 + 8
    times, vectors = index.clip_frames("second")
    np.testing.assert_allclose(times, 6.0 + np.arange(12) / 2.0, atol=0.021)
    mean = vectors.mean(axis=0)
    np.testing.assert_allclose(
        index.tables["clips"].vector_of("second"), mean / np.linalg.norm(mean), atol=1e-6
    )
    assert index.tables["clips"].extra_of("second")["start_s"] == 6.0
    assert index.visual

    retriever = Retriever(index, minilm, image)
    assert retriever.clip_source == "frames"
    start, end = retriever.localize("second", "a number", 2.0, "within")
    assert start >= 6.0 and end <= 12.0 and end - start == pytest.approx(2.0)
    _, scores = retriever.frame_similarities("second", "a number")
    best = int(np.argmax(np.convolve(scores, np.ones(4), mode="valid")))
    assert start == pytest.approx(6.0 + best / 2.0)
    assert {hit.id for hit in retriever.search_clips("a number", 5)} == {"first", "second", "short"}

    stat = os.stat(folder / "media/short.mp4")
    os.utime(folder / "media/short.mp4", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    index, report = build_index(
        load_benchmark(folder), tmp_path / "index", settings, text_embedder=minilm, image_embedder=image
    )
    assert report.embedded["clips"] == 1 and report.kept["clips"] == 2
    assert report.embedded["frames"] == 8 and report.kept["frames"] == 24
    np.testing.assert_allclose(index.clip_frames("second")[0], times)

    # indexing again without an image embedder keeps only the text tables, and says so
    index, report = build_index(
        load_benchmark(folder), tmp_path / "index", IndexSettings(store=store), text_embedder=minilm
    )
    assert not index.visual and report.removed["clips"] == 3
    assert Retriever(index, minilm).clip_source == "descriptions"
    with pytest.raises(ValueError, match="--image-embedder"):
        Retriever(index, minilm).localize("second", "a number", 2.0)


def test_cli_index_is_incremental_and_localization_needs_frames(tmp_path):
    import subprocess
    import sys

    def vqakit(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "vqakit", *args], capture_output=True, text=True, timeout=300
        )

    first = vqakit("index", "sample", "--out", str(tmp_path / "index"))
    assert first.returncode == 0, first.stderr
    assert "passages           7 rows  (7 embedded" in first.stdout and "--image-embedder" in first.stdout
    again = vqakit("index", "sample", "--out", str(tmp_path / "index"))
    assert "(0 embedded, 7 unchanged, 0 removed)" in again.stdout
    refused = vqakit(
        "eval",
        "sample",
        "--method",
        "rag+localize",
        "--model",
        "replay:none.jsonl",
        "--index",
        str(tmp_path / "index"),
        "--out",
        str(tmp_path / "run"),
    )
    assert refused.returncode == 2 and "--image-embedder" in refused.stderr
    assert not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def tiny_siglip_folder(tmp_path_factory) -> Path:
    return build_tiny_clip(tmp_path_factory.mktemp("siglip") / "siglip", "siglip")


@pytest.mark.parametrize("store", ["numpy", "lancedb"])
def test_localize_embedder_frames_are_a_table_of_their_own(
    tmp_path, monkeypatch, minilm, tiny_clip_folder, tiny_siglip_folder, store
):
    """A second image-text model (here SigLIP, while CLIP retrieves) gets the same frames in its
    own table: each clip decoded once for both, kept up to date incrementally, dropped on request."""
    if store == "lancedb":
        pytest.importorskip("lancedb")
    import vqakit.video
    from vqakit.retrieval import frames_table, index_benchmark

    decoded: list[str] = []
    original = vqakit.video.sample_frames
    monkeypatch.setattr(
        vqakit.video,
        "sample_frames",
        lambda path, *a, **k: decoded.append(path.name) or original(path, *a, **k),
    )
    folder = write_clip_bench(tmp_path / "bench")
    clip_spec, siglip_spec = f"clip:{tiny_clip_folder}", f"clip:{tiny_siglip_folder}"
    clip, siglip = ImageTextEmbedder(clip_spec), ImageTextEmbedder(siglip_spec)
    settings = IndexSettings(
        image_embedder=clip_spec, fps=2.0, frame_side=64, store=store, localize_embedders=(siglip_spec,)
    )

    def build():
        return build_index(
            load_benchmark(folder),
            tmp_path / "index",
            settings,
            text_embedder=minilm,
            image_embedder=clip,
            localize_embedders={siglip_spec: siglip},
        )

    index, report = build()
    name = frames_table(siglip_spec)
    assert name.startswith("frames-") and name in index.tables
    assert report.embedded["frames"] == report.embedded[name] == 32 and len(decoded) == 3
    times, vectors = index.clip_frames("second", siglip_spec)
    np.testing.assert_allclose(times, index.clip_frames("second")[0])
    assert vectors.shape[1] != index.clip_frames("second")[1].shape[1]  # another model's space
    assert index.frame_table(clip_spec) == "frames" and index.frame_table(siglip_spec) == name

    retriever = Retriever(index, minilm, clip, localize_embedder=siglip)
    assert retriever.can_localize
    start, end = retriever.localize("second", "a number", 2.0)
    scores = vectors @ siglip.embed_texts(["a number"])[0]
    expected = best_window(scores, 2.0, 2.0)
    assert [start, end] == pytest.approx([6.0 + expected[0], 6.0 + expected[1]])
    not_indexed = SimpleNamespace(spec="clip:not-indexed")  # the index has no frames of it
    unknown = Retriever(index, minilm, clip, localize_embedder=not_indexed)
    assert not unknown.can_localize
    with pytest.raises(ValueError, match="localize embedder"):
        unknown.localize("second", "a number", 2.0)

    decoded.clear()
    stat = os.stat(folder / "media/short.mp4")
    os.utime(folder / "media/short.mp4", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    index, report = build()
    assert report.embedded[name] == report.embedded["frames"] == 8 and report.kept[name] == 24
    assert decoded == ["short.mp4"]

    # `vqakit index` keeps the localize embedders it is not told about, and drops them on request
    _, kept_settings, index, report = index_benchmark(
        load_benchmark(folder), tmp_path / "index", frame_side=64
    )
    assert kept_settings.localize_embedders == (siglip_spec,) and report.embedded[name] == 0
    _, _, index, report = index_benchmark(
        load_benchmark(folder), tmp_path / "index", frame_side=64, localize_embedders=()
    )
    assert report.removed[name] == 32 and name not in CorpusIndex(tmp_path / "index").tables


def test_a_localize_embedder_without_visual_retrieval(tmp_path, minilm, tiny_siglip_folder):
    """Clips found by their descriptions, frames scored by the localize embedder."""
    folder = write_clip_bench(tmp_path / "bench")
    spec = f"clip:{tiny_siglip_folder}"
    siglip = ImageTextEmbedder(spec)
    settings = IndexSettings(fps=2.0, frame_side=64, localize_embedders=(spec,))
    index, _ = build_index(
        load_benchmark(folder),
        tmp_path / "index",
        settings,
        text_embedder=minilm,
        localize_embedders={spec: siglip},
    )
    assert not index.visual and len(index.tables["frames"]) == 0
    retriever = Retriever(index, minilm, localize_embedder=siglip)
    assert retriever.clip_source == "descriptions" and retriever.can_localize
    assert retriever.clip_start("second") == 6.0  # from the localize table's rows
    start, end = retriever.best_piece("second", "a number", 2.0)
    assert 6.0 <= start < end <= 12.0 and (start - 6.0) % 2.0 == pytest.approx(0.0)
    with pytest.raises(ValueError, match="--image-embedder"):
        retriever.pieces(2.0)  # descriptions cover whole clips: no pieces without clip frames


def test_pieces_of_every_clip_are_means_of_their_frames(tmp_path, minilm, tiny_clip_folder):
    """The Video Split units: fixed non-overlapping pieces of every clip (the last one shorter),
    each the normalised mean of its frame vectors, searched in the image embedder's space."""
    from vqakit.retrieval import fixed_pieces, piece_id

    folder = write_clip_bench(tmp_path / "bench")
    clip = ImageTextEmbedder(f"clip:{tiny_clip_folder}")
    settings = IndexSettings(image_embedder=f"clip:{tiny_clip_folder}", fps=2.0, frame_side=64)
    index, _ = build_index(
        load_benchmark(folder), tmp_path / "index", settings, text_embedder=minilm, image_embedder=clip
    )
    retriever = Retriever(index, minilm, clip)
    table = retriever.pieces(2.5)
    assert table.ids == [
        "first@0-2.5s", "first@2.5-5s", "first@5-6s",
        "second@0-2.5s", "second@2.5-5s", "second@5-6s",
        "short@0-2.5s", "short@2.5-4s",
    ]  # fmt: skip
    assert table.extra_of("second@2.5-5s") == {"clip": "second", "start_s": 8.5, "end_s": 11.0}
    with pytest.raises(ValueError, match="in memory"):
        table.save()
    query = clip.embed_texts(["a number"])[0]
    expected = []
    for clip_id in ("first", "second", "short"):
        _, vectors = index.clip_frames(clip_id)
        for a, b in fixed_pieces(len(vectors), 2.0, 2.5):
            mean = vectors[a:b].mean(axis=0)
            np.testing.assert_allclose(
                table.vector_of(piece_id(clip_id, a / 2.0, b / 2.0)), mean / np.linalg.norm(mean), atol=1e-6
            )
            expected.append((float(mean @ query / np.linalg.norm(mean)), piece_id(clip_id, a / 2.0, b / 2.0)))
    expected.sort(key=lambda pair: -pair[0])
    hits = retriever.search_pieces("a number", 3, 2.5)
    assert [hit.id for hit in hits] == [piece for _, piece in expected[:3]]
    assert [hit.score for hit in hits] == pytest.approx([score for score, _ in expected[:3]], abs=1e-5)
    assert retriever.pieces(2.5) is table  # made once per length
    approximate = Retriever(index, minilm, clip, approximate=True)
    assert len(approximate.search_pieces("a number", 2, 2.5)) == 2 and approximate.pieces(2.5).has_ivf
