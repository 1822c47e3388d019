"""A loopback fake of OpenAI's Files + Batches endpoints and Anthropic's Message Batches, for
tests: a test double at the HTTP boundary, nothing here is a model.

- OpenAI: `POST /v1/files` (multipart, purpose=batch), `POST /v1/batches` (with its `metadata`
  kept), `GET /v1/batches/{id}`, `GET /v1/batches?limit=&after=` (newest first, `{"object":
  "list", "data", "first_id", "last_id", "has_more"}`), `GET /v1/files/{id}/content`; Anthropic:
  `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`,
  `GET /v1/messages/batches/{id}/results`, `GET /v1/messages/batches?limit=&after_id=` (newest
  first, `{"data", "first_id", "last_id", "has_more"}`). Plain `POST /v1/chat/completions` and
  `POST /v1/messages` are answered too (calls sent one by one).
- `hold_creates`: a batch creation is recorded (and saved) at once, but its reply waits until
  `released` is set: a client killed while it waits is one the provider accepted a batch from
  and that never learnt its id.
- A batch ends at its `polls_to_end`-th poll (changeable while running), as `end_as`
  ("completed", "expired" or, for OpenAI, "failed"); requests whose body contains one of the
  `fail` strings come back as errors (HTTP 400 / `invalid_request_error`).
- Every reply is `reply(prompt)` (default "yes"), the prompt being the last message's text.
- With `state`, everything (files, batches, poll counts, counters) is kept in that JSON file,
  so a server started again on it (another port, as after a restart) goes on with the same
  batches. `batch_api=False` is a server without batch endpoints (404).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fake_server import chat_reply, reply_for

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # Anthropic's rule; OpenAI's ids must be unique
NOW = "2025-01-01T00:00:00Z"


def prompt_of(body: dict[str, Any]) -> str:
    """The text of the last message of an OpenAI or Anthropic request body."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))


def multipart(body: bytes, content_type: str) -> dict[str, bytes]:
    """The fields of a multipart/form-data body."""
    boundary = content_type.split("boundary=", 1)[1].strip('"').encode()
    fields = {}
    for part in body.split(b"--" + boundary):
        head, sep, content = part.partition(b"\r\n\r\n")
        name = re.search(rb'name="([^"]+)"', head)
        if sep and name:
            fields[name.group(1).decode()] = content.removesuffix(b"\r\n")
    return fields


class FakeBatchServer:
    def __init__(
        self,
        state: Path | None = None,
        *,
        polls_to_end: int = 2,
        fail: tuple[str, ...] = (),
        reply: Callable[[str], str] | None = None,
        end_as: str = "completed",
        batch_api: bool = True,
        hold_creates: bool = False,
    ) -> None:
        self.state_path = state
        self.polls_to_end = polls_to_end
        self.fail = fail
        self.reply = reply or (lambda prompt: "yes")
        self.end_as = end_as
        self.batch_api = batch_api
        self.hold_creates = hold_creates
        self.released = threading.Event()  # set: held creation replies go out
        self.lock = threading.Lock()
        self.seen: list[dict[str, Any]] = []  # method, path and headers of every request
        self.state: dict[str, Any] = {"next": 1, "files": {}, "batches": {}, "uploads": 0, "creates": 0}
        if state is not None and state.exists():
            self.state = json.loads(state.read_text())
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = self.path.split("?")[0]
                with server.lock:
                    server.seen.append({"method": "POST", "path": self.path, "headers": dict(self.headers)})
                    status, payload = server.post(path, raw, self.headers)
                    server.save()
                if server.hold_creates and status == 200 and path in ("/v1/batches", "/v1/messages/batches"):
                    server.released.wait(60)
                self.send(status, payload)

            def do_GET(self) -> None:
                with server.lock:
                    server.seen.append({"method": "GET", "path": self.path, "headers": dict(self.headers)})
                    status, payload = server.get(self.path)
                    server.save()
                self.send(status, payload)

            def send(self, status: int, payload: dict | bytes) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header(
                    "Content-Type",
                    "application/octet-stream" if isinstance(payload, bytes) else "application/json",
                )
                self.send_header("Content-Length", str(len(data)))
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client is gone (killed while it waited)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    # --- state ---------------------------------------------------------------------------

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    @property
    def creates(self) -> int:
        """Batches submitted (OpenAI and Anthropic together)."""
        return self.state["creates"]

    @property
    def uploads(self) -> int:
        return self.state["uploads"]

    def batches(self) -> list[dict[str, Any]]:
        return list(self.state["batches"].values())

    def polls(self) -> int:
        return sum(batch["_polls"] for batch in self.batches())

    def save(self) -> None:
        if self.state_path is not None:
            self.state_path.write_text(json.dumps(self.state))

    def _id(self, prefix: str) -> str:
        number = self.state["next"]
        self.state["next"] += 1
        return f"{prefix}{number:04d}"

    def _failing(self, body: dict[str, Any]) -> bool:
        text = json.dumps(body)
        return any(marker in text for marker in self.fail)

    # --- requests ------------------------------------------------------------------------

    def post(self, path: str, raw: bytes, headers: Any) -> tuple[int, dict | bytes]:
        if path.endswith("/chat/completions"):
            return 200, chat_reply(self.reply(prompt_of(json.loads(raw))))
        if path == "/v1/messages":
            return 200, reply_for(path, self.reply(prompt_of(json.loads(raw))))
        if not self.batch_api:
            return 404, {"error": {"message": f"no route {path}"}}
        if path == "/v1/files":
            fields = multipart(raw, headers["Content-Type"])
            if fields.get("purpose") != b"batch" or "file" not in fields:
                return 400, {"error": {"message": "purpose must be batch, with a file"}}
            file_id = self._id("file-")
            self.state["files"][file_id] = fields["file"].decode()
            self.state["uploads"] += 1
            return 200, {"id": file_id, "object": "file", "purpose": "batch", "bytes": len(fields["file"])}
        if path == "/v1/batches":
            return self._openai_create(json.loads(raw))
        if path == "/v1/messages/batches":
            return self._anthropic_create(json.loads(raw))
        return 404, {"error": {"message": f"no route {path}"}}

    def get(self, target: str) -> tuple[int, dict | bytes]:
        url = urlsplit(target)
        path, query = url.path, {key: values[-1] for key, values in parse_qs(url.query).items()}
        parts = path.strip("/").split("/")
        if not self.batch_api:
            return 404, {"error": {"message": f"no route {path}"}}
        if path == "/v1/batches":
            return 200, {"object": "list", **self._list("openai", query, "after")}
        if path == "/v1/messages/batches":
            return 200, self._list("anthropic", query, "after_id")
        if parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
            content = self.state["files"].get(parts[2])
            return (
                (200, content.encode()) if content is not None else (404, {"error": {"message": "no file"}})
            )
        batch = self.state["batches"].get(parts[-1] if parts[-1] != "results" else parts[-2])
        if batch is None:
            return 404, {"error": {"message": "no such batch"}}
        if parts[-1] == "results":
            if batch["processing_status"] != "ended":
                return 404, {"error": {"message": "not ended"}}
            batch["_downloads"] += 1
            return 200, "".join(json.dumps(line) + "\n" for line in batch["_results"]).encode()
        batch["_polls"] += 1
        if batch["_polls"] >= self.polls_to_end and not batch["_ended"]:
            self._end(batch)
        elif not batch["_ended"] and batch["_kind"] == "openai":
            batch["status"] = "in_progress"
        return 200, self._public(batch)

    def _public(self, batch: dict[str, Any]) -> dict[str, Any]:
        public = {key: value for key, value in batch.items() if not key.startswith("_")}
        if batch["_kind"] == "anthropic" and batch["_ended"]:
            public["results_url"] = f"{self.root}/v1/messages/batches/{batch['id']}/results"
        return public

    def _list(self, kind: str, query: dict[str, str], cursor: str) -> dict[str, Any]:
        """One page of the provider's batches, newest first, after the cursor's batch."""
        newest_first = [batch for batch in reversed(self.batches()) if batch["_kind"] == kind]
        ids = [batch["id"] for batch in newest_first]
        start = ids.index(query[cursor]) + 1 if query.get(cursor) in ids else 0
        limit = int(query.get("limit") or 20)
        page = newest_first[start : start + limit]
        return {
            "data": [self._public(batch) for batch in page],
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
            "has_more": start + limit < len(newest_first),
        }

    def _openai_create(self, body: dict[str, Any]) -> tuple[int, dict]:
        content = self.state["files"].get(body.get("input_file_id"))
        if (
            content is None
            or body.get("endpoint") != "/v1/chat/completions"
            or body.get("completion_window") != "24h"
        ):
            return 400, {"error": {"message": f"bad batch request {body}"}}
        lines = [json.loads(line) for line in content.splitlines() if line.strip()]
        ids = [line["custom_id"] for line in lines]
        if len(set(ids)) != len(ids) or any(line.get("url") != "/v1/chat/completions" for line in lines):
            return 400, {"error": {"message": "custom ids must be unique, urls the endpoint"}}
        self.state["creates"] += 1
        batch = {
            "id": self._id("batch_"),
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"],
            "completion_window": "24h",
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "errors": None,
            "created_at": int(time.time()),
            "metadata": body.get("metadata"),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "_kind": "openai",
            "_requests": [[line["custom_id"], line["body"]] for line in lines],
            "_polls": 0,
            "_ended": False,
            "_downloads": 0,
        }
        self.state["batches"][batch["id"]] = batch
        return 200, {key: value for key, value in batch.items() if not key.startswith("_")}

    def _anthropic_create(self, body: dict[str, Any]) -> tuple[int, dict]:
        requests = body.get("requests") or []
        ids = [request["custom_id"] for request in requests]
        if not requests or len(set(ids)) != len(ids) or not all(CUSTOM_ID.match(i) for i in ids):
            return 400, {
                "type": "error",
                "error": {"type": "invalid_request_error", "message": "bad custom ids"},
            }
        self.state["creates"] += 1
        batch = {
            "id": self._id("msgbatch_"),
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {
                "processing": len(requests),
                "succeeded": 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "ended_at": None,
            "created_at": datetime.now(UTC).isoformat(),
            "expires_at": NOW,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": None,
            "_kind": "anthropic",
            "_requests": [[request["custom_id"], request["params"]] for request in requests],
            "_polls": 0,
            "_ended": False,
            "_downloads": 0,
        }
        self.state["batches"][batch["id"]] = batch
        return 200, {key: value for key, value in batch.items() if not key.startswith("_")}

    def _end(self, batch: dict[str, Any]) -> None:
        batch["_ended"] = True
        if batch["_kind"] == "anthropic":
            batch["processing_status"] = "ended"
            batch["ended_at"] = datetime.now(UTC).isoformat()
            batch["_results"] = [self._anthropic_result(i, body) for i, body in batch["_requests"]]
            counts = batch["request_counts"]
            counts["processing"] = 0
            for line in batch["_results"]:
                name = {"succeeded": "succeeded", "errored": "errored", "expired": "expired"}[
                    line["result"]["type"]
                ]
                counts[name] += 1
            return
        batch["status"] = self.end_as
        if self.end_as == "failed":
            batch["errors"] = {
                "object": "list",
                "data": [{"code": "invalid", "message": "scripted validation failure"}],
            }
            return
        outputs, errors = [], []
        for custom_id, body in batch["_requests"]:
            line = {
                "id": f"batch_req_{custom_id[:8]}",
                "custom_id": custom_id,
                "response": None,
                "error": None,
            }
            if self.end_as == "expired":
                line["error"] = {"code": "batch_expired", "message": "not run before the window ended"}
                errors.append(line)
            elif self._failing(body):
                error = {"error": {"message": "scripted failure", "type": "invalid_request_error"}}
                line["response"] = {"status_code": 400, "request_id": "req_x", "body": error}
                errors.append(line)
            else:
                reply = chat_reply(self.reply(prompt_of(body)))
                line["response"] = {"status_code": 200, "request_id": "req_x", "body": reply}
                outputs.append(line)
        for name, lines in (("output_file_id", outputs), ("error_file_id", errors)):
            if lines:
                file_id = self._id("file-")
                self.state["files"][file_id] = "".join(json.dumps(line) + "\n" for line in lines)
                batch[name] = file_id
        batch["request_counts"].update(completed=len(outputs), failed=len(errors))

    def _anthropic_result(self, custom_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.end_as == "expired":
            return {"custom_id": custom_id, "result": {"type": "expired"}}
        if self._failing(params):
            error = {
                "type": "error",
                "error": {"type": "invalid_request_error", "message": "scripted failure"},
            }
            return {"custom_id": custom_id, "result": {"type": "errored", "error": error}}
        message = reply_for("/v1/messages", self.reply(prompt_of(params)))
        return {"custom_id": custom_id, "result": {"type": "succeeded", "message": message}}

    def __enter__(self) -> FakeBatchServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
