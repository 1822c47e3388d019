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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests/models"))  # the tests' misbehaving loopback endpoints

from bad_servers import NotFoundServer, SilentServer, closed_port  # noqa: E402


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
    with NotFoundServer() as not_found, SilentServer() as silent:
        cases = [
            ("port closed", f"http://127.0.0.1:{closed_port()}/v1", ()),
            ("server answers 404", not_found.url, ()),
            ("never answers, --request-timeout 5", silent.url, ("--request-timeout", "5")),
            (
                "never answers, --request-timeout 5 --no-preflight",
                silent.url,
                ("--request-timeout", "5", "--no-preflight"),
            ),
        ]
        took, code, _, _ = _run(args.bench, f"http://127.0.0.1:{closed_port()}/v1", "--frames", "bogus")
        print(f"baseline (start, load the benchmark, refuse a bad --frames): {took:.1f} s, exit {code}")
        for name, url, extra in cases:
            took, code, wrote, line = _run(args.bench, url, *extra)
            print(f"{name}: {took:.1f} s, exit {code}, run folder written: {'yes' if wrote else 'no'}")
            print(f"    {line}")


if __name__ == "__main__":
    main()
