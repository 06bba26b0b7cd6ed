"""The gallery (``pgmpy-ext gallery`` / ``make gallery``) draws every figure on built-in data and lists it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from pgmpy_ext._gallery import FIGURES, make_gallery  # noqa: E402
from pgmpy_ext.cli import main  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_every_figure_is_drawn_and_listed(tmp_path):
    md = tmp_path / "gallery.md"
    paths = make_gallery(tmp_path / "png", md, out=lambda *a: None)
    assert [p.stem for p in paths] == list(FIGURES)
    for p in paths:
        assert p.read_bytes()[:8] == PNG_MAGIC
        assert p.stat().st_size > 5_000  # a real picture, not an empty canvas
    text = md.read_text()
    for name in FIGURES:
        assert f"![{name}](png/{name}.png)" in text


def test_cli_gallery_one_figure_and_unknown_names(tmp_path, capsys):
    assert main(["gallery", "--output-dir", str(tmp_path), "--markdown", str(tmp_path / "g.md"), "sbn_monitor"]) == 0
    assert (tmp_path / "sbn_monitor.png").exists()
    assert "wrote" in capsys.readouterr().out
    with pytest.raises(ValueError, match=r"unknown figure\(s\) \['nope'\]"):
        make_gallery(tmp_path, None, names=["nope"])
