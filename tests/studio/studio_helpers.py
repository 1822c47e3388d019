"""Helpers of the studio tests: a studio served by uvicorn on loopback in a thread, Debian's
Chromium as Playwright launches it, logging in, screenshots."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def running_studio(settings) -> Iterator:
    """A studio served on 127.0.0.1 (a free port) in a thread, stopped on exit."""
    from vqakit.studio import serve_in_background

    settings.port = 0
    running = serve_in_background(settings)
    try:
        yield running
    finally:
        running.stop()


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
    import time

    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    settled = """() => Array.from(document.images).every((image) => image.complete)
        && Array.from(document.querySelectorAll('video')).every((v) => !v.seeking && v.readyState >= 2)"""
    deadline = time.monotonic() + 15
    while not page.evaluate(settled):
        if time.monotonic() > deadline:
            raise AssertionError(f"{name}: images or videos still loading")
        time.sleep(0.05)
    page.screenshot(path=str(path))
    image = Image.open(path).convert("RGB")
    assert len(set(image.resize((64, 64)).get_flattened_data())) > 20, f"{path} is nearly blank"
    if image.width > width:
        image = image.resize((width, round(image.height * width / image.width)), Image.Resampling.LANCZOS)
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    return path
