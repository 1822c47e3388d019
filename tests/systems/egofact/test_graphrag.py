"""`graphrag` end to end on the sample benchmark, offline: GraphRAG (the graphrag extra) builds its
graph and searches it with a loopback OpenAI-compatible server for chat and embeddings. The
server's chat replies are shaped like what GraphRAG's prompts ask for (entity and relationship
tuples, a JSON community report, a multiple-choice answer), its embeddings are hashed bags of
words. The option and preflight tests run without the extra."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fake_server import FakeServer, chat_reply

import vqakit.systems.egofact.baselines  # noqa: F401  (registers the methods, as the egofact system does)
from vqakit.benchmarks import load_benchmark
from vqakit.methods import MethodContext, MethodSetupError, get_method
from vqakit.scoring import LETTERS


def bag_of_words(text: str, size: int = 64) -> list[float]:
    """A deterministic vector for a text: its words hashed into `size` buckets."""
    vector = np.zeros(size)
    for word in re.findall(r"[a-z]+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % size] += 1.0
    return list(vector / max(float(np.linalg.norm(vector)), 1e-9))


class LoopbackModels(FakeServer):
    """The loopback server, answering `/v1/chat/completions` with `reply(messages)` (an int is sent
    as that HTTP error status) and `/v1/embeddings` with hashed bags of words; it keeps what was
    asked (`chats`) and embedded (`embedded`)."""

    def __init__(self, reply: Callable[[list[dict[str, Any]]], str | int]) -> None:
        super().__init__()
        self.chats: list[list[dict[str, Any]]] = []
        self.embedded: list[str] = []
        server = self

        class Handler(self.httpd.RequestHandlerClass):  # type: ignore[name-defined, misc]
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path.endswith("/embeddings"):
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    with server.lock:
                        server.embedded += texts
                    data = [{"index": i, "embedding": bag_of_words(text)} for i, text in enumerate(texts)]
                    return self._send(200, {"object": "list", "data": data, "model": body["model"]})
                with server.lock:
                    server.chats.append(body["messages"])
                text = reply(body["messages"])
                if isinstance(text, int):
                    return self._send(text, {"error": {"message": f"scripted {text}"}})
                return self._send(200, chat_reply(text))

        self.httpd.RequestHandlerClass = Handler


def content(message: dict[str, Any]) -> str:
    value = message.get("content") or ""
    return value if isinstance(value, str) else " ".join(part.get("text", "") for part in value)


def extraction(text: str) -> str:
    """Entity and relationship tuples in GraphRAG's format for the document in an extraction prompt:
    its first distinct long words as entities, consecutive ones related."""
    document = text.split("-Real Data-")[-1].split("Text:", 1)[-1].split("######################")[0].strip()
    words: list[str] = []
    for word in re.findall(r"[A-Za-z]{5,}", document):
        if word.upper() not in words:
            words.append(word.upper())
    words = words[:4]
    sentence = " ".join(document.split())[:200]
    records = [f'("entity"<|>{word}<|>OBJECT<|>{word.title()} appears here: {sentence})' for word in words]
    records += [
        f'("relationship"<|>{a}<|>{b}<|>{a.title()} and {b.title()} appear together<|>5)'
        for a, b in itertools.pairwise(words)
    ]
    return "\n##\n".join(records) + "\n<|COMPLETE|>"


def graphrag_replies(answers: dict[str, str]) -> Callable[[list[dict[str, Any]]], str | int]:
    """What GraphRAG's prompts ask for; the answer to a question is `answers[question]`."""

    def reply(messages: list[dict[str, Any]]) -> str | int:
        last = content(messages[-1])
        system = content(messages[0]) if messages[0].get("role") == "system" else ""
        if "---Data tables---" in system:
            question = last.splitlines()[0]
            letter = answers.get(question)
            return f"**Answer: {letter}**\nThe tables say so." if letter else "It is a campus path."
        if "-Real Data-" in last:
            return extraction(last)
        if last.startswith("MANY entities and relationships were missed"):
            return "<|COMPLETE|>"
        if "Answer Y if there are still entities" in last:
            return "N"
        if "Description List:" in last:
            entity = last.split("Entities:", 1)[1].splitlines()[0].strip()
            return f"{entity} is described in the clips and passages."
        if "DETAILED FINDINGS" in last:
            finding = {"summary": "Objects seen together", "explanation": "They share a document."}
            report = {"title": "A community", "summary": "Related objects.", "rating": 5.0}
            return json.dumps({**report, "rating_explanation": "Moderate.", "findings": [finding]})
        return 400

    return reply


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("sample")


def gold_letters(bench) -> dict[str, str]:
    return {s.question: LETTERS[int(s.answer)] for s in bench.samples if s.choices is not None}


# -- without the graphrag extra --------------------------------------------------------------------


def test_options_preflight_and_description(bench, monkeypatch):
    graphrag = get_method("graphrag")
    options = graphrag.parse_options({})
    assert (options.chunk_size, options.chunk_overlap, options.text_embedder) == (1200, 100, "minilm")
    assert "text units of 1200 tokens, overlap 100" in graphrag.shown(options, bench.card.protocol)
    with pytest.raises(MethodSetupError, match="chunk_overlap"):
        graphrag.parse_options({"chunk_size": "100", "chunk_overlap": "100"})
    with pytest.raises(MethodSetupError, match="unknown text embedder"):
        graphrag.parse_options({"text_embedder": "word2vec"})

    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "graphrag" else found(name, *a)
    )
    with pytest.raises(MethodSetupError, match=re.escape("pip install 'vqakit[graphrag]'")):
        graphrag.check(bench, {"text_embedder": "openai-compatible:http://127.0.0.1:9/v1#e"})


# -- with it: the graph built and searched ---------------------------------------------------------

# the library's own deprecation notices (pandas' inplace=, LanceDB's older calls) are not ours
pytestmark = [
    pytest.mark.filterwarnings("ignore:The inplace keyword:Warning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:graphrag_vectors.lancedb"),
    pytest.mark.filterwarnings("ignore:table_names\\(\\) is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:The create_index\\(\\) API:DeprecationWarning"),
]
needs_graphrag = pytest.mark.skipif(
    importlib.util.find_spec("graphrag") is None,
    reason="the graphrag extra is not installed (pip install 'vqakit[graphrag]')",
)


def sample_config(method: str, server: LoopbackModels, model: str, **method_args: Any) -> Any:
    """A run of `method` over the sample benchmark with the loopback server's chat `model`."""
    from vqakit.runner import EvalConfig

    spec = f"openai-compatible:{server.url}#{model}"
    return EvalConfig(bench="sample", method=method, model=spec, method_args=method_args, concurrency=4)


def answer_each(
    run: Any, samples: list[Any], bench, server: LoopbackModels, options: Any, **fields: Any
) -> list:
    """The predictions of a method function `run` for `samples` in turn, with the loopback chat
    model (closed after) and `options`; `fields` are more of the method context's."""
    from vqakit.models import Model

    model = Model(f"openai-compatible:{server.url}#chat")
    context = MethodContext(
        bench.root, bench.card.protocol, model, options=options, benchmark=bench, **fields
    )

    async def each() -> list:
        try:
            return [await run(sample, context) for sample in samples]
        finally:
            await model.aclose()

    return asyncio.run(each())


def predictions_of(folder: Path, bench) -> list[tuple[Any, dict[str, Any]]]:
    """(sample, prediction) of every sample of a run folder; none of them failed."""
    by_id = {sample.id: sample for sample in bench.samples}
    lines = (folder / "predictions.jsonl").read_text().splitlines()
    found = [(by_id[p["sample_id"]], p) for p in map(json.loads, lines)]
    assert len(found) == len(bench.samples) and not [p for _, p in found if p["error"]]
    return found


def shown_query(sample) -> str:
    """The question as the search's user message: with its options, one per line."""
    options = [f"{LETTERS[i]}. {choice}" for i, choice in enumerate(sample.choices or [])]
    return "\n".join([sample.question, *options])


@needs_graphrag
def test_graph_built_once_then_searched_for_every_sample(tmp_path, bench, monkeypatch):
    from vqakit.runner import run_eval
    from vqakit.systems.egofact import graphrag_index

    def no_build(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the graph was built again")

    with LoopbackModels(graphrag_replies(gold_letters(bench))) as server:
        embedder = f"openai-compatible:{server.url}#embed"
        config = sample_config(
            "graphrag", server, "chat", text_embedder=embedder, graph=str(tmp_path / "graph")
        )
        outcome = run_eval(config, tmp_path / "run")
        chats = list(server.chats)
        monkeypatch.setattr(graphrag_index, "_build", no_build)
        again = run_eval(config.model_copy(update={"limit": 3}), tmp_path / "again")  # the graph is reused
    assert again.results["overall"]["n"] == 3

    extractions = [m for m in chats if "-Real Data-" in content(m[-1])]
    answers = [m for m in chats if "---Data tables---" in content(m[0])]
    documents = len([c for c in bench.clips.values() if c.description]) + len(bench.passages)
    assert len(extractions) == documents  # one text unit per document: each is under 1200 tokens
    assert any("DETAILED FINDINGS" in content(m[-1]) for m in chats) and len(answers) == len(bench.samples)
    marker = json.loads((tmp_path / "graph/graph.json").read_text())
    assert (
        marker["documents_n"] == documents and marker["chunk_size"] == 1200 and marker["counts"]["entities"]
    )

    for sample, prediction in predictions_of(tmp_path / "run", bench):
        trace = prediction["retrieval"]
        assert set(trace["clips"]) <= set(bench.clips) and set(trace["passages"]) <= set(bench.passages)
        assert trace["clips"] + trace["passages"] and trace["entities"] and trace["context_rows"]["sources"]
        assert prediction["calls"] == 1 and prediction["prompt"].endswith(shown_query(sample))
        if sample.choices is not None:  # the paper's multiple-choice local search prompt
            assert prediction["choice"] == sample.answer and "multiple-choice" in prediction["prompt"]
        else:  # GraphRAG's own
            assert (
                "multiple-choice" not in prediction["prompt"] and "---Data tables---" in prediction["prompt"]
            )
    results = outcome.results
    assert results["overall"]["accuracy"] == 1.0
    assert results["retrieval"]["clips"]["all"]["n"] == len(bench.samples)


@needs_graphrag
def test_a_failed_call_leaves_no_graph_and_fails_the_samples(tmp_path, bench):
    from vqakit.systems.egofact.graphrag_method import GraphRagOptions, run_graphrag

    def reports_fail(messages: list[dict[str, Any]]) -> str | int:
        return 400 if "DETAILED FINDINGS" in content(messages[-1]) else graphrag_replies({})(messages)

    with LoopbackModels(reports_fail) as server:
        embedder = f"openai-compatible:{server.url}#embed"
        options = GraphRagOptions(text_embedder=embedder, graph=str(tmp_path / "g"))
        first, second = answer_each(run_graphrag, bench.samples[:2], bench, server, options)
    assert (
        first.error is not None
        and first.error.type == "index"
        and "model calls failed" in first.error.message
    )
    assert second.error is not None and second.error.message == first.error.message  # not built twice
    assert not (tmp_path / "g/graph.json").exists()
