"""One writer per index folder: concurrent `vqakit index` calls on the same index take turns, and
the later one reuses what the earlier one wrote (real processes, the real MiniLM, LanceDB and
NumPy stores)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("sentence_transformers")

from vqakit.benchmarks import load_benchmark
from vqakit.models import TextEmbedder
from vqakit.retrieval import CorpusIndex, IndexSettings, Retriever, build_index

ROUNDS = 3  # two processes at once, this many times (each a fresh index)
ROUNDS_WITHIN_S = 60.0  # no new round starts after this long (a round is about 20 s unloaded)


@pytest.fixture(scope="module")
def minilm():
    return TextEmbedder("minilm")


def embedded(stdout: str, table: str) -> int:
    found = re.search(rf"{table}\s+\d+ rows\s+\((\d+) embedded", stdout)
    assert found, stdout
    return int(found.group(1))


def test_two_lancedb_indexes_at_once_take_turns(tmp_path, minilm):
    """Without the lock one of the two failed on `Table 'passages' already exists` (4 times in 4),
    or both embedded everything."""
    pytest.importorskip("lancedb")
    started = time.monotonic()
    for round_ in range(ROUNDS):
        if round_ and time.monotonic() - started > ROUNDS_WITHIN_S:
            break
        out = tmp_path / f"index-{round_}"
        command = [sys.executable, "-m", "vqakit", "index", "sample", "--store", "lancedb", "--out", str(out)]
        children = [
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        done = [child.communicate(timeout=300) for child in children]
        for child, (_, stderr) in zip(children, done, strict=True):
            assert child.returncode == 0, f"round {round_}: {stderr}"
        # the later writer found the earlier one's rows: everything was embedded once
        assert sorted(embedded(stdout, "passages") for stdout, _ in done) == [0, 7], done
        assert sorted(embedded(stdout, "descriptions") for stdout, _ in done) == [0, 10], done
        assert not (out / ".lock").exists()
        index = CorpusIndex(out)
        assert index.settings.store == "lancedb"
        assert len(index.tables["passages"]) == 7 and len(index.tables["descriptions"]) == 10
        hits = Retriever(index, minilm).search_passages("A passage about a bicycle", 3)
        assert len(hits) == 3 and len({hit.id for hit in hits}) == 3


class SlowEmbedder:
    """MiniLM, one call at a time, with a pause before the first: a second writer that does not
    wait reads the tables while the first is still embedding."""

    def __init__(self, model: TextEmbedder) -> None:
        self.model, self.spec = model, model.spec
        self.texts = 0
        self.lock = threading.Lock()
        self.started = threading.Event()  # set: the first writer is embedding

    def embed(self, texts: list[str]):
        self.started.set()
        with self.lock:
            if not self.texts:
                time.sleep(1.5)
            self.texts += len(texts)
            return self.model.embed(texts)


def test_a_numpy_writer_waits_for_another_and_reuses_its_rows(tmp_path, minilm):
    bench = load_benchmark("sample")
    embedder = SlowEmbedder(minilm)
    heard: list[str] = []
    reports: dict[str, object] = {}

    def build(name: str) -> None:
        _, reports[name] = build_index(
            bench, tmp_path / "index", IndexSettings(), text_embedder=embedder, on_wait=heard.append
        )

    first = threading.Thread(target=build, args=("first",))
    first.start()
    assert embedder.started.wait(120)
    second = threading.Thread(target=build, args=("second",))
    second.start()
    first.join(120)
    second.join(120)
    assert embedder.texts == 17  # 7 passages and 10 descriptions, each embedded once
    assert sorted(report.embedded["passages"] for report in reports.values()) == [0, 7]
    assert sorted(report.kept["passages"] for report in reports.values()) == [0, 7]
    assert len(heard) == 1 and f"waiting for pid {os.getpid()}" in heard[0] and "index" in heard[0]
    index = CorpusIndex(tmp_path / "index")
    assert len(index.tables["passages"]) == 7 and len(index.tables["descriptions"]) == 10
    assert len(index.tables["passages"].vectors) == 7
    assert not (tmp_path / "index/.lock").exists()
