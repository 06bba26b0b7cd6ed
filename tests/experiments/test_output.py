"""Reproductions write their report where the user says: ``output`` (a file) or ``output_dir`` (a folder, default the
current directory), never into the source tree."""

from __future__ import annotations

import inspect

import pytest

from pgmpy_ext.experiments import REPRODUCTIONS
from pgmpy_ext.experiments import _seed000_table42 as t42
from pgmpy_ext.experiments._common import report_path

QUIET = {"log": lambda *a: None}
NOTHING_TO_RUN = {"quick": True, "datasets": ["Zoo"], **QUIET}   # Zoo is reported as not available: no fitting


@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_every_reproduction_takes_output_and_output_dir(name):
    params = inspect.signature(REPRODUCTIONS[name].run).parameters
    assert list(params)[0] == "output"
    assert params["output"].default is None
    assert params["output_dir"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["output_dir"].default is None


def test_output_dir_gets_the_named_report(tmp_path):
    path = t42.run(output_dir=tmp_path / "reports", **NOTHING_TO_RUN)
    assert path == tmp_path / "reports" / "seed000-table4.2.md"
    assert "Zoo" in path.read_text(encoding="utf-8")


def test_default_is_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = t42.run(**NOTHING_TO_RUN)
    assert path == tmp_path / "seed000-table4.2.md"
    assert path.is_file()


def test_output_file_wins_over_the_default_name(tmp_path):
    path = t42.run(tmp_path / "mine.md", **NOTHING_TO_RUN)
    assert path == tmp_path / "mine.md"
    assert path.is_file()
    assert not (tmp_path / "seed000-table4.2.md").exists()


def test_output_and_output_dir_together_fail_before_running(tmp_path):
    with pytest.raises(ValueError, match="not both"):
        t42.run(tmp_path / "a.md", output_dir=tmp_path, quick=True, log=pytest.fail)
    assert list(tmp_path.iterdir()) == []


def test_report_path():
    assert report_path(None, "x", "d").as_posix() == "d/x.md"
    assert report_path("f.md", "x").as_posix() == "f.md"
