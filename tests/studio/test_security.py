"""The studio's door: token links on a non-loopback bind (401 without or with a wrong token),
the CSRF token of every state-changing request, participants kept to answer mode, the Host
check of a loopback bind, and media only from inside the benchmark folder (no `..`, no
absolute path, no symbolic link out, no file that is not media), with HTTP Range."""

from __future__ import annotations

import http.client
import json
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from studio_helpers import running_studio

from vqakit.studio import Person, Studio, StudioError, StudioSettings, create_app
from vqakit.studio._media import media_file

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"


def client(settings: StudioSettings, base: str = "http://127.0.0.1:8765") -> tuple[TestClient, Studio]:
    studio = Studio(settings)
    return TestClient(create_app(studio), base_url=base, follow_redirects=False), studio


@pytest.fixture
def remote(tmp_path):
    """A studio bound to every address, with a reviewer and a participant."""
    settings = StudioSettings(
        folders=["sample"],
        host="0.0.0.0",
        people=[Person("alice"), Person("p01", "participant")],
        review_dir=tmp_path / "review",
        runs=tmp_path / "runs",
    )
    return client(settings, "http://studio.lab.example:8765")


def test_a_non_loopback_studio_needs_named_people(tmp_path):
    with pytest.raises(StudioError, match="name the people"):
        Studio(StudioSettings(folders=["sample"], host="0.0.0.0"))


def test_no_token_and_a_wrong_token_get_401(remote):
    web, _ = remote
    for path in (
        "/",
        "/review",
        "/api/queue",
        "/media/sample/media/bikes.mp4",
        "/login",
        "/static/studio.js",
    ):
        assert web.get(path).status_code == 401, path
    assert web.get("/?token=0123456789abcdef0123456789abcdef").status_code == 401
    assert web.get("/api/session", headers={"authorization": "Bearer wrong"}).status_code == 401
    # a forged cookie is no session either
    assert web.get("/", headers={"cookie": "vqakit_studio_8765=e30.deadbeef"}).status_code == 401


def test_a_token_link_opens_a_session_and_leaves_the_address(remote):
    web, studio = remote
    token = studio.signer.token("alice", "reviewer")
    response = web.get(f"/review?bench=sample&token={token}")
    assert response.status_code == 303 and response.headers["location"] == "/review?bench=sample"
    assert "httponly" in response.headers["set-cookie"].lower()
    assert "samesite=strict" in response.headers["set-cookie"].lower()
    page = web.get("/review?bench=sample")
    assert page.status_code == 200 and "ped-viewpoint" in page.text
    assert (
        "referrer-policy" in page.headers and "script-src 'self'" in page.headers["content-security-policy"]
    )
    assert "'unsafe-inline'" not in page.headers["content-security-policy"]


def test_every_post_needs_the_sessions_csrf_token(remote):
    web, studio = remote
    bearer = {"authorization": f"Bearer {studio.signer.token('alice', 'reviewer')}"}
    session = web.get("/api/session", headers=bearer).json()
    assert session["person"] == "alice" and session["role"] == "reviewer"
    body = {"decision": "keep", "request_id": "keep-ped-sign-1"}
    assert web.post("/api/review/ped-sign", json=body, headers=bearer).status_code == 403
    wrong = {**bearer, "x-csrf-token": "0" * 40}
    assert web.post("/api/review/ped-sign", json=body, headers=wrong).status_code == 403
    right = {**bearer, "x-csrf-token": session["csrf"]}
    response = web.post("/api/review/ped-sign", json=body, headers=right)
    assert response.status_code == 201 and response.json()["decision"]["person"] == "alice"
    # a session from a link has its own CSRF token: the script's does not work for it
    web.get(f"/?token={studio.signer.token('alice', 'reviewer')}")
    assert (
        web.post("/api/review/ped-sign", json=body, headers={"x-csrf-token": session["csrf"]}).status_code
        == 403
    )
    # logging in by name is for loopback studios only
    assert web.post("/api/session", json={"person": "mallory"}, headers=right).status_code == 403


def test_participants_reach_answer_mode_only_and_never_a_gold_answer(remote):
    web, studio = remote
    participant = {"authorization": f"Bearer {studio.signer.token('p01', 'participant')}"}
    for path in ("/review?bench=sample", "/api/sample/ped-sign", "/api/queue", "/api/progress", "/annotate"):
        assert web.get(path, headers=participant).status_code == 403, path
    assert web.get("/media/sample/media/bikes.mp4", headers=participant).status_code == 403  # frames only
    assert web.get("/", headers=participant).headers["location"] == "/answer"
    shown = web.get("/api/next?bench=sample", headers=participant).json()
    sample = shown["sample"]
    assert set(sample) == {"id", "question", "options", "mcq", "video", "subtitles", "asks_reasoning"}
    assert all(set(option) == {"letter", "text"} for option in sample["options"])
    page = web.get("/answer?bench=sample", headers=participant).text
    assert "gold" not in page.lower() and 'class="tag gold"' not in page


def test_a_loopback_studio_checks_the_host_header(tmp_path):
    web, studio = client(StudioSettings(folders=["sample"], review_dir=tmp_path / "r"))
    studio.allowed_hosts = {"127.0.0.1:8765"}
    assert web.get("/login").status_code == 200
    rebound = TestClient(create_app(studio), base_url="http://attacker.example:8765")
    assert rebound.get("/login").status_code == 400


@pytest.fixture
def local_copy(tmp_path):
    """A copy of the sample benchmark, and a reviewer's session on it."""
    root = tmp_path / "bench"
    shutil.copytree(SAMPLE, root)
    (tmp_path / "secret.txt").write_text("outside the benchmark")
    web, studio = client(StudioSettings(folders=[str(root)]))
    csrf = web.get("/api/session").json()["csrf"]
    web.post("/api/session", json={"person": "alice"}, headers={"x-csrf-token": csrf})
    return web, studio, root, tmp_path / "secret.txt"


def test_media_is_served_with_range_from_inside_the_folder_only(local_copy):
    web, studio, _, secret = local_copy
    full = web.get("/media/bench/media/bikes.mp4")
    assert full.status_code == 200 and full.headers["content-type"] == "video/mp4"
    assert full.headers["accept-ranges"] == "bytes"
    part = web.get("/media/bench/media/bikes.mp4", headers={"range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == full.content[100:200]
    assert part.headers["content-range"] == f"bytes 100-199/{len(full.content)}"
    refused = [
        "/media/bench/samples.jsonl",  # in the folder, but not media
        "/media/bench/benchmark.yaml",
        "/media/bench/%2e%2e/secret.txt",  # ../
        "/media/bench/media/%2e%2e/%2e%2e/secret.txt",
        "/media/bench/%2Fetc%2Fpasswd",  # absolute
        f"/media/bench/{secret}",
        "/media/bench//etc/passwd",
        "/media/nope/media/bikes.mp4",
    ]
    for path in refused:
        assert web.get(path).status_code == 404, path
    workspace = studio.workspace("bench")
    for relative in ("../secret.txt", str(secret), "media/../../secret.txt", "/etc/passwd"):
        assert media_file(workspace, relative) is None, relative


def test_a_media_file_turned_into_a_link_out_of_the_folder_is_refused(local_copy):
    web, _, root, secret = local_copy
    video = root / "media/bikes.mp4"
    assert web.get("/media/bench/media/bikes.mp4").status_code == 200
    video.unlink()
    video.symlink_to(secret)
    assert web.get("/media/bench/media/bikes.mp4").status_code == 404


def test_dot_segments_sent_raw_over_the_socket_are_refused(tmp_path):
    settings = StudioSettings(folders=["sample"], review_dir=tmp_path / "r")
    with running_studio(settings) as running:
        connection = http.client.HTTPConnection("127.0.0.1", running.port, timeout=10)
        session = running.studio.signer.cookie(running.studio.signer.fresh("alice"))
        cookie = f"vqakit_studio_{running.port}={session}"
        for path in ("/media/sample/../../../../etc/passwd", "/media/sample/media/../samples.jsonl"):
            connection.request("GET", path, headers={"Cookie": cookie})
            response = connection.getresponse()
            response.read()
            assert response.status == 404, path
        connection.request(
            "GET", "/media/sample/media/thanks.mp4", headers={"Cookie": cookie, "Range": "bytes=0-9"}
        )
        response = connection.getresponse()
        assert response.status == 206 and len(response.read()) == 10


def test_the_command_refuses_what_it_cannot_serve_before_listening(tmp_path):
    from click.testing import CliRunner

    from vqakit.cli import main

    runner = CliRunner()
    for args, message in (
        (["sample", "--host", "0.0.0.0"], "name the people who may use it"),
        ([str(tmp_path / "nowhere")], "not a benchmark, a run or a folder of videos"),
        (["sample", "--answer-view", "video"], "does not allow people to watch the video"),
        (["sample", "--judge", "open=bogus:spec"], "unknown model backend 'bogus'"),
        (["sample", "--person", "../alice"], "person name '../alice'"),
    ):
        result = runner.invoke(main, ["studio", *args])
        assert result.exit_code != 0 and message in result.output, (args, result.output)


def test_participants_watch_the_video_window_only_where_the_card_allows_it(tmp_path):
    root = tmp_path / "bench"
    shutil.copytree(SAMPLE, root)
    card = (root / "benchmark.yaml").read_text()
    (root / "benchmark.yaml").write_text(card + "human_video: true\n")
    settings = StudioSettings(
        folders=[str(root)],
        people=[Person("p01", "participant")],
        answer_view="video",
        runs=tmp_path / "runs",
        order="benchmark",
    )
    web, studio = client(settings)
    participant = {"authorization": f"Bearer {studio.signer.token('p01', 'participant')}"}
    shown = web.get("/api/next?bench=bench", headers=participant).json()
    assert shown["view"] == "video" and shown["frames_s"] == []
    # the window cut on its own, never the file (nor its name)
    assert shown["sample"]["video"]["url"] == "/clip/bench?sample=ped-viewpoint"
    assert "pedestrians" not in json.dumps(shown)
    assert web.get("/media/bench/media/pedestrians.mp4", headers=participant).status_code == 403
    assert web.get("/clip/bench?sample=ped-viewpoint", headers=participant).status_code == 200
    csrf = web.get("/api/session", headers=participant).json()["csrf"]
    answered = web.post(
        "/api/answer/ped-viewpoint?bench=bench",
        json={"choice": 0, "elapsed_s": 2.5, "request_id": "video-00001"},
        headers={**participant, "x-csrf-token": csrf},
    )
    assert answered.status_code == 201 and set(answered.json()["answer"]) == {
        "request_id",
        "sample_id",
        "elapsed_s",
        "answered_at",
    }  # nothing about being right
    config = (tmp_path / "runs/bench-0.1.0-human-p01/config.yaml").read_text()
    assert "view: video" in config


def test_a_token_links_redirect_never_leaves_the_studio(tmp_path):
    settings = StudioSettings(folders=["sample"], people=[Person("alice")], review_dir=tmp_path / "r")
    with running_studio(settings) as running:
        token = running.studio.signer.token("alice", "reviewer")
        connection = http.client.HTTPConnection("127.0.0.1", running.port, timeout=10)
        connection.request("GET", f"//evil.example/?token={token}")
        response = connection.getresponse()
        response.read()
        assert response.status == 303 and response.getheader("location") == "/evil.example/"


def test_a_studio_bound_to_another_loopback_address_answers_at_it(tmp_path):
    settings = StudioSettings(folders=["sample"], host="127.0.0.2", review_dir=tmp_path / "r")
    with running_studio(settings) as running:
        assert running.url == f"http://127.0.0.2:{running.port}"
        connection = http.client.HTTPConnection("127.0.0.2", running.port, timeout=10)
        for host, status in ((f"127.0.0.2:{running.port}", 200), (f"attacker.example:{running.port}", 400)):
            connection.request("GET", "/api/session", headers={"Host": host})
            response = connection.getresponse()
            response.read()
            assert response.status == status, host
