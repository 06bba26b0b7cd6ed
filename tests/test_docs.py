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
