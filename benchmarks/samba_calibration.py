"""SAMBA calibration for BENCH (seed 004, issue 14, decision 10): bicluster and FI/FE statistics on leukemia
training folds for a grid of settings. Only training rows and their labels are used (no test accuracy).

Target (thesis section 4.3.6, spec section 7): on a 65-row leukemia training fold the FI datasets average 24 rows
x 226 genes and BENCH has 59 members (FI + FE).

    cd /path/to/checkout && nice python benchmarks/samba_calibration.py --folds 0 3 --grid default
Each line: settings, seconds, number of biclusters k, bicluster rows (min/median/max, mean), genes (median,
mean), class purity, hypergeometric labels, FI count and mean size, FE count, members (FI + FE, deduplicated).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.getcwd())  # measure the checkout we are run from

from pgmpy_ext.biclustering import SAMBA  # noqa: E402
from pgmpy_ext.ensembles import bench_datasets, bicluster_labels  # noqa: E402
from pgmpy_ext.experiments._seed004_bench import _load, folds  # noqa: E402

GRIDS = {
    # the first grid (threshold, p_c, min_rows, max_overlap)
    "default": [{"threshold": t, "p_c": p, "min_rows": r, "max_overlap": o}
                for t, p, r, o in itertools.product([0.75, 1.0], [0.5, 0.6, 0.7], [4, 6, 8], [0.2, 0.5])],
    # the refinement around the size target (then max_overlap 0.6 and 0.65 and p_c 0.55 by --grid JSON)
    "fine": [{"threshold": t, "p_c": p, "min_rows": 4, "max_overlap": o}
             for t, p, o in itertools.product([0.75, 1.0, 1.25], [0.5, 0.6], [0.5, 0.7])],
}


def stats(Xtr, ytr, params, seed):
    vals, cnt = np.unique(ytr, return_counts=True)
    y_pos = ytr == vals[np.argmin(cnt)]  # BENCH's default positive class: the minority
    t = time.perf_counter()
    s = SAMBA(random_state=seed, **params).fit(Xtr)
    el = time.perf_counter() - t
    R, C = s.rows_, s.columns_
    lab, _ = bicluster_labels(R, y_pos)
    ds = bench_datasets(R, C, lab)
    fi = [d for d in ds if d.kind == "FI"]
    usable = [d for d in ds if np.unique(y_pos[d.rows]).size == 2 and d.features.any()]
    nr, nc = R.sum(1), C.sum(1)
    pur = [max(y_pos[r].mean(), 1 - y_pos[r].mean()) for r in R]
    return {"seconds": el, "k": int(len(R)), "rows_mean": float(nr.mean()) if len(R) else 0.0,
            "rows_max": int(nr.max()) if len(R) else 0, "genes_mean": float(nc.mean()) if len(R) else 0.0,
            "purity": float(np.mean(pur)) if pur else np.nan,
            "labels": {k: int((lab == k).sum()) for k in ("+", "-", "mixed")},
            "FI": len(fi), "FI_rows": float(np.mean([d.rows.sum() for d in fi])) if fi else np.nan,
            "FI_genes": float(np.mean([d.features.sum() for d in fi])) if fi else np.nan,
            "FE": len(ds) - len(fi), "members": len(usable)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folds", type=int, nargs="+", default=[0])
    ap.add_argument("--grid", default="default", help=f"one of {sorted(GRIDS)} or a JSON list of settings")
    ap.add_argument("--dataset", default="leukemia")
    args = ap.parse_args(argv)
    grid = GRIDS[args.grid] if args.grid in GRIDS else json.loads(args.grid)
    X, y = _load(args.dataset, None)
    splits = folds(y, "floor", 10, 0)
    for params in grid:
        for f in args.folds:
            tr, _ = splits[f]
            r = stats(X[tr], y[tr], params, seed=f)
            print(json.dumps({"dataset": args.dataset, "fold": f, "settings": params, **r}), flush=True)


if __name__ == "__main__":
    main()
