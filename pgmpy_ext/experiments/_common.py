"""Helpers shared by the reproduction modules: report paths, run facts, Markdown tables, parallel map, data loading
that reports a missing shared data set instead of failing."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

__all__ = ["REPORT_DIR", "effective_jobs", "fmt", "md_table", "parallel_map", "pm", "report_path", "run_facts",
           "write_report"]

#: Default folder of the generated reports: ``docs/reproductions`` in the repository.
REPORT_DIR = Path(__file__).resolve().parents[2] / "docs" / "reproductions"


def report_path(output, name: str) -> Path:
    """``output`` as a Path, or ``docs/reproductions/<name>.md`` when it is None."""
    return Path(output) if output is not None else REPORT_DIR / f"{name}.md"


def write_report(path: Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def effective_jobs(n_jobs: int | None) -> int:
    """Worker processes for :func:`parallel_map`: None -> 1, negative -> joblib's convention (-1 = all cores)."""
    if n_jobs is None:
        return 1
    n_jobs = int(n_jobs)
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, n_jobs)


def parallel_map(func: Callable, tasks: Iterable[tuple], n_jobs: int | None) -> list:
    """``[func(*t) for t in tasks]``, in worker processes when ``n_jobs > 1`` (joblib/loky). Every task carries its
    own seeds, so the results do not depend on ``n_jobs``."""
    tasks = list(tasks)
    jobs = effective_jobs(n_jobs)
    if jobs == 1 or len(tasks) <= 1:
        return [func(*t) for t in tasks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs)(delayed(func)(*t) for t in tasks)


def run_facts(elapsed: float, n_jobs: int | None, quick: bool) -> str:
    """One line: date, machine, versions, worker processes, wall time."""
    import numpy
    import pandas
    import pgmpy
    import sklearn

    import pgmpy_ext

    mode = " **Quick smoke run (tiny settings): not the reproduction.**" if quick else ""
    return (f"Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.machine()}, "
            f"{os.cpu_count()} CPUs visible, {effective_jobs(n_jobs)} worker process(es); Python "
            f"{platform.python_version()}, pgmpy-ext {pgmpy_ext.__version__}, pgmpy {pgmpy.__version__}, "
            f"scikit-learn {sklearn.__version__}, numpy {numpy.__version__}, pandas {pandas.__version__}; "
            f"wall time {elapsed / 60:.1f} min.{mode}")


def fmt(value, decimals: int = 2) -> str:
    """A number with fixed decimals; '–' for None/NaN."""
    if value is None:
        return "–"
    value = float(value)
    if np.isnan(value):
        return "–"
    return f"{value:.{decimals}f}"


def pm(values, decimals: int = 2, scale: float = 1.0) -> str:
    """'mean ± std' (sample std, ddof 1; ddof 0 for a single value) of ``values * scale``."""
    a = np.asarray(values, dtype=np.float64) * scale
    if a.size == 0:
        return "–"
    sd = a.std(ddof=1) if a.size > 1 else 0.0
    return f"{a.mean():.{decimals}f} ± {sd:.{decimals}f}"


def md_table(header: Sequence[str], rows: Iterable[Sequence]) -> list[str]:
    """Lines of a Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out
