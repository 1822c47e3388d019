"""What CI's machine has that a developer's may not (tmux, iproute2, root): `.ci/run` installs
it, so there a test that finds it missing fails instead of skipping quietly."""

from __future__ import annotations

import os

import pytest

ALLOW_SKIP = "VQAKIT_ALLOW_SKIP_SYSTEM"


def require_system(missing: str | None) -> None:
    """Fail a test whose machine lacks what CI provides (`.ci/run` installs it: tmux, iproute2,
    root); with VQAKIT_ALLOW_SKIP_SYSTEM=1 it skips instead, for machines that cannot have it."""
    if missing is None:
        return
    if os.environ.get(ALLOW_SKIP):
        pytest.skip(missing)
    pytest.fail(f"{missing}; set {ALLOW_SKIP}=1 to skip this test instead", pytrace=False)
