"""`vqakit plan` and `eval --dry-run` count what the run sends (checked against what a loopback
server receives from the eval), and a run over a provider's limit is refused before its first
request, by plan and by eval. The server is a test double at the HTTP boundary."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
from collections import Counter

from fake_server import FakeServer
from PIL import Image

from vqakit.runner import estimate_runs, evaluate, read_prices

QWEN = "Qwen/Qwen2.5-VL-7B-Instruct"


def _vqakit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vqakit", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _sent(body: dict) -> tuple[int, tuple[int, int] | None]:
    """(images in a chat request, the size of its first)."""
    urls = [
        part["image_url"]["url"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]
    if not urls:
        return 0, None
    with Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1]))) as first:
        return len(urls), first.size


def test_the_plan_counts_the_requests_images_and_sizes_eval_sends(tmp_path):
    with FakeServer(default="ok:Answer: B") as server:
        server.models = [{"id": QWEN, "object": "model", "max_model_len": 32768}]
        settings = {
            "bench": "sample",
            "model": f"openai-compatible:{server.url}#{QWEN}",
            "limit": 8,
            "frames": "uniform:6",
            "short_side": 224,
        }
        (found,) = estimate_runs(settings, tmp_path / "run")
        assert len(server.requests) == 1  # the one timed request, past the response cache
        assert found.request_s is not None and found.timing_note.startswith("one request (")
        assert found.context == 32768 and not found.refusals and found.rule.name.startswith("Qwen2.5-VL")
        planned_requests, planned_sizes = found.requests, dict(found.per_request)
        evaluate(settings, tmp_path / "run")
        sent = [_sent(request["body"]) for request in server.requests[1:]]
    assert len(sent) == planned_requests == 8
    assert dict(Counter(images for images, _ in sent)) == planned_sizes
    sizes: Counter[tuple[int, int]] = Counter()
    for images, size in sent:
        if size is not None:
            sizes[size] += images
    assert dict(sizes) == dict(found.sizes)  # the size each frame reached the server at
    assert not (tmp_path / "run").exists() or (tmp_path / "run" / "predictions.jsonl").is_file()


def test_a_request_over_the_providers_image_cap_is_refused_by_plan_and_eval(tmp_path):
    """Anthropic takes at most 100 images a request: 128 frames are refused before anything
    is written or sent, naming the limit and the --frames that fits."""
    out = tmp_path / "run"
    env = {"ANTHROPIC_API_KEY": "test-key-never-sent", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    options = [
        "sample",
        "--model",
        "anthropic:claude-sonnet-4-5",
        "--frames",
        "uniform:128",
        "--out",
        str(out),
    ]
    planned = _vqakit("plan", *options, "--no-timing", env=env)
    assert planned.returncode == 2, planned.stderr
    assert "at most 100 images" in planned.stderr and "--frames uniform:100" in planned.stderr
    assert "Anthropic docs, Vision" in planned.stderr and "has 128" in planned.stderr
    refused = _vqakit("eval", *options, env=env)
    assert refused.returncode == 2 and "at most 100 images" in refused.stderr, refused.stderr
    assert "--frames uniform:100" in refused.stderr and not out.exists()
    within = _vqakit("plan", *options[:3], "--frames", "uniform:16", "--no-timing", env=env)
    assert within.returncode == 0 and "refused" not in within.stdout + within.stderr, within.stderr


def test_a_request_over_the_providers_size_cap_is_refused_with_a_size_and_frames_that_fit(tmp_path):
    """Gemini takes at most 20 MB of inline data a request: 300 frames of 597 x 448 (about
    25 MB as base64) are refused, naming the limit; the --short-side and the --frames it
    suggests each give a plan that fits."""
    options = ["sample", "--model", "gemini:gemini-2.5-flash", "--limit", "3", "--no-timing"]
    refused = _vqakit("plan", *options, "--frames", "uniform:300", "--out", str(tmp_path / "run"))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "a request may be at most 20.0 MB (Gemini API docs" in refused.stderr
    assert "300 images at 597x448" in refused.stderr and "3,600 images" in refused.stdout
    fixes = refused.stderr.split(": use ")[1].split()
    assert fixes[0] == "--short-side" and fixes[2] == "or" and fixes[3] == "--frames", fixes
    side, frames = fixes[1], fixes[4]
    assert int(side) < 448 and frames.startswith("uniform:") and int(frames.split(":")[1]) < 300
    for fix in (["--frames", "uniform:300", "--short-side", side], ["--frames", frames]):
        fits = _vqakit("plan", *options, *fix)
        assert fits.returncode == 0 and "refused" not in fits.stdout + fits.stderr, (fix, fits.stderr)


def test_a_request_over_the_servers_context_is_refused_before_the_first_request(tmp_path):
    out = tmp_path / "run"
    with FakeServer() as server:
        server.models = [{"id": QWEN, "object": "model", "max_model_len": 2048}]
        options = ["sample", "--model", f"openai-compatible:{server.url}#{QWEN}", "--frames", "uniform:16"]
        refused = _vqakit("eval", *options, "--out", str(out))
        assert refused.returncode == 2, refused.stderr
        assert "context of 2048 tokens (max_model_len)" in refused.stderr and "--short-side" in refused.stderr
        assert server.requests == [] and len(server.gets) == 1 and not out.exists()
        suggested = refused.stderr.split("use --short-side ")[1].split()[0]
        fits = _vqakit("plan", *options, "--short-side", suggested, "--no-timing")
        assert fits.returncode == 0 and "refused" not in fits.stderr, fits.stdout + fits.stderr


def test_a_dry_run_prints_the_plan_and_writes_nothing(tmp_path):
    out = tmp_path / "run"
    prices = tmp_path / "prices.yaml"
    with FakeServer(default="ok:Answer: A") as server:
        spec = f"openai-compatible:{server.url}#{QWEN}"
        prices.write_text(json.dumps({"openai-compatible:*": {"input": 2.0, "output": 8.0}}))
        result = _vqakit(
            "eval", "sample", "--model", spec, "--limit", "3", "--model-arg", "max_tokens=100",
            "--out", str(out), "--dry-run", env={"VQAKIT_PRICES": str(prices)},
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert len(server.requests) == 1 and not out.exists()
    lines = result.stdout.splitlines()
    assert lines[0].startswith("plan: sample · direct · ") and "3 samples: 3 requests" in lines[1]
    assert "Qwen2.5-VL: 28 px patches" in result.stdout and "one request (" in result.stdout
    tokens = int(lines[2].split(" in all")[0].split(", ")[-1].replace(",", ""))
    cost = result.stdout.split("cost: about $")[1].split(" input")[0]
    assert abs(float(cost) - tokens * 2.0 / 1e6) < 0.005  # to the cent
    assert "output at most $0.0024 (max_tokens 100 at $8 / 1M)" in result.stdout  # 3 x 100 x $8 / 1M


def test_a_price_table_that_cannot_be_read_names_its_file(tmp_path):
    bad = tmp_path / "prices.yaml"
    bad.write_text("openai:gpt-4o: {input: -1}\n")
    try:
        read_prices(bad)
    except ValueError as error:
        assert str(bad) in str(error) and "openai:gpt-4o" in str(error)
    else:
        raise AssertionError("a negative price was read")
    assert read_prices(None) is None or os.environ.get("VQAKIT_PRICES")
