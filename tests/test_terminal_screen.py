"""The README's first command on a real terminal: `vqakit eval sample` runs in a tmux pane (a
real pty, so the progress bar is drawn), the screen is captured while it runs and when it has
finished, and the finished screen must be clean lines: each run's summary alone on its line,
no bar left behind or glued to it, no "errors" for samples that were only not applicable. The
screen is also drawn as a PNG (tmp folder, or `VQAKIT_SCREENSHOT_DIR`) for people to look at."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from system_needs import require_system

ROOT = Path(__file__).resolve().parents[1]
BAR = "━"
WIDTH, HEIGHT = 180, 24


def _font(size: int = 15) -> ImageFont.ImageFont:
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
                 "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf"):  # fmt: skip
        if Path(path).is_file():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


def draw_screen(lines: list[str], path: Path, title: str) -> Path:
    """A terminal-looking PNG of the screen's lines."""
    font = _font()
    left, top, right, bottom = font.getbbox("M")
    cell_w, cell_h = right - left, int((bottom - top) * 1.6)
    columns = max([WIDTH, *(len(line) for line in lines)])
    image = Image.new("RGB", (cell_w * columns + 24, cell_h * (len(lines) + 2) + 24), "#1e1f22")
    draw = ImageDraw.Draw(image)
    draw.text((12, 8), title, font=font, fill="#8a8f98")
    for row, line in enumerate(lines, start=1):
        draw.text((12, 12 + row * cell_h), line, font=font, fill="#e6e6e6")
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
    return path


class Pane:
    """One tmux session on its own socket, running a shell in `cwd`."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.socket = f"vqakit-screen-{os.getpid()}"
        rc = cwd / ".bashrc-screen"
        rc.write_text("".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items()))
        self.tmux(f"new-session -d -x {WIDTH} -y {HEIGHT} -c {cwd} bash --noprofile --rcfile {rc}")

    def tmux(self, arguments: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *arguments.split()],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", "0", text, "Enter"], check=True)

    def wait_for_prompt(self, timeout_s: float = 30) -> None:
        """Until the shell has started and shows its prompt (keys typed before would echo early)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if any(line.strip() == "$" for line in self.screen()):
                return
            time.sleep(0.05)
        raise AssertionError(f"no shell prompt: {self.screen()}")

    def screen(self) -> list[str]:
        return self.tmux("capture-pane -p -J -t 0").rstrip("\n").split("\n")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.mark.slow
def test_the_first_command_leaves_clean_lines_on_a_terminal(tmp_path: Path):
    require_system(None if shutil.which("tmux") else "needs tmux for a real terminal (apt-get install tmux)")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vqakit").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m vqakit "$@"\n')
    (bin_dir / "vqakit").chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT / "src"),
        "VQAKIT_CACHE_DIR": str(tmp_path / "cache"),
        "OMP_NUM_THREADS": "1",
        "TERM": "xterm-256color",
        "PS1": "$ ",
    }
    pane = Pane(tmp_path, env)
    try:
        pane.wait_for_prompt()
        pane.type("vqakit eval sample; echo exit=$?")
        during: list[list[str]] = []
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            screen = pane.screen()
            if any(line.startswith("exit=") for line in screen):
                break
            if any(BAR in line for line in screen):
                during.append(screen)
            time.sleep(0.1)
        final = [line.rstrip() for line in pane.screen()]
    finally:
        pane.close()
    out = Path(os.environ.get("VQAKIT_SCREENSHOT_DIR") or tmp_path)
    draw_screen(final, out / "eval-sample-screen.png", "vqakit eval sample: the screen when it has finished")
    if during:
        draw_screen(during[-1], out / "eval-sample-during.png", "vqakit eval sample: while a run is going")
    assert "exit=0" in final, final
    assert during, "no progress bar was drawn on the terminal"
    shown = [line for line in final if line and line != "$"]
    summaries = [line for line in shown if line.startswith(("random:", "text-similarity:"))]
    assert len(summaries) == 2, final
    assert all(BAR not in line for line in final), final  # the bar is gone, nothing glued to a line
    assert all(" errors" not in line for line in final), final  # not-applicable samples are no errors
    for line in summaries:
        assert (
            "MCQ accuracy " in line
            and "10 not applicable" in line
            and line.endswith(("-random", "-similarity"))
        )
    assert shown[0].startswith("$ vqakit eval sample") and shown[-1].startswith("exit=0")
