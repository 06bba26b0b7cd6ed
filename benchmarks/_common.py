"""Shared benchmark helpers: the alarm-100k data set (sampled offline from pgmpy's bundled alarm, seed 42),
timing (best of several runs) and peak-memory measurement."""

from __future__ import annotations

import gc
import gzip
import platform
import resource
import time
import tracemalloc
import warnings
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

CACHE = Path(__file__).resolve().parent / ".cache"


def load_bundled_network(name: str):
    from pgmpy.readwrite import BIFReader

    import pgmpy_ext._compat  # noqa: F401  (filters pgmpy's import-time FutureWarning once)

    raw = (files("pgmpy") / f"utils/example_models/{name}.bif.gz").read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BIFReader(string=gzip.decompress(raw).decode()).get_model()


def alarm_100k(n: int = 100_000, seed: int = 42) -> pd.DataFrame:
    """alarm sampled with pgmpy's simulate (category dtype), columns sorted by name; cached on disk.

    Any other size or seed gives another sample from the same network with the same categories (e.g. a held-out
    set: ``alarm_100k(20_000, seed=43)``)."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"alarm_{n}_{seed}.pkl"
    if path.exists():
        return pd.read_pickle(path)
    model = load_bundled_network("alarm")
    df = model.simulate(n_samples=n, seed=seed, show_progress=False)
    df = df[sorted(model.nodes())]
    df.to_pickle(path)
    return df


def best_time(fn, repeat: int = 5, number: int = 1):
    """(best seconds per call, last result)."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        for _ in range(number):
            result = fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best, result


def peak_traced_mb(fn):
    """Peak Python/numpy allocation (tracemalloc) during one call, in MiB."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _proc_status_mb(key: str) -> float | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def reset_peak_rss() -> float | None:
    """Reset the kernel's resident-set high-water mark (VmHWM; Linux >= 4.0, ``echo 5 > /proc/self/clear_refs``)
    and return the current RSS in MiB, or None where this is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return None
    return _proc_status_mb("VmRSS")


def peak_rss_growth_mb(rss_before: float | None) -> float | None:
    """Peak RSS since :func:`reset_peak_rss` minus the RSS it returned, in MiB: the resident memory a job added,
    native allocations (C++, BLAS, OpenMP) included, which tracemalloc does not see."""
    hwm = _proc_status_mb("VmHWM")
    return None if rss_before is None or hwm is None else max(hwm - rss_before, 0.0)


def load_average() -> str:
    import os

    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "n/a"
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min, {os.cpu_count()} cores)"


def machine() -> str:
    import os

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def fmt_ratio(slow: float, fast: float) -> str:
    return f"{slow / fast:,.1f}x" if fast > 0 else "inf"


def codes_of(df: pd.DataFrame) -> np.ndarray:
    return np.ascontiguousarray(np.stack([df[c].cat.codes.to_numpy() for c in df.columns], 1), dtype=np.int32)
