"""What a loopback server (`fake_server.FakeServer`) was sent: each chat request's text and the
data URLs of its images, for tests that compare the frames sent by two runs byte for byte."""

from __future__ import annotations

from typing import Any


def sent_images(server: Any) -> list[tuple[str, list[str]]]:
    """(the request's text, its image data URLs in order) of every chat request, sorted (runs
    send in any order)."""
    found = []
    for request in server.requests:
        if "messages" not in request["body"]:
            continue  # embeddings
        parts = []
        for message in request["body"]["messages"]:
            content = message["content"]
            parts += [{"type": "text", "text": content}] if isinstance(content, str) else content
        text = "\n".join(part["text"] for part in parts if part["type"] == "text")
        found.append((text, [part["image_url"]["url"] for part in parts if part["type"] == "image_url"]))
    return sorted(found)


def image_count(sent: list[tuple[str, list[str]]]) -> int:
    return sum(len(urls) for _, urls in sent)


def count_decodes(monkeypatch: Any) -> list[int]:
    """Count the frames decoded in this process from now on (every decoding path goes through the
    video package's run decoder); the list grows by each call's frame count. Decode jobs in
    worker processes are counted by the run's `FrameStats` instead."""
    from vqakit.video import _decode

    calls: list[int] = []
    original = _decode._RunDecoder.decode

    def counted(self: Any, runs: list) -> dict:
        found = original(self, runs)
        calls.append(len(found))
        return found

    monkeypatch.setattr(_decode._RunDecoder, "decode", counted)
    return calls
