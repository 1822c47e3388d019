"""Serving a studio with uvicorn on one socket (port 0 picks a free port)."""

from __future__ import annotations

import socket
from collections.abc import Callable

from vqakit.studio._app import create_app
from vqakit.studio._people import Person
from vqakit.studio._studio import Studio, StudioSettings


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    return sock


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
        studio.allowed_hosts = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    app = create_app(studio)
    shown = f"[{settings.host}]" if ":" in settings.host else settings.host
    if on_ready is not None:
        on_ready(f"http://{shown}:{port}/", studio.links(port))
    config = uvicorn.Config(
        app, log_level=log_level, access_log=False, lifespan="off", timeout_graceful_shutdown=3
    )
    uvicorn.Server(config).run(sockets=[sock])
