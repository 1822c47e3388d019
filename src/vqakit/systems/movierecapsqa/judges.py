"""The claim judges of MovieRecapsQA: factuality, relevance and coherence, each 0-5, each
labelling every claim of the shared `claims` record (docs/protocols/movierecapsqa.md, "Scoring").

- factuality: supported / partially supported / unsupported / contradictory / not checkable,
  against the segment's facts (all of them: a claim another fact of the segment backs is not
  unsupported) and the dialogue of the aligned movie segment;
- relevance: relevant / partially relevant / not relevant to the question, whatever their truth;
  the facts the question was made from and the dialogue are shown only as context;
- coherence: consistent / redundant / contradictory with the other claims of the same answer.

(The official code shows both factuality and relevance only the question's aligned facts, and no
dialogue: its context is a to-do. Here factuality sees all of the segment's facts, as the paper
describes, and both see the dialogue.)

The score is the judge's own 0-5 score, following the rubric in its prompt, as in the official
evaluation code (its prompts ask the model for `<metric>_score`) and the paper's numbers. Beside
it each record keeps a score derived from the labels alone (`label_score`: 5 x the mean credit
of the labelled claims, 1 / 0.5 / 0 per label as each judge's `credit` says, not-checkable claims
left out), a check on the judge's consistency that needs no model. An answer without claims
(empty, or stating nothing checkable) is not scored: `score` is None and `status` says why; the
summaries count such answers apart.

Record (judgments.jsonl): `{raw, status: "scored" | "no_claims" | "empty_answer" | None, score,
label_score, claims: [{claim, label, justification}], explanation, facts, dialogue_lines,
dialogue_problem, error}` (facts / dialogue only for the judges that are shown them).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring import Judge, register_judge
from vqakit.systems.movierecapsqa.claims import CLAIMS, ask_json, shared_claims
from vqakit.systems.movierecapsqa.summary import SCALE, score_summary
from vqakit.systems.movierecapsqa.verdicts import spellings, verdicts_for

SCORED = "scored"


class ClaimJudge(Judge):
    """A judge that labels each shared claim and gives a 0-5 score (subclasses set the scale)."""

    needs = (CLAIMS,)
    scale = SCALE
    grades = True
    show_raw = False  # the card shows each claim with its labels (`claims_report.claims_detail`)
    prompt: ClassVar[str]
    labels: ClassVar[dict[str, tuple[str, ...]]]  # canonical label -> other spellings accepted
    credit: ClassVar[dict[str, float | None]]  # label -> its credit in `label_score` (None: left out)
    facts: ClassVar[str | None] = None  # which facts the judge is shown: "segment", "question" or none
    with_dialogue: ClassVar[bool] = False

    def wants(self, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]) -> bool:
        return not sample.is_mcq

    def evidence(self, sample: Sample) -> tuple[dict[str, Any], dict[str, Any]]:
        """(prompt fields, what the record keeps of them) for this sample."""
        # imported when a sample is graded: reading subtitles needs what loading the judge does not
        from vqakit.systems.movierecapsqa.evidence import dialogue, question_facts, segment_facts

        fields: dict[str, Any] = {}
        kept: dict[str, Any] = {}
        if self.facts is not None:
            fields["facts"] = segment_facts(sample) if self.facts == "segment" else question_facts(sample)
            kept["facts"] = len(fields["facts"])
        if self.with_dialogue:
            said = dialogue(sample)
            fields.update(dialogue=said.lines, dialogue_read=said.problem is None)
            kept.update(
                dialogue_lines=None if said.problem else len(said.lines), dialogue_problem=said.problem
            )
        return fields, kept

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        claims, status, problem = shared_claims(earlier)
        unscored = {"raw": None, "score": None, "label_score": None, "claims": []}
        if problem is not None:
            return {**unscored, "status": None, "error": problem}
        if not claims:
            return {**unscored, "status": status, "error": None}
        fields, kept = self.evidence(sample)
        prompt = render_prompt(self.prompt, question=sample.question, claims=claims, **fields)
        schema = verdicts_for(spellings(self.labels), len(claims))
        parsed, raw, error = await ask_json(model, prompt, schema, f"{sample.id}:{self.name}")
        if parsed is None:
            return {
                **unscored,
                **kept,
                "raw": raw,
                "status": None,
                "error": error or "no verdicts in the reply",
            }
        labelled = [
            {"claim": text, "label": verdict.label, "justification": verdict.justification}
            for text, verdict in zip(claims, parsed.claims, strict=True)
        ]
        score = int(parsed.score) if float(parsed.score).is_integer() else parsed.score
        return {
            "raw": raw,
            "status": SCORED,
            "score": score,
            "label_score": self.label_score([item["label"] for item in labelled]),
            "claims": labelled,
            "explanation": parsed.explanation or None,
            **kept,
            "error": None,
        }

    def label_score(self, labels: list[str]) -> float | None:
        """5 x the mean credit of the labels that count (None when none counts)."""
        credits = [credit for label in labels if (credit := self.credit[label]) is not None]
        return round(5 * sum(credits) / len(credits), 3) if credits else None

    def fields(self, sample: Sample, record: dict[str, Any]) -> dict[str, Any]:
        """`<name>` (the 0-5 score or None), `<name>_from_labels`, `<name>_labels` (label counts)
        and, when unscored, `<name>_unscored` (no_claims, empty_answer or error)."""
        row: dict[str, Any] = {
            self.name: record.get("score"),
            f"{self.name}_from_labels": record.get("label_score"),
            f"{self.name}_labels": dict(Counter(item["label"] for item in record.get("claims") or [])),
        }
        if record.get("score") is None:
            row[f"{self.name}_unscored"] = (
                "error" if record.get("error") is not None else record.get("status")
            )
        return row

    def summarise(self, samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        return score_summary(self.name, samples, rows, list(self.labels))

    def headline(self, summary: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        return [(self.name, self.name, summary["overall"])]


@register_judge
class FactualityJudge(ClaimJudge):
    """Is each claim backed by the segment's facts and dialogue? (0-5)"""

    name = "factuality"
    title = "Factuality (0-5)"
    prompt = "mr_factuality"
    labels: ClassVar[dict[str, tuple[str, ...]]] = {
        "supported": ("S",),
        "partially_supported": ("PS", "partial", "partly supported"),
        "unsupported": ("U", "not supported"),
        "contradictory": ("C", "contradicted", "contradiction", "contradicts"),
        "not_checkable": ("NC", "uncheckable", "not verifiable", "unverifiable"),
    }
    credit: ClassVar[dict[str, float | None]] = {
        "supported": 1.0,
        "partially_supported": 0.5,
        "unsupported": 0.0,
        "contradictory": 0.0,
        "not_checkable": None,
    }
    facts = "segment"
    with_dialogue = True


@register_judge
class RelevanceJudge(ClaimJudge):
    """Does each claim address the question, right or wrong? (0-5)"""

    name = "relevance"
    title = "Relevance (0-5)"
    prompt = "mr_relevance"
    labels: ClassVar[dict[str, tuple[str, ...]]] = {
        "relevant": ("R",),
        "partially_relevant": ("PR", "partly relevant", "partial"),
        "not_relevant": ("NR", "irrelevant", "notrelevant"),
    }
    credit: ClassVar[dict[str, float | None]] = {
        "relevant": 1.0,
        "partially_relevant": 0.5,
        "not_relevant": 0.0,
    }
    facts = "question"
    with_dialogue = True


@register_judge
class CoherenceJudge(ClaimJudge):
    """Does each claim fit with the answer's other claims? (0-5)"""

    name = "coherence"
    title = "Coherence (0-5)"
    prompt = "mr_coherence"
    labels: ClassVar[dict[str, tuple[str, ...]]] = {
        "consistent": ("CO", "coherent"),
        "redundant": ("R", "RE", "repeated"),
        "contradictory": ("C", "contradiction", "contradicting", "contradicts"),
    }
    credit: ClassVar[dict[str, float | None]] = {"consistent": 1.0, "redundant": 0.5, "contradictory": 0.0}
