"""The package's layers, checked by parsing every module with ``ast`` (nothing is imported).

Layers, lowest first (a module may import its own package, any lower layer, and a sibling package of its own
layer through public names only)::

    0  data, utils, _compat, datasets, io, preprocessing      (and the package root, pgmpy_ext/__init__.py)
    1  stats                                                   (the only importer of pgmpy_ext._core)
    2  models, scores, dask
    3  parameters
    4  structure
    5  classifiers
    6  clustering, ensembles, maps, popgen
    7  evaluation
    8  experiments
    9  cli, _demo

``dask`` (the optional Dask layer) imports only data, utils and stats, and never pgmpy: its task functions run
on workers that must not load pgmpy. It sits in layer 2, below the classifiers and clusterers, so that their
``fit``/``predict`` can hand a dask DataFrame to it (a dispatch that imports dask only when given dask data).
``datasets`` (imports utils), ``io`` (imports _compat) and ``preprocessing`` (imports nothing of ours) sit in the
lowest layer their code allows. Three rules, each violation reported as ``file:line``:

(a) no import of a higher layer;
(b) no import of a private name of another package: a module path component or an imported name starting with
    ``_`` after the package (``pgmpy_ext.stats._cem``, ``from pgmpy_ext.stats import _helper``); export it from the
    package's ``__init__`` instead;
(c) ``pgmpy_ext._core`` (the compiled kernels) is imported only by ``pgmpy_ext.stats``.

``_compat``, ``_core`` and ``_demo`` are top-level modules, not private parts of a package: importing
``pgmpy_ext._compat`` is allowed everywhere (rule (c) governs ``_core``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "pgmpy_ext"

#: Top-level unit of pgmpy_ext -> layer number (lowest first). ``""`` is the package root (``pgmpy_ext/__init__``).
LAYERS: dict[str, int] = {
    "": 0, "data": 0, "utils": 0, "_compat": 0, "datasets": 0, "io": 0, "preprocessing": 0,
    "stats": 1,
    "dask": 2,
    "models": 2, "scores": 2,
    "parameters": 3,
    "structure": 4,
    "classifiers": 5, "tree": 5,
    "clustering": 6, "ensembles": 6, "maps": 6, "popgen": 6, "biclustering": 6,
    "evaluation": 7,
    "experiments": 8,
    "cli": 9, "_demo": 9, "_gallery": 9,
}
KERNELS = "_core"
KERNEL_USERS = {"stats"}


def _statement(node: ast.AST, module_parts: tuple[str, ...], is_package: bool) -> list[tuple[tuple[str, ...], list]]:
    """What an import statement takes from ``pgmpy_ext``: ``[(module path below pgmpy_ext, imported names)]``.

    ``import pgmpy_ext.x.y`` gives ``[(("x", "y"), [])]``; ``from pgmpy_ext.x import y, z`` gives
    ``[(("x",), ["y", "z"])]`` (each name may be a submodule or an attribute). Relative imports are resolved
    against the importing module.
    """
    if isinstance(node, ast.Import):
        return [(tuple(a.name.split(".")[1:]), []) for a in node.names if a.name.split(".")[0] == "pgmpy_ext"]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        package = list(module_parts if is_package else module_parts[:-1])
        if node.level - 1 > len(package):
            return []
        base = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
    else:
        parts = (node.module or "").split(".")
        if parts[0] != "pgmpy_ext":
            return []
        base = parts[1:]
    names = [a.name for a in node.names if a.name != "*"]
    if not base:  # ``from pgmpy_ext import x, y``: each x is a top-level unit or a name of the root
        return [((n,), []) if n in LAYERS or n == KERNELS else ((), [n]) for n in names]
    return [(tuple(base), names)]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def check_source(source: str, module_parts: tuple[str, ...], *, is_package: bool = False,
                 filename: str = "<string>") -> list[str]:
    """The layer violations of one module's source, one line per import statement and rule.

    ``module_parts`` is the module's dotted path below ``pgmpy_ext`` (``("clustering", "_cem")``).
    """
    unit = module_parts[0] if module_parts else ""
    if unit == KERNELS:
        return []
    if unit not in LAYERS:
        return [f"{filename}:1: package {unit!r} has no layer; add it to LAYERS in tests/test_layers.py "
                "(and to the layers table in docs/development.md)"]
    layer, me = LAYERS[unit], unit or "pgmpy_ext"
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        for path, names in _statement(node, module_parts, is_package):
            tunit = path[0] if path else ""
            where = f"{filename}:{node.lineno}"
            dotted = ".".join(("pgmpy_ext", *path))
            what = f"'from {dotted} import {', '.join(names)}'" if names else f"'import {dotted}'"
            if tunit == KERNELS:
                if unit not in KERNEL_USERS:
                    found.append(f"{where}: {me} imports {what}: only pgmpy_ext.stats may import the kernels; "
                                 "call the wrapper exported by pgmpy_ext.stats (rule c)")
                continue
            if tunit == unit:
                continue
            if tunit not in LAYERS:
                found.append(f"{where}: {me} imports {what}, whose package {tunit!r} has no layer (rule a)")
                continue
            if LAYERS[tunit] > layer:
                found.append(f"{where}: {me} (layer {layer}) imports {what} from the higher layer "
                             f"{LAYERS[tunit]} ({tunit}) (rule a)")
            if any(_private(p) for p in path[1:]) or any(_private(n) for n in names):
                found.append(f"{where}: {me} imports {what}, private to package {tunit}; export it from "
                             f"pgmpy_ext/{tunit}/__init__.py and import it from pgmpy_ext.{tunit} (rule b)")
    return found


def package_modules() -> list[tuple[Path, tuple[str, ...], bool]]:
    """(file, dotted path below pgmpy_ext, is a package __init__) for every .py file of pgmpy_ext."""
    out = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        rel = path.relative_to(PACKAGE_DIR).with_suffix("")
        is_package = rel.name == "__init__"
        parts = rel.parts[:-1] if is_package else rel.parts
        out.append((path, tuple(parts), is_package))
    return out


def all_violations() -> list[str]:
    root = PACKAGE_DIR.parent
    found = []
    for path, parts, is_package in package_modules():
        found += check_source(path.read_text(encoding="utf-8"), parts, is_package=is_package,
                              filename=str(path.relative_to(root)))
    return found


def test_the_package_respects_its_layers():
    found = all_violations()
    assert not found, f"{len(found)} layer violation(s):\n" + "\n".join(found)


def test_every_package_has_a_layer():
    units = {parts[0] for _, parts, _ in package_modules() if parts} - {KERNELS}
    assert units <= set(LAYERS), f"packages without a layer: {sorted(units - set(LAYERS))}"
    assert "stats" in units
    assert "evaluation" in units


# ---------------------------------------------------------------------------------------------- the checker itself
@pytest.mark.parametrize(("source", "module", "expected"), [
    ("from pgmpy_ext.classifiers import TANClassifier", ("structure", "_x"), "higher layer 5 (classifiers) (rule a)"),
    ("import pgmpy_ext.evaluation", ("models",), "higher layer 7 (evaluation) (rule a)"),
    ("from pgmpy_ext.stats._cem import m_step", ("clustering", "_x"), "_cem import m_step', private to package stats"),
    ("from pgmpy_ext.stats import _helper", ("clustering", "_x"), "import _helper', private to package stats"),
    ("from pgmpy_ext.utils._math import LOG_TINY", ("data", "_x"), "_math import LOG_TINY', private to package utils"),
    ("from pgmpy_ext._core import _tm", ("parameters", "_tm"), "only pgmpy_ext.stats may import the kernels"),
    ("import pgmpy_ext._core._tm", ("classifiers",), "only pgmpy_ext.stats may import the kernels"),
    ("from ...classifiers import NaiveBayesClassifier", ("structure", "sub", "_x"), "'from pgmpy_ext.classifiers "),
    ("from ..stats._cem import m_step", ("clustering", "_x"), "_cem import m_step', private to package stats"),
    ("from pgmpy_ext.ensembles import Bench", ("clustering", "_x"), None),
    ("from pgmpy_ext.stats import pairwise_counts", ("clustering", "_x"), None),
    ("from pgmpy_ext.clustering._engine import MStep", ("clustering", "_cem"), None),
    ("from . import _engine", ("clustering",), None),
    ("from pgmpy_ext._core import _tm", ("stats", "_tm"), None),
    ("from pgmpy_ext import _compat, __version__", ("evaluation", "_cv"), None),
    ("from pgmpy_ext.models import BatchPosterior", ("evaluation", "_metrics"), None),
], ids=["upward-from", "upward-import", "private-module", "private-name", "private-same-layer", "kernel-from",
        "kernel-import", "relative-upward", "relative-private", "sibling-public", "downward-public",
        "own-private", "own-relative", "stats-kernels", "root-and-compat", "evaluation-models"])
def test_check_source_flags_exactly_the_violations(source, module, expected):
    found = check_source(source, module, is_package=module[-1:] == ("clustering",))
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1, found
        assert expected in found[0], found


def test_check_source_reports_file_and_line():
    found = check_source("import numpy\n\nfrom pgmpy_ext.cli import main\n", ("stats", "_x"), filename="a/b.py")
    assert found
    assert found[0].startswith("a/b.py:3: ")


def test_a_package_without_a_layer_is_reported():
    found = check_source("x = 1\n", ("newpackage", "_x"), filename="pgmpy_ext/newpackage/_x.py")
    assert found
    assert "has no layer" in found[0]
