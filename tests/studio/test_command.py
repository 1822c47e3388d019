"""`vqakit studio` as people start it: a subprocess on a free port prints each person's link,
and the link opens a session (a wrong token is 401)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import httpx


def test_the_printed_link_opens_a_session_and_a_wrong_token_is_refused(tmp_path):
    command = [sys.executable, "-m", "vqakit", "studio", "sample", "--port", "0", "--host", "127.0.0.2"]
    command += [
        "--person",
        "alice",
        "--review-dir",
        str(tmp_path / "review"),
        "--runs",
        str(tmp_path / "runs"),
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # VQAKIT_STUDIO_KEY: the tests' own key
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        printed: list[str] = []
        deadline = time.monotonic() + 60
        while not any("alice (" in line for line in printed):
            assert time.monotonic() < deadline and server.poll() is None, "".join(printed)
            printed.append(server.stdout.readline())
        link = re.search(r"alice \(review, annotate, answer\): (\S+)", "".join(printed))[1]
        assert re.fullmatch(r"http://127\.0\.0\.2:\d+/\?token=alice~\d+~[0-9a-f]{32}", link), link
        with httpx.Client(follow_redirects=True, timeout=10) as web:  # keeps the session cookie
            opened = web.get(link)
            assert opened.status_code == 200 and "token=" not in str(opened.url)
            session = web.get(link.split("?")[0] + "api/session").json()
            assert (session["person"], session["role"]) == ("alice", "reviewer")
        wrong = re.sub(r"~[0-9a-f]{32}$", "~" + "0" * 32, link)
        with httpx.Client(timeout=10) as web:
            assert web.get(wrong).status_code == 401
    finally:
        server.terminate()
        server.wait(10)
