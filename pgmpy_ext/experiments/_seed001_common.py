"""Shared pieces of the seed 001 chapter-5 reproductions (TM, cTAN, structural TM): the data sets as this project
has them, the thesis's learner settings and the cell-by-cell comparison used by the reports (the cTAN and
structural-TM classifiers live in :mod:`pgmpy_ext.classifiers`; re-exported here).

Spec: ``docs/decisions/seed001-tm-classifiers.md`` sections 5-7.
"""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pgmpy_ext.classifiers import CTANClassifier, StructuralTMClassifier
from pgmpy_ext.experiments._common import fmt, md_table, report_path, write_report
from pgmpy_ext.parameters import TMEstimator, fit_tm

__all__ = ["CTANClassifier", "StructuralTMClassifier", "TM_THESIS", "cll_status", "fmt", "load_binary",
           "load_uci", "md_table", "report_path", "run_facts", "thesis_tm", "training_cll", "write_report"]

#: TM settings of the thesis's experiments (spec 6.0): start at maximum likelihood, |delta CLL| < 0.001, the 0.01 grid
#: line search; max_iter is not given (decision 5: 1000).
TM_THESIS = {"alpha": 0.0, "tol": 1e-3, "max_iter": 1000, "line_search": "grid"}


def thesis_tm(**overrides) -> TMEstimator:
    """A ``TMEstimator`` with the thesis's settings (``TM_THESIS``: its iteration on the plain CLL, from maximum
    likelihood), optionally overridden; ``solver="lbfgs"`` keeps the thesis's objective (no prior)."""
    return TMEstimator(**{"solver": "tm", "prior_strength": 0.0, **TM_THESIS, **overrides})


# ---------------------------------------------------------------------------------------------- data
def _categorical(X: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({c: (X[c] if isinstance(X[c].dtype, pd.CategoricalDtype) else X[c].astype("category"))
                         for c in X.columns}, index=X.index)


def binarize(X: pd.DataFrame) -> pd.DataFrame:
    """One binary 0/1 column ``"<attribute>=<value>"`` per value of every attribute (one-hot)."""
    cols = {}
    for c in X.columns:
        values = X[c].cat.categories if isinstance(X[c].dtype, pd.CategoricalDtype) else sorted(X[c].unique())
        for v in values:
            cols[f"{c}={v}"] = pd.Categorical((X[c] == v).astype(int).to_numpy(), categories=[0, 1])
    return pd.DataFrame(cols, index=X.index)


def load_binary(name: str, data_home=None) -> tuple[pd.DataFrame, pd.Series]:
    """The binary data sets of experiment E1 (spec 6.2): ``"Corral"``, ``"M-of-n-3-7-10"``, ``"Monk1-bin"``,
    ``"Monk2-bin"``; categorical 0/1 features and a class Series named ``"class"``."""
    from pgmpy_ext.datasets import load_dataset, make_corral

    if name == "Corral":
        X, y = make_corral()
    elif name == "M-of-n-3-7-10":
        X, y = load_dataset("mofn_3_7_10", data_home=data_home)
    elif name in ("Monk1-bin", "Monk2-bin"):
        X, y = load_dataset("monk1" if name == "Monk1-bin" else "monk2", data_home=data_home)
        X = binarize(X)
    else:
        raise ValueError(f"unknown binary data set {name!r}.")
    return _categorical(X), pd.Series(np.asarray(y), name="class")


#: Attributes that UCI documents as continuous but the shared PMLB files store as integer codes of their distinct
#: values (order-preserving ranks for crx, per the seed 000 reproduction; unverified for hepatitis). They are
#: discretised like the float-stored ones (MDLP only uses the order of the values).
CODED_CONTINUOUS = {"crx": ["A2", "A14"],
                    "hepatitis": ["BILIRUBIN", "ALK PHOSPHATE", "SGOT", "ALBUMIN", "PROTIME"]}


def load_uci(file: str, data_home=None) -> tuple[pd.DataFrame, pd.Series, list]:
    """A shared PMLB file (or ``"corral-generator"``) as ``(X, y, continuous columns)``: every float-stored column
    and the :data:`CODED_CONTINUOUS` ones are continuous (float64, to be MDLP-discretised, spec 6.1), every other
    column categorical over all values in the file."""
    from pgmpy_ext.datasets import load_dataset, make_corral

    if file == "corral-generator":
        X, y = make_corral()
        return _categorical(X), pd.Series(np.asarray(y), name="class"), []
    X, y = load_dataset(file, data_home=data_home, continuous="float")
    X = X.copy()
    for c in CODED_CONTINUOUS.get(file, []):
        X[c] = np.asarray(X[c], dtype=np.float64)
    cont = [c for c in X.columns if pd.api.types.is_float_dtype(X[c].dtype)]
    return X, pd.Series(np.asarray(y), name="class"), cont


# ---------------------------------------------------------------------------------------------- CLL
def training_cll(clf, X, y) -> float:
    """Training CLL (nats, summed) of a fitted classifier through its own ``predict_log_proba`` (the pgmpy model it
    exports; zero probabilities floored at 1e-300)."""
    lp = clf.predict_log_proba(X)
    pos = np.searchsorted(clf.classes_, np.asarray(y))
    return float(lp[np.arange(len(pos)), pos].sum())


def tm_internal_cll(clf) -> tuple[float, float] | None:
    """(CLL at the start, final CLL) of the TM run inside a classifier fitted with a TMEstimator (the TM's own
    convention theta = 0 for 0/0), or None."""
    est = getattr(clf, "estimator_", None)
    if est is None or not hasattr(est, "cll_trace_"):
        return None
    return float(est.cll_trace_[0]), float(est.cll_trace_[-1])


def cll_status(ours: float, target: float | None, *, rel_tol: float | None = None, abs_tol: float | None = None,
               ml: float | None = None) -> str:
    """Verdict of one CLL cell: a deterministic target (``rel_tol``/``abs_tol``), or a TM cell (must be >= ML)."""
    if target is None or (isinstance(target, float) and math.isnan(target)):
        return "no target"
    if ml is not None:
        ok = ours >= ml - 1e-9 * abs(ml)
        rel = "≥ thesis" if ours >= target else "< thesis"
        return ("TM ≥ ML ✓" if ok else "TM < ML ✗") + f"; {rel}"
    diff = abs(ours - target)
    tol = max(abs_tol or 0.0, (rel_tol or 0.0) * abs(target))
    return "match" if diff <= tol else "mismatch"


def count_of(pct: float, n: int) -> int:
    return int(round(pct / 100.0 * n))


def fit_tm_cll(data, class_node, parents, **kw) -> tuple[float, float]:
    """(ML CLL, TM CLL) of one structure with the thesis's TM settings (engine level)."""
    res = fit_tm(data, class_node, parents, warn=False, **{"solver": "tm", **TM_THESIS, **kw})
    return res.cll_ml, res.cll


# ---------------------------------------------------------------------------------------------- reports
def run_facts(elapsed: float, n_jobs, quick: bool) -> str:
    """One line: date, machine, versions, parallel jobs, wall time."""
    import pandas
    import pgmpy
    import sklearn

    import pgmpy_ext

    mode = " **Quick smoke run (tiny settings): not the reproduction.**" if quick else ""
    return (f"Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.machine()}, "
            f"{os.cpu_count()} CPUs visible, n_jobs={n_jobs}; Python {platform.python_version()}, pgmpy-ext "
            f"{pgmpy_ext.__version__}, pgmpy {pgmpy.__version__}, scikit-learn {sklearn.__version__}, numpy "
            f"{np.__version__}, pandas {pandas.__version__}; wall time {elapsed / 60:.1f} min.{mode}")


def subsample_rows(X: pd.DataFrame, y: pd.Series, max_rows: int | None):
    """At most ``max_rows`` rows (a fixed seeded sample, original order kept) for quick runs; unchanged otherwise."""
    if max_rows is None or len(X) <= max_rows:
        return X, y
    keep = np.sort(np.random.default_rng(0).choice(len(X), max_rows, replace=False))
    return X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)


def with_mdlp(models: dict, cont: Sequence) -> dict:
    """Each learner behind an MDLP discretiser of the continuous columns ``cont`` (refitted on every training fold);
    the learners themselves when there is nothing to discretise."""
    if not cont:
        return models
    from sklearn.pipeline import Pipeline

    from pgmpy_ext.preprocessing import MDLPDiscretizer

    return {k: Pipeline([("mdlp", MDLPDiscretizer(columns=list(cont))), ("clf", m)]) for k, m in models.items()}
