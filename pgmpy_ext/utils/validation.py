"""Validation helpers with sklearn-style messages (what is wrong, what was expected, what was received)."""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np


def check_option(value, name: str, options: Iterable):
    """Return ``value`` if it is one of ``options``, else raise a ValueError naming the valid options."""
    options = tuple(options)
    if value not in options:
        raise ValueError(f"{name} == {value!r}, must be one of {options!r}.")
    return value


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
#: and the second core's cold caches cost more than the work saved: the 100k-row passes of a classifier's predict
#: stay near one-thread time with 2 threads, and 1M-row passes use both cores).
MIN_ROWS_PER_THREAD = 32768


def threads_for_rows(n_jobs: int | None, n_rows: int, min_rows: int | None = None) -> int:
    """Threads for a pass over ``n_rows`` rows: :func:`effective_n_threads` of ``n_jobs``, but no more than one per
    ``min_rows`` rows (default :data:`MIN_ROWS_PER_THREAD`, read at call time) and at least 1. Results never
    depend on it (the kernels are bit-identical for every thread count); only whether a second core pays does.

    >>> threads_for_rows(2, 1_000_000), threads_for_rows(2, 40_000), threads_for_rows(-1, 10)
    (2, 1, 1)
    """
    min_rows = MIN_ROWS_PER_THREAD if min_rows is None else min_rows
    return max(1, min(effective_n_threads(n_jobs), int(n_rows) // max(int(min_rows), 1)))
