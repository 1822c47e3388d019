"""GraphRAG's graph over a benchmark's corpora (the `graphrag` baseline): built once per
benchmark, chat model, embedder and chunking, kept in the vqakit cache, reused by every run.

Documents, as the EgoFact paper adapted GraphRAG: one per clip description (the text a model
wrote about the clip, `corpus/clips.jsonl`) and one per passage (title and text). GraphRAG cuts
them into text units (`chunk_size` tokens, `chunk_overlap` overlap: 1200 and 100 in the paper),
extracts entities and relationships from each with the chat model, summarises them, clusters the
graph into communities, writes a report per community, and embeds entity descriptions, text
units and reports with the embedder; all with GraphRAG's own prompts (none is overridden).

Where: `<vqakit cache>/graphrag/<benchmark>-<folder hash>-<settings hash>/` (or the method's
`graph` option), holding GraphRAG's output (`output/*.parquet`, LanceDB vectors in
`output/lancedb`), its logs (`logs/`) and `graph.json`, written last and atomically, naming the
documents it was built from. A graph whose `graph.json` names today's documents is reused; any
other is built again. A build stopped halfway, or one in which a model call failed, writes no
`graph.json`; the next run builds again, and every call already answered comes back from the
response cache (deterministic settings, as by default). One process builds at a time (a file
lock), so concurrent runs and Ray workers wait for the first and then reuse its graph.

Offline: GraphRAG counts and cuts tokens with tiktoken, which downloads its encodings at first
use. The graphrag extra brings LiteLLM, which ships the `cl100k_base` and `o200k_base` files and
points `TIKTOKEN_CACHE_DIR` at them; `load_graphrag` sets that folder (unless the variable is
set already), asks LiteLLM for its local price list instead of the network's and never to fetch
a tokenizer from a model hub, and checks the chunking encoding loads.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.files import write_text_atomic
from vqakit.methods import MethodContext
from vqakit.retrieval import passage_text
from vqakit.schema import Benchmark

LAYOUT = 1  # how documents are given to GraphRAG; bumping it builds every graph again
TABLES = ("entities", "communities", "community_reports", "text_units", "relationships")
ENCODING = "o200k_base"  # GraphRAG's chunking encoding (graphrag.config.defaults.ENCODING_MODEL)


class GraphBuildFailed(RuntimeError):
    """The graph could not be built (a model call failed, or GraphRAG's pipeline did)."""


def prepare_offline() -> None:
    """Ready tiktoken and LiteLLM to work without a network (see the module docstring); call it
    before anything imports LiteLLM (graphrag-llm does)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # LanceDB's Rust log says "No existing dataset ..., it will be created" for every new table
    os.environ.setdefault("LANCEDB_LOG", "error")
    from importlib.resources import files

    import litellm
    import tiktoken

    litellm.disable_hf_tokenizer_download = True
    bundled = str(files("litellm") / "litellm_core_utils" / "tokenizers")
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", bundled)
    try:
        tiktoken.get_encoding(ENCODING)
    except Exception as error:
        raise GraphBuildFailed(
            f"tiktoken cannot load {ENCODING} from {os.environ['TIKTOKEN_CACHE_DIR']} ({error}); "
            f"unset TIKTOKEN_CACHE_DIR to use the files LiteLLM ships"
        ) from None


def load_graphrag() -> Any:
    """`graphrag.api`, imported for offline use, with the vqakit model providers registered."""
    import logging

    prepare_offline()
    import graphrag.api

    from vqakit.systems.egofact import graphrag_providers  # noqa: F401  (registers the providers)

    logging.getLogger("graphrag").propagate = False  # its log goes to the graph's logs/ folder
    logging.getLogger("graphrag_llm").propagate = False
    return graphrag.api


def graph_documents(benchmark: Benchmark) -> list[dict[str, str]]:
    """GraphRAG's input: one document per clip description and per passage; ids say which."""
    documents = [
        {"id": f"clip:{clip.id}", "title": clip.id, "text": clip.description}
        for clip in benchmark.clips.values()
        if clip.description
    ]
    documents += [
        {"id": f"passage:{passage.id}", "title": passage.title or passage.id, "text": passage_text(passage)}
        for passage in benchmark.passages.values()
    ]
    return documents


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def graph_settings(model: str, embedder: str, options: Any) -> dict[str, Any]:
    """What a graph is built with; a folder holds one graph per such settings."""
    from importlib.metadata import version

    release = ".".join(version("graphrag").split(".")[:2])
    return {
        "layout": LAYOUT,
        "graphrag": release,
        "model": model,
        "embedder": embedder,
        "chunk_size": options.chunk_size,
        "chunk_overlap": options.chunk_overlap,
    }


def graph_folder(benchmark: Benchmark, settings: dict[str, Any]) -> Path:
    from vqakit.models import default_cache_path

    where = hashlib.sha256(str(benchmark.root.resolve()).encode()).hexdigest()[:10]
    name = f"{benchmark.card.name}-{where}-{_digest(settings)[:10]}"
    return default_cache_path().parent / "graphrag" / name


def graph_config(
    folder: Path, model: str, embedder: str, dimension: int, options: Any, concurrency: int
) -> Any:
    """GraphRAG's configuration: the vqakit providers (`model`, `embedder` are their handles),
    asyncio calls, the chunking of the options, files under `folder`, LanceDB vectors."""
    from graphrag.config.defaults import (
        DEFAULT_COMPLETION_MODEL_ID,
        DEFAULT_EMBEDDING_MODEL_ID,
        graphrag_config_defaults,
    )
    from graphrag.config.enums import AsyncType
    from graphrag.config.models.graph_rag_config import GraphRagConfig
    from graphrag_chunking.chunking_config import ChunkingConfig
    from graphrag_llm.config import ModelConfig

    from vqakit.systems.egofact.graphrag_providers import PROVIDER

    chunking = graphrag_config_defaults.chunking
    return GraphRagConfig(
        completion_models={
            DEFAULT_COMPLETION_MODEL_ID: ModelConfig(
                type=PROVIDER, model_provider=PROVIDER, model="run-model", vqakit_model=model
            )
        },
        embedding_models={
            DEFAULT_EMBEDDING_MODEL_ID: ModelConfig(
                type=PROVIDER, model_provider=PROVIDER, model="run-embedder", vqakit_embedder=embedder
            )
        },
        async_mode=AsyncType.AsyncIO,  # the run's model lives on the run's event loop
        concurrent_requests=concurrency,
        chunking=ChunkingConfig(
            type=chunking.type,
            size=options.chunk_size,
            overlap=options.chunk_overlap,
            encoding_model=chunking.encoding_model,
        ),
        input_storage={"type": "file", "base_dir": str(folder / "input")},
        output_storage={"type": "file", "base_dir": str(folder / "output")},
        update_output_storage={"type": "file", "base_dir": str(folder / "update_output")},
        # the vqakit model's response cache keeps the answers (a folder is made all the same)
        cache={"type": "none", "storage": {"type": "file", "base_dir": str(folder / "cache")}},
        reporting={"type": "file", "base_dir": str(folder / "logs")},
        vector_store={
            "type": "lancedb",
            "db_uri": str(folder / "output" / "lancedb"),
            "vector_size": dimension,
        },
    )


@dataclass
class Graph:
    """A built graph, its tables read, and GraphRAG's configuration to search it."""

    folder: Path
    config: Any
    tables: dict[str, Any]
    documents: dict[str, str]  # text unit (its short id, as the search context lists it) -> document
    _prompted: dict[str, Any] = field(default_factory=dict)

    def with_system_prompt(self, prompt: str | None) -> Any:
        """The configuration whose local search uses `prompt` (None: GraphRAG's own prompt); the
        API reads the prompt from a file, kept in the graph's folder under its hash."""
        if prompt is None:
            return self.config
        key = hashlib.sha256(prompt.encode()).hexdigest()[:16]
        if key not in self._prompted:
            path = self.folder / "prompts" / f"local_search-{key}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, prompt)
            search = self.config.local_search.model_copy(update={"prompt": str(path)})
            self._prompted[key] = self.config.model_copy(update={"local_search": search})
        return self._prompted[key]

    def sources(self, context: dict[str, Any]) -> list[str]:
        """The documents (`clip:<id>`, `passage:<id>`) of the text units in a search's context, in
        the order the context lists them, each once."""
        frame = context.get("sources") if isinstance(context, dict) else None
        if frame is None or "id" not in getattr(frame, "columns", ()):
            return []
        found: list[str] = []
        for unit in frame["id"].astype(str):
            document = self.documents.get(unit)
            if document is not None and document not in found:
                found.append(document)
        return found


def _read(folder: Path, config: Any) -> Graph:
    import pandas as pd

    output = folder / "output"
    tables = {name: pd.read_parquet(output / f"{name}.parquet") for name in TABLES}
    units = tables["text_units"]
    documents = dict(
        zip(units["human_readable_id"].astype(str), units["document_id"].astype(str), strict=True)
    )
    return Graph(folder, config, tables, documents)


class _FileLock:
    """An exclusive lock on a file, held across processes (blocking; taken in a worker thread)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path

    def __enter__(self) -> _FileLock:
        self.handle = open(self.path, "a")  # closed in __exit__
        fcntl.flock(self.handle, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def _is_built(marker: Path, digest: str) -> bool:
    try:
        return json.loads(marker.read_text(encoding="utf-8")).get("documents") == digest
    except (OSError, ValueError):
        return False


async def _build(api: Any, config: Any, documents: list[dict[str, str]], log: Any) -> None:
    import pandas as pd

    from vqakit.systems.egofact.graphrag_providers import calls

    frame = pd.DataFrame(documents)
    frame["human_readable_id"] = range(len(frame))
    frame["creation_date"] = ""
    frame["raw_data"] = None
    token = calls.set(log)
    try:
        results = await api.build_index(config, input_documents=frame)
    finally:
        calls.reset(token)
    failed = [f"{result.workflow}: {result.error}" for result in results if result.error is not None]
    if log.failures:
        first = log.failures[0]
        failed.insert(
            0, f"{len(log.failures)} of {log.costs.calls} model calls failed, the first with {first}"
        )
    if failed:
        raise GraphBuildFailed("; ".join(failed))


async def open_graph(context: MethodContext, embedder: Any) -> Graph:
    """The run's graph: read from the cache, or built first (see the module docstring)."""
    benchmark, options, model = context.benchmark, context.options, context.model
    assert benchmark is not None and model is not None
    api = await asyncio.to_thread(load_graphrag)
    from vqakit.systems.egofact.graphrag_providers import CallLog, live

    settings = graph_settings(str(model), embedder.spec, options)
    folder = Path(options.graph) if options.graph else graph_folder(benchmark, settings)
    documents = graph_documents(benchmark)
    digest = _digest({"settings": settings, "documents": documents})
    dimension = int((await asyncio.to_thread(embedder.embed, ["dimension"])).shape[1])
    concurrency = int(getattr(model, "concurrency", 8))
    config = graph_config(folder, live(model), live(embedder), dimension, options, concurrency)
    marker = folder / "graph.json"
    if not _is_built(marker, digest):
        lock = _FileLock(folder / ".lock")
        await asyncio.to_thread(lock.__enter__)
        try:
            if not _is_built(marker, digest):  # another process may have built it meanwhile
                marker.unlink(missing_ok=True)
                log = CallLog()
                await _build(api, config, documents, log)
                tables = {name: len(frame) for name, frame in _read(folder, config).tables.items()}
                record = {
                    **settings,
                    "documents": digest,
                    "documents_n": len(documents),
                    "calls": log.costs.calls,
                }
                write_text_atomic(marker, json.dumps({**record, "counts": tables}, indent=1) + "\n")
        finally:
            lock.__exit__()
    return await asyncio.to_thread(_read, folder, config)
