"""Helpers of the studio tests: a studio served by uvicorn on loopback in a thread, Debian's
Chromium as Playwright launches it, logging in, screenshots."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = os.environ.get("VQAKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images" / "studio"


@dataclass
class Running:
    url: str
    port: int
    studio: object


@contextmanager
def running_studio(settings) -> Iterator[Running]:
    """A studio served on 127.0.0.1 (a free port) in a thread, stopped on exit."""
    import uvicorn

    from vqakit.studio import Studio, create_app
    from vqakit.studio._serve import _listen

    sock = _listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    settings.port = port
    studio = Studio(settings)
    studio.allowed_hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
    server = uvicorn.Server(
        uvicorn.Config(create_app(studio), log_level="warning", access_log=False, lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield Running(f"http://127.0.0.1:{port}", port, studio)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def off_the_loop(function, *args, **kwargs):
    """Call `function` in a thread of its own: Playwright's sync API keeps an event loop running
    in the test's thread, where code that calls asyncio.run (builds, evaluations) cannot run."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function, *args, **kwargs).result()


def log_in(page, url: str, person: str) -> None:
    """Log in by name on a loopback studio, as a person does on its start page."""
    page.goto(url + "/login")
    page.fill("input[name=person]", person)
    page.click("button[type=submit]")
    page.wait_for_url(url + "/")


def screenshot(page, folder: Path, name: str, width: int = 1000) -> Path:
    """A screenshot of the page, checked to show something, scaled to `width` (small PNGs)."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path))
    image = Image.open(path).convert("RGB")
    assert len(set(image.resize((64, 64)).get_flattened_data())) > 20, f"{path} is nearly blank"
    if image.width > width:
        image = image.resize((width, round(image.height * width / image.width)), Image.Resampling.LANCZOS)
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    return path
