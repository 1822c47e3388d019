"""Text embedders over an embeddings API (`openai:`, `openai-compatible:`), against the loopback
fake server: batching, the cache, retries with backoff and Retry-After, failures that are not
retried, secrets kept out of errors, and no torch on the way."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from fake_server import FakeServer, fake_embedding

from vqakit.models import EmbeddingCache, EmbeddingError, RetryPolicy, TextEmbedder, check_text_embedder

FAST = RetryPolicy(max_attempts=4, base_s=0.01, max_wait_s=0.02)


def unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def compatible(server: FakeServer, model: str = "embed-small", query: str = "") -> str:
    return f"openai-compatible:{server.url}#{model}{query}"


def test_batches_in_order_normalised_and_cached(tmp_path):
    texts = [f"text {i}" for i in range(5)]
    with FakeServer() as server:
        cache = EmbeddingCache(tmp_path / "e.sqlite")
        embedder = TextEmbedder(compatible(server), batch_size=2, concurrency=2, cache=cache, retry=FAST)
        vectors = embedder.embed(texts)
        assert vectors.shape == (5, 8) and vectors.dtype == np.float32
        np.testing.assert_allclose(vectors, np.stack([unit(fake_embedding(t)) for t in texts]), atol=1e-6)
        bodies = [request["body"] for request in server.requests]
        assert sorted(len(body["input"]) for body in bodies) == [1, 2, 2]
        assert {body["model"] for body in bodies} == {"embed-small"}
        assert all("dimensions" not in body for body in bodies)
        assert {request["path"] for request in server.requests} == {"/v1/embeddings"}

        again = embedder.embed(["text 3", "new", "text 0"])  # two known texts come from the cache
        assert server.requests[-1]["body"]["input"] == ["new"] and len(server.requests) == 4
        np.testing.assert_allclose(again[[0, 2]], vectors[[3, 0]], atol=1e-6)
        # another server (or model) is another embedder: nothing is shared in the cache
        other = TextEmbedder(compatible(server, "embed-large"), cache=cache, retry=FAST)
        other.embed(["text 0"])
        assert server.requests[-1]["body"]["model"] == "embed-large"
        assert not server.requests[-1]["headers"].get("Authorization")  # no key set, none sent
        embedder.close()


def test_dimensions_and_a_base_url_with_a_query():
    with FakeServer() as server:
        spec = f"openai-compatible:{server.url}?api-version=2024#m?dimensions=5"
        vectors = TextEmbedder(spec, retry=FAST).embed(["a"])
        assert vectors.shape == (1, 5)
        ((request,),) = [server.requests]
        assert request["body"]["dimensions"] == 5 and request["path"] == "/v1/embeddings?api-version=2024"


def test_transient_failures_are_retried_with_retry_after():
    with FakeServer() as server:
        server.script.extend(["429:0.3", "503", "drop", "malformed", "short"])
        embedder = TextEmbedder(compatible(server), retry=RetryPolicy(max_attempts=6, base_s=0.01))
        started = time.monotonic()
        vectors = embedder.embed(["one", "two"])
        assert time.monotonic() - started >= 0.3  # the server's Retry-After was waited
        assert len(server.requests) == 6
        np.testing.assert_allclose(vectors[1], unit(fake_embedding("two")), atol=1e-6)


def test_timeouts_are_retried_and_the_last_failure_is_raised():
    with FakeServer() as server:
        server.script.extend(["slow:0.5", "ok"])
        embedder = TextEmbedder(compatible(server), request_timeout_s=0.2, retry=FAST)
        assert embedder.embed(["late"]).shape == (1, 8) and len(server.requests) == 2

        server.script.extend(["500"] * 4)
        with pytest.raises(
            EmbeddingError, match=r"server: HTTP 500: scripted 500 \(after 4 attempts\)"
        ) as failed:
            embedder.embed(["never"])
        assert failed.value.kind == "server" and len(server.requests) == 6


@pytest.mark.parametrize(("behaviour", "kind"), [("400", "bad_request"), ("401", "auth")])
def test_client_errors_are_not_retried(behaviour, kind):
    with FakeServer() as server:
        server.script.append(behaviour)
        with pytest.raises(EmbeddingError) as failed:
            TextEmbedder(compatible(server), retry=FAST).embed(["x"])
        assert failed.value.kind == kind and len(server.requests) == 1


def test_a_refused_batch_is_tried_again_in_halves():
    """A request over the server's token limit is a 400 for the batch; its halves may pass."""
    with FakeServer() as server:
        server.script.extend(["400", "ok", "400", "ok", "ok"])
        vectors = TextEmbedder(compatible(server), retry=FAST).embed(["a", "b", "c", "d"])
        assert [request["body"]["input"] for request in server.requests] == [
            ["a", "b", "c", "d"], ["a", "b"], ["c", "d"], ["c"], ["d"]
        ]  # fmt: skip
        np.testing.assert_allclose(vectors[3], unit(fake_embedding("d")), atol=1e-6)
        server.script.extend(["400", "400"])  # the batch, then its first half alone: that fails
        with pytest.raises(EmbeddingError, match="bad_request"):
            TextEmbedder(compatible(server), retry=FAST).embed(["e", "f"])
        assert len(server.requests) == 7


def test_keys_are_sent_and_redacted_from_errors(monkeypatch):
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("VQAKIT_API_KEY", secret)
    with FakeServer() as server:
        server.script.extend(["ok", "echo-key:401"])
        embedder = TextEmbedder(compatible(server), retry=FAST)
        embedder.embed(["x"])
        assert server.requests[0]["headers"]["Authorization"] == f"Bearer {secret}"
        with pytest.raises(EmbeddingError) as failed:
            embedder.embed(["y"])
        assert secret not in str(failed.value) and "[redacted]" in str(failed.value)


def test_openai_spec_needs_its_key_and_honours_openai_base_url(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        TextEmbedder("openai:text-embedding-3-small")
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        check_text_embedder("openai:text-embedding-3-small", keys=True)
    assert check_text_embedder("openai:text-embedding-3-small") == "openai:text-embedding-3-small"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-abcdefghijklmnop")
    with FakeServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        vectors = TextEmbedder("openai:text-embedding-3-small", retry=FAST).embed(["hello"])
        assert vectors.shape == (1, 8)
        request = server.requests[0]
        assert request["body"]["model"] == "text-embedding-3-small"
        assert request["headers"]["Authorization"] == "Bearer sk-openai-abcdefghijklmnop"


@pytest.mark.parametrize(
    "spec",
    [
        "bert",
        "sentence-transformers:",
        "openai:",
        "openai-compatible:localhost:8000#m",
        "openai-compatible:http://localhost:8000/v1",
        "openai:text-embedding-3-small?dimensions=0",
        "openai:text-embedding-3-small?temperature=0",
    ],
)
def test_unusable_specs_are_refused(spec):
    with pytest.raises(ValueError):
        check_text_embedder(spec)


def test_threads_embed_at_once():
    with FakeServer(delay_s=0.2) as server:
        embedder = TextEmbedder(compatible(server), retry=FAST)
        assert embedder.thread_safe
        threads = [threading.Thread(target=embedder.embed, args=([f"t{i}"],)) for i in range(4)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert time.monotonic() - started < 0.6 and len(server.requests) == 4


def test_an_api_embedder_imports_no_torch(tmp_path):
    script = (
        "import sys\n"
        "from fake_server import FakeServer\n"
        "from vqakit.models import TextEmbedder\n"
        "with FakeServer() as server:\n"
        "    TextEmbedder(f'openai-compatible:{server.url}#m').embed(['a', 'b'])\n"
        "heavy = [m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules]\n"
        "print('heavy:', heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parent,
        env={**os.environ, "VQAKIT_CACHE_DIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert "heavy: []" in done.stdout


def test_an_index_with_an_api_text_embedder(tmp_path):
    """Index settings take an API spec like any other: passages and descriptions embedded over
    HTTP (one request per table here), incrementally, and searched with the same embedder."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.retrieval import Retriever, index_benchmark, passage_text

    bench = load_benchmark("sample")
    with FakeServer() as server:
        spec = compatible(server)
        folder, settings, index, report = index_benchmark(bench, tmp_path / "index", text_embedder=spec)
        assert settings.text_embedder == spec and report.embedded == {"passages": 7, "descriptions": 10}
        assert [len(r["body"]["input"]) for r in server.requests] == [7, 10]
        assert index.tables["passages"].vectors.shape == (7, 8)
        _, _, _, again = index_benchmark(bench, folder)  # the stored embedder, nothing new to embed
        assert again.embedded == {"passages": 0, "descriptions": 0} and len(server.requests) == 2
        passage = next(iter(bench.passages.values()))
        retriever = Retriever(index, TextEmbedder(spec))
        assert retriever.search_passages(passage_text(passage), 1)[0].id == passage.id
