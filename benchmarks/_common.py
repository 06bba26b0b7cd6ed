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


def microarray_like(n_rows: int = 77, n_genes: int = 7070, seed: int = 0, n_informative: int = 300):
    """A synthetic stand-in for the DLBCL-vs-FL microarray (Shipp et al. 2002: 77 samples, 58 DLBCL / 19 FL, 7,070
    genes of Affymetrix integer expression values): ``(X, y)`` with ``X`` an int64 DataFrame ``g0000 ...`` and ``y``
    a Series named "class" ("DLBCL" / "FL").

    Each gene has a log-normal level (mean ``exp(N(6, 1.5))``, spread ``U(0.2, 0.8)`` on the log scale), the
    first ``n_informative`` genes shifted by +-0.8 of their spread between the classes; values are rounded and
    clipped to [20, 16000] as Affymetrix MAS values usually are, so low genes tie at 20 and most genes have
    between 20 and 77 distinct values on 77 rows. The real data set is not redistributed with the project."""
    rng = np.random.default_rng(seed)
    n_fl = round(n_rows * 19 / 77)
    y = np.array(["DLBCL"] * (n_rows - n_fl) + ["FL"] * n_fl, dtype=object)
    rng.shuffle(y)
    mu = rng.normal(6.0, 1.5, n_genes)
    sd = rng.uniform(0.2, 0.8, n_genes)
    shift = np.zeros(n_genes)
    shift[:n_informative] = rng.choice([-0.8, 0.8], n_informative) * sd[:n_informative]
    z = rng.standard_normal((n_rows, n_genes))
    logx = mu + sd * z + np.where((y == "FL")[:, None], shift, 0.0)
    values = np.clip(np.rint(np.exp(logx)), 20, 16000).astype(np.int64)
    X = pd.DataFrame(values, columns=[f"g{j:04d}" for j in range(n_genes)])
    return X, pd.Series(y, name="class")


def md_frame(frame: pd.DataFrame, fmt: str = ".2f") -> str:
    """A Markdown table of a numeric DataFrame (index as the first column), without the tabulate dependency."""
    cols = [frame.index.name or "", *map(str, frame.columns)]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in frame.iterrows():
        lines.append("| " + " | ".join([str(idx), *(format(v, fmt) for v in row)]) + " |")
    return "\n".join(lines)


def load_expression(name: str, *, binary_lymphoma: bool = False):
    """``(X, y)`` of a shared microarray: the names of ``pgmpy_ext.datasets.load_microarray`` or ``"leukemia-raw"``
    (``leukemia.csv.gz``, 72 x 5,147 raw values of the same study); ``binary_lymphoma`` makes lymphoma the seed 004
    reproduction's DLBCL-against-the-rest task."""
    import os

    from pgmpy_ext.datasets import load_microarray

    if name == "leukemia-raw":
        root = os.environ.get("PGMPY_EXT_DATA", str(Path(__file__).resolve().parents[2] / "shared" / "datasets"))
        df = pd.read_csv(Path(root) / "microarray" / "leukemia.csv.gz")
        return df.iloc[:, :-1].astype(float), df.iloc[:, -1].astype(str).rename("class")
    X, y = load_microarray(name)
    if name == "lymphoma" and binary_lymphoma:
        y = y.map(lambda c: "DLBCL" if c == 1 else "other").rename("class")
    return X, y


def emit_report(lines: list, out=None) -> str:
    """Join the report's lines, write them to ``out`` (a path, if given) and print them; returns the text."""
    text = "\n".join(lines)
    if out:
        Path(out).write_text(text + "\n")
    print(text)
    return text

