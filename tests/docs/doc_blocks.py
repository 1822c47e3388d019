"""Reading the shell blocks of a Markdown page and running them as a user pasting them would:
the machinery of `test_doc_blocks.py` (whose docstring has the conventions)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = ("bash", "sh", "shell")
MARKER = re.compile(r"<!--\s*docs-test:\s*(.*?)\s*-->")
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass
class Block:
    page: Path
    line: int  # where the block starts in the page (1-based)
    code: str
    skip: str | None = None  # why the block is not run
    exit_code: int = 0  # the exit status the block is expected to end with
    background: int | None = None  # a long-running server: the port it listens on

    def __str__(self) -> str:
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"


def _marker(text: str, start: int) -> str | None:
    """The `docs-test:` marker on the last non-blank line before `start`, if any."""
    before = text[:start].rstrip("\n").rsplit("\n", 1)[-1]
    found = MARKER.search(before)
    return found.group(1) if found else None


def shell_blocks(page: Path) -> list[Block]:
    """The runnable blocks of a page, in order, with what their markers say."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(text):
        if match.group(1) not in RUNNABLE:
            continue
        block = Block(page, text.count("\n", 0, match.start()) + 1, match.group(2))
        marker = _marker(text, match.start()) or ""
        for word, _, value in (part.partition("=") for part in shlex.split(marker)):
            if word == "skip":
                block.skip = value or "marked skip"
            elif word == "exit":
                block.exit_code = int(value)
            elif word == "background":
                block.background = int(value)
            else:
                raise ValueError(f"{block}: unknown docs-test marker {word!r}")
        blocks.append(block)
    return blocks


def pages() -> list[Path]:
    """README.md and every Markdown page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass
class Session:
    """A fresh folder where one page's blocks run in order, in one bash session (variables set
    by a block are seen by the next): the repository's `docs`, `scripts` and `src` are linked
    into it, `vqakit` and `python` are on PATH, and `env` adds the page's setup."""

    work: Path
    env: dict[str, str] = field(default_factory=dict)
    background: list[subprocess.Popen] = field(default_factory=list)

    def prepare(self) -> None:
        for name in ("docs", "scripts", "src"):
            (self.work / name).symlink_to(ROOT / name, target_is_directory=True)
        bin_dir = self.work / ".bin"
        bin_dir.mkdir()
        for name, command in (("vqakit", f'"{sys.executable}" -m vqakit'), ("python", f'"{sys.executable}"')):
            (bin_dir / name).write_text(f'#!/bin/sh\nexec {command} "$@"\n')
            (bin_dir / name).chmod(0o755)

    def environment(self) -> dict[str, str]:
        env = {
            **os.environ,
            "PATH": f"{self.work / '.bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(ROOT / "src"),
            "HOME": str(self.work / ".home"),
            "VQAKIT_CACHE_DIR": str(self.work / ".cache"),
            "OMP_NUM_THREADS": "1",
            "NO_COLOR": "1",
        }
        env.pop("VQAKIT_DEBUG", None)
        return {**env, **self.env}

    def run(self, blocks: list[Block], timeout_s: float = 600) -> None:
        """Run the blocks in order; AssertionError naming the first that did not end as expected."""
        script = ["set -o pipefail"]
        for number, block in enumerate(blocks):
            if block.skip:
                continue
            path = self.work / ".blocks" / f"{number:03d}.sh"
            path.parent.mkdir(exist_ok=True)
            path.write_text(block.code, encoding="utf-8")
            if block.background is not None:
                self._start(block, path)
                continue
            tag = shlex.quote(str(block))
            script.append(f"echo {tag} > .blocks/current")
            if block.exit_code == 0:
                script += [f"set -e; source {shlex.quote(str(path))}; set +e"]
            else:
                script += [
                    f"source {shlex.quote(str(path))}; status=$?",
                    f'[ "$status" -eq {block.exit_code} ] || {{ echo "{block}: exited $status, expected '
                    f'{block.exit_code}" >&2; exit 97; }}',
                ]
        script.append("echo ALL-BLOCKS-DONE > .blocks/current")
        (self.work / ".blocks").mkdir(exist_ok=True)
        result = subprocess.run(
            ["bash", "-c", "\n".join(script)],
            cwd=self.work,
            env=self.environment(),
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        last = (self.work / ".blocks/current").read_text().strip()
        if result.returncode != 0 or last != "ALL-BLOCKS-DONE":
            raise AssertionError(
                f"{last}: the block failed (exit {result.returncode})\n--- stdout\n{result.stdout[-4000:]}"
                f"\n--- stderr\n{result.stderr[-4000:]}"
            )

    def _start(self, block: Block, path: Path) -> None:
        process = subprocess.Popen(
            ["bash", str(path)],
            cwd=self.work,
            env=self.environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.background.append(process)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", int(block.background or 0))) == 0:
                    return
            if process.poll() is not None:
                raise AssertionError(f"{block}: the server exited with {process.returncode}")
            time.sleep(0.2)
        raise AssertionError(f"{block}: nothing listens on port {block.background} after 60 s")

    def stop(self) -> None:
        for process in self.background:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
