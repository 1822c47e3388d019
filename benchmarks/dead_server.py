"""How long `vqakit eval` takes to name a server that is down, wrong or stuck.

    python benchmarks/dead_server.py [--bench sample]

Starts, on loopback, a port where nothing listens, an HTTP server that answers 404 to everything
(a base URL without its `/v1`) and a socket that accepts connections and never answers, then runs
`vqakit eval BENCH --model openai-compatible:<url>#m` against each, in a fresh folder, and prints
per case: the wall time, the exit code, whether a run folder was written, and the line that names
the problem. The stuck server is tried with `--request-timeout 5`, with the check before the run
and without it (`--no-preflight`: the requests time out and the run stops once the last 20 failed
the same way). Times include starting Python and loading the benchmark; the first line measures
that alone (the same command refused for a bad frame spec, before any check), so each case's time
over it is what naming the server took. Wall-clock on this machine: compare the cases of one run
with each other, not with another machine's.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class _NotFound(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = b"404 page not found\n"
        self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _silent(stop: threading.Event) -> tuple[int, socket.socket]:
    """A socket that accepts every connection and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(256)
    server.settimeout(0.2)
    held: list[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue
        for connection in held:
            connection.close()

    threading.Thread(target=accept, daemon=True).start()
    return server.getsockname()[1], server


def _run(bench: str, url: str, *extra: str) -> tuple[float, int, bool, str]:
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1"}
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "vqakit", "eval", bench, "--model", f"openai-compatible:{url}#m", *extra],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        took = time.monotonic() - started
        wrote = (Path(work) / "runs").exists()
    lines = [line for line in result.stderr.splitlines() if line.startswith(("Error:", "stopped:"))]
    return took, result.returncode, wrote, (lines[-1] if lines else result.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default="sample")
    args = parser.parse_args()
    stop = threading.Event()
    not_found = ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    threading.Thread(target=not_found.serve_forever, daemon=True).start()
    silent_port, silent = _silent(stop)
    cases = [
        ("port closed", f"http://127.0.0.1:{_free_port()}/v1", ()),
        ("server answers 404", f"http://127.0.0.1:{not_found.server_address[1]}/v1", ()),
        (
            "never answers, --request-timeout 5",
            f"http://127.0.0.1:{silent_port}/v1",
            ("--request-timeout", "5"),
        ),
        (
            "never answers, --request-timeout 5 --no-preflight",
            f"http://127.0.0.1:{silent_port}/v1",
            ("--request-timeout", "5", "--no-preflight"),
        ),
    ]
    try:
        took, code, _, _ = _run(args.bench, f"http://127.0.0.1:{_free_port()}/v1", "--frames", "bogus")
        print(f"baseline (start, load the benchmark, refuse a bad --frames): {took:.1f} s, exit {code}")
        for name, url, extra in cases:
            took, code, wrote, line = _run(args.bench, url, *extra)
            print(f"{name}: {took:.1f} s, exit {code}, run folder written: {'yes' if wrote else 'no'}")
            print(f"    {line}")
    finally:
        stop.set()
        not_found.shutdown()
        silent.close()


if __name__ == "__main__":
    main()
