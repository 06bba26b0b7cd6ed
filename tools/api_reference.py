"""Write (or check) the API reference pages of the documentation site from every subpackage's ``__all__``.

    python tools/api_reference.py          # rewrite docs/site/api/*.rst
    python tools/api_reference.py --check  # exit 1 and list what is missing or stale

Each public subpackage of ``pgmpy_ext`` gets one page, ``docs/site/api/<name>.rst``, with an ``autosummary`` table
(one generated page per name) in the ``__all__`` order. ``tests/test_docs.py`` runs the check, so a name added to an
``__all__`` without a page fails the tests.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
API_DIR = ROOT / "docs" / "site" / "api"

#: The order of the reference, lowest layer last, the way a user meets the packages.
ORDER = [
    "pgmpy_ext", "classifiers", "parameters", "structure", "scores", "clustering", "popgen", "maps", "ensembles",
    "biclustering", "tree", "preprocessing", "data", "datasets", "io", "evaluation", "models", "dask", "stats",
    "utils", "experiments", "cli",
]


def public_packages() -> list[str]:
    """Every public subpackage of ``pgmpy_ext`` (plus the package itself), in reference order."""
    import pgmpy_ext

    found = ["pgmpy_ext"] + [m.name for m in pkgutil.iter_modules(pgmpy_ext.__path__) if not m.name.startswith("_")]
    missing = [name for name in found if name not in ORDER]
    return [name for name in ORDER if name in found] + sorted(missing)


def module_name(package: str) -> str:
    return package if package == "pgmpy_ext" else f"pgmpy_ext.{package}"


def public_names(package: str) -> list[str]:
    """The names of ``__all__`` (without dunders such as ``__version__``)."""
    module = importlib.import_module(module_name(package))
    return [name for name in getattr(module, "__all__", []) if not name.startswith("__")]


def render(package: str) -> str:
    mod_name = module_name(package)
    module = importlib.import_module(mod_name)
    summary = (inspect.getdoc(module) or "").strip().split("\n\n")[0].replace("\n", " ")
    title = f"``{mod_name}``"
    lines = [
        f".. This page is written by tools/api_reference.py from {mod_name}.__all__; do not edit by hand.",
        "",
        title,
        "=" * len(title),
        "",
        f".. currentmodule:: {mod_name}",
        "",
    ]
    if summary:
        lines += [summary, ""]
    if package == "pgmpy_ext":
        # The top-level names are re-exports: list them where they are documented, so each has one page.
        lines = lines[:-2] if summary else lines
        lines += ["The package itself re-exports a few names; each is documented in its subpackage.", ""]
        for name in public_names(package):
            home = next(p for p in public_packages()[1:] if getattr(module, name) is _lookup(p, name))
            lines += [f".. currentmodule:: {module_name(home)}", "", ".. autosummary::", "", f"   {name}", ""]
        return "\n".join(lines)
    lines += [".. autosummary::", "   :toctree: ../generated/", ""]
    lines += [f"   {name}" for name in public_names(package)]
    return "\n".join(lines) + "\n"


def _lookup(package: str, name: str):
    module = importlib.import_module(module_name(package))
    return getattr(module, name, None) if name in getattr(module, "__all__", []) else None


def render_index(packages: list[str]) -> str:
    lines = [
        ".. This page is written by tools/api_reference.py; do not edit by hand.",
        "",
        "API reference",
        "=============",
        "",
        "Every public name of every subpackage (its ``__all__``), one page each. Estimators follow scikit-learn's",
        "conventions (``fit``, ``predict``, ``predict_proba``, fitted attributes ending in ``_``) and hold their pgmpy",
        "network in ``model_``.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    lines += [f"   {package}" for package in packages]
    return "\n".join(lines) + "\n"


def expected_pages() -> dict[Path, str]:
    packages = public_packages()
    pages = {API_DIR / f"{package}.rst": render(package) for package in packages}
    pages[API_DIR / "index.rst"] = render_index(packages)
    return pages


def check() -> list[str]:
    problems = []
    for path, text in expected_pages().items():
        if not path.exists():
            problems.append(f"{path.relative_to(ROOT)} is missing")
        elif path.read_text() != text:
            problems.append(f"{path.relative_to(ROOT)} is stale")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="report missing or stale pages instead of writing")
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        for problem in problems:
            print(problem)
        if problems:
            print("run: python tools/api_reference.py")
        return 1 if problems else 0
    API_DIR.mkdir(parents=True, exist_ok=True)
    for path, text in expected_pages().items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
