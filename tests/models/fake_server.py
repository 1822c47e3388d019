"""A loopback OpenAI-compatible server for tests: it answers each request with the next scripted
behaviour (ok, 429, 500, slow, drop, malformed, refuse, empty) and records what it received.
It is a test double at the HTTP boundary; nothing here is a model."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def chat_reply(text: str | None, finish: str = "stop", refusal: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if refusal:
        message["refusal"] = refusal
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
    }


def reply_for(path: str, text: str, refused: bool) -> dict[str, Any]:
    """A successful reply in the protocol of the requested path (OpenAI, Anthropic or Gemini)."""
    if path.endswith("/messages"):
        return {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": "fake",
            "content": [] if refused else [{"type": "text", "text": text}],
            "stop_reason": "refusal" if refused else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 11, "output_tokens": 3},
        }
    if ":generateContent" in path:
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [] if refused else [{"text": text}]},
                    "finishReason": "SAFETY" if refused else "STOP",
                }
            ],
            "usageMetadata": {"promptTokenCount": 11, "candidatesTokenCount": 3},
        }
    if refused:
        return chat_reply(None, "stop", refusal="I can't help with that.")
    return chat_reply(text)


class FakeServer:
    def __init__(self, default: str = "ok", delay_s: float = 0.0) -> None:
        self.script: deque[str] = deque()
        self.default = default
        self.delay_s = delay_s
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append({"headers": dict(self.headers), "body": body, "path": self.path})
                    action = server.script.popleft() if server.script else server.default
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
                if kind == "malformed":
                    return self._send_raw(200, b'{"choices": [ {"message": ')
                reply = "" if kind in ("refuse", "empty") else (arg or f"reply {len(server.requests)}")
                return self._send(200, reply_for(self.path, reply, refused=kind == "refuse"))

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
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
