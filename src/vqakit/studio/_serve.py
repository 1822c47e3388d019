"""Serving a studio with uvicorn on one socket (port 0 picks a free port)."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vqakit.studio._app import create_app
from vqakit.studio._people import Person
from vqakit.studio._studio import Studio, StudioSettings

KEEP_ALIVE_S = 30  # an idle connection is kept this long (uvicorn's 5 s races a page's next request)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    return sock


def shown_host(host: str) -> str:
    """`host` as it is written in an address (an IPv6 address in brackets, in its short form)."""
    bare = host.strip("[]")
    try:
        bare = ipaddress.ip_address(bare).compressed
    except ValueError:
        return bare
    return f"[{bare}]" if ":" in bare else bare


def loopback_hosts(host: str, port: int) -> set[str]:
    """The Host headers a studio bound to the loopback address `host` answers: the address it
    is bound to (127.0.0.2 is loopback too) and the usual names of loopback."""
    return {f"{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]", shown_host(host))}


def serve(
    settings: StudioSettings,
    *,
    on_ready: Callable[[str, list[tuple[Person, str]]], None] | None = None,
    log_level: str = "warning",
) -> None:
    """Open the folders, listen, call `on_ready(address, [(person, link)])`, serve until
    interrupted. Raises StudioError (a folder it cannot serve, people missing on a non-loopback
    host) or OSError (the port is taken) before listening."""
    import uvicorn

    studio = Studio(settings)
    sock = _listen(settings.host, settings.port)
    port = sock.getsockname()[1]
    settings.port = port
    if studio.loopback:
        studio.allowed_hosts = loopback_hosts(settings.host, port)
    app = create_app(studio)
    if on_ready is not None:
        on_ready(f"http://{shown_host(settings.host)}:{port}/", studio.links(port))
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=3,
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    uvicorn.Server(config).run(sockets=[sock])


@dataclass
class Background:
    """A studio served from a thread of this process (`serve_in_background`)."""

    url: str
    port: int
    studio: Studio
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def serve_in_background(settings: StudioSettings, *, timeout_s: float = 20) -> Background:
    """Serve a studio on a loopback address from a thread (for notebooks, tests and the
    benchmarks): returns once it accepts requests; `stop()` ends it."""
    import uvicorn

    studio = Studio(settings)
    if not studio.loopback:
        raise ValueError("serve_in_background serves on a loopback address only")
    sock = _listen(settings.host, settings.port)
    port = sock.getsockname()[1]
    settings.port = port
    studio.allowed_hosts = loopback_hosts(settings.host, port)
    config = uvicorn.Config(
        create_app(studio),
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="vqakit-studio", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError("the studio did not start")
        time.sleep(0.01)
    return Background(f"http://{shown_host(settings.host)}:{port}", port, studio, server, thread)
