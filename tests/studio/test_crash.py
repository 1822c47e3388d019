"""Two browsers write at once (a reviewer's decisions, a participant's answers) to a studio
running as its own process; the server is killed with SIGKILL mid-session and started again:
every decision and answer the browsers sent is on disk exactly once (the pages keep what the
server has not confirmed and send it again with the same request id), and the participant's
answers and predictions agree line for line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(port: int, tmp_path: Path, env: dict) -> tuple[subprocess.Popen, str]:
    """The studio as its own process, and the participant's link it printed."""
    args = ["studio", "sample", "--port", str(port), "--participant", "p01", "--limit", "20"]
    args += ["--review-dir", str(tmp_path / "review"), "--runs", str(tmp_path / "runs")]
    process = subprocess.Popen(
        [sys.executable, "-m", "vqakit", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.strip().startswith("p01 (answer): "):
            return process, line.split(": ", 1)[1].strip()
        if not line and process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"the studio did not start: {process.stdout.read()}")


def pending(page) -> list:
    return json.loads(page.evaluate("localStorage.getItem('vqakit-studio-pending:' + location.host) || '[]'"))


def wait_until(check, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.is_file() else []


@pytest.mark.slow
def test_nothing_is_lost_or_written_twice_across_a_sigkill(tmp_path, browser, studio_key):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "VQAKIT_STUDIO_KEY": str(studio_key)}
    port = free_port()
    server, link = start(port, tmp_path, env)
    url = f"http://127.0.0.1:{port}"
    sent: dict[str, set[str]] = {"review": set(), "answer": set()}
    attempts: list[str] = []

    def record(request) -> None:
        for kind in sent:
            if request.method == "POST" and f"/api/{kind}/" in request.url:
                sent[kind].add(request.post_data_json["request_id"])
                attempts.append(request.post_data_json["request_id"])

    try:
        reviewer = browser.new_context().new_page()
        participant = browser.new_context().new_page()
        for page in (reviewer, participant):
            page.on("request", record)
        reviewer.goto(url + "/login")
        reviewer.fill("input[name=person]", "alice")
        reviewer.click("button[type=submit]")
        reviewer.wait_for_url(url + "/")
        reviewer.goto(url + "/review?bench=sample")
        participant.goto(link)

        def act(count: int, wait: bool = True) -> None:
            """Both people act at once: a decision and an answer, then (if `wait`) their results."""
            for _ in range(count):
                participant.wait_for_selector("#question[data-shown='1']")
                shown = participant.get_attribute("#question", "data-sample-id")
                decided = len(lines(tmp_path / "review/alice.jsonl"))
                reviewer.keyboard.press("k")
                if participant.locator("input[name=choice]").count():
                    participant.keyboard.press("a")
                    participant.keyboard.press("Enter")
                else:
                    participant.fill("textarea[name=text]", "something")
                    participant.click("#answer-form button[type=submit]")
                if wait:
                    wait_until(lambda d=decided: len(lines(tmp_path / "review/alice.jsonl")) > d)
                    participant.wait_for_selector(f"#done, #question:not([data-sample-id='{shown}'])")

        reviewer.wait_for_selector("#sample")
        act(4)
        # a decision the server wrote but whose reply was lost: the page still holds it, and sends
        # it again on its next load
        written = json.loads((tmp_path / "review/alice.jsonl").read_text().splitlines()[0])
        again = {"decision": written["decision"], "request_id": written["request_id"]}
        reviewer.evaluate(
            """(item) => {
              const key = 'vqakit-studio-pending:' + location.host;
              const list = JSON.parse(localStorage.getItem(key) || '[]');
              localStorage.setItem(key, JSON.stringify(list.concat([item])));
            }""",
            {"url": f"/api/review/{written['sample_id']}?bench=sample", "body": again},
        )
        act(1, wait=False)  # sent, and the server is killed while they are under way
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        reviewer.keyboard.press("j")
        reviewer.keyboard.press("k")  # decided while the server is down: kept by the page
        time.sleep(1.0)
        server, restarted = start(port, tmp_path, env)
        assert restarted.split("~")[0] == link.split("~")[0]  # the same person's link, still valid
        # the pages send what the server has not confirmed: at once (retrying), and on their next load
        reviewer.reload()
        participant.reload()
        wait_until(lambda: not pending(reviewer) and not pending(participant))
        reviewer.wait_for_selector("#sample")
        act(3)
    finally:
        server.kill()
        server.wait(10)

    assert len(attempts) > len(set(attempts))  # some requests were sent more than once
    decisions = [json.loads(line) for line in lines(tmp_path / "review/alice.jsonl")]
    ids = [d["request_id"] for d in decisions]
    assert len(ids) == len(set(ids)), "a decision was written twice"
    assert set(ids) == sent["review"], "a decision was lost"
    assert len(ids) >= 9
    run = tmp_path / "runs/sample-0.1.0-human-p01"
    answers = [json.loads(line) for line in (run / "answers.jsonl").read_text().splitlines()]
    predictions = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert len({a["request_id"] for a in answers}) == len(answers), "an answer was written twice"
    assert {a["request_id"] for a in answers} == sent["answer"], "an answer was lost"
    assert len({a["sample_id"] for a in answers}) == len(answers) == 8  # each question answered once
    assert [p["sample_id"] for p in predictions] == [a["sample_id"] for a in answers]
