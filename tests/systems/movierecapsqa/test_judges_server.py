"""The claim judges end to end: replayed answers (the `imported` method) over a tiny benchmark,
graded by the four judges through a loopback OpenAI-compatible server whose replies depend on the
request. The claims are extracted once per answer and shared; labels, justifications and scores
land in judgments.jsonl, means per category and modality in results.json and report.html."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from claim_loopback import LoopbackJudges, build_bench, listed_claims

from vqakit.runner import EvalConfig, run_eval
from vqakit.runs import RunFolder
from vqakit.scoring import use_benchmark_root
from vqakit.systems.movierecapsqa import claims_report, judges, official  # noqa: F401  (registers them)

ANSWERS = {
    "v1.0.0": "Mara hides the key under a stone. Mara hides the key under a stone.",
    "v1.0.1": "Tom is wary of Mara and Tom owns a red car.",
    "v1.1.0": "They leave at dawn and Tom hates Mara.",
    "v1.1.1": "",
    "v1.1.2": "I cannot tell from the video.",
}
CLAIM_JUDGES = ("claims", "factuality", "relevance", "coherence")
FACTUALITY, RELEVANCE, COHERENCE = (
    "Check the claims",
    "Judge whether the claims an answer",
    "Judge whether the claims of one",
)


@pytest.fixture
def bench(tmp_path, index_clip):
    return build_bench(tmp_path / "bench", index_clip)


def run(bench, tmp_path, server: LoopbackJudges, judged: tuple[str, ...] = CLAIM_JUDGES):
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"sample_id": k, "reply": v}) + "\n" for k, v in ANSWERS.items()))
    spec = f"openai-compatible:{server.url}#judge"
    config = EvalConfig(
        bench=str(bench.root),
        method="imported",
        method_args={"answers": str(answers)},
        judges=dict.fromkeys(judged, spec),
        concurrency=4,
    )
    with use_benchmark_root(bench.root):
        return run_eval(config, tmp_path / "run")


def by_kind(folder) -> dict[str, dict[str, dict]]:
    found: dict[str, dict[str, dict]] = {}
    for sample_id, records in RunFolder(folder).judgments().items():
        for kind, record in records.items():
            found.setdefault(kind, {})[sample_id] = record
    return found


def test_the_three_judges_share_one_claim_list_and_fill_results_and_report(bench, tmp_path):
    with LoopbackJudges() as server:
        outcome = run(bench, tmp_path, server)
        asked = len(server.chats)
        again = run(bench, tmp_path, server)  # resumed: nothing is asked again
        assert len(server.chats) == asked and again.ran == 0
    extractions = server.prompts("Split an answer")
    assert len(extractions) == 4  # once per answer, none for the empty one
    records = by_kind(outcome.folder)
    for name, start in (("factuality", FACTUALITY), ("relevance", RELEVANCE), ("coherence", COHERENCE)):
        prompts = server.prompts(start)
        shown = Counter(tuple(listed_claims(prompt)) for prompt in prompts)
        shared = Counter(tuple(r["claims"]) for r in records["claims"].values() if r["claims"])
        assert set(shown) == set(shared)  # every judge saw exactly the shared claim lists
        assert len(prompts) == (6 if name == "factuality" else 3)  # factuality asked again once per answer
    first = next(p for p in server.prompts(FACTUALITY) if "Mara hides the key" in p)
    assert "[00:10] Mara hid the key under the stone." in first and "outside every segment" not in first
    assert "Tom watches Mara from the doorway." in first  # factuality: all the segment's facts
    relevance = next(p for p in server.prompts(RELEVANCE) if "Mara hides the key" in p)
    assert "Tom watches Mara" not in relevance and "Mara hides the key under a stone." in relevance
    dawn = next(p for p in server.prompts(FACTUALITY) if "They leave at dawn." in p)
    assert "[00:05] We leave at dawn." in dawn and "Mara hid the key" not in dawn

    factuality = records["factuality"]
    wary = factuality["v1.0.1"]
    assert [c["label"] for c in wary["claims"]] == ["partially_supported", "unsupported"]
    assert wary["claims"][1] == {
        "claim": "Tom owns a red car.",
        "label": "unsupported",
        "justification": "because of claim 2",
    }
    assert (
        wary["score"] == 3
        and wary["label_score"] == 1.25
        and wary["dialogue_lines"] == 2
        and wary["facts"] == 2
    )
    assert records["coherence"]["v1.0.0"]["claims"][1]["label"] == "redundant"
    assert records["relevance"]["v1.0.1"]["claims"][1]["label"] == "not_relevant"
    assert (
        records["claims"]["v1.1.1"]["status"] == "empty_answer"
        and records["claims"]["v1.1.2"]["status"] == "no_claims"
    )
    for name in ("factuality", "relevance", "coherence"):
        assert (
            records[name]["v1.1.1"]["score"] is None and records[name]["v1.1.1"]["status"] == "empty_answer"
        )
        assert records[name]["v1.1.2"]["status"] == "no_claims" and records[name]["v1.1.2"]["error"] is None

    results = json.loads((outcome.folder / "results.json").read_text())
    summary = results["factuality"]
    assert summary["overall"]["n"] == 3 and summary["unscored"] == {"empty_answer": 1, "no_claims": 1}
    assert list(summary["by_category"]) == ["TEMP", "CRD", "NPA"]
    assert list(summary["by_modality"]) == ["dialogue", "scene", "multimodal"]
    assert summary["by_category"]["CRD"]["mean"] == 3 and summary["labels"]["contradictory"] == 1
    assert results["claim_aggregate"]["overall"]["n"] == 3
    assert results["claims"] == {"answers": 5, "claims_per_answer": 2.0, "no_claims": 1, "empty_answers": 1}
    report = (outcome.folder / "report.html").read_text()
    assert (
        "Claim-based scores (0-5)" in report and "category CRD" in report and "modality multimodal" in report
    )
    assert "Claim labels" in report
    cards = "".join(page.read_text() for page in (outcome.folder / "samples").glob("page-*.html"))
    # each claim with the label of every judge, justifications folded below; no raw JSON replies
    assert "factuality: partially supported; relevance:" in cards
    assert "the judges&#39; justifications" in cards and "Factuality (0-5) judge said:" not in cards
    assert "claims: none (the answer is empty); not scored" in cards


def test_a_failed_extraction_is_graded_again_with_its_judges(bench, tmp_path):
    with LoopbackJudges(fail_claims=("Tom is wary",)) as server:
        first = run(bench, tmp_path, server)
        records = by_kind(first.folder)
        assert "scripted 400" in records["claims"]["v1.0.1"]["error"]
        for name in ("factuality", "relevance", "coherence"):
            assert records[name]["v1.0.1"]["error"].startswith("claim extraction failed")
        assert json.loads((first.folder / "results.json").read_text())["factuality"]["unscored"]["error"] == 1
        server.fail_claims.clear()
        run(bench, tmp_path, server)
    records = by_kind(first.folder)
    assert records["claims"]["v1.0.1"]["error"] is None
    assert records["factuality"]["v1.0.1"]["score"] == 3
    assert sum("Tom is wary" in p for p in server.prompts("Split an answer")) == 2


def test_claim_judges_without_the_claims_judge_say_so(bench, tmp_path):
    with LoopbackJudges() as server:
        outcome = run(bench, tmp_path, server, judged=("factuality",))
    assert server.chats == []
    record = by_kind(outcome.folder)["factuality"]["v1.0.0"]
    assert "assign the claims judge a model" in record["error"]
