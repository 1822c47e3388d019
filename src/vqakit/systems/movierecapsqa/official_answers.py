"""Reading published MovieRecapsQA answers and matching them to a benchmark's questions: the
official evaluation's response JSONL (`video_id, segment_id, question_id, question,
model_response`, optionally `question_idx`, and `error` for a failed call) or a CSV of question id
and answer (a header naming the columns, or two columns without one).

Matching, first hit wins: (video_id, segment_id, question_id) against the samples' metadata of
those names; `question_idx` against a metadata `question_idx`; then, only when the answer carries
no segment keys the benchmark knows, the id against the sample id (the importer's
`video_id.segment_id.question_id`) or against a metadata `question_id` that one sample alone has.
Question ids repeat across segments, so a bare one is never guessed. What matches nothing, what
answers a question answered before, and unreadable lines are returned, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vqakit.files import read_rows, read_table
from vqakit.schema import Sample

_TRIPLE = ("video_id", "segment_id", "question_id")
_ID_COLUMNS = ("question_id", "sample_id", "id", "question_idx")
_ANSWER_COLUMNS = ("answer", "model_response", "response", "reply", "prediction")


@dataclass
class Response:
    """One published answer as read, before matching."""

    line: int
    keys: dict[str, Any]  # the identifying fields it carried
    reply: str | None
    error: str | None = None


def read_responses(path: Path) -> tuple[str, list[Response], list[dict[str, Any]]]:
    """(format, answers, unreadable lines as {line, why}) of an official JSONL or a CSV file."""
    if path.suffix.lower() in (".csv", ".tsv"):
        return "csv", *_read_csv(path)
    answers, problems = [], []
    for line in read_table(path, "jsonl").records:
        number, record = line.line or line.number, line.data
        if record is None:
            problem = line.problem
            problems.append(
                {
                    "line": number,
                    "why": f"unreadable: {problem.field}: {problem.message}" if problem else "unreadable",
                }
            )
            continue
        keys = {
            k: record[k]
            for k in ("video_id", "segment_id", "question_id", "question_idx")
            if record.get(k) is not None
        }
        if not keys:
            problems.append({"line": number, "why": "no video_id/segment_id/question_id or question_idx"})
            continue
        reply, error = record.get("model_response"), record.get("error")
        if error is None and not isinstance(reply, str):
            error = "no model_response" if reply is None else f"model_response is not text: {reply!r}"
        answers.append(
            Response(number, keys, None if error else reply, None if error is None else str(error))
        )
    return "official-jsonl", answers, problems


def _read_csv(path: Path) -> tuple[list[Response], list[dict[str, Any]]]:
    """Rows of (id, answer): the columns a header names, else the first two; answers may span
    lines (quoted), so rows are numbered by the line they start on."""
    answers, problems = [], []
    rows: list[tuple[int, list[str]]] = []
    for row in read_rows(path, delimiter="\t" if path.suffix.lower() == ".tsv" else ","):
        if row.problem:
            problems.append({"line": row.line, "why": f"unreadable: {row.problem}"})
        else:
            rows.append((row.line, row.cells))
    header = [cell.strip().lower() for cell in rows[0][1]] if rows else []
    id_column = next((header.index(name) for name in _ID_COLUMNS if name in header), None)
    answer_column = next((header.index(name) for name in _ANSWER_COLUMNS if name in header), None)
    named = id_column is not None and answer_column is not None
    columns = (id_column, answer_column) if named else (0, 1)
    key = "question_idx" if named and header[columns[0]] == "question_idx" else "id"
    for number, row in rows[1:] if named else rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(columns) or not row[columns[0]].strip():
            problems.append({"line": number, "why": "expected a question id and an answer"})
            continue
        answers.append(Response(number, {key: row[columns[0]].strip()}, row[columns[1]]))
    return answers, problems


def _key(*parts: Any) -> str:
    return "/".join(str(part) for part in parts)


class _Index:
    """Sample ids by every key an answer can name them with."""

    def __init__(self, samples: list[Sample]) -> None:
        self.by: dict[str, dict[str, str]] = {"triple": {}, "idx": {}, "id": {}, "question_id": {}}
        question_ids: dict[str, list[str]] = {}
        for sample in samples:
            meta = sample.metadata.model_extra or {}
            self.by["id"][sample.id] = sample.id
            if all(meta.get(k) is not None for k in _TRIPLE):
                self.by["triple"][_key(*(meta[k] for k in _TRIPLE))] = sample.id
            if meta.get("question_idx") is not None:
                self.by["idx"][str(meta["question_idx"])] = sample.id
            if meta.get("question_id") is not None:
                question_ids.setdefault(str(meta["question_id"]), []).append(sample.id)
        self.by["question_id"] = {key: ids[0] for key, ids in question_ids.items() if len(ids) == 1}

    def match(self, keys: dict[str, Any]) -> str | None:
        triple = all(k in keys for k in _TRIPLE)
        if triple and (found := self.by["triple"].get(_key(*(keys[k] for k in _TRIPLE)))):
            return found
        if "question_idx" in keys and (found := self.by["idx"].get(str(keys["question_idx"]))):
            return found
        if triple and self.by["triple"]:
            return None  # question ids repeat across segments: a bare question id would guess
        given = keys.get("id", keys.get("question_id"))
        if given is None:
            return None
        return self.by["id"].get(str(given)) or self.by["question_id"].get(str(given))


def match_answers(
    samples: list[Sample], answers: list[Response]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(lines for imported_answers.jsonl, answers matched to no sample or to one already answered)."""
    index = _Index(samples)
    kept: dict[str, dict[str, Any]] = {}
    unmatched = []
    for answer in answers:
        sample_id = index.match(answer.keys)
        if sample_id is None:
            unmatched.append(
                {"line": answer.line, "keys": answer.keys, "why": "matches no question of the benchmark"}
            )
        elif sample_id in kept:
            why = f"answers {sample_id} again (line {kept[sample_id]['line']} is kept)"
            unmatched.append({"line": answer.line, "keys": answer.keys, "why": why})
        else:
            kept[sample_id] = {
                "sample_id": sample_id,
                "reply": answer.reply,
                "error": answer.error,
                "line": answer.line,
                **answer.keys,
            }
    order = {sample.id: i for i, sample in enumerate(samples)}
    return sorted(kept.values(), key=lambda line: order[line["sample_id"]]), unmatched
