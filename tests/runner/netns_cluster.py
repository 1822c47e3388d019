"""A Ray cluster of three "hosts" on this machine: a head and two workers, each in its own
network namespace with its own address, joined by a bridge in a fourth namespace. Nothing is
added to the machine's own network; names carry a random token, so parallel runs do not collide;
`close()` ends every process in the namespaces and deletes them, also after a failure.

Needs root and iproute2 (`ip netns`), as CI has. The hosts share this machine's filesystem, so
benchmark, run and cache folders are seen by all of them.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def usable() -> str | None:
    """Why namespaces cannot be used here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2 (ip) is not installed"
    return None


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


class NamespaceCluster:
    ROLES = ("h", "a", "b")  # head, worker a, worker b

    def __init__(self, env: dict[str, str]) -> None:
        token = secrets.token_hex(3)
        self.token = token
        self.switch = f"vqk{token}s"
        self.namespaces = {role: f"vqk{token}{role}" for role in self.ROLES}
        prefix = f"10.{random.randint(200, 249)}.{random.randint(0, 255)}"
        self.address = {role: f"{prefix}.{i}" for i, role in enumerate(self.ROLES, start=1)}
        self.temp = Path(f"/tmp/rvq{token}")
        self.env = {
            **os.environ,
            **env,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
            "OMP_NUM_THREADS": "1",
            "RAY_AUTH_MODE": "disabled",  # the machine may hold a token of another instance
            "RAY_health_check_period_ms": "1000",  # a dead host is noticed in seconds
            "RAY_health_check_failure_threshold": "3",
            "RAY_USAGE_STATS_ENABLED": "0",
        }
        self.ray = str(Path(sys.executable).with_name("ray"))
        self.head = f"{self.address['h']}:6379"
        self._made: list[str] = []

    def _network(self) -> None:
        _ip("netns", "add", self.switch)
        self._made.append(self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        for role, namespace in self.namespaces.items():
            _ip("netns", "add", namespace)
            self._made.append(namespace)
            inside, outside = f"v{self.token}{role}0", f"v{self.token}{role}1"
            _ip("link", "add", inside, "type", "veth", "peer", "name", outside)
            _ip("link", "set", inside, "netns", namespace)
            _ip("link", "set", outside, "netns", self.switch)
            _ip("-n", namespace, "addr", "add", f"{self.address[role]}/24", "dev", inside)
            _ip("-n", namespace, "link", "set", inside, "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
            _ip("-n", self.switch, "link", "set", outside, "master", "br0")
            _ip("-n", self.switch, "link", "set", outside, "up")

    def run(self, role: str, *command: str, **kwargs) -> subprocess.CompletedProcess:
        """A command on one host (in its namespace), with the cluster's environment."""
        kwargs.setdefault("env", self.env)
        return subprocess.run(["ip", "netns", "exec", self.namespaces[role], *command], **kwargs)

    def popen(self, role: str, *command: str, **kwargs) -> subprocess.Popen:
        kwargs.setdefault("env", self.env)
        return subprocess.Popen(["ip", "netns", "exec", self.namespaces[role], *command], **kwargs)

    def start(self) -> NamespaceCluster:
        try:
            self._network()
            common = ["--disable-usage-stats", "--object-store-memory=100000000"]
            self.run(
                "h", self.ray, "start", "--head", f"--node-ip-address={self.address['h']}", "--port=6379",
                "--num-cpus=0", "--include-dashboard=false", f"--temp-dir={self.temp}", *common,
                check=True, capture_output=True, timeout=180,
            )  # fmt: skip
            for role in ("a", "b"):
                here = f"--node-ip-address={self.address[role]}"
                self.run(
                    role, self.ray, "start", f"--address={self.head}", here, "--num-cpus=2", *common,
                    check=True, capture_output=True, timeout=180,
                )  # fmt: skip
        except BaseException:
            self.close()
            raise
        return self

    def serve(self) -> str:
        """Start the counting server on the head; its base URL."""
        server = Path(__file__).with_name("cluster_server.py")
        host = self.address["h"]
        process = self.popen("h", sys.executable, str(server), host, stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        return f"http://{self.address['h']}:{int(process.stdout.readline())}/v1"

    def server_counts(self, url: str) -> dict[str, int]:
        """Requests per client address, asked from inside the head's namespace."""
        fetch = f"import urllib.request; print(urllib.request.urlopen('{url}/stats').read().decode())"
        done = self.run(
            "h", sys.executable, "-c", fetch, capture_output=True, text=True, timeout=30, check=True
        )

        return json.loads(done.stdout)

    def kill(self, role: str) -> int:
        """SIGKILL every process of one host, as if it lost power; how many there were."""
        listed = subprocess.run(
            ["ip", "netns", "pids", self.namespaces[role]], capture_output=True, text=True
        )
        pids = listed.stdout.split()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        return len(pids)

    def close(self) -> None:
        for role, namespace in self.namespaces.items():
            if namespace in self._made:
                self.kill(role)
        time.sleep(0.5)
        for namespace in reversed(self._made):
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
        self._made.clear()
        shutil.rmtree(self.temp, ignore_errors=True)
