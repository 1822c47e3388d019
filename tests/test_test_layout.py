"""The tests have no packages (`__init__.py`): pytest imports each module under its file name, so
two test modules with one name stop the whole collection ("import file mismatch")."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_every_test_module_name_is_used_once():
    names = Counter(path.name for path in TESTS.rglob("*.py") if path.name != "conftest.py")
    assert [name for name, count in names.items() if count > 1] == []
