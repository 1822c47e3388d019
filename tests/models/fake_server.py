"""A loopback OpenAI-compatible server for tests: it answers each request with the next scripted
behaviour and records what it received. It is a test double at the HTTP boundary; nothing here
is a model. It also speaks Anthropic's and Gemini's wire formats, by request path.

Behaviours: `ok[:text]`, `429[:retry-after]`, `500`, `503`, `400`, `401`, `slow:<s>`, `drop`,
`malformed`, `refuse`, `empty`, `think[:text]` (a reply with thinking text and reasoning-token
usage), `length[:text]` (cut at the token limit), `echo-key[:status]` (an error whose body
repeats the credentials the request carried, as some proxies do).

Replies can also be scripted per question: `by_text` maps a piece of text to a behaviour, and a
request whose text contains it gets that behaviour (the first piece found, in insertion order),
whatever order requests come in; requests matching none follow the script. Two tools asked the
same questions so get the same replies.

`on_request(body)`, when given, is called with each chat request's body as it arrives, before
the reply (to look at what a request points to while the client waits, e.g. a file:// URL).

`GET /v1/models` lists `models`: names, or entries as vLLM gives them (with `max_model_len`).

Gemini's file API is spoken too (the resumable upload the SDK uses): an upload is kept in
`uploads` by file name and answered as an ACTIVE file.

It also answers OpenAI's `/v1/embeddings`: `ok` gives each input a vector made from the hash of
its text (`fake_embedding`, not normalised, listed in reverse order with their `index`), and
`short` gives one vector too few; the other behaviours act as for chat.

GET answers the model look-ups a run's preflight makes, and takes nothing from the script:
OpenAI's `/v1/models` lists `models` (empty by default: a list that cannot tell), Anthropic's
`/v1/models/<id>` and Gemini's `/v1beta/models/<id>` give the model's record when `models` is
empty or names it, 404 otherwise. `get_status` makes every GET answer that status instead. With
`models` set, a chat request for a model not in it (nor in `aliases`) gets 404, as vLLM answers
one; it takes nothing from the script either."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

THOUGHT = "Let me look at the frames first."


def chat_reply(
    text: str | None, finish: str = "stop", refusal: str | None = None, reasoning: str | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if refusal:
        message["refusal"] = refusal
    usage: dict[str, Any] = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    if reasoning:
        message["reasoning_content"] = reasoning
        usage.update(completion_tokens=8, total_tokens=19, completion_tokens_details={"reasoning_tokens": 5})
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }


def _anthropic_reply(text: str, kind: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = [] if kind == "refuse" else [{"type": "text", "text": text}]
    usage: dict[str, Any] = {"input_tokens": 11, "output_tokens": 3}
    if kind == "think":
        content.insert(0, {"type": "thinking", "thinking": THOUGHT, "signature": "sig"})
        usage = {"input_tokens": 11, "output_tokens": 8, "output_tokens_details": {"thinking_tokens": 5}}
    stop = {"refuse": "refusal", "length": "max_tokens"}.get(kind, "end_turn")
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "fake",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }


def _gemini_reply(text: str, kind: str) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [] if kind == "refuse" else [{"text": text}]
    usage = {"promptTokenCount": 11, "candidatesTokenCount": 3}
    if kind == "think":
        parts.insert(0, {"text": THOUGHT, "thought": True})
        usage["thoughtsTokenCount"] = 5
    finish = {"refuse": "SAFETY", "length": "MAX_TOKENS"}.get(kind, "STOP")
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish}],
        "usageMetadata": usage,
    }


def reply_for(path: str, text: str, kind: str = "ok") -> dict[str, Any]:
    """A reply in the protocol of the requested path (OpenAI, Anthropic or Gemini); `kind` is
    ok, refuse, think or length."""
    if path.endswith("/messages"):
        return _anthropic_reply(text, kind)
    if ":generateContent" in path:
        return _gemini_reply(text, kind)
    if kind == "refuse":
        return chat_reply(None, "stop", refusal="I can't help with that.")
    return chat_reply(
        text, "length" if kind == "length" else "stop", reasoning=THOUGHT if kind == "think" else None
    )


def fake_embedding(text: str, dimensions: int = 8) -> list[float]:
    """The vector the fake server gives `text`: the same text always gets the same vector."""
    digest = hashlib.sha256(text.encode()).digest()
    return [(digest[i % len(digest)] - 127.5) / 10.0 for i in range(dimensions)]


def embeddings_reply(body: dict[str, Any], short: bool = False) -> dict[str, Any]:
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    if short:
        texts = texts[:-1]
    data = [
        {"object": "embedding", "index": i, "embedding": fake_embedding(text, body.get("dimensions") or 8)}
        for i, text in enumerate(texts)
    ]
    return {
        "object": "list",
        "data": data[::-1],
        "model": body.get("model"),
        "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
    }


def credentials(headers: dict[str, str], path: str) -> str:
    """Everything in a request that could carry a key, as one text."""
    names = ("authorization", "x-api-key", "x-goog-api-key")
    return " ".join([*(f"{name}: {value}" for name, value in headers.items() if name.lower() in names), path])


def _texts(value: Any) -> list[str]:
    """Every string in a request body but inline data (the text a model would read)."""
    if isinstance(value, str):
        return [] if value.startswith("data:") else [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


class FakeServer:
    def __init__(
        self,
        default: str = "ok",
        delay_s: float = 0.0,
        by_text: dict[str, str] | None = None,
        on_request: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.script: deque[str] = deque()
        self.by_text: dict[str, str] = dict(by_text or {})
        self.uploads: dict[str, bytes] = {}
        self.default = default
        self.delay_s = delay_s
        self.on_request = on_request
        self.requests: list[dict[str, Any]] = []
        self.models: list[str | dict[str, Any]] = []  # names, or entries (with vLLM's max_model_len)
        self.aliases: list[str] = []  # names served though not listed (Ollama's `llama3` for `llama3:latest`)
        self.get_status: int | None = None
        self.gets: list[str] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with server.lock:
                    server.gets.append(self.path)
                path = self.path.split("?")[0]
                if server.get_status is not None:
                    return self._send(
                        server.get_status, {"error": {"message": f"scripted {server.get_status}"}}
                    )
                names = server.model_names()
                if path.endswith("/models"):
                    listed = [
                        entry if isinstance(entry, dict) else {"id": entry, "object": "model"}
                        for entry in server.models
                    ]
                    return self._send(200, {"object": "list", "data": listed})
                name = path.rsplit("/models/", 1)[-1]
                if "/models/" in path and (not server.models or name in names):
                    return self._send(200, {"id": name, "name": f"models/{name}", "type": "model"})
                return self._send(404, {"error": {"message": f"model {name!r} not found"}})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path.startswith("/upload"):
                    return self._upload(raw)
                body = json.loads(raw)
                asked = body.get("model") if self.path.endswith("/chat/completions") else None
                if server.models and asked is not None and asked not in server.model_names() + server.aliases:
                    message = f"The model `{asked}` does not exist."
                    return self._send(
                        404, {"object": "error", "message": message, "error": {"message": message}}
                    )
                with server.lock:
                    server.requests.append({"headers": dict(self.headers), "body": body, "path": self.path})
                    action = server._scripted("\n".join(_texts(body)))
                if server.on_request is not None:
                    server.on_request(body)
                if server.delay_s:
                    time.sleep(server.delay_s)
                kind, _, arg = action.partition(":")
                if kind == "drop":
                    self.connection.shutdown(2)
                    self.connection.close()
                    return
                if kind == "slow":
                    time.sleep(float(arg))
                    kind, arg = "ok", ""
                if kind in ("429", "500", "503", "400", "401"):
                    headers = {"Retry-After": arg} if arg else {}
                    return self._send(int(kind), {"error": {"message": f"scripted {kind}"}}, headers)
                if kind == "echo-key":
                    echoed = f"invalid credentials: {credentials(dict(self.headers), self.path)}"
                    return self._send(int(arg or 401), {"error": {"message": echoed}})
                if kind == "malformed":
                    return self._send_raw(200, b'{"choices": [ {"message": ')
                if self.path.split("?")[0].endswith("/embeddings"):
                    return self._send(200, embeddings_reply(body, short=kind == "short"))
                reply = "" if kind in ("refuse", "empty") else (arg or f"reply {len(server.requests)}")
                return self._send(200, reply_for(self.path, reply, kind))

            def _upload(self, raw: bytes) -> None:
                """Gemini's resumable upload: `start` gives an upload URL, `upload, finalize`
                takes the bytes and answers with the file record."""
                command = self.headers.get("X-Goog-Upload-Command", "")
                with server.lock:
                    number = len(server.uploads) + 1
                    if "start" in command:
                        url = f"{server.root}/upload-session/{number}"
                        return self._send(200, {}, {"X-Goog-Upload-URL": url})
                    name = f"files/upload-{number}"
                    server.uploads[name] = raw
                record = {
                    "name": name,
                    "uri": f"{server.root}/v1beta/{name}",
                    "mimeType": "video/mp4",
                    "sizeBytes": str(len(raw)),
                    "state": "ACTIVE",
                }
                self._send(200, {"file": record}, {"X-Goog-Upload-Status": "final"})

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                self._send_raw(status, json.dumps(payload).encode(), headers)

            def _send_raw(self, status: int, data: bytes, headers: dict | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def _scripted(self, text: str) -> str:
        """The behaviour for a request: by a piece of its text, else the next of the script."""
        for needle, action in self.by_text.items():
            if needle in text:
                return action
        return self.script.popleft() if self.script else self.default

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    def model_names(self) -> list[str]:
        """The names `models` lists."""
        return [entry["id"] if isinstance(entry, dict) else entry for entry in self.models]

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
