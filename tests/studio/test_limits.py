"""What a request may send: a body over the limit is 413 before anything reads it (also over a
real socket, declared or chunked), every field of every endpoint is checked for its type and
length (422 naming the field; `true` is not a choice, 5 is not a list of skills), JSON nested
1,000 deep or not UTF-8 is refused, person names are a safe set (no trailing newline), and every
response carries the security headers, errors and 500s included."""

from __future__ import annotations

import json
import select
import shutil
import socket
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from studio_helpers import running_studio

from vqakit.studio import Studio, StudioSettings, create_app

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
WORKBENCH = SAMPLE / "media/synthetic/workbench.mp4"
RID = "request-000001"
MAX_BODY = 1 << 20  # the body limit docs/studio.md gives (1 MiB)
SECURITY = ("content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A loopback studio on a copy of the sample benchmark and a folder of videos; a reviewer's
    session (alice) with its CSRF token."""
    tmp = tmp_path_factory.mktemp("limits")
    shutil.copytree(SAMPLE, tmp / "bench")
    (tmp / "videos").mkdir()
    shutil.copy(WORKBENCH, tmp / "videos/workbench.mp4")
    studio = Studio(StudioSettings(folders=[str(tmp / "bench"), str(tmp / "videos")], runs=tmp / "runs"))
    web = TestClient(create_app(studio), base_url="http://127.0.0.1:8765", raise_server_exceptions=False)
    csrf = web.get("/api/session").json()["csrf"]
    web.post("/api/session", json={"person": "alice"}, headers={"x-csrf-token": csrf})
    web.headers["x-csrf-token"] = web.get("/api/session").json()["csrf"]
    return web, studio, tmp


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


DECISION = "/api/review/ped-sign?bench=bench"
ANSWER = "/api/answer/ped-viewpoint?bench=bench"
SAVE = "/api/annotate/workbench-q1?bench=videos"
CHECK = "/api/annotate-check?bench=videos"
CASES = [
    # (endpoint, body (text: sent as it is), status, a field the reply names)
    (DECISION, {"decision": "keep", "request_id": RID, "note": 5}, 422, "note"),
    (DECISION, {"decision": "nuke", "request_id": RID}, 422, "decision"),
    (DECISION, {"decision": "keep", "request_id": RID, "note": "x" * 4001}, 422, "note"),
    (DECISION, {"decision": "keep", "request_id": "short"}, 422, "request_id"),
    (DECISION, {"decision": "keep"}, 422, "request_id"),
    (DECISION, {"decision": "keep", "request_id": RID, "reason": "blind"}, 422, "reason"),
    (DECISION, {"decision": "keep", "request_id": RID, "extra": 1}, 422, "extra"),
    (DECISION, {"decision": "edit", "request_id": RID, "edit": {"skills": 5}}, 422, "edit.skills"),
    (DECISION, {"decision": "edit", "request_id": RID, "edit": {"skills": [5]}}, 422, "edit.skills.0"),
    (DECISION, {"decision": "edit", "request_id": RID, "edit": {"choices": "A\nB"}}, 422, "edit.choices"),
    (DECISION, {"decision": "edit", "request_id": RID, "edit": {"answer": True}}, 422, "edit.answer"),
    (DECISION, {"decision": "edit", "request_id": RID, "edit": {"question": ""}}, 422, "edit.question"),
    (DECISION, {"decision": "edit", "request_id": RID, "edit": {"id": "x"}}, 422, "cannot edit id"),
    (DECISION, {"decision": "edit", "request_id": RID, "edit": {"category": ["a"]}}, 422, "edit.category"),
    (
        DECISION,
        '{"decision": "keep", "request_id": "' + RID + '", "note": ' + nested(1000) + "}",
        422,
        "note",
    ),
    (DECISION, nested(100_000), 422, "nested deeper than"),
    (DECISION, "[1, 2]", 422, "Input should be a valid dictionary"),
    (DECISION, '{"decision": "keep",', 400, "not JSON"),
    (DECISION, b'{"decision": "\xff"}', 400, "not UTF-8"),
    (DECISION, '{"decision": "keep", "request_id": "' + RID + '", "note": "\\u0000"}', 422, "note"),
    (DECISION, '{"decision": "keep", "request_id": "' + RID + '", "n": 1' + "0" * 40 + "}", 422, "n"),
    (ANSWER, {"choice": True, "elapsed_s": 1.0, "request_id": RID}, 422, "choice"),
    (ANSWER, {"choice": "1", "elapsed_s": 1.0, "request_id": RID}, 422, "choice"),
    (ANSWER, {"choice": 1.0, "elapsed_s": 1.0, "request_id": RID}, 422, "choice"),
    (ANSWER, {"choice": 99, "elapsed_s": 1.0, "request_id": RID}, 422, "choice"),
    (ANSWER, {"choice": 0, "elapsed_s": "1", "request_id": RID}, 422, "elapsed_s"),
    (ANSWER, {"choice": 0, "elapsed_s": -1, "request_id": RID}, 422, "elapsed_s"),
    (ANSWER, {"text": "x" * 20001, "elapsed_s": 1.0, "request_id": RID}, 422, "text"),
    (ANSWER, {"choice": 0, "elapsed_s": 1.0, "request_id": RID, "reasoning": {"a": 1}}, 422, "reasoning"),
    ("/api/session", {"person": "mallory\n"}, 422, "person"),
    ("/api/session", {"person": "../mallory"}, 422, "person"),
    ("/api/session", {"person": 5}, 422, "person"),
    ("/api/session", {"person": "x" * 65}, 422, "person"),
    (SAVE, {"action": "save", "sample": "a sample", "request_id": RID}, 422, "sample"),
    (SAVE, {"action": "rename", "request_id": RID}, 422, "action"),
    (SAVE, {"action": "save", "sample": {"question": 5}, "request_id": RID}, 422, "question"),
    (CHECK, [1], 422, "body"),
]


@pytest.mark.parametrize(
    ("path", "body", "status", "field"), CASES, ids=[f"{c[0].split('?')[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_every_field_is_checked_for_its_type_and_length(site, path, body, status, field):
    web, _, tmp = site
    content = (
        body
        if isinstance(body, bytes)
        else body.encode()
        if isinstance(body, str)
        else json.dumps(body).encode()
    )
    response = web.post(path, content=content, headers={"content-type": "application/json"})
    assert response.status_code == status, response.text
    assert field in response.text
    assert all(name in response.headers for name in SECURITY)
    assert not (tmp / "bench/review/alice.jsonl").exists()  # nothing was written


def test_a_body_over_the_limit_is_413_and_never_written(site):
    web, _, tmp = site
    body = json.dumps({"decision": "keep", "request_id": RID, "note": "x" * (MAX_BODY + 1)})
    response = web.post(DECISION, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 413 and "at most" in response.json()["error"]
    assert all(name in response.headers for name in SECURITY)
    assert not (tmp / "bench/review/alice.jsonl").exists()


def test_a_query_value_over_the_limit_is_422(site):
    web, _, _ = site
    response = web.get("/api/queue", params={"bench": "bench", "text": "x" * 3000})
    assert response.status_code == 422 and "text" in response.json()["error"]


def test_a_500_carries_the_security_headers_and_nothing_of_the_insides(site, monkeypatch):
    web, studio, _ = site

    def broken(key):
        raise RuntimeError("secret insides")

    monkeypatch.setattr(studio, "workspace", broken)
    for path in ("/api/queue?bench=bench", "/review?bench=bench"):
        response = web.get(path)
        assert response.status_code == 500
        assert all(name in response.headers for name in SECURITY)
        assert "secret insides" not in response.text and "Traceback" not in response.text


def _raw_post(port: int, head: str, chunks, read_timeout: float = 20) -> tuple[int, int]:
    """(the status the server answered, bytes of the body sent before its answer came) over a
    socket: the body is sent chunk by chunk until the server answers."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=read_timeout) as sock:
        sock.sendall(head.encode())
        try:
            for chunk in chunks:
                if select.select([sock], [], [], 0)[0]:
                    break  # the answer is there
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:  # the server answered and closed: stop sending
            pass
        reply = sock.recv(4096).decode("latin-1")
    return int(reply.split(" ", 2)[1]), sent


def test_a_huge_body_is_refused_before_it_is_read_over_a_socket(tmp_path):
    settings = StudioSettings(folders=["sample"], review_dir=tmp_path / "review", runs=tmp_path / "runs")
    with running_studio(settings) as running:
        signer = running.studio.signer
        identity = signer.fresh("alice")
        cookie = f"vqakit_studio_{running.port}={signer.cookie(identity)}"
        headers = (
            f"POST /api/review/ped-sign?bench=sample HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n"
            f"Cookie: {cookie}\r\nX-CSRF-Token: {signer.csrf(identity)}\r\nContent-Type: application/json\r\n"
        )
        # declared: 200 MB; answered at once, after 1 KB of it
        status, _ = _raw_post(
            running.port, headers + "Content-Length: 200000000\r\n\r\n", [b"{" + b" " * 1023]
        )
        assert status == 413
        # chunked, with no length: answered once past the limit, long before 200 MB are sent (the
        # server reads the rest of the body only to drop it, never keeping it)
        chunk = b"%x\r\n%s\r\n" % (1 << 16, b" " * (1 << 16))
        status, sent = _raw_post(
            running.port, headers + "Transfer-Encoding: chunked\r\n\r\n", (chunk for _ in range(3200))
        )
        assert status == 413 and sent < 32 * MAX_BODY
        assert not (tmp_path / "review/alice.jsonl").exists()
