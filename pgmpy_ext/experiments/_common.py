"""Helpers shared by the reproduction modules: report paths, run facts, Markdown tables, parallel map, data loading
that reports a missing shared data set instead of failing."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

__all__ = ["effective_jobs", "fmt", "md_table", "parallel_map", "pm", "report_path", "run_facts", "write_report"]


def report_path(output, name: str, output_dir=None) -> Path:
    """Where a reproduction writes its report: ``output`` (a file), else ``<output_dir>/<name>.md``, where
    ``output_dir`` defaults to the current directory. Called before the experiment runs, so a bad pair of
    arguments fails at once.

    Examples
    --------
    >>> report_path("out/t.md", "seed000-table3.2").as_posix()
    'out/t.md'
    >>> report_path(None, "seed000-table3.2", "reports").as_posix()
    'reports/seed000-table3.2.md'
    >>> report_path(None, "seed000-table3.2") == Path.cwd() / "seed000-table3.2.md"
    True
    """
    if output is not None and output_dir is not None:
        raise ValueError(f"output == {str(output)!r} and output_dir == {str(output_dir)!r}: pass either the report "
                         "file (output) or its folder (output_dir), not both.")
    if output is not None:
        return Path(output)
    return (Path(output_dir) if output_dir is not None else Path.cwd()) / f"{name}.md"


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
