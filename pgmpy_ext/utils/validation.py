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
