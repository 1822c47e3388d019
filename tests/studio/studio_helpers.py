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


def seek(page, seconds: float) -> None:
    """Pause the player and seek it (as a person does before drawing a box)."""
    page.evaluate("(t) => { const p = window.studioPlayer.current(); p.video.pause(); p.seek(t); }", seconds)
    page.wait_for_function("() => !window.studioPlayer.current().video.seeking")
    page.wait_for_timeout(100)


def draw_box(page, box: list[float]) -> None:
    """Drag a box (in pixels of the video frame) over the paused frame, in annotate mode."""
    page.click("#draw")
    area = page.query_selector(".player canvas").bounding_box()
    g = page.evaluate("window.studioPlayer.geometry(window.studioPlayer.current().video)")
    x0, y0 = area["x"] + g["dx"] + box[0] * g["scale"], area["y"] + g["dy"] + box[1] * g["scale"]
    x1, y1 = area["x"] + g["dx"] + box[2] * g["scale"], area["y"] + g["dy"] + box[3] * g["scale"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()
    page.wait_for_selector("#naming:not([hidden])")
