"""Methods are declared before they are registered (`declare_method`), so that a run imports only
the module of its method and listings need none: every declared module registers what it
declares, and every registered method is declared. A run of `direct` imports no system's method."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vqakit.methods import methods
from vqakit.methods._registry import _DECLARED


def in_fresh_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_registered_method_is_declared():
    assert set(methods()) == set(_DECLARED)


@pytest.mark.parametrize("module", sorted({declared.module for declared in _DECLARED.values()}))
def test_each_declared_module_registers_what_it_declares(module: str):
    names = sorted(name for name, declared in _DECLARED.items() if declared.module == module)
    found = in_fresh_python(
        f"import importlib; from vqakit.methods._registry import _METHODS\n"
        f"importlib.import_module({module!r}); print(sorted(_METHODS))"
    )
    assert set(names) <= set(eval(found))


def test_looking_up_direct_imports_no_method_of_a_system():
    found = in_fresh_python(
        "import sys; from vqakit.methods import get_method; get_method('direct')\n"
        "print(sorted(m for m in sys.modules if m.startswith('vqakit.systems.')))"
    )
    loaded = eval(found)
    methods_of_systems = {"rag", "baselines", "hints", "settings", "official", "videomme"}
    assert not {name.rsplit(".", 1)[1] for name in loaded} & methods_of_systems, loaded


def test_a_method_of_a_system_is_found_by_its_declaration():
    found = in_fresh_python(
        "import sys; from vqakit.methods import get_method; method = get_method('hints')\n"
        "print(method.name, 'vqakit.systems.egofact.rag' in sys.modules)"
    )
    assert found.split() == ["hints", "False"]
