"""Microarray timings for seed 004 (issue 14): one leukemia training fold (65 x 7129), then accuracy over the folds.

Times on fold 0 of the thesis's "floor" protocol (65 training rows, 7 test rows;
``pgmpy_ext.experiments._seed004_bench.folds``), each measured once (these are minutes-long fits, not micro
benchmarks), with the machine load printed before and after:

* a single K2 BN (``K2Classifier(max_parents=5)``, WEKA's K2 with the BAYES score, alpha 0.5) on all 7129 genes
  discretised into 3 equal-width bins (goal: <= 5 s; Weka took 1,453 s in the thesis), once per ``--n-jobs``
  value (the networks must be identical), and the structure search alone (``fit_k2`` on data encoded
  beforehand: no encoding, CPTs, pgmpy model or posterior tables);
* C4.5 (``pgmpy_ext.tree.C45Classifier``) on the 7129 discretised genes, when the build has it;
* SAMBA (``pgmpy_ext.biclustering.SAMBA``, the reproduction's settings) on the continuous training matrix;
* a whole BENCH fit (``BENCHClassifier``: imputation, SAMBA, FI/FE datasets, K2 members; goal <= 30 s);
* scikit-learn ``RandomForestClassifier(n_estimators=500)`` on the continuous values.

Then the accuracy of BENCH, the forest and a linear SVM over all 10 folds of the same protocol (identical folds).

pgmpy_ext is imported from the CURRENT DIRECTORY:
    cd /path/to/checkout && nice python benchmarks/bench_microarray.py --out benchmarks/results/bench_microarray.md
K2 alone, with 1 and 2 threads:
    nice python benchmarks/bench_microarray.py --k2-only --n-jobs 1 2 --out benchmarks/results/bench_microarray_k2.md
Data: ../shared/datasets/microarray/ALLAML.mat (or $PGMPY_EXT_DATA); the script exits with a message when absent.
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

sys.path.insert(0, os.getcwd())  # measure the checkout we are run from
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine  # noqa: E402

# the reproduction's calibrated settings (benchmarks/results/samba_calibration.md); the timings in
# results/bench_microarray.md before issue 14's calibration used {"threshold": 1.5, "p_c": 0.8, "min_rows": 4}
SAMBA_SETTINGS = {"threshold": 0.75, "p_c": 0.5, "min_rows": 4, "max_overlap": 0.65}
FE_MAX = 500


def _frame(D: np.ndarray) -> pd.DataFrame:
    dtype = pd.CategoricalDtype([0, 1, 2])
    return pd.DataFrame({f"g{j}": pd.Categorical.from_codes(D[:, j], dtype=dtype) for j in range(D.shape[1])})


_CPU: dict = {}


def _timed(fn, key=None):
    """(result, wall seconds); the process CPU seconds go to ``_CPU[key]`` (on a loaded shared machine the CPU time
    of these single-threaded fits is the better estimate of their unloaded wall time)."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    if key is not None:
        _CPU[key] = time.process_time() - c
    return out, time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="Markdown report (default: print only)")
    ap.add_argument("--folds", type=int, default=10, help="folds for the accuracy part (0 to skip it)")
    ap.add_argument("--k2-only", action="store_true", help="time the single K2 BN only (no C4.5, SAMBA, BENCH, "
                    "forest or folds)")
    ap.add_argument("--n-jobs", type=int, nargs="+", default=[1], help="K2 threads, one timed fit per value")
    args = ap.parse_args(argv)

    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from pgmpy_ext.biclustering import SAMBA
    from pgmpy_ext.classifiers import K2Classifier
    from pgmpy_ext.datasets import load_microarray
    from pgmpy_ext.ensembles import BENCHClassifier, apply_cuts, equal_width_cuts
    from pgmpy_ext.experiments._seed004_bench import folds

    try:
        X, y = load_microarray("leukemia")
    except FileNotFoundError as err:
        print(f"skipped: {err}")
        return 0
    A, y = X.to_numpy(), y.to_numpy()
    splits = folds(y, "floor", 10, 0)
    tr, te = splits[0]
    lines = [f"# bench_microarray: leukemia ({A.shape[0]} x {A.shape[1]}), fold 0 of the `floor` protocol "
             f"({tr.size} training rows)", "", f"Machine: {machine()}", f"Load before: {load_average()}", ""]
    rows = []
    cuts = equal_width_cuts(A[tr])
    Dtr, Dte = apply_cuts(A[tr], cuts), apply_cuts(A[te], cuts)
    Ftr, Fte = _frame(Dtr), _frame(Dte)

    from pgmpy_ext.data import encode
    from pgmpy_ext.structure import fit_k2

    enc = encode(Ftr.assign(cls=y[tr]))  # the search alone, on data encoded beforehand (not timed)
    for nj in args.n_jobs:
        load = load_average()
        res, t_s = _timed(lambda nj=nj: fit_k2(enc, "cls", max_parents=5, n_jobs=nj), "search")
        n_arcs = sum(len(p) for p in res.parents.values())
        rows.append([f"K2 structure search alone (fit_k2 on encoded data), n_jobs={nj}", f"{t_s:.2f}",
                     f"{_CPU['search']:.2f}", "–", "–", f"{n_arcs} arcs; load before {load}"])
    edges = None
    for nj in args.n_jobs:
        load = load_average()
        k2, t_k2 = _timed(lambda nj=nj: K2Classifier(max_parents=5, alpha=0.5, parent_prior="uniform",
                                                     n_jobs=nj).fit(Ftr, y[tr]), "k2")
        same = ""
        if edges is None:
            edges = sorted(k2.model_.edges())
        else:
            same = f" (same network as n_jobs={args.n_jobs[0]})" if sorted(k2.model_.edges()) == edges else \
                " (NETWORK DIFFERS)"
        rows.append([f"single K2 BN, 7129 genes, max 5 parents, n_jobs={nj}", f"{t_k2:.2f}", f"{_CPU['k2']:.2f}",
                     "<= 5", "1,453.4", f"{len(k2.model_.edges())} arcs{same}; test accuracy "
                     f"{np.mean(k2.predict(Fte) == y[te]):.3f}; load before the fit {load}"])
    if args.k2_only:
        lines += ["| step | ours, wall (s) | ours, CPU (s) | goal (s) | thesis (s) | notes |",
                  "|---|---|---|---|---|---|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        lines += ["", "CPU = process CPU seconds (all threads). Load after the timings: " + load_average(), ""]
        return _write(lines, args.out)
    try:
        from pgmpy_ext.tree import C45Classifier
    except ImportError:
        rows.append(["C4.5 on 7129 genes", "–", "–", "–", "–",
                     "C45Classifier is not in this build (part 1 of issue 14)"])
    else:
        c45, t_c45 = _timed(lambda: C45Classifier().fit(Ftr, y[tr]), "c45")
        rows.append(["C4.5 on 7129 genes", f"{t_c45:.2f}", f"{_CPU['c45']:.2f}", "–", "≈ 0.7 (15 trees ≈ 10 s, Ch. 3)",
                     f"{len(getattr(c45, 'used_features_', []))} genes used"])
    samba, t_samba = _timed(lambda: SAMBA(random_state=0, **SAMBA_SETTINGS).fit(A[tr]), "samba")
    rows.append(["SAMBA (continuous, 65 x 7129)", f"{t_samba:.2f}", f"{_CPU['samba']:.2f}", "–", "< 25",
                 f"{samba.rows_.shape[0]} biclusters"])

    def bench():
        return BENCHClassifier(biclusterer=SAMBA(**SAMBA_SETTINGS), fe_max_features=FE_MAX, random_state=0)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        b, t_bench = _timed(lambda: bench().fit(A[tr], y[tr]), "bench")
    kinds = [b.datasets_[i].kind if i >= 0 else "all" for i in b.member_datasets_]
    rows.append(["whole BENCH fit (SAMBA + FI/FE + K2 members)", f"{t_bench:.2f}", f"{_CPU['bench']:.2f}", "<= 30", "–",
                 f"{len(b.estimators_)} members ({kinds.count('FI')} FI, {kinds.count('FE')} FE, FE capped at "
                 f"{FE_MAX} genes); test accuracy {np.mean(b.predict(A[te]) == y[te]):.3f}"])
    rf, t_rf = _timed(lambda: RandomForestClassifier(n_estimators=500, random_state=0, n_jobs=1).fit(A[tr], y[tr]),
                      "rf")
    rows.append(["scikit-learn random forest, 500 trees", f"{t_rf:.2f}", f"{_CPU['rf']:.2f}", "–",
                 "≈ 0.5 (Weka, 5-60 trees)",
                 f"test accuracy {np.mean(rf.predict(A[te]) == y[te]):.3f}"])
    lines += ["| step | ours, wall (s) | ours, CPU (s) | goal (s) | thesis (s) | notes |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", f"Ratios in this run (CPU time): K2 / forest = {_CPU['k2'] / _CPU['rf']:.1f}x; BENCH / forest = "
              f"{_CPU['bench'] / _CPU['rf']:.1f}x; Weka's K2 (1,453.4 s) / ours = {1453.4 / _CPU['k2']:.0f}x.",
              f"Load after the timings: {load_average()}", ""]

    if args.folds:
        acc = {"BENCH (confidence)": [], "random forest (500)": [], "linear SVM": []}
        fit_times = []
        for k, (tr, te) in enumerate(splits[: args.folds]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                b, t = _timed(lambda tr=tr: bench().fit(A[tr], y[tr]))
            fit_times.append(t)
            acc["BENCH (confidence)"].append(np.sum(b.predict(A[te]) == y[te]))
            rf = RandomForestClassifier(n_estimators=500, random_state=k, n_jobs=1).fit(A[tr], y[tr])
            acc["random forest (500)"].append(np.sum(rf.predict(A[te]) == y[te]))
            svm = make_pipeline(StandardScaler(), SVC(kernel="linear")).fit(A[tr], y[tr])
            acc["linear SVM"].append(np.sum(svm.predict(A[te]) == y[te]))
        tested = sum(te.size for _, te in splits[: args.folds])
        lines += [f"## Accuracy over {args.folds} folds (`floor` protocol: {tested} rows tested)", "",
                  "| method | correct / tested | accuracy (%) | thesis (Weka) |", "|---|---|---|---|"]
        thesis = {"BENCH (confidence)": "97.14", "random forest (500)": "82.65 (5-60 trees)", "linear SVM": "–"}
        for m, v in acc.items():
            lines.append(f"| {m} | {int(sum(v))} / {tested} | {100 * sum(v) / tested:.2f} | {thesis[m]} |")
        lines += ["", f"BENCH fit per fold: {np.mean(fit_times):.1f} ± {np.std(fit_times):.1f} s "
                  f"(max {np.max(fit_times):.1f} s). Load at the end: {load_average()}"]
    return _write(lines, args.out)


def _write(lines: list, out) -> int:
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
