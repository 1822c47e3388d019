"""Placing media into a benchmark folder without duplicating bytes when the filesystem allows."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def link_or_copy(source: Path, target: Path) -> None:
    """Hard-link `source` at `target` (creating its folder), or copy it across filesystems."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
