"""`graphrag`: GraphRAG local search (Edge et al., 2025) over the clip descriptions and passages,
one of the EgoFact paper's Table-3 baselines (appendix D.2.1), through Microsoft's `graphrag`
library (`pip install 'vqakit[graphrag]'`).

The graph is built once per benchmark, chat model, embedder and chunking and kept in the vqakit
cache (`graphrag_index`); the chat model is the run's `--model`, the embedder `text_embedder`
(any vqakit text embedder: `minilm` by default, `openai:text-embedding-3-small` as in the paper).
Each question (with its options, `graphrag_query`) goes to GraphRAG's local search
(`graphrag.api.local_search` at `community_level`): the entities nearest the question, their
relationships, community reports and text units fill the context, and the model answers. For
multiple-choice questions the system prompt is the paper's multiple-choice version of GraphRAG's
local search prompt (`graphrag_local_search`, the one prompt of GraphRAG's that is replaced);
open-ended questions get GraphRAG's own. The reply is read with the usual answer extraction.

No frame is shown. `Prediction.retrieval` keeps what the search put in the context: the clips
and passages whose text units it listed (`clips`, `passages`, in its order, so the retrieval
diagnostics apply), the entities, and how many rows of each table it held.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vqakit.methods import MethodContext, MethodSetupError, method
from vqakit.prompts import render_prompt
from vqakit.schema import Benchmark, Prediction, PredictionError, Protocol, Sample
from vqakit.scoring import extract_choice, format_options

NAME = "graphrag"
DEFAULT_EMBEDDER = "minilm"


class GraphRagOptions(BaseModel):
    """Options of `graphrag` (`--method-arg KEY=VALUE`; `--text-embedder` too)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    graph: str | None = None  # graph folder; None: one per benchmark, model and embedder in the cache
    # minilm, sentence-transformers:X, openai:<model>, openai-compatible:<base url>#<model>
    text_embedder: str = DEFAULT_EMBEDDER
    chunk_size: int = Field(1200, ge=10)  # tokens per text unit
    chunk_overlap: int = Field(100, ge=0)  # tokens shared by consecutive text units
    community_level: int = Field(2, ge=0)  # community level of the reports local search reads
    response_type: str = "multiple paragraphs"  # for GraphRAG's own prompt (open-ended questions)

    @field_validator("text_embedder", mode="before")
    @classmethod
    def _text_embedder(cls, value: Any) -> Any:
        from vqakit.models import check_text_embedder

        return DEFAULT_EMBEDDER if value is None else check_text_embedder(str(value))

    @model_validator(mode="after")
    def _overlap(self) -> GraphRagOptions:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be below chunk_size ({self.chunk_size})"
            )
        return self


async def shared_graph(context: MethodContext) -> Any:
    """The run's graph, opened (or built) by the first sample while the others wait; a build that
    failed fails the run's later samples at once, with its reason (a resumed run tries again)."""
    lock = context.shared.setdefault("graphrag_lock", asyncio.Lock())
    async with lock:
        if "graphrag_error" in context.shared:
            raise context.shared["graphrag_error"]
        if "graphrag" not in context.shared:
            from vqakit.models import EmbeddingCache, TextEmbedder
            from vqakit.systems.egofact.graphrag_index import open_graph

            try:
                spec = context.options.text_embedder
                embedder = await asyncio.to_thread(TextEmbedder, spec, cache=EmbeddingCache())
                context.shared["graphrag"] = await open_graph(context, embedder)
            except Exception as error:
                context.shared["graphrag_error"] = error
                raise
        return context.shared["graphrag"]


def _trace(graph: Any, found: Any) -> dict[str, Any]:
    """What the local search put in the model's context."""
    trace: dict[str, Any] = {"mode": NAME, "clip_source": "graph"}
    documents = graph.sources(found)
    trace["clips"] = [doc.removeprefix("clip:") for doc in documents if doc.startswith("clip:")]
    trace["passages"] = [doc.removeprefix("passage:") for doc in documents if doc.startswith("passage:")]
    tables = found if isinstance(found, dict) else {}
    entities = tables.get("entities")
    if entities is not None and "entity" in getattr(entities, "columns", ()):
        trace["entities"] = [str(name) for name in entities["entity"]]
    trace["context_rows"] = {name: len(frame) for name, frame in tables.items() if hasattr(frame, "columns")}
    return trace


async def run_graphrag(sample: Sample, context: MethodContext) -> Prediction:
    """GraphRAG local search over a graph of the clip descriptions and passages."""
    if context.model is None:
        return Prediction.failed(sample.id, NAME, "no_model", f"{NAME} needs --model")
    model = str(context.model)
    try:
        graph = await shared_graph(context)
    except Exception as error:
        return Prediction.failed(sample.id, NAME, "index", f"{type(error).__name__}: {error}", model=model)
    from vqakit.systems.egofact.graphrag_index import load_graphrag
    from vqakit.systems.egofact.graphrag_providers import CallLog, GraphCallFailed, calls

    options = context.options
    mcq = sample.choices is not None
    query = render_prompt(
        "graphrag_query", question=sample.question, options=format_options(sample.choices) if mcq else ""
    )
    config = graph.with_system_prompt(render_prompt("graphrag_local_search") if mcq else None)
    log = CallLog(sample_id=sample.id)
    token = calls.set(log)
    try:
        reply, found = await load_graphrag().local_search(
            config=config,
            covariates=None,
            community_level=options.community_level,
            response_type=options.response_type,
            query=query,
            **graph.tables,
        )
        error = None
    except GraphCallFailed as failure:
        reply, found, error = None, {}, PredictionError(type=failure.kind, message=str(failure))
    except Exception as failure:  # GraphRAG's own failure: no answer, said why
        reply, found = None, {}
        error = PredictionError(type="search", message=f"{type(failure).__name__}: {failure}")
    finally:
        calls.reset(token)
    base = {
        "sample_id": sample.id,
        "method": NAME,
        "model": model,
        "reply": reply,
        "prompt": log.sent[-1] if log.sent else None,
        "retrieval": _trace(graph, found),
        **log.costs.fields(),
    }
    if error is not None:
        return Prediction(**base, error=error)
    if not mcq:
        return Prediction(**base)
    assert sample.choices is not None
    extraction = extract_choice(reply, len(sample.choices), choices=sample.choices)
    how = extraction.rule if extraction.choice is not None else extraction.reason
    return Prediction(**base, choice=extraction.choice, extraction=how)


def _preflight(benchmark: Benchmark, options: GraphRagOptions) -> None:
    """Fail before the run: documents to build a graph of, and a text embedder that can run (a
    local one needs the embed extra, an API one its key); the graphrag extra is checked by the
    registry."""
    from vqakit.extras import has_extra, install_line
    from vqakit.models import check_text_embedder, is_api_text_embedder

    if not any(clip.description for clip in benchmark.clips.values()) and not benchmark.passages:
        raise MethodSetupError(
            f"{NAME} builds its graph from the clip descriptions (`description` in corpus/clips.jsonl) "
            f"and the passages, and {benchmark.card.name} has neither"
        )
    try:
        check_text_embedder(options.text_embedder, keys=True)
    except ValueError as error:
        raise MethodSetupError(f"{NAME}: {error}") from None
    if not is_api_text_embedder(options.text_embedder) and not has_extra("embed"):
        raise MethodSetupError(
            f"{NAME}: text embedder {options.text_embedder} needs the embed extra: {install_line('embed')}"
        )


def _describe(options: GraphRagOptions, protocol: Protocol) -> str:
    """What the model was shown."""
    return (
        f"GraphRAG local search (community level {options.community_level}) over a graph of the clip "
        f"descriptions and passages (text units of {options.chunk_size} tokens, overlap "
        f"{options.chunk_overlap}), embedder {options.text_embedder}; no frames"
    )


method(
    NAME,
    needs_model=True,
    options=GraphRagOptions,
    preflight=_preflight,
    describe=_describe,
    extras=("graphrag",),
    uses_frames=False,
)(run_graphrag)
