"""The batch journal: which provider batches were submitted for which requests, and what they
brought back, in two append-only JSONL files (a run folder keeps them beside its judgments).

- the journal (`judge_batches.jsonl` in a run folder): `{"event": "intent", "intent", "digest",
  "provider", "model", "keys", "requests", "at"}` before a batch is uploaded (`intent` a fresh
  id the batch is tagged with, `digest` the SHA-256 of what is sent); `{"event": "submitted",
  "batch", "intent", "provider", "model", "keys", "requests", "at"}` as soon as the provider has
  accepted it (`"found": true` when it was found at the provider instead, see below);
  `{"event": "unsent", "intent", "why", "at"}` when the provider is known not to have it; and
  `{"event": "ended", "batch", "status", "answered", "errors", "at"}` once its replies are stored;
- the replies (`judge_batch_results.jsonl`): `{"key", "batch", "completion"}` per request, keyed
  like the response cache (`cache_key`), errors included so the user can see why one failed;
  `{"key", "batch": null, "rejected": true}` when the caller's check refused a stored reply.

A process that starts polls the batches submitted and not ended instead of submitting their
requests again, and answers from the stored replies, so a finished batch is never fetched
twice. An intent with neither a `submitted` nor an `unsent` line (a process killed between the
upload and the journal line) is looked up at the provider before its requests are submitted
again (`Batcher.submit`). Failed replies are kept for this process only: a rerun asks for them
again, as a rerun retries failed calls without batches. Nothing here holds a key: request
bodies carry none (the key travels in headers) and messages are redacted.

Both files are read with the one log reader (`vqakit.files.read_log`, with `parse_batch_event`
and `parse_batch_reply`): a line that cannot be read refuses the journal (`BadLogLines`) rather
than losing a batch that was paid for; a torn last line is removed by the next append.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vqakit.files import LogAppender, json_object, read_log, require
from vqakit.models._messages import CallError, Completion, Usage
from vqakit.models._secrets import redact_secrets


class BatchUnsupported(Exception):
    """The endpoint has no batch API (an OpenAI-compatible server without `/v1/files`)."""


@dataclass(frozen=True)
class BatchStatus:
    """A batch as its provider reports it: `ended` once no request is still being processed."""

    ended: bool
    status: str  # the provider's word: in_progress, completed, expired, ended, ...
    done: int | None = None
    total: int | None = None


@dataclass(frozen=True)
class SubmittedBatch:
    id: str
    provider: str  # "openai" (also OpenAI-compatible servers) or "anthropic"
    group: str  # the model spec without settings: batches are polled through a model of this group
    keys: tuple[str, ...]
    intent: str | None = None  # the intent it was submitted under (None in journals made before)


@dataclass(frozen=True)
class Intent:
    """A batch about to be submitted: recorded before the upload, and the tag of the batch (in
    its metadata where the provider keeps any), so a process killed before it learnt the batch's
    id can find it at the provider instead of submitting it again."""

    id: str  # fresh for every submission: a batch of the same requests asked again is another
    digest: str  # SHA-256 of the model group and every (key, request body) sent
    provider: str
    group: str
    keys: tuple[str, ...]
    at: float  # when it was recorded (Unix time): the batch was created after

    @classmethod
    def new(cls, provider: str, group: str, requests: Mapping[str, Any]) -> Intent:
        return cls(
            f"vqakit-{uuid.uuid4().hex}",
            request_digest(group, requests),
            provider,
            group,
            tuple(requests),
            time.time(),
        )


def request_digest(group: str, requests: Mapping[str, Any]) -> str:
    """SHA-256 of what a batch sends: the model group, then each request key and its prepared
    body (bytes as they are, anything else as canonical JSON), in key order."""
    digest = hashlib.sha256(group.encode())
    for key in sorted(requests):
        body = requests[key]
        raw = body if isinstance(body, bytes) else json.dumps(body, sort_keys=True, default=str).encode()
        digest.update(b"\0" + key.encode() + b"\0" + hashlib.sha256(raw).digest())
    return digest.hexdigest()


def failed(model: str, kind: str, message: str) -> Completion:
    """The completion of a request that got no reply (its kind becomes the judgment's error)."""
    return Completion(None, model, error=CallError(kind, redact_secrets(message)))


def _record(completion: Completion) -> dict[str, Any]:
    data = asdict(completion)
    if completion.error is not None:
        data["error"]["message"] = redact_secrets(completion.error.message)
    return data


_NUMBER = (int, float)
# each event of the journal: (required fields and their types, optional ones)
_EVENTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "intent": (
        {"intent": str, "digest": str, "provider": str, "model": str, "keys": list, "at": _NUMBER},
        {"requests": int},
    ),
    "submitted": (
        {"batch": str, "provider": str, "model": str, "keys": list},
        {"intent": (str, type(None)), "requests": int, "at": _NUMBER, "found": bool},
    ),
    "unsent": ({"intent": str}, {"why": str, "at": _NUMBER}),
    "ended": ({"batch": str}, {"status": str, "answered": int, "errors": int, "at": _NUMBER}),
}


def parse_batch_event(line: bytes) -> dict[str, Any]:
    """One line of the batch journal, checked: a known event with its fields and their types,
    and nothing else (ValueError naming what is wrong)."""
    record = require(json_object(line), {"event": str})
    if record["event"] not in _EVENTS:
        raise ValueError(f"event: {record['event']!r} is not one of {', '.join(_EVENTS)}")
    needed, optional = _EVENTS[record["event"]]
    require(record, needed)
    require(record, {key: kind for key, kind in optional.items() if key in record})
    unknown = sorted(set(record) - {"event", *needed, *optional})
    if unknown:
        raise ValueError(f"{unknown[0]}: not a field of a {record['event']!r} event")
    if not all(isinstance(key, str) for key in record.get("keys", [])):
        raise ValueError("keys: not a list of strings")
    return record


@dataclass(frozen=True)
class StoredReply:
    """One line of the replies file: a request's reply from a batch, or its rejection."""

    key: str
    batch: str | None
    completion: Completion | None  # None for a rejection
    rejected: bool = False


def parse_batch_reply(line: bytes) -> StoredReply:
    """One line of the replies file, checked (ValueError naming what is wrong)."""
    record = require(json_object(line), {"key": str, "batch": (str, type(None))})
    if record.get("rejected") is True and set(record) == {"key", "batch", "rejected"}:
        return StoredReply(record["key"], record["batch"], None, rejected=True)
    require(record, {"completion": dict})
    unknown = sorted(set(record) - {"key", "batch", "completion"})
    if unknown:
        raise ValueError(f"{unknown[0]}: not a field of a reply line")
    return StoredReply(record["key"], record["batch"], _completion(record["completion"]))


def _completion(data: dict[str, Any]) -> Completion:
    """A stored completion back as one (ValueError for fields it does not have or types it
    cannot hold)."""
    require(data, {"model": str})
    optional = {"text": (str, type(None)), "reasoning": (str, type(None)), "usage": (dict, type(None)),
                "latency_s": (int, float), "finish_reason": (str, type(None)),
                "error": (dict, type(None)), "cached": bool, "attempts": int}  # fmt: skip
    require(data, {key: kind for key, kind in optional.items() if key in data})
    unknown = sorted(set(data) - {"model", *optional})
    if unknown:
        raise ValueError(f"completion.{unknown[0]}: not a field of a completion")
    data = dict(data)
    usage = data.get("usage") or {}
    if not all(key in ("input_tokens", "output_tokens", "reasoning_tokens") and isinstance(value, int)
               for key, value in usage.items()):  # fmt: skip
        raise ValueError("completion.usage: not token counts")
    data["usage"] = Usage(**usage)
    if data.get("error"):
        require(data["error"], {"type": str, "message": str})
        if set(data["error"]) != {"type", "message"}:
            raise ValueError("completion.error: fields other than type and message")
        data["error"] = CallError(**data["error"])
    else:
        data["error"] = None
    return Completion(**data)


class BatchJournal:
    """The two files of one run's batches, read once when opened and appended to after."""

    def __init__(self, journal: Path, results: Path) -> None:
        self.journal_path, self.results_path = journal, results
        self.submitted: dict[str, SubmittedBatch] = {}
        self._intents: dict[str, Intent] = {}  # intents with no submitted or unsent line yet
        self._ended: set[str] = set()
        self._answers: dict[str, Completion] = {}
        self._in_flight: dict[str, str] = {}  # request key -> batch id, for batches not ended
        events = read_log(journal, parse_batch_event)
        replies = read_log(results, parse_batch_reply)
        self._appenders = {journal: LogAppender(events), results: LogAppender(replies)}
        for event in events.checked():
            if event.get("event") == "intent":
                self._intents[event["intent"]] = Intent(
                    event["intent"],
                    event["digest"],
                    event["provider"],
                    event["model"],
                    tuple(event["keys"]),
                    float(event["at"]),
                )
            elif event.get("event") == "submitted":
                batch = SubmittedBatch(
                    event["batch"],
                    event["provider"],
                    event["model"],
                    tuple(event["keys"]),
                    event.get("intent"),
                )
                self.submitted[batch.id] = batch
                self._intents.pop(batch.intent or "", None)
            elif event.get("event") == "unsent":
                self._intents.pop(event["intent"], None)
            elif event.get("event") == "ended":
                self._ended.add(event["batch"])
        for reply in replies.checked():
            if reply.rejected:  # a reply its caller's check refused: a new process asks again
                self._answers.pop(reply.key, None)
            elif reply.completion is not None and reply.completion.error is None:
                self._answers[reply.key] = reply.completion  # failures are asked again by a new process
        for batch in self.outstanding():
            self._in_flight.update(dict.fromkeys(batch.keys, batch.id))

    def outstanding(self) -> list[SubmittedBatch]:
        """Batches submitted and not ended, oldest first."""
        return [batch for batch_id, batch in self.submitted.items() if batch_id not in self._ended]

    def answer(self, key: str) -> Completion | None:
        return self._answers.get(key)

    def in_flight(self, key: str) -> str | None:
        """The id of the batch not yet ended that holds this request, if any."""
        return self._in_flight.get(key)

    def pending_intents(self, group: str) -> list[Intent]:
        """Intents of this model group that never got a `submitted` or `unsent` line: the
        provider may or may not have their batch. Oldest first."""
        return [intent for intent in self._intents.values() if intent.group == group]

    def add_intent(self, intent: Intent) -> None:
        """Record a batch about to be submitted, before anything is uploaded."""
        event = {
            "event": "intent",
            "intent": intent.id,
            "digest": intent.digest,
            "provider": intent.provider,
            "model": redact_secrets(intent.group),
            "requests": len(intent.keys),
            "keys": list(intent.keys),
            "at": intent.at,
        }
        self._append(self.journal_path, [json.dumps(event)])
        self._intents[intent.id] = intent

    def add_unsent(self, intent: Intent, why: str) -> None:
        """The provider has no batch of this intent (refused, or not found when looked up)."""
        event = {"event": "unsent", "intent": intent.id, "why": redact_secrets(why), "at": time.time()}
        self._append(self.journal_path, [json.dumps(event)])
        self._intents.pop(intent.id, None)

    def add_submitted(self, batch: SubmittedBatch, *, found: bool = False) -> None:
        """Record a batch the provider accepted, before anything else happens (`found`: it was
        found at the provider by its intent, after the process that submitted it stopped)."""
        event = {
            "event": "submitted",
            "batch": batch.id,
            "intent": batch.intent,
            "provider": batch.provider,
            "model": redact_secrets(batch.group),
            "requests": len(batch.keys),
            "keys": list(batch.keys),
            "at": time.time(),
        }
        if found:
            event["found"] = True
        self._append(self.journal_path, [json.dumps(event)])
        self.submitted[batch.id] = batch
        self._intents.pop(batch.intent or "", None)
        self._in_flight.update(dict.fromkeys(batch.keys, batch.id))

    def add_results(self, batch_id: str | None, completions: dict[str, Completion], status: str = "") -> None:
        """Store replies (every reply first, then the batch's end, so a kill in between only
        fetches them again). `batch_id` None: requests that never reached a batch."""
        lines = [
            json.dumps({"key": key, "batch": batch_id, "completion": _record(completion)})
            for key, completion in completions.items()
        ]
        if lines:
            self._append(self.results_path, lines)
        self._answers.update(completions)
        if batch_id is None:
            return
        errors = sum(1 for completion in completions.values() if completion.error is not None)
        event = {
            "event": "ended",
            "batch": batch_id,
            "status": status,
            "answered": len(completions) - errors,
            "errors": errors,
            "at": time.time(),
        }
        self._append(self.journal_path, [json.dumps(event)])
        self._ended.add(batch_id)
        for key in self.submitted[batch_id].keys:
            self._in_flight.pop(key, None)

    def reject(self, key: str) -> None:
        """A stored reply its caller's check refused (a judge's reply without a verdict): this
        process keeps answering with it, a new one asks for it again."""
        self._append(self.results_path, [json.dumps({"key": key, "batch": None, "rejected": True})])

    def _append(self, path: Path, lines: list[str]) -> None:
        """Whole lines, made durable with one sync."""
        self._appenders[path].append(lines)
