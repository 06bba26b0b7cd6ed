"""The README quickstart runs as written (in a temporary directory, offline)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_quickstart_runs(tmp_path, monkeypatch, capsys):
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python block"
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}  # the blocks are one session, as a reader would run them
    for code in blocks:
        exec(compile(code, str(README), "exec"), namespace)
    out = capsys.readouterr().out
    assert "dysp" in out
    assert (tmp_path / "asia_sbn.xml").exists()
