"""A MovieRecapsQA run scored by the claim judges looks scored: the claim scores are its headline
(eval line, report, `vqakit runs`), the report leads with them, judged samples are tagged
`graded`, sections with nothing to show are left out, and the title is the card's name (the
example release of docs/examples and its recorded replies; no model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main

EX = Path(__file__).resolve().parents[3] / "docs/examples/movierecapsqa"
JUDGES = [
    part
    for name in ("claims", "factuality", "relevance", "coherence")
    for part in ("--judge", f"{name}=replay:{EX / 'replies' / f'{name}.jsonl'}")
]


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("mr")
    bench = root / "mrqa"
    imported = CliRunner().invoke(
        main,
        ["import", "movierecapsqa", str(EX / "release"), "--recaps", str(EX / "media/recaps.csv"),
         "--movies", str(EX / "media/movies.csv"), "--subtitles", str(EX / "media/subtitles.csv"),
         "--out", str(bench)],
    )  # fmt: skip
    assert imported.exit_code == 0, imported.output
    run = root / "runs" / "recap-segment"
    model = ["--model", f"replay:{EX / 'replies/answers.jsonl'}", "--method", "movierecaps"]
    first = CliRunner().invoke(main, ["eval", str(bench), *model, "--out", str(run)])
    assert first.exit_code == 0 and "nothing scored" in first.output
    # the judges join the run made without them: no --new-run, the answers are reused
    result = CliRunner().invoke(main, ["eval", str(bench), *model, *JUDGES, "--out", str(run)])
    assert result.exit_code == 0, result.output
    assert "(8 resumed, 0 run)" in result.output
    return run, result.output


def test_the_eval_line_and_runs_show_the_claim_scores(judged):
    run, line = judged
    results = json.loads((run / "results.json").read_text())
    factuality = results["factuality"]["overall"]
    assert f"factuality {factuality['mean']:.2f} (of 0-5) [95% CI" in line
    assert "relevance " in line and "coherence " in line and "accuracy n/a" not in line
    assert [entry["key"] for entry in results["headline"]] == ["factuality", "relevance", "coherence"]
    listing = CliRunner().invoke(main, ["runs", str(run.parent)]).output
    assert f"factuality {factuality['mean']:.2f} ({factuality['n']})" in listing


def test_the_report_leads_with_the_claim_scores_and_tags_judged_samples_graded(judged):
    run, _ = judged
    report = (run / "report.html").read_text()
    assert re.search(r"<title>movierecapsqa · movierecaps", report)  # the card's name, not a path
    headings = re.findall(r"<h2[^>]*>(.*?)</h2>", report, re.DOTALL)
    assert headings[0].startswith("factuality ") and "Accuracy" not in headings[0]
    assert headings.index("Claim-based scores (0-5)") < min(
        i for i, heading in enumerate(headings) if heading.startswith(("By ", "open-ended", "Samples"))
    )
    assert "Chosen and gold letters" not in report  # open-ended only: no letters to show
    pages = "".join(path.read_text() for path in (run / "samples").glob("page-*.html"))
    assert '<span class="tag">graded</span>' in pages
    assert "unscored (open-ended needs a judge)" not in pages
    assert "not applicable: " in pages and "error not_applicable" not in pages
