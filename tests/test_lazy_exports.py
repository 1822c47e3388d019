"""Packages load their public names on first use (`vqakit.lazy`): every name a package lists in
`__all__` resolves, in a fresh interpreter, to the object its module defines; a wrong name is an
AttributeError; importing a package loads none of its modules."""

from __future__ import annotations

import subprocess
import sys

import pytest

PACKAGES = [
    "vqakit.builders",
    "vqakit.files",
    "vqakit.methods",
    "vqakit.models",
    "vqakit.report",
    "vqakit.retrieval",
    "vqakit.runner",
    "vqakit.runs",
    "vqakit.schema",
    "vqakit.scoring",
    "vqakit.studio",
    "vqakit.tables",
    "vqakit.video",
]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves(package: str):
    code = f"""
import importlib, sys
package = importlib.import_module({package!r})
assert not [m for m in sys.modules if m.startswith({package!r} + '._')], 'a module was loaded early'
missing = []
for name in package.__all__:
    try:
        value = getattr(package, name)
    except Exception as error:
        missing.append(f'{{name}}: {{type(error).__name__}}: {{error}}')
assert not missing, missing
assert set(package.__all__) <= set(dir(package))
try:
    package.no_such_name
except AttributeError:
    pass
else:
    raise AssertionError('no AttributeError')
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_name_is_kept_in_the_package_once_found():
    import vqakit.runs as runs

    first = runs.strip_path
    assert vars(runs)["strip_path"] is first is runs.strip_path
