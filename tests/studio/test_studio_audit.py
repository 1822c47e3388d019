"""The studio audit (benchmarks/studio_audit.py) as a test: malformed and oversize bodies,
damaged logs, links of another studio, expired, tampered and revoked links, a participant asking
for another sample's frames or the video outside their window: each answered as it should be
(a 4xx, or a 200 naming the damaged line), none a 500, nothing served that should not be."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from studio_audit import audit


def test_every_attack_of_the_audit_is_refused_and_none_is_a_500(tmp_path):
    rows = audit(tmp_path)
    failed = [row for row in rows if not row.ok]
    assert not failed, "\n".join(
        f"{row.group}: {row.what}: expected {row.expected}, got {row.got}" for row in failed
    )
    groups = {row.group for row in rows}
    assert groups == {
        "malformed bodies",
        "oversize bodies",
        "corrupt logs",
        "tokens and sessions",
        "what a participant is sent",
    }
    assert len(rows) >= 40
