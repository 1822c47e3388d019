"""The run's models inside GraphRAG: graphrag-llm providers (type `vqakit`) that send GraphRAG's
chat calls through the run's `vqakit.models.Model` and its embedding calls through a vqakit
`TextEmbedder`, so `--model` takes every vqakit spec (API, local `hf:`, `replay:`) and each
call gets vqakit's response cache, retries, fallback, generation settings and embedding cache.
GraphRAG's own per-call settings (temperature, token limits) are not sent: the run's are.

Calls are logged to the `CallLog` of the current task (`calls.set(...)`): its costs, the text
of each request and each failure. A failed call raises `GraphCallFailed`; GraphRAG's indexing
steps swallow such errors per document, so the graph build checks the log afterwards.
A `sample_id` on the log names the answer call (a replay file scripts it by the sample's id);
other calls are named by what they send (`graphrag:<hash>`).

Importing this module readies LiteLLM and tiktoken for offline use (`prepare_offline`) before
graphrag-llm imports them; it needs the graphrag extra, so only a graphrag run imports it.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from vqakit.systems.egofact.graphrag_index import prepare_offline
from vqakit.systems.egofact.rag_steps import StepCosts

prepare_offline()  # before graphrag-llm imports LiteLLM

from graphrag_llm.completion import LLMCompletion, register_completion  # noqa: E402
from graphrag_llm.embedding import LLMEmbedding, register_embedding  # noqa: E402
from graphrag_llm.types import (  # noqa: E402
    LLMChoiceChunk,
    LLMChoiceDelta,
    LLMCompletionChunk,
    LLMEmbeddingResponse,
)
from graphrag_llm.types import LLMEmbedding as EmbeddingRecord  # noqa: E402
from graphrag_llm.utils import create_completion_response  # noqa: E402

PROVIDER = "vqakit"


class GraphCallFailed(RuntimeError):
    """A model call made for GraphRAG that failed for good (after vqakit's retries)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


@dataclass
class CallLog:
    """What the model calls of one task cost and sent, and which failed."""

    sample_id: str | None = None
    costs: StepCosts = field(default_factory=StepCosts)
    sent: list[str] = field(default_factory=list)
    failures: list[GraphCallFailed] = field(default_factory=list)


calls: ContextVar[CallLog | None] = ContextVar("vqakit_graphrag_calls", default=None)

# live objects named in a GraphRagConfig (configs hold text; providers look the objects up)
_LIVE: dict[str, tuple[Any, threading.Lock]] = {}


def live(obj: Any) -> str:
    """The name a GraphRAG model config gives `obj` (a vqakit Model or TextEmbedder) by."""
    handle = f"{type(obj).__name__}-{id(obj):x}"
    if handle not in _LIVE or _LIVE[handle][0] is not obj:  # an id may be reused once freed
        _LIVE[handle] = (obj, threading.Lock())
    return handle


def _messages(messages: Any) -> list[Any]:
    """GraphRAG's messages (a text, or OpenAI-style dicts) as vqakit messages."""
    from vqakit.models import Message

    if isinstance(messages, str):
        return [Message.user(messages)]
    found = []
    for message in messages:
        item = dict(message)
        content = item.get("content") or ""
        if isinstance(content, list):
            content = "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        role = item.get("role", "user")
        found.append(Message.of(role if role in ("system", "user", "assistant") else "user", str(content)))
    return found


def _text(messages: list[Any]) -> str:
    return "\n\n".join(part.text for message in messages for part in message.parts if hasattr(part, "text"))


def _chunks(text: str) -> AsyncIterator[LLMCompletionChunk]:
    async def stream() -> AsyncIterator[LLMCompletionChunk]:
        yield _chunk(text)

    return stream()


def _chunk(text: str) -> LLMCompletionChunk:
    delta = LLMChoiceDelta(content=text, role="assistant")
    choice = LLMChoiceChunk(index=0, delta=delta, finish_reason="stop")
    return LLMCompletionChunk(
        id="vqakit", object="chat.completion.chunk", created=0, model=PROVIDER, choices=[choice]
    )


class _Provider:
    """What GraphRAG gives every provider and reads back: a tokenizer and a metrics store."""

    def __init__(self, *, tokenizer: Any, metrics_store: Any, **kwargs: Any) -> None:
        self._tokenizer = tokenizer
        self._metrics_store = metrics_store

    @property
    def metrics_store(self) -> Any:
        return self._metrics_store

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer


class RunModelCompletion(_Provider, LLMCompletion):
    """GraphRAG's chat model: the run's vqakit `Model` (named by `vqakit_model`)."""

    def __init__(self, *, vqakit_model: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._model = _LIVE[vqakit_model][0]

    async def _ask(self, **kwargs: Any) -> tuple[str, Any]:
        from vqakit.models import complete_structured

        messages = _messages(kwargs["messages"])
        log = calls.get()
        sent = _text(messages)
        sample_id = (
            log.sample_id if log else None
        ) or f"graphrag:{hashlib.sha256(sent.encode()).hexdigest()[:16]}"
        schema = kwargs.get("response_format")
        if schema is not None:
            found, completion = await complete_structured(self._model, messages, schema, sample_id=sample_id)
        else:
            completion = await self._model.complete(messages, sample_id=sample_id)
            found = None
        failure = None
        if completion.error is not None:
            failure = GraphCallFailed(completion.error.type, completion.error.message)
        if log is not None:
            log.costs.add(completion)
            log.sent.append(sent)
            if failure is not None:
                log.failures.append(failure)
        if failure is not None:
            raise failure
        return (found.model_dump_json() if found is not None else completion.text or ""), found

    async def completion_async(self, /, **kwargs: Any) -> Any:
        text, found = await self._ask(**kwargs)
        if kwargs.get("stream"):
            return _chunks(text)
        response = create_completion_response(text)
        response.formatted_response = found
        return response

    def completion(self, /, **kwargs: Any) -> Any:
        """The synchronous form (GraphRAG's config check uses it): the call runs on its own loop."""
        with ThreadPoolExecutor(1) as pool:
            text, found = pool.submit(asyncio.run, self._ask(**kwargs)).result()
        if kwargs.get("stream"):
            return iter([_chunk(text)])
        response = create_completion_response(text)
        response.formatted_response = found
        return response


class RunEmbedding(_Provider, LLMEmbedding):
    """GraphRAG's embedding model: a vqakit `TextEmbedder` (named by `vqakit_embedder`); calls to
    one that is not thread-safe (a local model) are taken one at a time."""

    def __init__(self, *, vqakit_embedder: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._embedder, self._lock = _LIVE[vqakit_embedder]

    def embedding(self, /, **kwargs: Any) -> LLMEmbeddingResponse:
        texts = kwargs["input"]
        texts = [texts] if isinstance(texts, str) else list(texts)
        if getattr(self._embedder, "thread_safe", False):
            vectors = self._embedder.embed(texts)
        else:
            with self._lock:
                vectors = self._embedder.embed(texts)
        data = [
            EmbeddingRecord(object="embedding", embedding=[float(x) for x in vector], index=i)
            for i, vector in enumerate(vectors)
        ]
        usage = {"prompt_tokens": 0, "total_tokens": 0}
        return LLMEmbeddingResponse(object="list", data=data, model=self._embedder.spec, usage=usage)

    async def embedding_async(self, /, **kwargs: Any) -> LLMEmbeddingResponse:
        return await asyncio.to_thread(self.embedding, **kwargs)


register_completion(PROVIDER, RunModelCompletion)
register_embedding(PROVIDER, RunEmbedding)
