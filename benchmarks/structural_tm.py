"""Structural TM (seed 001 A15, spec 5.10): wall time, selected arcs and final cBIC for each TM optimiser.

Every candidate structure of the greedy search gets TM parameters, so the search runs hundreds of TM fits; the
optimiser decides both the time and (when the thesis's 0.01 grid stalls) the CLL each candidate is scored with,
hence the structure found. Variants: the thesis's cBIC search from maximum likelihood with its iteration and the
grid line search (``solver="tm"``, ``line_search="grid"``), with backtracking, and with ``solver="lbfgs"`` (no
prior); each with and without ``warm_start``; and the default since issue 26 (the Gaussian prior, candidates scored
by a 3-fold held-out CLL).

Data: built-in tic-tac-toe (958 rows, 9 features) and Corral (128 rows); with ../shared beside the repository also
the UCI copies of Cleve, Vote and Hepatitis (MDLP-discretised on all rows, as the Table 5.5/5.6 reproduction).
On request, ``wide``: 100 rows x 250 ternary features (seed 0; the class depends on X0 + X1 mod 3), the case of
issue 11 where every step scores thousands of candidates (``--variants lbfgs``: the thesis grid does not finish in
minutes there). Single-threaded (n_jobs=1). Timings are one run each (the searches are deterministic).

Usage: python benchmarks/structural_tm.py [--datasets tic-tac-toe,corral,cleve,vote,hepatitis,wide]
    [--variants "thesis grid,lbfgs"] [--max-candidates N]
"""

from __future__ import annotations

import argparse
import time
import warnings

from _common import load_average, machine

#: The thesis's search (cBIC from maximum likelihood, no prior) under each optimiser, then the default since issue 26
#: (L-BFGS with the Gaussian prior, candidates scored by their held-out CLL in a 3-fold inner CV).
_CBIC = {"alpha": 0.0, "prior_strength": 0.0, "criterion": "cbic"}
VARIANTS = [("thesis grid", {"solver": "tm", "line_search": "grid", **_CBIC}),
            ("backtracking", {"solver": "tm", "line_search": "backtracking", **_CBIC}),
            ("backtracking + warm start", {"solver": "tm", "line_search": "backtracking", "warm_start": True,
                                           **_CBIC}),
            ("lbfgs", {"solver": "lbfgs", **_CBIC}),
            ("lbfgs + warm start", {"solver": "lbfgs", "warm_start": True, **_CBIC}),
            ("default (prior, held-out CV)", {})]


def make_wide(n=100, m=250, seed=0):
    """100 rows x 250 ternary features; the class is ``(X0 + X1 + noise) mod 3 > 0`` (issue 11 item 5)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, (n, m)), columns=[f"X{i}" for i in range(m)])
    y = pd.Series(((X["X0"] + X["X1"] + (rng.random(n) < 0.2)) % 3 > 0).astype(int), name="C")
    return X, y


def load(name):
    from pgmpy_ext.datasets import make_corral, make_tic_tac_toe

    if name == "wide":
        return make_wide()
    if name == "tic-tac-toe":
        return make_tic_tac_toe()
    if name == "corral":
        return make_corral()
    from pgmpy_ext.experiments._seed001_common import load_uci
    from pgmpy_ext.preprocessing import MDLPDiscretizer

    X, y, cont = load_uci(name)
    if cont:
        X = MDLPDiscretizer(columns=cont).fit(X, y).transform(X)
    return X, y


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="tic-tac-toe,corral,cleve,vote,hepatitis")
    ap.add_argument("--variants", default=",".join(label for label, _ in VARIANTS),
                    help="comma-separated variant labels (default: all)")
    ap.add_argument("--max-candidates", type=int, default=None,
                    help="budget of candidate TM fits per search (default: none, the whole greedy search)")
    args = ap.parse_args(argv)
    chosen = args.variants.split(",")
    from pgmpy_ext.classifiers import StructuralTMClassifier

    print(f"machine: {machine()}; load average {load_average()}")
    print("| data | rows x features | variant | time (s) | arcs added | final cBIC | final CLL | TM runs |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        try:
            X, y = load(name)
        except FileNotFoundError as exc:
            print(f"| {name} | not available ({exc.__class__.__name__}) | | | | | | |")
            continue
        for label, kw in VARIANTS:
            if label not in chosen:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                clf = StructuralTMClassifier(**kw, max_candidates=args.max_candidates).fit(X, y)
                el = time.perf_counter() - t
            tr = clf.structure_.trace
            print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {label} | {el:.2f} | {len(tr['steps'])} | "
                  f"{tr['cbic']:.2f} | {tr['cll']:.2f} | {tr['n_tm_runs']} |", flush=True)
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
