"""EgoFact's Table 3 from four run folders: GraphRAG, VideoRAG (Jeong), VideoRAG (Ren) (`rag`) and
+ localization (`rag+localize`) run end to end on the sample benchmark against one loopback
OpenAI-compatible server (chat and `/v1/embeddings`), then `vqakit table --by hop_grounding`
lays them out with the four question families as columns and overall last.

The chat model is a test double, `overlap_reader`: it answers every multiple-choice question with
the option that shares the most words with what the method put in front of it, so the numbers
depend on what each method retrieved, not on the gold answer. Clips are found with a tiny random
CLIP built in the test, so the numbers say nothing about the methods' quality: this is the
plumbing of the table, and a real model in its place gives the real table."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("sentence_transformers")
pytest.importorskip("transformers")

import test_graphrag
from test_graphrag import LoopbackModels, content, graphrag_replies, needs_graphrag, sample_config
from tiny_models import build_tiny_clip

import vqakit.systems.egofact  # noqa: F401  (registers the methods)
from vqakit.benchmarks import load_benchmark
from vqakit.cli import main
from vqakit.runner import run_eval

pytestmark = test_graphrag.pytestmark  # GraphRAG's own deprecation notices are not ours

OPTION_LINE = re.compile(r"^\s*\(?([A-Z])[.)]\s+(.+)$", re.M)
STOP = {"which", "what", "that", "this", "with", "from", "there", "their", "about", "video", "person"}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP}


def overlap_reader(messages: list[dict[str, Any]]) -> str | int:
    """Test double for the chat model (see the module docstring). GraphRAG's indexing prompts get
    the shapes they ask for; every other text request gets one JSON object that serves each
    retrieval step (rewrite, keywords, localization, passage queries) and the answer; a request
    with frames (a clip description) gets a numbered list."""
    last = content(messages[-1])
    system = content(messages[0]) if messages[0].get("role") == "system" else ""
    if "---Data tables---" not in system:
        built = graphrag_replies({})(messages)
        if built != 400:
            return built
    options = OPTION_LINE.findall(last)
    context_words = words(OPTION_LINE.sub("", f"{system}\n{last}"))
    scores = [len(words(text) & context_words) for _, text in options]
    letter = options[scores.index(max(scores))][0] if options else None
    images = any(
        isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
        for m in messages
    )
    if images and letter is None:
        return "1. The camera wearer handles something at a counter.\n2. They put it down."
    topic = " ".join(sorted(words(last))[:6])
    return json.dumps(
        {
            "query": f"A video that shows {topic}",
            "keywords": sorted(words(last))[:4] or ["person"],
            "description": f"someone handles {topic}",
            "position": "within",
            "queries": [f"A passage about {text}" for _, text in options],
            "Answer": letter or "A person at work.",
            "Explanation": "the option with the most words in common with the context",
        }
    )


@needs_graphrag
def test_table_3_from_four_runs(tmp_path):
    bench = load_benchmark("sample")
    clip_spec = "clip:" + str(build_tiny_clip(tmp_path / "clip"))
    index = str(tmp_path / "index")
    folders = []
    with LoopbackModels(overlap_reader) as server:
        api_embedder = f"openai-compatible:{server.url}#embed"
        runs = {
            "graphrag": {"text_embedder": api_embedder, "graph": str(tmp_path / "graph")},
            # fewer frames than the paper's 15 keep the test quick; the table is the point here
            "videorag-jeong": {"image_embedder": clip_spec, "index": index, "frames": 5},
            "rag": {"image_embedder": clip_spec, "index": index, "caption_frames": 3},
            "rag+localize": {"image_embedder": clip_spec, "index": index, "caption_frames": 3},
        }
        for method, args in runs.items():
            folder = tmp_path / method.replace("+", "-")
            outcome = run_eval(sample_config(method, server, "reader", **args), folder)
            assert outcome.ran == len(bench.samples)
            assert outcome.results["errors"]["n"] == 0, outcome.results["errors"]
            folders.append(str(folder))

    paper_order = "1-hop local,2-hop local,1-hop temporal,2-hop temporal"
    shown = CliRunner().invoke(main, ["table", *folders, "--by", "hop_grounding", "--columns", paper_order])
    assert shown.exit_code == 0, shown.output
    print("\n" + shown.output)
    lines = [line for line in shown.output.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    families = paper_order.split(",")
    assert header == ["run", *families, "overall"]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    assert [row[0].split()[0] for row in rows] == list(runs)
    for row in rows:
        assert all(re.fullmatch(r"\d+\.\d", cell) for cell in row[-len(families) - 1 :]), row

    latex = CliRunner().invoke(main, ["table", *folders, "--by", "hop_grounding", "--format", "latex"])
    assert latex.exit_code == 0 and "\\begin{tabular}" in latex.output and "videorag-jeong" in latex.output
