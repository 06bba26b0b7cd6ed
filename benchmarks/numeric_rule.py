"""Held-out check of the numeric-column rule's row part (issue 24): on the UCI sets where it changes a column,
cross-validated accuracy with the old rule (a numeric column with up to 50 values is categorical on any data) and
the new one (at most one value per 5 rows: ``pgmpy_ext.data.numeric_state_limit``), beside the baselines a user
would try first (majority class, logistic regression on standardised raw features).

The learners see the raw columns through ``Pipeline(EqualFrequencyDiscretizer(5), learner)``: the discretiser's
default ``columns=None`` cuts exactly the columns the rule refuses, so the two rules differ only in whether those
columns are cut into 5 bins or kept with one state per value. Repeated stratified 10-fold CV, same folds for every
learner.

Usage: python benchmarks/numeric_rule.py [--repeats 10]
"""

from __future__ import annotations

import argparse
import glob
import os
from pathlib import Path

import numpy as np
import pandas as pd
from _common import load_average

DATA = Path(os.environ.get("PGMPY_EXT_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "datasets"))


def affected_sets():
    """(name, X, y, [(column, distinct values)]) of every UCI set where the row part of the rule refuses a column
    that the absolute limit alone accepts."""
    from pgmpy_ext.data import MAX_NUMERIC_STATES, numeric_state_limit

    out = []
    for f in sorted(glob.glob(str(DATA / "uci" / "*.tsv.gz"))):
        df = pd.read_csv(f, sep="\t")
        X, y = df.drop(columns="target"), df["target"]
        limit = numeric_state_limit(len(df))
        cols = []
        for c in X.columns:
            s = X[c]
            if not pd.api.types.is_numeric_dtype(s):
                continue
            x = s.dropna().to_numpy(dtype=float)
            if np.all(x == np.round(x)) and limit < s.nunique() <= MAX_NUMERIC_STATES:
                cols.append((c, int(s.nunique())))
        if cols:
            out.append((os.path.basename(f).split(".")[0], X, y, cols))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args(argv)
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import pgmpy_ext._compat  # noqa: F401
    import pgmpy_ext.data._encoded as enc
    from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
    from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer

    print(f"# numeric-column rule, held out\n\nload average: {load_average()}\n")
    print("| set | rows | columns the row part refuses | learner | old rule (<= 50 values) | new rule | "
          "majority | logistic regression |")
    print("|---|---|---|---|---|---|---|---|")
    for name, X, y, cols in affected_sets():
        cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=args.repeats, random_state=0)
        base = {
            "majority": cross_val_score(DummyClassifier(), X, y, cv=cv).mean(),
            "logreg": cross_val_score(make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)), X, y,
                                      cv=cv).mean(),
        }
        for learner in (NaiveBayesClassifier(), TANClassifier()):
            pipe = make_pipeline(EqualFrequencyDiscretizer(5), learner)
            new = cross_val_score(pipe, X, y, cv=cv)
            saved = enc.MIN_NUMERIC_STATES
            enc.MIN_NUMERIC_STATES = enc.MAX_NUMERIC_STATES  # the old rule: limit 50 on any data
            try:
                old = cross_val_score(pipe, X, y, cv=cv)
            finally:
                enc.MIN_NUMERIC_STATES = saved
            diff = new - old
            print(f"| {name} | {len(X)} | {', '.join(f'{c} ({k})' for c, k in cols)} | {type(learner).__name__} | "
                  f"{old.mean():.4f} | {new.mean():.4f} (paired diff {diff.mean():+.4f} +- "
                  f"{diff.std(ddof=1) / np.sqrt(diff.size):.4f}) | {base['majority']:.4f} | {base['logreg']:.4f} |")
    print(f"\n{args.repeats} x stratified 10-fold CV; +- is the standard error of the mean paired fold difference.")


if __name__ == "__main__":
    main()
