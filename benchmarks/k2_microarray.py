"""Held-out accuracy of a single K2 network on the microarrays (issue 29, item 3): which ``max_parents`` (and which
parent-set prior) holds when samples are few and genes many, beside the majority class, naive Bayes and a random
forest on the same folds.

Protocol: ``RepeatedStratifiedKFold(5, n_repeats=2, random_state=0)`` (lymphoma: its classes with fewer than 5
samples make scikit-learn warn; the folds are still stratified as far as they can be). Continuous sets
(leukemia ``ALLAML.mat``, leukemia ``leukemia.csv.gz``) go through ``EqualFrequencyDiscretizer(3)`` fitted on the
training fold; colon and lymphoma are already coded -2..2 and are used as they are (as categories). The random
forest (500 trees, ``random_state=0``) gets the undiscretised values.

Usage: python benchmarks/k2_microarray.py [--datasets leukemia,colon,...] [--output FILE]
Prints the load average at the start and the end; the fit times are noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_expression, md_frame  # noqa: E402

DATASETS = ["leukemia", "leukemia-raw", "colon", "lymphoma"]


def load(name):
    X, y = load_expression(name)
    return X, y, name in ("leukemia", "leukemia-raw")


def learners(continuous: bool, variants):
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline

    from pgmpy_ext.classifiers import K2Classifier, NaiveBayesClassifier
    from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer

    def disc(est):
        return make_pipeline(EqualFrequencyDiscretizer(3), est) if continuous else est

    out = {"majority": DummyClassifier(strategy="most_frequent"), "naive Bayes": disc(NaiveBayesClassifier())}
    for label, kw in variants.items():
        out[label] = disc(K2Classifier(**kw))
    out["random forest (500)"] = RandomForestClassifier(500, random_state=0, n_jobs=1)
    return out


def run(names, variants) -> pd.DataFrame:
    from sklearn.model_selection import RepeatedStratifiedKFold

    rows = []
    for name in names:
        X, y, continuous = load(name)
        Xd = X if continuous else X.astype(int).astype("category")
        cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            splits = list(cv.split(X, y))
        for label, est in learners(continuous, variants).items():
            data = X if label.startswith("random forest") or label == "majority" else Xd
            acc, secs = [], []
            for tr, te in splits:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    from sklearn.base import clone

                    m = clone(est).fit(data.iloc[tr], y.iloc[tr])
                    acc.append(float(np.mean(np.asarray(m.predict(data.iloc[te])) == y.iloc[te].to_numpy())))
                secs.append(time.perf_counter() - t0)
            rows.append({"data": name, "learner": label, "accuracy": 100 * np.mean(acc),
                         "sd": 100 * np.std(acc), "s_per_fold": float(np.mean(secs))})
            print(f"{name:13s} {label:45s} {rows[-1]['accuracy']:6.2f} ({rows[-1]['sd']:.2f})  "
                  f"{rows[-1]['s_per_fold']:.2f} s/fold", flush=True)
    return pd.DataFrame(rows)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--variants", default="max_parents", choices=["max_parents", "prior", "prior-only"])
    ap.add_argument("--output")
    args = ap.parse_args(argv)
    variants = {} if args.variants == "prior-only" else {
        f"K2 max_parents={k}, parent_prior='uniform' (WEKA)": {"max_parents": k, "parent_prior": "uniform"}
        for k in (2, 3, 5)}
    if args.variants in ("prior", "prior-only"):
        variants.update({f"K2 max_parents={k}, parent_prior='size'": {"max_parents": k, "parent_prior": "size"}
                         for k in (2, 3, 5)})
    load0 = os.getloadavg()
    df = run(args.datasets.split(","), variants)
    piv = df.pivot(index="learner", columns="data", values="accuracy")[args.datasets.split(",")]
    piv["mean"] = piv.mean(axis=1)
    text = ["# K2 on the microarrays: 5-fold x 2 stratified held-out accuracy (%)", "",
            f"Load average at the start {load0}, at the end {os.getloadavg()} (2 cores).", "",
            md_frame(piv), "", "Seconds per fold (fit + predict):", "",
            md_frame(df.pivot(index="learner", columns="data", values="s_per_fold")), ""]
    out = "\n".join(text)
    print(out)
    if args.output:
        Path(args.output).write_text(out)


if __name__ == "__main__":
    main()
