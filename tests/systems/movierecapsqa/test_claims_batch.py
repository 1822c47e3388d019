"""The claim judges through a provider's batch API (the loopback fake of OpenAI's Files and Batches
endpoints): published answers imported with `--judge-batch --no-judge-batch-wait` leave their
judgments pending (exit 75); the same command run again polls the same batches, takes a second
round for the three judges that read the extracted claims, and scores the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claim_loopback import build_bench, factuality_label, listed_claims, split_claims, verdicts
from click.testing import CliRunner
from fake_batch_server import FakeBatchServer

from vqakit.cli.import_answers import movierecapsqa_answers
from vqakit.systems.movierecapsqa import claims_report, judges  # noqa: F401  (registers them)

OFFICIAL = Path(__file__).parents[2] / "fixtures/movierecapsqa/official"
SECRET = "sk-test-claims-0123456789SECRET"


def batch_reply(prompt: str) -> str:
    """Test double for the judge model: what each `mr_*` prompt asks for, in one go."""
    if prompt.startswith("Split an answer"):
        return json.dumps({"claims": split_claims(prompt)})
    claims = listed_claims(prompt)
    if prompt.startswith("Check the claims"):
        return verdicts(claims, lambda c, i: factuality_label(c, prompt))
    if prompt.startswith("Judge whether the claims an answer makes"):
        return verdicts(claims, lambda c, i: "NOT_RELEVANT" if "red car" in c.lower() else "RELEVANT")
    return verdicts(claims, lambda c, i: "CONSISTENT")


@pytest.fixture
def bench(tmp_path, index_clip):
    return build_bench(tmp_path / "bench", index_clip)


def test_claim_judges_wait_on_batches_then_score(bench, tmp_path, monkeypatch):
    run = tmp_path / "run"
    command = [
        str(OFFICIAL / "responses.jsonl"),
        "--bench",
        str(bench.root),
        "--out",
        str(run),
        "--judge",
        "openai:judge-test",
        "--judge-batch-poll",
        "0.01",
    ]
    with FakeBatchServer(tmp_path / "provider.json", polls_to_end=3, reply=batch_reply) as server:
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        first = CliRunner().invoke(movierecapsqa_answers, [*command, "--no-judge-batch-wait"])
        assert first.exit_code == 75, first.output
        assert "wait on provider batches" in first.output and server.creates == 1  # the claims round
        early = [json.loads(line) for line in (run / "judgments.jsonl").read_text().splitlines()]
        assert {r["status"] for r in early} == {"empty_answer"}  # only what needs no model call

        second = CliRunner().invoke(movierecapsqa_answers, command)  # the same, waiting this time
        assert second.exit_code == 0, second.output
        # the claims batch was polled, not sent again; the three judges took one more round
        assert server.creates == 2 and server.uploads == 2
    assert "factuality:" in second.output and "claim_aggregate:" in second.output

    records = [json.loads(line) for line in (run / "judgments.jsonl").read_text().splitlines()]
    kinds = {record["kind"] for record in records}
    assert kinds == {"claims", "factuality", "relevance", "coherence"}
    assert not [record for record in records if record.get("error")]
    scored = [r for r in records if r["kind"] == "factuality" and r.get("status") == "scored"]
    assert scored and all(r["claims"] and r["claims"][0]["justification"] for r in scored)
    results = json.loads((run / "results.json").read_text())
    assert results["factuality"]["overall"]["n"] == len(scored) and "judgments_pending" not in results
    assert all(
        SECRET not in path.read_text()
        for path in run.rglob("*")
        if path.is_file() and path.suffix in (".jsonl", ".json", ".yaml", ".html")
    )
