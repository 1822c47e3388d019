"""Links and sessions are bound to the studio's folders and to an expiry, and revocable per
person: a link or cookie given for one benchmark opens no studio on another (same person name,
same key), an expired or tampered one is 401, and `--revoke NAME` ends NAME's links and sessions
and no one else's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from vqakit.studio import Person, Studio, StudioError, StudioSettings, create_app

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
ROOT = Path(__file__).resolve().parents[2]


def remote(tmp_path: Path, folder: Path, **settings) -> tuple[TestClient, Studio]:
    """A studio reachable from other machines (people come in with their links only)."""
    people = [Person("alice"), Person("bob"), Person("p01", "participant")]
    studio = Studio(
        StudioSettings(
            folders=[str(folder)], host="0.0.0.0", people=people, runs=tmp_path / "runs", **settings
        )
    )
    web = TestClient(create_app(studio), base_url="http://lab.example:8765", follow_redirects=False)
    return web, studio


def opens(web: TestClient, token: str) -> int:
    return web.get("/api/session", headers={"authorization": f"Bearer {token}"}).status_code


def cookie_of(web: TestClient, token: str) -> str:
    response = web.get(f"/?token={token}")
    assert response.status_code == 303
    return response.cookies["vqakit_studio_8765"]


def with_cookie(web: TestClient, cookie: str) -> int:
    web.cookies.clear()
    web.cookies.set("vqakit_studio_8765", cookie)
    try:
        return web.get("/api/session").status_code
    finally:
        web.cookies.clear()


@pytest.fixture
def two_benchmarks(tmp_path) -> tuple[Path, Path]:
    for name in ("first", "second"):
        shutil.copytree(SAMPLE, tmp_path / name)
    return tmp_path / "first", tmp_path / "second"


def test_a_link_opens_only_a_studio_on_the_same_benchmarks(tmp_path, two_benchmarks):
    first, second = two_benchmarks
    web_a, studio_a = remote(tmp_path, first)
    web_b, _studio_b = remote(tmp_path, second)
    token = studio_a.signer.token("alice", "reviewer")
    assert opens(web_a, token) == 200
    assert opens(web_b, token) == 401  # the same person name, the same key, another benchmark
    cookie = cookie_of(web_a, token)
    assert with_cookie(web_a, cookie) == 200 and with_cookie(web_b, cookie) == 401
    again, _ = remote(tmp_path, first)  # a restart on the same benchmark keeps the links
    assert opens(again, token) == 200


def test_links_and_sessions_expire_and_cannot_be_extended(tmp_path, two_benchmarks):
    first, _ = two_benchmarks
    web, studio = remote(tmp_path, first, link_days=2 / 86400)  # two seconds
    token = studio.signer.token("alice", "reviewer")
    cookie = cookie_of(web, token)
    name, expires, mac = token.split("~")
    assert opens(web, f"{name}~{int(expires) + 86400}~{mac}") == 401  # a later expiry is not signed
    assert opens(web, token) == 200 and with_cookie(web, cookie) == 200
    time.sleep(max(0.0, int(expires) - time.time()) + 0.2)
    assert opens(web, token) == 401 and with_cookie(web, cookie) == 401
    assert "expired" in web.get("/api/session", headers={"authorization": f"Bearer {token}"}).json()["error"]


def test_revoking_a_person_ends_their_links_and_sessions_only(tmp_path, two_benchmarks):
    first, _ = two_benchmarks
    web, studio = remote(tmp_path, first)
    alice, bob = studio.signer.token("alice", "reviewer"), studio.signer.token("bob", "reviewer")
    alice_cookie, bob_cookie = cookie_of(web, alice), cookie_of(web, bob)
    web, studio = remote(tmp_path, first, revoke=["alice"])  # `vqakit studio ... --revoke alice`
    assert opens(web, alice) == 401 and with_cookie(web, alice_cookie) == 401
    assert opens(web, bob) == 200 and with_cookie(web, bob_cookie) == 200
    assert opens(web, studio.signer.token("alice", "reviewer")) == 200  # her new link works
    web, _ = remote(tmp_path, first)  # and stays revoked on the next start
    assert opens(web, alice) == 401


def test_a_damaged_list_of_revoked_people_stops_the_studio(tmp_path, two_benchmarks, studio_key):
    first, _ = two_benchmarks
    Path(str(studio_key) + ".revoked.json").write_text("{not json")
    try:
        with pytest.raises(StudioError, match="revoked"):
            remote(tmp_path, first)
    finally:
        Path(str(studio_key) + ".revoked.json").unlink()


def _start(args: list[str], env: dict) -> tuple[subprocess.Popen, list[str]]:
    command = [sys.executable, "-m", "vqakit", "studio", *args]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    printed: list[str] = []
    deadline = time.monotonic() + 60
    while not any("bob (" in line for line in printed):
        assert time.monotonic() < deadline and server.poll() is None, "".join(printed)
        printed.append(server.stdout.readline())
    return server, printed


def test_the_command_revokes_a_persons_links(tmp_path, studio_key):
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "VQAKIT_STUDIO_KEY": str(studio_key),
        "PYTHONPATH": str(ROOT / "src"),
    }
    args = ["sample", "--port", "0", "--host", "127.0.0.2", "--person", "alice", "--person", "bob"]
    args += ["--review-dir", str(tmp_path / "review"), "--runs", str(tmp_path / "runs")]
    links = {}
    for revoke in ([], ["--revoke", "alice"]):
        server, printed = _start(args + revoke, env)
        try:
            text = "".join(printed)
            found = dict(re.findall(r"(alice|bob) \(review, annotate, answer\): (\S+)", text))
            if revoke:
                assert "revoked every earlier link and session of alice" in text
                with httpx.Client(timeout=10) as web:
                    old_port = links["alice"].split(":")[2].split("/")[0]
                    new_port = found["alice"].split(":")[2].split("/")[0]
                    assert web.get(links["alice"].replace(old_port, new_port)).status_code == 401
                    assert web.get(links["bob"].replace(old_port, new_port)).status_code == 303
                    assert web.get(found["alice"]).status_code == 303
            links = found
        finally:
            server.terminate()
            server.wait(10)
