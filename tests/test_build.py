"""Every compiled kernel module imports: a missing or stale build fails loudly here."""

import importlib
from pathlib import Path

import pytest

KERNELS = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "cython_core").glob("*.pyx"))


def test_kernel_sources_exist():
    assert "_counting" in KERNELS


@pytest.mark.parametrize("name", KERNELS)
def test_kernel_module_imports(name):
    mod = importlib.import_module(f"pgmpy_ext._core.{name}")
    assert mod.__name__ == f"pgmpy_ext._core.{name}"
