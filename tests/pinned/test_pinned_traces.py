"""Every EM-type learner reproduces the traces recorded at the branch point of the iterative-fit driver.

The cases (``tests/pinned/cases.py``) are small fixed-seed fits; ``traces.json`` holds what they gave at commit
2a19a5f, before the learners moved onto the one driver (``pgmpy_ext.utils.iterate``), the one random start and the one
restart runner. Floats are compared to 1e-12 relative (the same arithmetic in the same order gives the same bits;
the tolerance only allows for a summation reordered by the move), everything else exactly.
"""

from __future__ import annotations

import json
import math

import pytest

from tests.pinned.cases import CASES, PINS

RECORDED = json.loads(PINS.read_text())


def _compare(got, want, path="") -> list[str]:
    if isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            return [f"{path}: keys {sorted(got) if isinstance(got, dict) else type(got)} != {sorted(want)}"]
        return [m for k in want for m in _compare(got[k], want[k], f"{path}.{k}")]
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: length {len(got) if isinstance(got, list) else type(got)} != {len(want)}"]
        return [m for i, (g, w) in enumerate(zip(got, want)) for m in _compare(g, w, f"{path}[{i}]")][:5]
    if isinstance(want, float) and not isinstance(want, bool):
        if not (math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300) or (math.isnan(got) and math.isnan(want))):
            return [f"{path}: {got!r} != {want!r}"]
        return []
    return [] if got == want else [f"{path}: {got!r} != {want!r}"]


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_trace_unchanged(name):
    problems = _compare(CASES[name](), RECORDED[name], name)
    assert not problems, "\n".join(problems)


def test_the_comparison_can_fail():
    assert _compare({"a": [1.0, 2.0]}, {"a": [1.0, 2.0 + 1e-9]})
    assert _compare({"n": 3}, {"n": 4})
    assert not _compare({"a": [1.0, {"b": True}]}, {"a": [1.0, {"b": True}]})
