"""Where this machine's caches live."""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder() -> Path:
    """`$VQAKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/vqakit` (`~/.cache/vqakit`): the folder of the
    response cache and the frame store, shared by every run of this machine (or of a cluster,
    when it is on a filesystem every host sees)."""
    root = os.environ.get("VQAKIT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "vqakit"
    )
    return Path(root)
