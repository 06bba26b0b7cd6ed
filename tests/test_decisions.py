"""The design decisions the code cites live in the repository (``docs/decisions/``) and the citations resolve.

1. Every ``docs/decisions/<file>.md`` named in ``pgmpy_ext/`` (Python and the Cython sources in ``cython_core/``)
   exists.
2. In a docstring that names one or more decisions files, every decision id ``D<n>`` (also in ranges such as
   ``D4-D7``) is defined, as ``**D<n>`` (the form of the seed 000 decision list), in one of those files or in the
   file of a seed the docstring mentions (``seed 000 D5`` in a docstring about seed 001). Doctest lines
   (``>>>``, ``...``) and quoted names such as ``"D1"`` (a column called D1) are not citations.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DECISIONS = ROOT / "docs" / "decisions"
REFERENCE = re.compile(r"docs/decisions/([A-Za-z0-9_.-]+\.md)")
SEED = re.compile(r"\bseed\s+(\d{3})\b", re.IGNORECASE)  # prose ("seed 000"), not file names
CITED_ID = re.compile(r"(?<![\w\"'])D(\d+)(?:\s*[-\u2013]\s*D(\d+))?(?!\w)")


def _sources() -> list[Path]:
    return sorted((ROOT / "pgmpy_ext").rglob("*.py")) + sorted((ROOT / "cython_core").glob("*.pyx"))


def references(text: str) -> list[tuple[int, str]]:
    """(line, file name) of every ``docs/decisions/<file>.md`` in ``text``."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in REFERENCE.finditer(text)]


def cited_ids(docstring: str) -> set[int]:
    """Decision numbers ``n`` cited as ``D<n>`` (ranges expanded), doctest lines skipped."""
    ids: set[int] = set()
    for line in docstring.splitlines():
        if line.lstrip().startswith((">>>", "...")):
            continue
        for m in CITED_ID.finditer(line):
            lo = int(m.group(1))
            hi = int(m.group(2)) if m.group(2) else lo
            ids.update(range(lo, hi + 1) if hi >= lo else (lo, hi))
    return ids


def defined_ids(name: str) -> set[int]:
    """Decision numbers defined in ``docs/decisions/<name>`` (``**D<n>``)."""
    path = DECISIONS / name
    if not path.is_file():
        return set()
    return {int(n) for n in re.findall(r"\*\*D(\d+)\b", path.read_text(encoding="utf-8"))}


def docstring_problems(source: str, filename: str) -> list[str]:
    """Cited ``D<n>`` ids that no decisions file named in the same docstring (or of a seed it mentions) defines."""
    problems = []
    tree = ast.parse(source, filename=filename)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node, clean=False)
        if not doc:
            continue
        files = sorted({name for _, name in references(doc)})
        if not files:
            continue
        files += sorted({p.name for seed in set(SEED.findall(doc)) for p in DECISIONS.glob(f"seed{seed}*.md")}
                        - set(files))
        defined = set().union(*(defined_ids(f) for f in files))
        missing = sorted(cited_ids(doc) - defined)
        if missing:
            line = getattr(node, "lineno", 1)
            problems.append(f"{filename}:{line}: cites {', '.join(f'D{n}' for n in missing)}, which "
                            f"{' / '.join(files)} does not define")
    return problems


def test_decision_files_are_in_the_repository():
    assert (DECISIONS / "README.md").is_file()
    assert defined_ids("seed000-sbn-cem-nbm.md") == set(range(1, 27))  # D1..D26, the seed 000 decision list


def test_every_decisions_reference_resolves():
    broken = [f"{path.relative_to(ROOT)}:{line}: docs/decisions/{name} does not exist"
              for path in _sources() for line, name in references(path.read_text(encoding="utf-8"))
              if not (DECISIONS / name).is_file()]
    assert not broken, "\n".join(broken)


def test_every_cited_decision_id_exists():
    problems = []
    for path in _sources():
        if path.suffix == ".py":
            problems += docstring_problems(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------- the checkers
@pytest.mark.parametrize(("doc", "expected"), [
    ("decisions D1, D2, D4-D7, D9", {1, 2, 4, 5, 6, 7, 9}),
    ("(D13's option) and D11\u2013D12", {11, 12, 13}),
    ('>>> df = pd.DataFrame({"D1": c})\ncolumn "D2" and \'D3\'', set()),
    ("ADD3, D2x, CD4", set()),
], ids=["list-and-range", "possessive-en-dash", "doctest-and-quoted", "not-ids"])
def test_cited_ids(doc, expected):
    assert cited_ids(doc) == expected


def test_docstring_problems_flags_an_unknown_id():
    src = '"""Rule of ``docs/decisions/seed000-sbn-cem-nbm.md`` (D2, D99)."""\n'
    found = docstring_problems(src, "m.py")
    assert len(found) == 1
    assert "D99" in found[0]
    assert "D2," not in found[0]


def test_docstring_problems_flags_an_id_of_a_file_without_ids():
    src = 'def f():\n    """See ``docs/decisions/seed001-tm-classifiers.md`` decision D3."""\n'
    assert docstring_problems(src, "m.py") == ["m.py:1: cites D3, which seed001-tm-classifiers.md does not define"]


def test_docstring_problems_accepts_an_id_of_a_mentioned_seed():
    src = '"""As ``docs/decisions/seed001-tm-classifiers.md`` section 4.2, with the floor of seed 000 D5/D6."""\n'
    assert docstring_problems(src, "m.py") == []
    assert docstring_problems(src.replace("D6", "D60"), "m.py") != []


def test_docstring_without_a_decisions_file_is_not_checked():
    assert docstring_problems('"""Decision D99 of some other paper."""\n', "m.py") == []
