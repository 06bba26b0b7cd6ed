"""The README's three examples run as written, each on its own (in a temporary directory, offline), and print what
their comments say. The user guide's code is run by ``tests/test_guide.py``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_its_three_examples_and_two_commands():
    assert len(_blocks("python")) == 3
    commands = _blocks("bash")[0]
    assert commands.startswith("make demo")
    assert "\nmake test" in commands


# pgmpy_ext silences this pgmpy 1.1.2 import-time warning when it is imported, but pytest resets the filters per test.
@pytest.mark.filterwarnings("ignore:.*pgmpy.estimators.StructureScore.* is deprecated:FutureWarning")
@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_readme_python_block_runs_on_its_own(tmp_path, monkeypatch, capsys, index):
    code = _blocks("python")[index]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{README}:python block {index + 1}", "exec"), {"__name__": "__readme__"})  # a fresh namespace
    out = capsys.readouterr().out.splitlines()
    if index == 0:  # the SBN's forest, as the comment says, and the BIF round trip
        assert out[1] == "[('A0', 'A1'), ('A0', 'B0'), ('B0', 'B1')]"
        assert out[-1] == "True"
        assert (tmp_path / "corral_sbn.bif").exists()
    if index == 1:  # "close to 1: the grouping is recovered"
        assert float(out[0]) > 0.9
    if index == 2:
        assert "dysp" in out[0]


def test_readme_links_resolve():
    """Every relative link of the README names a file or folder of the repository."""
    targets = re.findall(r"\]\(((?!https?:)[^)#]+)\)", README.read_text())
    assert targets
    missing = [t for t in targets if not (README.parent / t).exists()]
    assert not missing, f"README links to missing paths: {missing}"
