"""The documentation site (``docs/site``, built by ``make docs``): every public name has an API entry, and the site
builds with warnings as errors.

The API pages are written by ``tools/api_reference.py`` from every subpackage's ``__all__``; the first test reads
``__all__`` itself, so a name added without an entry fails here. The build test uses Sphinx's ``dummy`` builder:
it reads every page and docstring (autosummary, autodoc, numpydoc) and resolves every reference, which is where
the warnings come from, but writes no HTML and does not run the gallery's examples (about 20 s of CPU instead of
50 s for ``make docs``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "docs" / "site"
sys.path.insert(0, str(ROOT / "tools"))
import api_reference  # noqa: E402
import check_internal_ids  # noqa: E402

sys.path.remove(str(ROOT / "tools"))


def _autosummary_entries(page: Path) -> set[str]:
    """Names listed in the ``.. autosummary::`` blocks of an rst page."""
    entries: set[str] = set()
    inside = False
    for line in page.read_text().splitlines():
        if line.startswith(".. autosummary::"):
            inside = True
            continue
        if inside:
            if line.strip() == "" or line.lstrip().startswith(":"):
                continue
            if line.startswith("   "):
                entries.add(line.strip())
            else:
                inside = False
    return entries


@pytest.mark.parametrize("package", api_reference.public_packages())
def test_every_public_name_has_an_api_entry(package):
    module = importlib.import_module(api_reference.module_name(package))
    public = {name for name in module.__all__ if not name.startswith("__")}
    page = SITE / "api" / f"{package}.rst"
    assert page.exists(), f"{page.relative_to(ROOT)} is missing: run python tools/api_reference.py"
    missing = sorted(public - _autosummary_entries(page))
    assert not missing, f"{page.relative_to(ROOT)} lacks {missing}: run python tools/api_reference.py"


def test_every_package_page_is_in_the_api_index():
    index = (SITE / "api" / "index.rst").read_text()
    listed = set(re.findall(r"^   (\w+)$", index, flags=re.M))
    assert set(api_reference.public_packages()) <= listed


def test_api_pages_are_up_to_date():
    assert api_reference.check() == []


def test_the_entry_parser_sees_a_missing_name(tmp_path):
    page = tmp_path / "x.rst"
    page.write_text(".. autosummary::\n   :toctree: ../generated/\n\n   A\n   B\n\nText C\n")
    assert _autosummary_entries(page) == {"A", "B"}


def _python_blocks(page: Path) -> list[str]:
    blocks = re.findall(r"^\.\. code-block:: python\n\n((?:   .*\n|\n)+)", page.read_text(), flags=re.M)
    return ["\n".join(line[3:] for line in block.splitlines()) for block in blocks]


# pgmpy_ext silences this pgmpy 1.1.2 import-time warning when it is imported, but pytest resets the filters per test.
@pytest.mark.filterwarnings("ignore:.*pgmpy.estimators.StructureScore.* is deprecated:FutureWarning")
@pytest.mark.parametrize("index", range(3))
def test_getting_started_blocks_run(index, tmp_path, monkeypatch):
    blocks = _python_blocks(SITE / "getting_started.rst")
    assert len(blocks) == 3
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[index], f"getting_started.rst block {index}", "exec"), {"__name__": "__main__"})


def _missing_docs_packages() -> list[str]:
    return [name for name in ("sphinx", "numpydoc", "pydata_sphinx_theme", "matplotlib")
            if importlib.util.find_spec(name) is None]


def test_site_builds_without_warnings(tmp_path):
    missing = _missing_docs_packages()
    if missing:
        pytest.skip(f"the docs extra is not installed (missing {', '.join(missing)}): pip install -e '.[docs]'")
    # A copy of the site's sources beside links to what it reads, so that this build (gallery not executed) never
    # leaves its pages in docs/site for ``make docs`` to reuse.
    ignore = shutil.ignore_patterns("generated", "_generated_pages", "auto_examples", "sg_execution_times.rst")
    shutil.copytree(SITE, tmp_path / "docs" / "site", ignore=ignore)
    for link in ("docs/reproductions", "benchmarks", "pgmpy_ext"):
        (tmp_path / link).symlink_to(ROOT / link)
    extensions = "sphinx.ext.autodoc,sphinx.ext.autosummary,sphinx.ext.mathjax,numpydoc,sphinx_gallery.gen_gallery"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "dummy", "-d", str(tmp_path / "doctrees"),
           "-D", f"extensions={extensions}", "-D", "plot_gallery=0", str(tmp_path / "docs" / "site"),
           str(tmp_path / "out")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert result.returncode == 0, f"sphinx-build failed:\n{result.stderr[-6000:]}"
    assert (tmp_path / "docs" / "site" / "generated" / "pgmpy_ext.classifiers.TANClassifier.rst").exists()


# ---------------------------------------------------------------------------------------------- internal ids
def test_no_public_docstring_cites_an_internal_id():
    """Docstrings cite papers (author, year, section) and design notes by file, never "seed 001" or "D12"."""
    found = check_internal_ids.scan()
    shown = "\n".join(f"  {qualname}: {text!r}" for qualname, _, _, text in found[:40])
    assert not found, (f"{len(found)} internal ids in public docstrings (python tools/check_internal_ids.py --show):"
                       f"\n{shown}")


@pytest.mark.parametrize(("text", "kind"), [
    ("as in seed 001 section 7.3.1", "seed"),
    ("the thesis's rule (decision 7)", "decision"),
    ("see decisions D18", "decision"),
    ("the closed form of spec 4.4", "spec"),
    ("spec section 2.3", "spec"),
    ("ties go to the first class (D7)", "D-id"),
    ("the threshold of A.11-3", "appendix-id"),
    ("the score of B.2", "appendix-id"),
    ("Cython target 3", "Cython target"),
], ids=lambda v: v if len(v) < 20 else None)
def test_the_internal_id_checker_sees_each_kind(text, kind):
    assert kind in {k for k, _ in check_internal_ids.hits(f"Some words, {text}, more words.")}


def test_the_internal_id_checker_accepts_paper_and_file_citations():
    doc = ("Santafé (2007), section 7.3.1; Ruz's thesis, eqs. 3.6-3.7; ``docs/decisions/seed000-sbn-cem-nbm.md``\n"
           '("Ambiguities, errors and gaps"); ``docs/decisions/seed002-003-abn-pena.md``; columns "F1", "A0".')
    assert check_internal_ids.hits(doc) == []


def test_the_internal_id_checker_finds_a_planted_public_docstring(monkeypatch):
    import pgmpy_ext.utils

    def planted():
        """A helper whose docstring leans on an internal id (seed 001 decision 2)."""

    planted.__module__ = "pgmpy_ext.utils"
    monkeypatch.setattr(pgmpy_ext.utils, "planted", planted, raising=False)
    monkeypatch.setattr(pgmpy_ext.utils, "__all__", [*pgmpy_ext.utils.__all__, "planted"])
    found = {(qualname, text) for qualname, _, _, text in check_internal_ids.scan()}
    assert ("pgmpy_ext.utils.planted", "seed 001") in found
    assert ("pgmpy_ext.utils.planted", "decision 2") in found
