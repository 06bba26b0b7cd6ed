"""10-fold stratified CV accuracy of the BN classifiers on the shared UCI sets (PMLB copies).

Protocol: identical folds for every learner (StratifiedKFold(10, shuffle=True, random_state=0)); continuous columns
(the float-stored columns) are cut into 5 equal-frequency bins (pgmpy_ext.preprocessing.EqualFrequencyDiscretizer)
fitted on the training fold only; every discrete column keeps the full domain seen in the whole file as its declared
categories (pgmpy_ext.datasets.load_dataset; no label information: only which values exist), so a value that
occurs only in a test fold is a known state with smoothed probability instead of an error.

Learners: pgmpy-ext NB, TAN, SBN (marginal rule), ABN (MDL gain), all with alpha (default 1.0); and, as external
references on the same folds, a plain-numpy TAN (benchmarks/classifiers.py) and pyAgrum's BNClassifier "TAN"
(which keeps only tree edges above the mean CMI, i.e. a forest).

Usage: python benchmarks/cv_accuracy.py [--datasets corral,cleve,...] [--alpha 1.0] [--folds 10]
Data: ../shared/datasets/uci/<name>.tsv.gz (or $PGMPY_EXT_DATA/uci).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline

from pgmpy_ext.datasets import load_dataset
from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer

DATASETS = ["corral", "cleve", "hepatitis", "iris", "pima", "vote", "chess", "mushroom", "splice", "soybean"]


def data_dir() -> Path:
    env = os.environ.get("PGMPY_EXT_DATA")
    return Path(env) if env else Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"


def load_uci(name: str):
    """(X, y) of a shared UCI set: float-stored (continuous) columns stay float64, every other column is a
    Categorical over all values in the file (pgmpy_ext.datasets.load_dataset, which also honours $PGMPY_EXT_DATA).
    The README's "float-valued features" are the continuous ones, whole-numbered or not (cleve's age, pima's
    glucose), so they are binned too."""
    return load_dataset(name, continuous="float")


def learners(alpha: float) -> dict:
    import pgmpy_ext.classifiers as C

    out = {"NB": C.NaiveBayesClassifier(alpha=alpha), "TAN": C.TANClassifier(alpha=alpha)}
    if hasattr(C, "SBNClassifier"):
        out["SBN"] = C.SBNClassifier(alpha=alpha)
    if hasattr(C, "ABNClassifier"):
        out["ABN"] = C.ABNClassifier(alpha=alpha)
    try:
        import classifiers  # noqa: F401  (benchmarks/classifiers.py: the plain-numpy TAN baseline)

        out["numpy TAN"] = NumpyTANAdapter(alpha=alpha)
    except ImportError:
        pass
    try:
        out["pyAgrum TAN"] = PyAgrumTAN(alpha=alpha)
    except ImportError:
        pass
    return out


class NumpyTANAdapter(BaseEstimator):
    """scikit-learn face for benchmarks/classifiers.py's NumpyTAN (which needs category-dtype X and y)."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        from classifiers import NumpyTAN

        self.classes_ = np.unique(np.asarray(y))
        yc = pd.Series(pd.Categorical(np.asarray(y), categories=self.classes_))
        self.tan_ = NumpyTAN(alpha=self.alpha).fit(_as_categories(X), yc)
        return self

    def predict(self, X):
        return self.classes_[np.argmax(self.tan_.predict_proba(_as_categories(X)), axis=1)]

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))


def _as_categories(X: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({c: X[c] if isinstance(X[c].dtype, pd.CategoricalDtype) else X[c].astype("category")
                         for c in X.columns})


class PyAgrumTAN(BaseEstimator):
    """pyAgrum BNClassifier(learningMethod="TAN") on string-coded features (smoothing prior = alpha)."""

    def __init__(self, alpha=1.0):
        import pyagrum  # noqa: F401  (ImportError -> not benchmarked)

        self.alpha = alpha

    def fit(self, X, y):
        import pyagrum.skbn as skbn
        from pyagrum.lib.discreteTypeProcessor import DiscreteTypeProcessor

        self.clf_ = skbn.BNClassifier(type_processor=DiscreteTypeProcessor(), learningMethod="TAN",
                                      prior="Smoothing", priorWeight=self.alpha)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.clf_.fit(X.astype(str), y.astype(str))
        return self

    def predict(self, X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(self.clf_.predict(X.astype(str)))

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y).astype(str)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--folds", type=int, default=10)
    args = ap.parse_args(argv)
    if not (data_dir() / "uci").is_dir():
        raise SystemExit(f"shared datasets not found at {data_dir()}; set PGMPY_EXT_DATA.")
    import pgmpy_ext

    names = args.datasets.split(",")
    base = learners(args.alpha)
    print(f"# {args.folds}-fold stratified CV accuracy (%), mean ± std over folds, alpha={args.alpha}\n")
    print(f"pgmpy-ext {pgmpy_ext.__version__}; folds: StratifiedKFold({args.folds}, shuffle=True, random_state=0); "
          "continuous columns: 5 equal-frequency bins fitted per training fold\n")
    print("| dataset | rows | " + " | ".join(base) + " |")
    print("|---|---|" + "---|" * len(base))
    timings = dict.fromkeys(base, 0.0)
    failures: dict = {}
    all_accs: dict = {}
    for name in names:
        X, y = load_uci(name)
        folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=0).split(X, y))
        cells = []
        for key, est in base.items():
            accs, failed = [], 0
            t0 = time.perf_counter()
            for tr, te in folds:
                pipe = Pipeline([("bins", EqualFrequencyDiscretizer(5, columns="numeric")), ("clf", clone(est))])
                try:
                    pipe.fit(X.iloc[tr], y.iloc[tr])
                    accs.append(pipe.score(X.iloc[te], y.iloc[te]))
                except Exception as err:  # external references only; ours never fail here (asserted below)
                    if not key.startswith(("numpy", "pyAgrum")):
                        raise
                    failed += 1
                    failures.setdefault(key, []).append(f"{name}: {type(err).__name__}: {str(err)[:80]}")
            timings[key] += time.perf_counter() - t0
            cell = f"{100 * np.mean(accs):.2f} ± {100 * np.std(accs):.2f}" if accs else "n/a"
            cells.append(cell + (f" ({failed} folds failed)" if failed else ""))
            all_accs.setdefault(key, []).append(np.mean(accs) if len(accs) == len(folds) else np.nan)
        print(f"| {name} | {len(X)} | " + " | ".join(cells) + " |", flush=True)
    means = " | ".join(f"{100 * np.mean(v):.2f}" if not np.isnan(v).any() else "n/a" for v in all_accs.values())
    print(f"| mean over data sets (complete rows only) | | {means} |")
    print("\ntotal fit+predict time over all datasets and folds: "
          + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    for key, msgs in failures.items():
        print(f"\n{key} failed on {len(msgs)} folds, e.g. {msgs[0]}")


if __name__ == "__main__":
    main()
