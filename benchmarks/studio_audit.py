"""The studio under attack: every request that should be refused, against a real server.

    python benchmarks/studio_audit.py [--json FILE]

Builds its own benchmark (four questions over windows of a synthetic 10 s video whose frames show
their own number, `human_video: true`), a second copy of it (another studio), and a folder of
videos to annotate; serves them on loopback (uvicorn, in a thread of this process) with a
reviewer, a second reviewer and a participant who watches the video window; then sends malformed
bodies, oversize bodies (declared and chunked, over a raw socket), requests over damaged logs,
links of another studio, expired, tampered and revoked links, and a participant's requests for
another sample's frames or the video outside their window. Each row says what was sent, the
status expected and the status got, whether any request of the row got a 500, and whether
anything was served that should not have been (media bytes on a refusal; a frame of the clip
outside the window). Exit 1 when a row fails. `tests/studio/test_studio_audit.py` runs it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import select
import shutil
import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

WINDOWS = {"s1": (2.0, 5.0), "s2": (6.0, 8.0), "s3": (0.0, 3.0), "s4": (7.0, 9.5)}


@dataclass
class Row:
    group: str
    what: str
    expected: int
    got: int
    server_error: bool = False
    leaked: bool = False

    @property
    def ok(self) -> bool:
        return self.got == self.expected and not self.server_error and not self.leaked


def make_benchmark(root: Path) -> None:
    from vqakit.video import write_index_clip

    (root / "media").mkdir(parents=True)
    write_index_clip(root / "media/counter.mp4", seconds=10, fps=10, width=320, height=240, gop=20)
    card = {
        "name": "audit",
        "version": "1.0.0",
        "license": "CC0-1.0",
        "description": "windows of a counting video",
        "human_video": True,
        "protocol": {"frames": "uniform:4"},
    }
    (root / "benchmark.yaml").write_text(json.dumps(card))
    samples = [
        {
            "id": sample_id,
            "question": f"What happens in {sample_id}?",
            "choices": ["one", "two", "three"],
            "answer": 0,
            "videos": [{"path": "media/counter.mp4", "start_s": start, "end_s": end}],
        }
        for sample_id, (start, end) in WINDOWS.items()
    ]
    (root / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))


def is_media(response: httpx.Response) -> bool:
    kind = response.headers.get("content-type", "")
    return kind.startswith(("video/", "image/")) or len(response.content) > 100_000


def raw_post(port: int, head: str, chunks) -> int:
    """The status a raw POST got, its body sent chunk by chunk until the server answered."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(head.encode())
        try:
            for chunk in chunks:
                if select.select([sock], [], [], 0)[0]:
                    break
                sock.sendall(chunk)
        except OSError:
            pass
        return int(sock.recv(4096).decode("latin-1").split(" ", 2)[1])


def clip_frames(data: bytes) -> list[int]:
    import av

    from vqakit.video import read_frame_index

    with av.open(io.BytesIO(data)) as container:
        return [read_frame_index(frame.to_ndarray(format="rgb24")) for frame in container.decode(video=0)]


def audit(folder: Path) -> list[Row]:
    from click.testing import CliRunner

    from vqakit.cli import main
    from vqakit.studio import Person, StudioSettings, serve_in_background

    os.environ.setdefault("VQAKIT_STUDIO_KEY", str(folder / "studio.key"))
    os.environ.setdefault("VQAKIT_CACHE_DIR", str(folder / "cache"))
    bench, other, videos = folder / "bench", folder / "other", folder / "videos"
    make_benchmark(bench)
    shutil.copytree(bench, other)
    videos.mkdir()
    shutil.copy(bench / "media/counter.mp4", videos / "counter.mp4")
    people = [Person("alice"), Person("bob"), Person("p01", "participant")]

    def settings(folders: list[Path], **extra) -> StudioSettings:
        return StudioSettings(
            folders=[str(f) for f in folders],
            people=people,
            answer_view="video",
            order="benchmark",
            limit=3,
            runs=folder / "runs",
            port=0,
            **extra,
        )

    rows: list[Row] = []
    main_studio = serve_in_background(settings([bench, videos]))
    second = serve_in_background(settings([other]))
    try:
        studio, url = main_studio.studio, main_studio.url
        token = {p.name: studio.signer.token(p.name, p.role) for p in people}

        def web(person: str | None, base: str = url) -> httpx.Client:
            client = httpx.Client(base_url=base, timeout=60)
            if person is not None:
                client.headers["authorization"] = f"Bearer {token[person]}"
                client.headers["x-csrf-token"] = client.get("/api/session").json()["csrf"]
            return client

        alice, bob, p01 = web("alice"), web("bob"), web("p01")

        def check(group: str, what: str, expected: int, send: Callable[[], httpx.Response]) -> httpx.Response:
            response = send()
            leaked = response.status_code >= 400 and is_media(response)
            rows.append(Row(group, what, expected, response.status_code, response.status_code >= 500, leaked))
            return response

        decide = "/api/review/s1?bench=bench"
        raw = {"content-type": "application/json"}
        body = "malformed bodies"
        check(
            body,
            "decision body not JSON",
            400,
            lambda: alice.post(decide, content=b'{"decision": ', headers=raw),
        )
        check(
            body,
            "decision body not UTF-8",
            400,
            lambda: alice.post(decide, content=b'{"note": "\xff"}', headers=raw),
        )
        deep = '{"decision": "keep", "request_id": "audit-000001", "note": ' + "[" * 1000 + "]" * 1000 + "}"
        check(
            body,
            "JSON nested 1,000 deep",
            422,
            lambda: alice.post(decide, content=deep.encode(), headers=raw),
        )
        skills = {"decision": "edit", "edit": {"skills": 5}, "request_id": "audit-000002"}
        check(body, 'edit {"skills": 5}', 422, lambda: alice.post(decide, json=skills))
        check(
            body,
            "decision 'nuke'",
            422,
            lambda: alice.post(decide, json={"decision": "nuke", "request_id": "audit-000003"}),
        )
        p01.get("/api/next?bench=bench")
        choice = {"choice": True, "elapsed_s": 1.0, "request_id": "audit-000004"}
        check(
            body, 'answer {"choice": true}', 422, lambda: p01.post("/api/answer/s1?bench=bench", json=choice)
        )
        elapsed = {"choice": 0, "elapsed_s": "1", "request_id": "audit-000005"}
        check(
            body,
            'answer {"elapsed_s": "1"}',
            422,
            lambda: p01.post("/api/answer/s1?bench=bench", json=elapsed),
        )
        anonymous = httpx.Client(base_url=url, timeout=60)
        anonymous.headers["x-csrf-token"] = anonymous.get("/api/session").json()["csrf"]
        check(
            body,
            'log in as "mallory\\n"',
            422,
            lambda: anonymous.post("/api/session", json={"person": "mallory\n"}),
        )
        sample = {"action": "save", "sample": "text", "request_id": "audit-000006"}
        check(
            body,
            "annotate save of a non-object sample",
            422,
            lambda: alice.post("/api/annotate/q1?bench=videos", json=sample),
        )

        size = "oversize bodies"
        big = json.dumps({"decision": "keep", "request_id": "audit-000007", "note": "x" * 2_000_000})
        check(size, "2 MB note on a keep", 413, lambda: alice.post(decide, content=big.encode(), headers=raw))
        identity = studio.signer.fresh("alice")
        port = main_studio.port
        head = (
            f"POST {decide} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"X-CSRF-Token: {studio.signer.csrf(identity)}\r\nContent-Type: application/json\r\n"
            f"Cookie: vqakit_studio_{port}={studio.signer.cookie(identity)}\r\n"
        )
        got = raw_post(main_studio.port, head + "Content-Length: 200000000\r\n\r\n", [b" " * 1024])
        rows.append(Row(size, "200 MB declared, 1 KB sent (socket)", 413, got, got >= 500))
        chunk = b"%x\r\n%s\r\n" % (1 << 16, b" " * (1 << 16))
        got = raw_post(
            main_studio.port, head + "Transfer-Encoding: chunked\r\n\r\n", (chunk for _ in range(3200))
        )
        rows.append(Row(size, "200 MB chunked, no length (socket)", 413, got, got >= 500))
        check(
            size,
            "query value of 3,000 characters",
            422,
            lambda: alice.get("/api/queue", params={"bench": "bench", "text": "x" * 3000}),
        )
        assert not (bench / "review/alice.jsonl").exists(), "a refused request was written"

        links = "tokens and sessions"
        foreign = httpx.Client(base_url=second.url, timeout=60)
        check(
            links,
            "a link of this studio, on a studio of another benchmark",
            401,
            lambda: foreign.get("/api/session", headers={"authorization": f"Bearer {token['alice']}"}),
        )
        cookie = studio.signer.cookie(studio.signer.fresh("alice", "reviewer", studio.signer.expires))
        check(
            links,
            "a session cookie of this studio, on the other",
            401,
            lambda: foreign.get(
                "/api/queue?bench=other", headers={"cookie": f"vqakit_studio_{second.port}={cookie}"}
            ),
        )
        expired = studio.signer.token("alice", "reviewer", int(time.time()) - 60)
        check(
            links,
            "an expired link",
            401,
            lambda: anonymous.get("/api/session", headers={"authorization": f"Bearer {expired}"}),
        )
        old = studio.signer.cookie(studio.signer.fresh("alice", "reviewer", int(time.time()) - 60))
        check(
            links,
            "an expired session cookie",
            401,
            lambda: httpx.get(
                f"{url}/api/benchmarks", headers={"cookie": f"vqakit_studio_{main_studio.port}={old}"}
            ),
        )
        name, expires, mac = token["alice"].split("~")
        check(
            links,
            "a link with its expiry moved later",
            401,
            lambda: anonymous.get(
                "/api/session", headers={"authorization": f"Bearer {name}~{int(expires) + 10**6}~{mac}"}
            ),
        )
        revoked = serve_in_background(settings([bench, videos], revoke=["bob"]))
        try:
            check(
                links,
                "bob's link after --revoke bob",
                401,
                lambda: httpx.get(
                    f"{revoked.url}/api/session", headers={"authorization": f"Bearer {token['bob']}"}
                ),
            )
            check(
                links,
                "alice's link after --revoke bob",
                200,
                lambda: httpx.get(
                    f"{revoked.url}/api/session", headers={"authorization": f"Bearer {token['alice']}"}
                ),
            )
        finally:
            revoked.stop()

        logs = "corrupt logs"
        for person in (alice, bob):
            person.post(
                "/api/review/s2?bench=bench",
                json={"decision": "keep", "request_id": f"audit-k{person is bob:d}-0001"},
            )
        with (bench / "review/bob.jsonl").open("a") as handle:
            handle.write("{not json\n")
            handle.write(
                json.dumps(
                    {
                        "request_id": "audit-nuke-01",
                        "sample_id": "s2",
                        "person": "bob",
                        "decision": "nuke",
                        "benchmark_hash": "x",
                        "time": "now",
                    }
                )
                + "\n"
            )
        home = check(
            logs, "home page, bob's log with a bad line and a 'nuke' (for alice)", 200, lambda: alice.get("/")
        )
        rows[-1].leaked = "bob.jsonl:2" not in home.text or "bob.jsonl:3" not in home.text  # must be named
        check(logs, "/api/progress over the same logs", 200, lambda: alice.get("/api/progress?bench=bench"))
        check(logs, "bob's own page", 200, lambda: bob.get("/review?bench=bench"))
        shown = CliRunner().invoke(main, ["review", str(bench)])
        rows.append(
            Row(
                logs,
                "`vqakit review` (exit code)",
                1,
                shown.exit_code,
                leaked="bob.jsonl:2" not in shown.output,
            )
        )
        applied = CliRunner().invoke(
            main, ["review", "apply", str(bench), "--policy", "all", "--out", str(folder / "new")]
        )
        rows.append(
            Row(
                logs,
                "`vqakit review apply` (exit code)",
                1,
                applied.exit_code,
                leaked="bob.jsonl" not in applied.output,
            )
        )
        (bench / "review/alice.jsonl").unlink()
        (bench / "review/alice.jsonl").mkdir()
        check(logs, "alice's log replaced by a folder: home (for bob)", 200, lambda: bob.get("/"))
        check(
            logs,
            "... alice deciding",
            409,
            lambda: alice.post(decide, json={"decision": "keep", "request_id": "audit-000008"}),
        )
        answers = folder / "runs/bench-1.0.0-human-p01/answers.jsonl"  # <folder>-<version>-human-<name>
        answers.parent.mkdir(parents=True, exist_ok=True)
        with answers.open("a") as handle:
            handle.write('{"request_id": "audit-000009", "sample_id": 5}\n')
        check(
            logs,
            "p01's answer log with a bad line: next question",
            200,
            lambda: p01.get("/api/next?bench=bench"),
        )
        answer = {"choice": 0, "elapsed_s": 1.0, "request_id": "audit-000010"}
        check(logs, "... p01 answering", 409, lambda: p01.post("/api/answer/s1?bench=bench", json=answer))
        answers.unlink()
        draft = {
            "question": "Which?",
            "choices": ["a", "b"],
            "answer": 0,
            "videos": [{"path": "counter.mp4"}],
        }
        alice_again = web("bob")
        alice_again.post(
            "/api/annotate/q1?bench=videos",
            json={"action": "save", "sample": draft, "request_id": "audit-000011"},
        )
        with (videos / "annotate/changes.jsonl").open("a") as handle:
            handle.write('{"request_id": "audit-000012", "action": "save"}\n')
        check(
            logs,
            "annotation log with a bad line: annotate page",
            200,
            lambda: bob.get("/annotate?bench=videos"),
        )
        save = {"action": "save", "sample": draft, "request_id": "audit-000013"}
        check(logs, "... saving", 409, lambda: bob.post("/api/annotate/q2?bench=videos", json=save))

        seen = "what a participant is sent"
        current = p01.get("/api/next?bench=bench").json()["sample"]["id"]
        check(
            seen,
            f"frames of another sample (current: {current})",
            404,
            lambda: p01.get("/frames/bench/0?sample=s2"),
        )
        check(seen, "frames beyond --limit", 404, lambda: p01.get("/frames/bench/0?sample=s4"))
        check(seen, "the video file", 403, lambda: p01.get("/media/bench/media/counter.mp4"))
        check(
            seen,
            "the video file, a range of it",
            403,
            lambda: p01.get("/media/bench/media/counter.mp4", headers={"range": "bytes=0-1000"}),
        )
        check(seen, "the clip of another question's window", 404, lambda: p01.get("/clip/bench?sample=s2"))
        check(seen, "a review page (gold)", 403, lambda: p01.get("/api/sample/s1?bench=bench"))
        clip = check(
            seen, "the clip of the current window", 200, lambda: p01.get(f"/clip/bench?sample={current}")
        )
        start, end = WINDOWS[current]
        numbers = clip_frames(clip.content)
        rows[-1].leaked = numbers != list(
            range(round(start * 10), round(end * 10))
        )  # frames outside the window
        rows[-1].what += f": frames {numbers[0]}-{numbers[-1]} of {round(start * 10)}-{round(end * 10) - 1}"
        outside = folder / "outside.mp4"
        shutil.copy(bench / "media/counter.mp4", outside)
        (bench / "media/counter.mp4").unlink()
        (bench / "media/counter.mp4").symlink_to(outside)
        check(
            seen,
            "frames of a video swapped for a link out, after start-up",
            404,
            lambda: alice.get(f"/frames/bench/1?sample={current}"),
        )
        check(seen, "the clip of it", 404, lambda: p01.get(f"/clip/bench?sample={current}"))
    finally:
        main_studio.stop()
        second.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the rows here too")
    options = parser.parse_args()
    rows = audit(Path(tempfile.mkdtemp(prefix="vqakit-studio-audit-")))
    print("| group | request | expected | got | 500 | served what it should not | ok |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        marks = [
            "yes" if row.server_error else "no",
            "yes" if row.leaked else "no",
            "ok" if row.ok else "FAIL",
        ]
        print(f"| {row.group} | {row.what} | {row.expected} | {row.got} | " + " | ".join(marks) + " |")
    if options.json:
        options.json.write_text(json.dumps([asdict(row) for row in rows], indent=1))
    failed = [row for row in rows if not row.ok]
    print(f"{len(rows) - len(failed)} of {len(rows)} rows as expected")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
