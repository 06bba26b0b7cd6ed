"""BENCH with its defaults on the microarrays (issue 29): held-out accuracy beside its members, a single K2 network,
naive Bayes, a random forest, a linear SVM and the majority class, on the same folds.

Protocol: ``StratifiedKFold(5, shuffle=True, random_state=0)``; leukemia (``ALLAML.mat``, 72 x 7129), leukemia
raw values (``leukemia.csv.gz``, 72 x 5147), colon (62 x 2000) and lymphoma (96 x 4026 as the binary task of the
seed 004 reproduction: DLBCL against the rest). BENCH is ``BENCHClassifier(random_state=0)`` on the continuous
values (its own SAMBA, equal-width bins and K2 members, every default), fitted once per fold; "BENCH without the
guard" is the vote of the same fitted members (what ``guard=False``, the thesis's BENCH, predicts). The single
networks see ``EqualFrequencyDiscretizer(3)`` fitted on the training fold; the forest (500 trees) and the linear SVM
(``StandardScaler`` + ``LinearSVC``) the continuous values.

Usage: python benchmarks/bench_heldout.py [--datasets leukemia,colon,...] [--output FILE]
Prints the load average at the start and the end (the fit times are noisy on a shared machine).
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
    return load_expression(name, binary_lymphoma=True)


def run(names) -> tuple[pd.DataFrame, list[str]]:
    from sklearn.base import clone
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    from pgmpy_ext.classifiers import K2Classifier, NaiveBayesClassifier
    from pgmpy_ext.ensembles import BENCHClassifier
    from pgmpy_ext.ensembles._weighting import weighted_vote
    from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer

    others = {"majority": DummyClassifier(strategy="most_frequent"),
              "naive Bayes": make_pipeline(EqualFrequencyDiscretizer(3), NaiveBayesClassifier()),
              "single K2 (default)": make_pipeline(EqualFrequencyDiscretizer(3), K2Classifier()),
              "random forest (500)": RandomForestClassifier(500, random_state=0, n_jobs=1),
              "linear SVM": make_pipeline(StandardScaler(), LinearSVC(dual="auto", random_state=0))}
    rows, notes = [], []
    for name in names:
        X, y = load(name)
        yv = y.to_numpy()
        for fold, (tr, te) in enumerate(StratifiedKFold(5, shuffle=True, random_state=0).split(X, yv)):
            def add(label, pred, secs):
                rows.append({"data": name, "fold": fold, "learner": label,
                             "accuracy": 100 * float(np.mean(np.asarray(pred) == yv[te])), "seconds": secs})

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                bench = BENCHClassifier(random_state=0).fit(X.iloc[tr], yv[tr])
                t_fit = time.perf_counter() - t0
                add("BENCH (default, guard on)", bench.predict(X.iloc[te]), t_fit)
                vote = weighted_vote(bench.member_probas(X.iloc[te]), bench.training_errors_, bench.weighting,
                                     bench._majority)[1]
                add("BENCH without the guard (thesis)", bench.classes_[vote], t_fit)
                g = bench.guard_
                kinds = ", ".join(f"{k} {v}" for k, v in zip(*np.unique(bench.member_kinds_, return_counts=True)))
                notes.append(f"{name} fold {fold}: {len(bench.estimators_)} members ({kinds}), "
                             f"{bench.biclusters_[0].shape[0]} biclusters of median "
                             f"{int(np.median(bench.biclusters_[0].sum(axis=1)))} samples x "
                             f"{int(np.median(bench.biclusters_[1].sum(axis=1)))} genes; guard: out-of-member error "
                             f"{g['ensemble_error'] if g['ensemble_error'] is None else round(g['ensemble_error'], 3)}"
                             f" on {g['rows_judged']} rows, fallback CV error "
                             f"{g['fallback_error'] if g['fallback_error'] is None else round(g['fallback_error'], 3)}"
                             f", fallback used: {g['used_fallback']}; fit {t_fit:.1f} s")
                print(notes[-1], flush=True)
                for label, est in others.items():
                    t0 = time.perf_counter()
                    m = clone(est).fit(X.iloc[tr], yv[tr])
                    add(label, m.predict(X.iloc[te]), time.perf_counter() - t0)
        df = pd.DataFrame(rows)
        print(df[df.data == name].groupby("learner")[["accuracy", "seconds"]].mean().round(2), flush=True)
    return pd.DataFrame(rows), notes


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--output")
    args = ap.parse_args(argv)
    names = args.datasets.split(",")
    load0 = os.getloadavg()
    df, notes = run(names)
    acc = df.groupby(["learner", "data"])["accuracy"].mean().unstack("data")[names]
    acc["mean"] = acc.mean(axis=1)
    secs = df.groupby(["learner", "data"])["seconds"].mean().unstack("data")[names]
    text = ["# BENCH with its defaults on the microarrays: stratified 5-fold held-out accuracy (%)", "",
            f"Load average at the start {tuple(round(v, 2) for v in load0)}, at the end "
            f"{tuple(round(v, 2) for v in os.getloadavg())} (2 cores, shared with other work).", "",
            md_frame(acc), "", "Seconds per fold (fit + predict; BENCH: its fit):", "", md_frame(secs), "",
            "Per fold:", "", *[f"* {n}" for n in notes], ""]
    out = "\n".join(text)
    print(out)
    if args.output:
        Path(args.output).write_text(out)


if __name__ == "__main__":
    main()
