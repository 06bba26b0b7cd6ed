"""Time a K2 network and a C4.5 tree on a leukemia training fold (65 x 7,129 genes, 3 equal-width bins), the
sizes of the thesis's Ch. 3-4 (Weka: 1,453 s for one K2 network). Prints the machine load; run as
``python benchmarks/k2_c45.py [n_jobs ...]`` from the repository root (default n_jobs 1; needs
../shared/datasets/microarray/ALLAML.mat). The K2 threads split the variables (no barrier per step), so n_jobs=2
helps whenever a second core is free."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.io

sys.path.insert(0, os.getcwd())  # measure the checkout we are run from (not an installed pgmpy_ext)

from pgmpy_ext.classifiers import K2Classifier  # noqa: E402
from pgmpy_ext.preprocessing import EqualWidthDiscretizer  # noqa: E402
from pgmpy_ext.tree import C45Classifier  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "microarray" / "ALLAML.mat"


def main():
    mat = scipy.io.loadmat(DATA)
    X = pd.DataFrame(mat["X"].astype(float), columns=[f"g{j}" for j in range(mat["X"].shape[1])])
    y = pd.Series(np.where(mat["Y"].ravel() == 1, "ALL", "AML"), name="class")
    train = np.sort(np.random.default_rng(0).permutation(len(X))[:65])  # a floor-protocol training fold
    Xtr, ytr = X.iloc[train].reset_index(drop=True), y.iloc[train].reset_index(drop=True)
    print(f"load average {os.getloadavg()}, {os.cpu_count()} CPUs; fold {Xtr.shape}")
    t = time.perf_counter()
    Xd = EqualWidthDiscretizer(n_bins=3).fit_transform(Xtr)
    print(f"equal-width discretisation: {time.perf_counter() - t:.2f} s")
    codes = np.column_stack([Xd[c].cat.codes.to_numpy() for c in Xd.columns]).astype(np.int64)
    for n_jobs in [int(a) for a in sys.argv[1:]] or [1]:
        t, c = time.perf_counter(), time.process_time()
        # WEKA K2, as the thesis
        clf = K2Classifier(max_parents=5, alpha=0.5, parent_prior="uniform", n_jobs=n_jobs).fit(Xd, ytr)
        parents = np.array([len(clf.structure_.parents[f]) for f in clf.structure_.features])
        print(f"K2Classifier fit (max 5 parents, n_jobs={n_jobs}): {time.perf_counter() - t:.2f} s wall, "
              f"{time.process_time() - c:.2f} s CPU; "
              f"mean parents {parents.mean():.2f}; resubstitution accuracy {clf.score(Xd, ytr):.3f}")
    t = time.perf_counter()
    tree = C45Classifier(nominal="all").fit(codes, ytr)
    print(f"C4.5 on 7,129 discretised genes (int codes): {time.perf_counter() - t:.2f} s, "
          f"used {tree.used_features_.size} genes, {tree.n_leaves_} leaves")
    t = time.perf_counter()
    tree = C45Classifier().fit(Xtr, ytr)
    print(f"C4.5 on 7,129 continuous genes (numeric thresholds): {time.perf_counter() - t:.2f} s, "
          f"used {tree.used_features_.size} genes")


if __name__ == "__main__":
    main()
