"""Compiled page templates kept in the cache folder, so that a process that writes a report does
not compile its Jinja2 templates again (about 0.1 s of CPU each time, the largest part of a
re-run answered from the caches).

Compiled templates are Python code that the process loads, so the folder is used only where no
one else can write to it: it is created private (0700) and used only while it belongs to this
user and no group or other user may write to it; otherwise templates are compiled as before.
Each environment gets a folder of its own, named by its settings and the versions of vqakit and
Jinja2, so a template compiled under other settings is never loaded (Jinja2 itself checks the
template's source and the Python version).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import jinja2

from vqakit.files._cache import cache_folder


def _private(folder: Path) -> bool:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return False
    owner = getattr(os, "getuid", None)
    if owner is not None and info.st_uid != owner():
        return False
    return stat.S_ISDIR(info.st_mode) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def template_cache(name: str, *settings: object) -> jinja2.BytecodeCache | None:
    """A bytecode cache for the Jinja2 environment `name` configured with `settings` (anything
    that changes how its templates compile), or None where the cache folder is not private."""
    from vqakit import __version__

    label = repr((name, settings, __version__, jinja2.__version__))
    folder = cache_folder() / "templates" / f"{name}-{hashlib.sha256(label.encode()).hexdigest()[:16]}"
    if not (_private(folder.parent) and _private(folder)):
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))
