"""Screening of data-driven prior strengths for the TM (issue 26, decision note section 7): run the variant keys
of ``tm_heldout`` on a subset of sets (10 folds) with a private cache, and compare them with the cached baselines
(NB, TAN, tuned LR, the default ``p=30`` and the inner-CV ridge) of ``benchmarks/.cache/tm_heldout``.

Usage: python benchmarks/tm_evidence_screen.py SETS KEY[,KEY...] [--cache DIR] [--out JSON] [--time]
"""
import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tm_heldout as T  # noqa: E402
from _common import load_average  # noqa: E402

BASE = ["NB", "TAN", "LR", "NB-TM:p=30", "TAN-TM:p=30", "NB-TM:p=30/10/3/1/0.3/0.1/0.03;m=uniform"]


def twin(key: str) -> str:
    """The generative twin of a TM learner key (``FAN-TM:...`` -> ``FAN``)."""
    return key.split("-TM")[0]


#: ``#knob+knob`` suffixes of a learner key: departures from the library's settings of the evidence rule
#: (``pgmpy_ext.parameters._tm_evidence``); ``first`` = the first screened version (4 updates from a fit at 30,
#: dense Hessian always, no scale, refit until the strength moves by less than 5 %).
FIRST = {"EVIDENCE_ITER": 4, "DENSE_MAX": 10**9, "FIT_SCALE": False, "INNER_TOL": 1.0, "FINAL_HESSIAN": True,
         "FROM_START": False, "WARM_X": False, "RTOL": 0.05, "MAX_STEP_FIRST": 10.0}
KNOBS = {"first": FIRST, "plain": {"LOCAL": False}, "grp": {"DENSE_MAX": 0}, "d200": {"DENSE_MAX": 200},
         "noscale": {"FIT_SCALE": False}, "it1": {"EVIDENCE_ITER": 1}, "it4": {"EVIDENCE_ITER": 4},
         "tight": {"INNER_TOL": 1.0}, "fit30": {"FROM_START": False, "MAX_STEP_FIRST": 10.0}}
_make = T.make_learner


def _settings():
    import pgmpy_ext.parameters._tm as tm
    import pgmpy_ext.parameters._tm_evidence as tme

    names = [(tm, "EVIDENCE_ITER")] + [(tme, n) for n in ("LOCAL", "MAX_STEP", "DENSE_MAX", "FIT_SCALE", "INNER_TOL",
                                                          "FINAL_HESSIAN", "FROM_START", "WARM_X", "RTOL", "RHO_TOL",
                                                          "MAX_STEP_FIRST")]
    return names, {n: getattr(m, n) for m, n in names}


SETTINGS, DEFAULTS = _settings()


def make_learner(key):
    """``key#knob+knob``: the learner of ``key`` with module settings of the evidence rule (experiments only)."""
    import pgmpy_ext.parameters._tm as tm
    import pgmpy_ext.parameters._tm_evidence as tme

    base, _, knobs = key.partition("#")
    for mod, name in SETTINGS:  # the library's settings, then the knobs
        setattr(mod, name, DEFAULTS[name])
    for k in filter(None, knobs.split("+")):
        for name, v in KNOBS[k].items():
            setattr(tm if hasattr(tm, name) else tme, name, v)
    return _make(base)


T.make_learner = make_learner


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sets")
    ap.add_argument("keys")
    ap.add_argument("--cache", default=os.environ.get("TM_EV_CACHE", "/tmp/i26c_cache"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--time", action="store_true", help="time the keys against the default in this process")
    a = ap.parse_args()
    names = T.all_datasets() if a.sets == "all" else T.SCREEN if a.sets == "screen" else a.sets.split(",")
    keys = a.keys.split(",")
    if a.time:
        return timing(names, keys)
    print("load average", load_average(), flush=True)
    main_cache = T.CACHE
    rows = {}
    for n in names:
        T.CACHE = main_cache
        extra = sorted({x for k in keys for x in (twin(k), twin(k) + "-TM:p=30")} - set(BASE))
        base = T.evaluate(n, 10, BASE + extra, 5000, log=lambda *x: None)
        T.CACHE = Path(a.cache)
        new = T.evaluate(n, 10, keys, 5000, log=lambda *x: None)
        r = {k: (float(-v["logp"].mean()), float(100 * v["correct"].mean()), float(np.median(v["fit_time"])))
             for k, v in {**base, **new}.items()}
        rows[n] = r
        print(n, " ".join(f"{k}={v[0]:.4f}/{v[2] / r[twin(k) + '-TM:p=30'][2]:.1f}x"
                          for k, v in r.items() if k in keys), f"| NB {r['NB'][0]:.4f} LR {r['LR'][0]:.4f}",
              f"p30 {r['NB-TM:p=30'][0]:.4f}", flush=True)
    print("load average", load_average())
    for k in keys:
        tw_key = twin(k)
        dflt = tw_key + "-TM:p=30"
        ll = np.array([rows[n][k][0] for n in names])
        tw = np.array([rows[n][tw_key][0] for n in names])
        lr = np.array([rows[n]["LR"][0] for n in names])
        tm = np.array([rows[n][k][2] / rows[n][dflt][2] for n in names])
        r = ll / tw
        print(f"{k}: mean {ll.mean():.4f} (twin {tw.mean():.4f}, LR {lr.mean():.4f}, default "
              f"{np.mean([rows[n][dflt][0] for n in names]):.4f}) / LR {ll.mean() / lr.mean():.3f}; no worse than "
              f"{tw_key} {int((r <= 1).sum())}/{len(names)}, worst {r.max():.3f} ({names[int(np.argmax(r))]}); "
              f"acc {np.mean([rows[n][k][1] for n in names]):.2f} vs "
              f"{np.mean([rows[n][tw_key][1] for n in names]):.2f}; "
              f"median time {np.median(tm):.2f}x default (max {tm.max():.1f}x)")
    if a.out:
        Path(a.out).write_text(json.dumps(rows, indent=1))



def timing(names, keys, folds=3, repeats=2):
    """Median over ``names`` of the fit time of each key over the default's (``<S>-TM:p=30``), both timed in this
    process, alternating, on the first ``folds`` folds, best of ``repeats`` per fold (wall clock, shared machine)."""
    import time
    import warnings

    from threadpoolctl import threadpool_limits

    print("timing; load average", load_average(), flush=True)
    ratios = {k: [] for k in keys}
    with threadpool_limits(limits=1):
        for n in names:
            X, y, _ = T.load(n, 5000)
            frames = T._fold_frames(X, y, T._folds(y, 10))[:folds]
            line = []
            for k in keys:
                dflt = twin(k) + "-TM:p=30"
                tot = {k: 0.0, dflt: 0.0}
                for Xtr, ytr, _, _ in frames:
                    best = {k: np.inf, dflt: np.inf}
                    for _ in range(repeats):
                        for key in (dflt, k):
                            est = make_learner(key)
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                t0 = time.perf_counter()
                                est.fit(Xtr, ytr)
                                best[key] = min(best[key], time.perf_counter() - t0)
                    for key in best:
                        tot[key] += best[key]
                ratios[k].append(tot[k] / tot[dflt])
                line.append(f"{k} {tot[k] / tot[dflt]:.2f}x ({tot[dflt] / folds:.3f} s)")
            print(n, "; ".join(line), flush=True)
    for k, r in ratios.items():
        print(f"{k}: median {np.median(r):.2f}x the default's fit time, max {np.max(r):.1f}x "
              f"({names[int(np.argmax(r))]})")
    print("load average", load_average())


if __name__ == "__main__":
    main()
