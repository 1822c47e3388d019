"""Published answers whose claim judges fail (a judge key the server refuses: HTTP 401) are not
imported quietly: results.json counts the failed judgments as errors, the command lists them and
exits 1, and the same command grades them again once the judge works (loopback judge server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claim_loopback import LoopbackJudges, build_bench
from click.testing import CliRunner

from vqakit.cli.import_answers import movierecapsqa_answers

ANSWERS = Path(__file__).parents[2] / "fixtures/movierecapsqa/official/answers.csv"
ANSWERED = ("v1.0.0", "v1.1.0", "v1.1.2")  # the benchmark's questions the CSV answers


class RefusingJudges(LoopbackJudges):
    """The claim judges' server, refusing every call (401) while `refusing` is set."""

    refusing = True

    def reply(self, messages: list[dict[str, Any]]) -> str | int:
        return 401 if self.refusing else super().reply(messages)


@pytest.fixture
def bench(tmp_path, index_clip):
    return build_bench(tmp_path / "bench", index_clip)


def test_failed_claim_judges_are_errors_with_exit_1_and_are_retried(bench, tmp_path):
    run = tmp_path / "run"
    with RefusingJudges() as server:
        arguments = [str(ANSWERS), "--bench", str(bench.root), "--out", str(run)]
        arguments += ["--judge", f"openai-compatible:{server.url}#judge"]
        failed = CliRunner().invoke(movierecapsqa_answers, arguments)
        assert failed.exit_code == 1, failed.output
        listed = "judge(s) failed on 3 sample(s) (judge claims: auth 3); rerun the same command"
        assert listed in failed.output
        errors = json.loads((run / "results.json").read_text())["errors"]
        assert errors["n"] == 3 and errors["by_kind"] == {"judge claims: auth": 3}
        assert errors["by_judge"] == {
            "claims": {"auth": 3},
            "coherence": {"claims_failed": 3},
            "factuality": {"claims_failed": 3},
            "relevance": {"claims_failed": 3},
        }
        scores = {r["sample_id"]: r for r in map(json.loads, (run / "scores.jsonl").read_text().splitlines())}
        assert {scores[s]["status"] for s in ANSWERED} == {"error: judge claims: auth"}
        assert "judges that failed" in (run / "report.html").read_text()

        server.refusing = False  # the key is fixed: the same command grades what failed
        asked = len(server.chats)
        fixed = CliRunner().invoke(movierecapsqa_answers, arguments)
        assert fixed.exit_code == 0, fixed.output
        assert len(server.chats) > asked and "judge(s) failed" not in fixed.output
    results = json.loads((run / "results.json").read_text())
    assert results["errors"]["n"] == 0 and results["factuality"]["overall"]["n"] == 2
