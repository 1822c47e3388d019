"""A key never reaches a run through its arguments: every value given with `--model-arg`,
`--judge-arg` and `--method-arg` is scanned like a spec (a known key value, a key's shape, a
key-named argument, credentials in a URL), and a run whose arguments carry one is refused before
anything is written (exit 2, the key not repeated). Known key values that reach a run some other
way (here, a question of the benchmark) are redacted from everything it stores: config.yaml,
manifest.json, predictions.jsonl, judgments.jsonl and the response cache. The loopback server
(`fake_server`) is a test double at the HTTP boundary."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.benchmarks import resolve_benchmark
from vqakit.cli import main

KEY = "Zq7+not/a-real=key-4411"  # characters a URL query encodes


def _everything_written(*folders: Path) -> str:
    """The text of every file under the folders (run folder, cache folder) but the report's
    pages, which show the benchmark's own questions as the benchmark has them."""
    texts = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix != ".html":
                data = path.read_bytes()
                texts.append(data.decode("utf-8", "replace"))
                if path.suffix == ".sqlite":  # rows still in the write-ahead log too
                    with sqlite3.connect(path) as db:
                        tables = [
                            name
                            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
                        ]
                        for table in tables:
                            texts += [repr(row) for row in db.execute(f'SELECT * FROM "{table}"')]
    return "\n".join(texts)


@pytest.mark.parametrize(
    "arguments",
    [
        ["--model-arg", f"system=Answer briefly. The password is {KEY}, never say it."],
        ["--model-arg", "system=Use sk-proj-abcdefghijklmnopqrstuv when asked."],
        ["--method-arg", f"prompt={KEY}"],
        ["--method-arg", "api_key=whatever-1234"],
        ["--judge", "open=openai-compatible:URL#judge", "--judge-arg", f"open.system=key {KEY}"],
        ["--judge", "open=openai-compatible:URL#judge", "--judge-arg", f"system=key {KEY}"],
        ["--model-arg", "system=see http://admin:hunter2hunter2@example.org/x"],
    ],
)
def test_an_argument_carrying_a_key_is_refused_before_anything_is_written(arguments, tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", KEY)
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path / "cache"))
    with FakeServer(default="ok:A") as server:
        given = [argument.replace("URL", server.url) for argument in arguments]
        out = tmp_path / "run"
        result = CliRunner().invoke(
            main,
            ["eval", "sample", "--model", f"openai-compatible:{server.url}#m", *given, "--out", str(out)],
        )
    assert result.exit_code == 2, result.output
    assert "an argument cannot carry a key" in result.output and "VQAKIT_API_KEY" in result.output
    flag = next(argument for argument in arguments if argument.endswith("-arg"))
    assert flag in result.output
    for secret in (KEY, "abcdefghijklmnopqrstuv", "hunter2hunter2"):
        assert secret not in result.output
    assert not out.exists() and not server.requests


def test_a_known_key_reaching_a_run_otherwise_is_stored_nowhere(tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", KEY)
    cache = tmp_path / "cache"
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(cache))
    bench = Path(shutil.copytree(resolve_benchmark("sample"), tmp_path / "bench"))
    samples = [json.loads(line) for line in (bench / "samples.jsonl").read_text().splitlines()]
    kept = [samples[0], next(s for s in samples if not s.get("choices"))]  # an MCQ, an open one
    for sample in kept:
        sample["question"] = f"The note says {KEY}. " + sample["question"]
    (bench / "samples.jsonl").write_text("".join(json.dumps(sample) + "\n" for sample in kept))
    out = tmp_path / "run"
    with FakeServer(default="ok:A", by_text={"You are grading": "ok:yes - the same"}) as server:
        result = CliRunner().invoke(
            main,
            ["eval", str(bench), "--model", f"openai-compatible:{server.url}#m", "--judge",
             f"open=openai-compatible:{server.url}#judge", "--out", str(out)],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert any(KEY in json.dumps(request["body"]) for request in server.requests)  # it was sent
    written = _everything_written(out, cache)
    assert KEY not in written
    predictions = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(predictions) == 2 and all("[redacted]" in p["prompt"] for p in predictions)
    assert (out / "judgments.jsonl").read_text().strip()  # the open question was judged


def test_the_scan_and_the_redaction(monkeypatch):
    from vqakit.models import credential_in_arguments, known_secrets, redact_record

    monkeypatch.setenv("VQAKIT_API_KEY", KEY)
    assert credential_in_arguments({"temperature": 0.2, "system": "Answer briefly."}) is None
    assert credential_in_arguments({"max_tokens": 10, "stop": ["\n"]}) is None
    assert credential_in_arguments({"system": f"x {KEY} y"}) == ("system", "the value of a key variable")
    assert credential_in_arguments({"stop": ["a", KEY]}) == ("stop", "the value of a key variable")
    assert credential_in_arguments({"client_secret": "abc"}) == ("client_secret", "it is named like a key")
    from urllib.parse import quote, quote_plus

    assert {quote(KEY, safe=""), quote_plus(KEY)} <= set(known_secrets())
    record = {"model": f"m?system={quote(KEY, safe='')}", "nested": [{KEY: KEY}], "n": 3}
    assert KEY not in json.dumps(redact_record(record)) and quote(KEY, safe="") not in json.dumps(
        redact_record(record)
    )
    assert redact_record({"plain": "text"}) == {"plain": "text"}
