"""Issue 27 item 5: why statements of the thesis's section 8.5 miss under NaiveBayesMap()'s defaults.

One experiment: the same default map, projected soft (the default, the thesis's eq. 5.18) and hard (winner
coordinates, as the SOM's are), checked on the statements that need no SOM (PCA, GTM and NBM only), beside the
thesis's rule. SOM is left out to keep the script to seconds; ``pgmpy-ext reproduce seed000-nbm-maps --nbm both``
has it. Prints which of those statements hold under each variant, and T(10) / C(10), with the load average.

    PYTHONPATH=. PGMPY_EXT_DATA=../shared/datasets python benchmarks/maps_issue27_statements.py
"""

from __future__ import annotations

import os

import numpy as np

from pgmpy_ext.evaluation import trustworthiness_continuity
from pgmpy_ext.experiments._seed000_nbm_common import DATASETS, load_standardised, run_gtm, run_nbm, run_pca
from pgmpy_ext.experiments._seed000_nbm_maps import KS, STATEMENTS
from pgmpy_ext.maps import NaiveBayesMap


def main():
    print(f"load average at start: {os.getloadavg()}")
    variants = ("thesis", "default soft", "default hard")
    held = dict.fromkeys(variants, 0)
    n_checked = 0
    i10 = KS.index(10)
    for name, file, _, _ in DATASETS:
        X, _, _ = load_standardised(file, os.environ.get("PGMPY_EXT_DATA"))
        Y = {"PCA": run_pca(X), "GTM": run_gtm(X)[0], "thesis": run_nbm(X, rule="thesis")[0]}
        m = NaiveBayesMap(random_state=0).fit(X)
        Y["default soft"] = m.transform(X)
        Y["default hard"] = m.set_params(projection="hard").transform(X)
        q = {}
        for k, v in Y.items():
            T, C = trustworthiness_continuity(X, v, n_neighbors=list(KS))
            q[k] = {"T": np.asarray(T), "C": np.asarray(C)}
        print(f"{name}: T(10)/C(10) " + ", ".join(f"{k} {q[k]['T'][i10]:.3f}/{q[k]['C'][i10]:.3f}" for k in q))
        for ds, text, need, check in STATEMENTS:
            if ds != name or "SOM" in need.split():
                continue
            n_checked += 1
            res = {}
            for v in variants:
                ok = bool(check({"PCA": q["PCA"], "GTM": q["GTM"], "NBM": q[v]}))
                held[v] += ok
                res[v] = "holds" if ok else "misses"
            print(f"  {text}: " + ", ".join(f"{v} {r}" for v, r in res.items()))
    print(f"statements without SOM: {n_checked}; hold: " + ", ".join(f"{v} {held[v]}" for v in variants))
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
