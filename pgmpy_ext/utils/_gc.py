"""Pausing Python's cyclic garbage collector over bursts of object creation.

Encoding or discretising thousands of columns creates tens of thousands of short-lived container objects (pandas
Categoricals and blocks, per-column lists); every 700 allocations the collector runs, and every hundredth run walks
every live object of the process (250,000 of them with pandas, scikit-learn and pgmpy loaded): on a 77 x 7,070
microarray the collector took 0.3 s of a 0.7 s discretise + naive Bayes pipeline. These bursts create no reference
cycles, so the collection can wait until they end: nothing is freed later than it would be, and memory held by
true garbage cycles is collected at the next run after the burst.
"""

from __future__ import annotations

import functools
import gc
from contextlib import contextmanager

__all__ = ["paused_gc", "without_gc"]


@contextmanager
def paused_gc():
    """Disable the cyclic garbage collector inside the block (if it was enabled), re-enable it after."""
    was = gc.isenabled()
    if was:
        gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def without_gc(fn):
    """Decorator: run ``fn`` inside :func:`paused_gc`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with paused_gc():
            return fn(*args, **kwargs)

    return wrapper
