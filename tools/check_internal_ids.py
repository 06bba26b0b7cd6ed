"""Count the repository-internal ids that public docstrings cite, per module.

Users read docstrings in ``help()`` and on the documentation site, where "seed 001 section 7.3.1", "decision 7",
"spec 4.4" or "D12" mean nothing: a docstring should cite the paper (author, year, section) and a design note by its
file (``docs/decisions/...``). This script lists what is left to rewrite; it changes nothing.

    python tools/check_internal_ids.py              # counts per module, most first
    python tools/check_internal_ids.py --show       # and every hit, with the object it is in
    python tools/check_internal_ids.py --check      # exit status 1 when any public docstring cites one

``tests/test_docs.py`` runs the same scan, so a new internal id in a public docstring fails the suite.

Public docstrings: every name in a public subpackage's ``__all__``, and for classes their public methods and
properties defined in pgmpy-ext, plus the subpackages' own docstrings. A path such as
``docs/decisions/seed000-sbn-cem-nbm.md`` is a link, not an id, and is not counted.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What counts as an internal id (case-sensitive where the id is; paths are removed first).
PATTERNS = {
    "seed": re.compile(r"\bseed\s?00\d\b", re.I),
    "decision": re.compile(r"\bdecisions?\s+(?:D?\d+|[A-Z]\.\d+)", re.I),
    "spec": re.compile(r"\bspecs?\s+(?:section\s+)?\d+(?:\.\d+)*", re.I),
    "D-id": re.compile(r"\bD\d{1,2}\b"),
    "appendix-id": re.compile(r"\b[AB]\.\d+(?:-\d+)?\b"),
    "Cython target": re.compile(r"\bCython target \d+"),
}
PATH = re.compile(r"[\w./-]*docs/decisions/[\w./-]+|[\w./-]*\.md\b")


def public_objects():
    """(qualified name, defining module, docstring) of every public docstring."""
    import pgmpy_ext

    seen: set[int] = set()
    packages = [m.name for m in pkgutil.iter_modules(pgmpy_ext.__path__) if not m.name.startswith("_")]
    for package in packages:
        module = importlib.import_module(f"pgmpy_ext.{package}")
        yield f"pgmpy_ext.{package}", module.__name__, inspect.getdoc(module) or ""
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if id(obj) in seen or not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue
            seen.add(id(obj))
            home = getattr(obj, "__module__", module.__name__) or module.__name__
            yield f"pgmpy_ext.{package}.{name}", home, inspect.getdoc(obj) or ""
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    doc = inspect.getdoc(value) if not isinstance(value, property) else inspect.getdoc(value.fget)
                    if doc:
                        yield f"pgmpy_ext.{package}.{name}.{attr}", home, doc


def hits(doc: str) -> list[tuple[str, str]]:
    text = PATH.sub(" ", doc)
    found = []
    for kind, pattern in PATTERNS.items():
        found += [(kind, match.group(0)) for match in pattern.finditer(text)]
    return found


def scan() -> list[tuple[str, str, str, str]]:
    """(qualified name, defining module, kind, matched text) of every internal id in a public docstring."""
    return [(qualname, home, kind, text) for qualname, home, doc in public_objects() for kind, text in hits(doc)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", action="store_true", help="print every hit")
    parser.add_argument("--check", action="store_true", help="exit with status 1 when there is any hit")
    args = parser.parse_args(argv)
    per_module: collections.Counter[str] = collections.Counter()
    per_kind: collections.Counter[str] = collections.Counter()
    shown = []
    n_docstrings = 0
    for qualname, home, doc in public_objects():
        n_docstrings += 1
        for kind, text in hits(doc):
            per_module[home] += 1
            per_kind[kind] += 1
            shown.append(f"  {qualname}: {text!r}")
    for module, count in per_module.most_common():
        print(f"{count:5d}  {module}")
    print(f"{sum(per_module.values()):5d}  total internal ids in {n_docstrings} public docstrings "
          f"({len(per_module)} modules); by kind: {dict(per_kind.most_common())}")
    if args.show:
        print("\n".join(shown))
    return 1 if args.check and shown else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
