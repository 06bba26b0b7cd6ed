"""Validation helpers with sklearn-style messages (what is wrong, what was expected, what was received).

:func:`check_params` is the one parameter check of every estimator: each states its constraints in one table, the
class attribute ``_parameter_constraints`` (``{parameter: [constraint, ...]}``, a value must satisfy one of its
constraints), and ``fit`` calls ``check_params(self)``. The constraints are :class:`Interval` (a number type and a
range, checked by scikit-learn's public ``check_scalar`` plus a finiteness and a not-a-bool test, so numpy scalars
pass and NaN does not), :class:`Options` (a fixed set of values, :func:`check_option`), ``None``, a class
(``isinstance``) and the names in :data:`CONSTRAINT_NAMES`. scikit-learn's own ``_param_validation`` is private and
changes between releases, so it is not used. Design note ``docs/decisions/issue24-one-vocabulary.md`` (D9).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable

import numpy as np

__all__ = ["ANY", "CONSTRAINT_NAMES", "Interval", "Options", "check_generator", "check_option", "check_params",
           "effective_n_threads"]


def check_option(value, name: str, options: Iterable):
    """Return ``value`` if it is one of ``options``, else raise a ValueError naming the valid options."""
    options = tuple(options)
    if not _is_option(value, options):
        raise ValueError(f"{name} == {_show(value)}, must be one of {options!r}.")
    return value


def _is_option(value, options: tuple) -> bool:
    """``value in options``, safe for arrays and unhashable values; a bool matches only a bool (True is not 1)."""
    if isinstance(value, np.ndarray):
        return False
    is_bool = isinstance(value, (bool, np.bool_))
    try:
        return any(value == o for o in options if isinstance(o, (bool, np.bool_)) == is_bool)
    except (TypeError, ValueError):
        return False


def _show(value) -> str:
    """``repr`` of a value for a message, numpy scalars as their Python value (``inf``, not ``np.float64(inf)``)."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 80 else text[:77] + "..."


class Interval:
    """A number of ``type`` (``numbers.Integral`` or ``numbers.Real``; never a bool) within ``[low, high]``.

    ``closed`` is scikit-learn's ``include_boundaries``: "both", "left", "right" or "neither" (None bounds are
    open). Real values must be finite unless ``allow_inf``; NaN is never inside.
    """

    def __init__(self, type, low=None, high=None, *, closed: str = "both", allow_inf: bool = False):  # noqa: A002
        self.type, self.low, self.high, self.closed, self.allow_inf = type, low, high, closed, allow_inf

    def _boundaries(self) -> str:
        left = self.closed in ("left", "both") and self.low is not None
        right = self.closed in ("right", "both") and self.high is not None
        return {(True, True): "both", (True, False): "left", (False, True): "right"}.get((left, right), "neither")

    def type_ok(self, value) -> bool:
        return isinstance(value, self.type) and not isinstance(value, (bool, np.bool_))

    def check(self, value, name: str) -> None:
        """Raise check_scalar's TypeError/ValueError (or ours for NaN and infinities) when ``value`` is outside."""
        from sklearn.utils import check_scalar

        if not self.type_ok(value):
            raise TypeError(f"{name} == {_show(value)}, must be {self.describe()}.")
        check_scalar(value, name, self.type, min_val=self.low, max_val=self.high,
                     include_boundaries=self._boundaries())
        if isinstance(value, numbers.Real) and not np.isfinite(float(value)) and not (
                self.allow_inf and not np.isnan(float(value))):
            raise ValueError(f"{name} == {_show(value)}, must be {self.describe()}.")

    def describe(self) -> str:
        kind = "an int" if self.type is numbers.Integral else "a finite number" if not self.allow_inf else "a number"
        lo = {"both": "[", "left": "[", "right": "(", "neither": "("}[self.closed]
        hi = {"both": "]", "right": "]", "left": ")", "neither": ")"}[self.closed]
        if self.low is not None and self.high is not None:
            return f"{kind} in {lo}{self.low}, {self.high}{hi}"
        if self.low is not None:
            return f"{kind} {'>=' if lo == '[' else '>'} {self.low}"
        if self.high is not None:
            return f"{kind} {'<=' if hi == ']' else '<'} {self.high}"
        return kind


class Options:
    """One of a fixed set of values (strings, usually): :func:`check_option`."""

    def __init__(self, *values):
        self.values = tuple(values[0]) if len(values) == 1 and isinstance(values[0], (tuple, list)) else values

    def type_ok(self, value) -> bool:
        return isinstance(value, tuple({type(v) for v in self.values}))

    def check(self, value, name: str) -> None:
        check_option(value, name, self.values)

    def describe(self) -> str:
        return f"one of {self.values!r}"


#: The named constraints: "boolean" (a Python or numpy bool), "random_state" (None, an int or a numpy
#: Generator/SeedSequence, as :func:`check_generator` takes), "n_jobs" (None or a non-zero int: joblib's count,
#: -1 all cores), "array-like" (a list, tuple or array, not a string), "callable", and :data:`ANY` (no constraint:
#: the option is checked where it is used, e.g. a column label).
CONSTRAINT_NAMES = ("boolean", "random_state", "n_jobs", "array-like", "callable", "any")
ANY = "any"


def _named_ok(kind: str, value) -> bool:
    if kind == "boolean":
        return isinstance(value, (bool, np.bool_))
    if kind == "random_state":
        return value is None or isinstance(value, (np.random.Generator, np.random.SeedSequence)) or (
            isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)) and int(value) >= 0)
    if kind == "n_jobs":
        return value is None or (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
                                 and int(value) != 0)
    if kind == "array-like":
        return not isinstance(value, (str, bytes, dict)) and (isinstance(value, (list, tuple, np.ndarray))
                                                             or hasattr(value, "__array__"))
    if kind == "callable":
        return callable(value)
    return True  # "any"


_NAMED_TEXT = {"boolean": "a bool (True or False)", "random_state": "None, an int >= 0 or a numpy Generator",
               "n_jobs": "None or a non-zero int (-1: all cores)", "array-like": "an array-like (list or array)",
               "callable": "a callable", "any": "anything"}


def _describe(c) -> str:
    if c is None:
        return "None"
    if isinstance(c, str):
        return _NAMED_TEXT[c]
    if isinstance(c, type):
        return f"an instance of {c.__name__}"
    return c.describe()


def _satisfies(c, value) -> bool:
    if c is None:
        return value is None
    if isinstance(c, str):
        return _named_ok(c, value)
    if isinstance(c, type):
        return isinstance(value, c)
    try:
        c.check(value, "_")
    except (TypeError, ValueError):
        return False
    return True


def check_params(estimator, constraints: dict | None = None, params: dict | None = None) -> None:
    """Check every parameter of ``estimator`` against its table of constraints (one clear error per problem).

    Parameters
    ----------
    estimator : object
        Usually ``self`` at the top of ``fit``.
    constraints : dict, optional
        ``{name: [constraint, ...]}``; default ``type(estimator)._parameter_constraints``. A value passes when it
        satisfies one constraint of its list.
    params : dict, optional
        ``{name: value}``; default ``estimator.get_params(deep=False)`` (or the attributes of that name).

    Raises
    ------
    ValueError
        A value of an accepted type out of its range or set (NaN included), naming the parameter, the value and
        what is allowed (scikit-learn's ``check_scalar`` wording: ``"alpha == -1.0, must be >= 0."``).
    TypeError
        A value of no accepted type (a string where a number or a bool is expected, a bool where a number is).

    Examples
    --------
    >>> class Est:
    ...     _parameter_constraints = {"alpha": [Interval(numbers.Real, 0, None)], "interleave": ["boolean"],
    ...                               "fixing_threshold": [None, Interval(numbers.Real, 0, 1, closed="left")]}
    ...     def __init__(self, alpha=1.0, interleave=False, fixing_threshold=None):
    ...         self.alpha, self.interleave, self.fixing_threshold = alpha, interleave, fixing_threshold
    >>> check_params(Est(alpha=np.float64(0.5), fixing_threshold=np.float32(0.3)))  # numpy scalars pass
    >>> check_params(Est(alpha=float("nan")))
    Traceback (most recent call last):
    ...
    ValueError: alpha == nan, must be a finite number >= 0.
    >>> check_params(Est(interleave="no"))
    Traceback (most recent call last):
    ...
    TypeError: interleave == 'no', must be a bool (True or False).
    >>> check_params(Est(fixing_threshold=1.0))
    Traceback (most recent call last):
    ...
    ValueError: fixing_threshold == 1.0, must be None or a finite number in [0, 1).
    """
    if constraints is None:
        constraints = type(estimator)._parameter_constraints
    if params is None:
        params = (estimator.get_params(deep=False) if hasattr(estimator, "get_params")
                  else {k: getattr(estimator, k) for k in constraints})
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        allowed = list(allowed)
        if any(_satisfies(c, value) for c in allowed):
            continue
        real = [c for c in allowed if c is not None and not isinstance(c, (str, type))]
        if len(allowed) == 1 and real:
            real[0].check(value, name)  # check_scalar's / check_option's own message
        text = " or ".join(_describe(c) for c in allowed)
        typed = [c for c in real if c.type_ok(value)] or [c for c in allowed if isinstance(c, type)
                                                          and isinstance(value, c)]
        if typed or (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
                     and any(isinstance(c, Interval) for c in allowed)):
            raise ValueError(f"{name} == {_show(value)}, must be {text}.")
        raise TypeError(f"{name} == {_show(value)}, must be {text}.")


def check_generator(random_state) -> np.random.Generator:
    """Turn None, an int, a SeedSequence or a Generator into a ``numpy.random.Generator``.

    sklearn's ``check_random_state`` rejects Generators, so pgmpy-ext uses this everywhere.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        raise TypeError("random_state is a legacy numpy RandomState; pass an int or a numpy Generator.")
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {type(random_state).__name__}.")


def effective_n_threads(n_jobs: int | None) -> int:
    """Threads for a kernel from an sklearn-style ``n_jobs`` (None -> 1, -1 -> all cores, -2 -> all but one)."""
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, int(n_jobs))


#: Rows a thread of a row-parallel pass must get before a second thread is started (below it the thread start-up
#: and the second core's cold caches cost about what the work saved: a classifier's 100k-row predict stays on one
#: thread, so n_jobs=2 is never slower there, and 1M-row passes use both cores).
MIN_ROWS_PER_THREAD = 65536


def threads_for_rows(n_jobs: int | None, n_rows: int, min_rows: int | None = None) -> int:
    """Threads for a pass over ``n_rows`` rows: :func:`effective_n_threads` of ``n_jobs``, but no more than one per
    ``min_rows`` rows (default :data:`MIN_ROWS_PER_THREAD`, read at call time) and at least 1. Results never
    depend on it (the kernels are bit-identical for every thread count); only whether a second core pays does.

    >>> threads_for_rows(2, 1_000_000, 32768), threads_for_rows(2, 40_000, 32768), threads_for_rows(-1, 10, 32768)
    (2, 1, 1)
    """
    min_rows = MIN_ROWS_PER_THREAD if min_rows is None else min_rows
    return max(1, min(effective_n_threads(n_jobs), int(n_rows) // max(int(min_rows), 1)))
