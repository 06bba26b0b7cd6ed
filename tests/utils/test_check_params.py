"""The one parameter check (``check_params``) and its constraints: numpy scalars pass, NaN / wrong strings / bools
for numbers / out-of-range values get one clear message naming the parameter, the value and what is allowed."""

from __future__ import annotations

import numbers

import numpy as np
import pytest

from pgmpy_ext.utils import ANY, Interval, Options, check_option, check_params


class _Est:
    _parameter_constraints = {
        "n": [Interval(numbers.Integral, 1, None)],
        "alpha": [Interval(numbers.Real, 0, None)],
        "rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "penalty": [None, Interval(numbers.Real, 0, None, allow_inf=True)],
        "mode": [Options("a", "b")],
        "steps": [Options("converge"), Interval(numbers.Integral, 0, None)],
        "flag": ["boolean"],
        "seed": ["random_state"],
        "n_jobs": ["n_jobs"],
        "order": [None, "array-like"],
        "label": [ANY],
    }

    def __init__(self, **kw):
        self.__dict__.update({"n": 2, "alpha": 1.0, "rate": 0.5, "penalty": None, "mode": "a", "steps": 1,
                              "flag": False, "seed": None, "n_jobs": None, "order": None, "label": object()})
        self.__dict__.update(kw)


@pytest.mark.parametrize("kw", [
    {"n": np.int64(2)}, {"n": np.int32(5)}, {"alpha": np.float64(0.5)}, {"alpha": 0}, {"rate": np.float32(0.2)},
    {"penalty": float("inf")}, {"penalty": np.float64(3.0)}, {"mode": np.str_("b")}, {"steps": "converge"},
    {"steps": np.int64(0)}, {"flag": np.bool_(True)}, {"seed": np.int64(3)}, {"seed": np.random.default_rng(0)},
    {"n_jobs": -1}, {"n_jobs": np.int64(2)}, {"order": ["x", "y"]}, {"order": np.array([1, 0])},
], ids=lambda kw: next(iter(kw)) + "-" + type(next(iter(kw.values()))).__name__)
def test_valid_values_pass(kw):
    check_params(_Est(**kw), params=_Est(**kw).__dict__)


@pytest.mark.parametrize(("kw", "error", "match"), [
    ({"n": 0}, ValueError, r"n == 0, must be >= 1"),
    ({"n": 2.0}, TypeError, r"n == 2.0, must be an int >= 1\."),
    ({"n": True}, TypeError, r"n == True, must be an int >= 1\."),
    ({"n": "2"}, TypeError, r"n == '2', must be an int >= 1\."),
    ({"alpha": float("nan")}, ValueError, r"alpha == nan, must be a finite number >= 0\."),
    ({"alpha": np.float64("inf")}, ValueError, r"alpha == inf, must be a finite number >= 0\."),
    ({"alpha": -1.0}, ValueError, r"alpha == -1.0, must be >= 0"),
    ({"rate": 1.0}, ValueError, r"rate == 1.0, must be < 1"),
    ({"penalty": -2.0}, ValueError, r"penalty == -2.0, must be None or a number >= 0\."),
    ({"penalty": float("nan")}, ValueError, r"penalty == nan, must be None or a number >= 0\."),
    ({"mode": "c"}, ValueError, r"mode == 'c', must be one of \('a', 'b'\)\."),
    ({"steps": "forever"}, ValueError, r"steps == 'forever', must be one of \('converge',\) or an int >= 0\."),
    ({"steps": -1}, ValueError, r"steps == -1, must be one of \('converge',\) or an int >= 0\."),
    ({"flag": "no"}, TypeError, r"flag == 'no', must be a bool \(True or False\)\."),
    ({"flag": 1}, TypeError, r"flag == 1, must be a bool"),
    ({"seed": "seed"}, TypeError, r"seed == 'seed', must be None, an int >= 0 or a numpy Generator\."),
    ({"seed": np.random.RandomState(0)}, TypeError, r"seed == RandomState"),
    ({"n_jobs": 0}, TypeError, r"n_jobs == 0, must be None or a non-zero int"),
    ({"order": "abc"}, TypeError, r"order == 'abc', must be None or an array-like"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 12 else None)
def test_invalid_values_name_parameter_value_and_what_is_allowed(kw, error, match):
    est = _Est(**kw)
    with pytest.raises(error, match=match):
        check_params(est, params=est.__dict__)


def test_only_parameters_in_the_table_are_checked():
    check_params(_Est(), params={"unknown": object()})


def test_check_option_accepts_numpy_strings_and_never_a_bool_for_a_number():
    assert check_option(np.str_("a"), "x", ("a", "b")) == "a"
    with pytest.raises(ValueError, match=r"x == True, must be one of \(1, 2\)"):
        check_option(True, "x", (1, 2))
    with pytest.raises(ValueError, match=r"x == array\(\[1\]\)"):
        check_option(np.array([1]), "x", (1, 2))
