"""Reproduction of Table 3.2 of Ruz's thesis (seed 000, chapter 3): NB, TAN and SBN test accuracy on the ten data
sets of Table 3.1, and the Cleve edge-count growth (10/50/80% of the rows for training: 0, 6 and 12 edges).

Protocol (``docs/decisions/seed000-sbn-cem-nbm.md`` sections 2.3-2.7, 6.1, 7.1, 8.1; decisions D1, D2, D4-D7, D9,
D10, D14, D17, D24):

* one random train/test split with Table 3.1's sizes is what the thesis ran; a single split is mostly noise, so
  the split is repeated with ``train_test_split(train_size, test_size, random_state=r)`` for ``r = 0 .. n - 1``
  (plain random, not stratified) and the report gives the thesis's number next to our mean ± std, the 5th-95th
  percentile range, and the fraction of splits where SBN >= max(NB, TAN);
* rows with a missing value are removed (only Cleve has any: PMLB codes them as extra values); continuous
  attributes are discretised by Fayyad-Irani MDLP fitted on the training part only (D14);
* NB, TAN, SBN (marginal stopping rule, the default, D2) and SBN (the thesis's literal cumulative rule) with
  maximum-likelihood CPTs (``alpha=0``, the thesis's frequencies, with the 1e-300 log floor at prediction, D5) and
  with Laplace ``alpha=1`` as the sensitivity check (D5);
* Cleve growth: SBN edge counts on MDLP-discretised training samples of 10%, 50% and 80% of the 296 complete rows.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pgmpy_ext.experiments._common import fmt, md_table, parallel_map, pm, report_path, run_facts, write_report

__all__ = ["DATASETS", "GROWTH_TARGETS", "TARGETS", "run"]

NAME = "seed000-table3.2"


@dataclass(frozen=True)
class DataSpec:
    """A row of Table 3.2 as run here."""

    name: str                 # row label in our report
    target: str               # the thesis row it is compared with
    file: str | None          # shared PMLB file, "corral-generator", or None (not available)
    continuous: tuple | str   # "float": every column stored as float in the file; or the columns to discretise
    n_train: int
    n_test: int
    thesis_rows: int
    note: str
    drop: str | None = None   # rule removing rows with missing values (coded as values in the PMLB copy)


CLEVE_CONT = "float"   # Age, Trestbps, Cholesterol, Max heart rate, Oldpeak
HEART_CONT = ("age", "resting_blood_pressure", "serum_cholestoral", "maximum_heart_rate_achieved", "oldpeak",
              "number_of_major_vessels")
HEPATITIS_CONT = ("AGE", "BILIRUBIN", "ALK PHOSPHATE", "SGOT", "ALBUMIN", "PROTIME")

#: The data sets of Table 3.1, with the thesis's train/test sizes (spec section 2.7) and how our copy differs.
DATASETS = [
    DataSpec("Cleve", "Cleve", "cleve", CLEVE_CONT, 148, 148, 296,
             "PMLB copy has 303 rows: the 7 rows with a missing 'ca' (coded 4, 5 rows) or 'thal' (coded 0, 2 rows) "
             "are removed, which leaves 296 rows, the thesis's count (D17). Continuous: the 5 float-stored columns "
             "(age, trestbps, chol, thalach, oldpeak); 'ca' is kept nominal.", drop="cleve"),
    DataSpec("Corral", "Corral", "corral", (), 64, 64, 128,
             "PMLB copy: 160 rows (the thesis's file has 128), so the 64/64 split leaves 32 rows unused."),
    DataSpec("Corral (generator)", "Corral", "corral-generator", (), 64, 64, 128,
             "`make_corral()`: the balanced 128-row reconstruction of spec section 7.2 (not the original file)."),
    DataSpec("Flare", "Flare", "flare", (), 700, 366, 1066,
             "PMLB 'flare': 1066 rows, 10 nominal attributes (two stored as floats 1.0-3.0, kept nominal), one of "
             "them constant ('Area of the largest spot'); its binary class (884/182) need not be the thesis's "
             "(D17: the 2-class target of Friedman et al. is unclear)."),
    DataSpec("Heart", "Heart", "heart_statlog", HEART_CONT, 135, 135, 270,
             "As in the thesis (Statlog heart, 270 rows). Every column is stored as float; the 6 real-valued "
             "attributes of the Statlog documentation (1, 4, 5, 8, 10, 12) are discretised, the rest are nominal."),
    DataSpec("Hepatitis", "Hepatitis", "hepatitis", HEPATITIS_CONT, 40, 40, 80,
             "PMLB copy: 155 rows with no missing cell (values already replaced; the thesis kept the 80 complete "
             "rows, which cannot be recovered here), binary attributes with 3 levels, and the lab values "
             "(bilirubin, alk phosphate, sgot, albumin, protime) stored as integer codes whose order we cannot "
             "check against the original values; MDLP is run on those codes. 40/40 split out of 155 rows."),
    DataSpec("Ionosphere", "Ionosphere", "ionosphere", "float", 176, 175, 351,
             "As in the thesis (351 rows). The 32 float columns are discretised; column '0' (binary) and column "
             "'1' (constant) are nominal."),
    DataSpec("Iris", "Iris", "iris", "float", 75, 75, 150, "As in the thesis."),
    DataSpec("Liver", "Liver-Disorders", "bupa", "float", 100, 245, 345,
             "PMLB 'bupa' has 5 attributes: UCI's 'drinks' column is gone because PMLB's class *is* drinks >= 3 "
             "half-pints (PMLB metadata), not the UCI 'selector' column the thesis used (D17). A different task: "
             "the accuracies are not comparable. n - 1 = 4 edges at most (thesis: 5)."),
    DataSpec("Pima", "Pima", "pima", "float", 384, 384, 768, "As in the thesis (768 rows, 8 continuous)."),
    DataSpec("Zoo", "Zoo", None, (), 51, 50, 101, "Not in ../shared/datasets: not run."),
]

#: Table 3.2 of the thesis (spec section 8.1), in %: NB, TAN, SBN, SBN edges, n - 1.
TARGETS = {
    "Cleve": (79.73, 81.76, 83.12, 6, 12),
    "Corral": (82.81, 93.75, 100.00, 3, 5),
    "Flare": (80.60, 84.15, 84.15, 9, 9),
    "Heart": (84.44, 84.44, 85.19, 9, 12),
    "Hepatitis": (95.00, 72.50, 95.00, 4, 18),
    "Ionosphere": (93.14, 93.71, 93.71, 12, 33),
    "Iris": (97.33, 97.33, 97.33, 0, 3),
    "Liver-Disorders": (71.43, 69.80, 71.84, 3, 5),
    "Pima": (77.08, 77.60, 77.60, 7, 7),
    "Zoo": (88.00, 78.00, 88.00, 2, 15),
}

#: Values used when checking a thesis cell against our distribution, where the printed one is a known typo (D24):
#: Cleve SBN is printed 83.12 but 123/148 = 83.108 (every other cell is an integer count over the test size).
TYPO_FIXES = {("Cleve", "sbn"): 83.11}
#: Thesis cells are printed with 2 decimals: a cell is "inside" a range when it is within half a unit of it.
PRINT_TOL = 0.005
#: Our mean accuracies closer than this (points) count as equal when ranking the models.
ORDER_TOL = 0.1

#: The Cleve data-size experiment (spec section 2.7): training fraction -> SBN edges in the thesis (of 12).
GROWTH_TARGETS = {0.1: 0, 0.5: 6, 0.8: 12}
CLEVE_COMPLETE_ROWS = 296

MODELS = ("nb", "tan", "sbn", "sbn_cum")
MODEL_NAMES = {"nb": "NB", "tan": "TAN", "sbn": "SBN", "sbn_cum": "SBN-cum"}
ALPHAS = (0.0, 1.0)


@dataclass
class Settings:
    n_splits: int = 100
    n_growth_splits: int = 200
    growth_fractions: tuple = (0.1, 0.5, 0.8)


# ---------------------------------------------------------------------------------------------- data
def _spec(name: str) -> DataSpec:
    return next(d for d in DATASETS if d.name == name)


def load(spec: DataSpec, data_home=None) -> tuple[pd.DataFrame, np.ndarray, list]:
    """(attributes, class labels, continuous columns) of a Table 3.1 data set; rows with missing values removed.

    Continuous columns are float64; every other column is a Categorical over the values in the file (so a state
    absent from a training part is still declared). Raises FileNotFoundError when the shared file is absent.
    """
    from pgmpy_ext.datasets import load_dataset, make_corral

    if spec.file is None:
        raise FileNotFoundError(f"{spec.name} is not available in ../shared/datasets.")
    if spec.file == "corral-generator":
        X, y = make_corral()
    else:
        X, y = load_dataset(spec.file, data_home=data_home, continuous="float")
    y = np.asarray(y)
    if spec.drop == "cleve":
        keep = ~((np.asarray(X["Number of vessels colored"], dtype=np.int64) == 4)
                 | (np.asarray(X["Thal"], dtype=np.int64) == 0))
        X, y = X.loc[keep].reset_index(drop=True), y[keep]
    if spec.continuous == "float":
        cont = [c for c in X.columns if pd.api.types.is_float_dtype(X[c].dtype)]
    else:
        cont = list(spec.continuous)
    out = {}
    for c in X.columns:
        if c in cont:
            out[c] = np.asarray(X[c], dtype=np.float64)
        else:
            vals = np.asarray(X[c])
            if vals.dtype.kind == "f":
                vals = vals.astype(np.int64)
            cats = X[c].cat.categories if isinstance(X[c].dtype, pd.CategoricalDtype) else np.unique(vals)
            if vals.dtype.kind in "iu":
                cats = [int(v) for v in cats]
            col = pd.Categorical(vals, categories=cats)
            out[c] = col.remove_unused_categories() if spec.drop else col
    return pd.DataFrame(out, columns=list(X.columns)), y, cont


def discretise(X: pd.DataFrame, y: np.ndarray, train: np.ndarray, cont: list):
    """MDLP fitted on the training rows only (D14); returns the transformed frame of all rows."""
    from pgmpy_ext.preprocessing import MDLPDiscretizer

    if not cont:
        return X
    disc = MDLPDiscretizer(columns=cont).fit(X.iloc[train], y[train])
    return disc.transform(X)


def _learners(alpha: float) -> dict:
    from pgmpy_ext.classifiers import NaiveBayesClassifier, SBNClassifier, TANClassifier

    return {"nb": NaiveBayesClassifier(alpha=alpha), "tan": TANClassifier(alpha=alpha),
            "sbn": SBNClassifier(alpha=alpha), "sbn_cum": SBNClassifier(alpha=alpha, stopping="cumulative")}


def _monitor_variants(sbn) -> dict:
    """Edge counts of the SBN monitor variants, from one fitted SBN's full Kruskal walk: marginal and cumulative
    rules with the real code length m = log2(n + 1), and the marginal rule with the integer m (D1)."""
    from pgmpy_ext.structure import sbn_code_length, sbn_monitor

    trace = sbn.structure_.trace
    cmi_bits = sbn.monitor_trace_["cmi_bits"].to_numpy(dtype=np.float64)
    n_feat = len(sbn.structure_.features)
    n_rows = trace["n_rows"]
    pen = 2.0 * sbn_code_length(n_feat)
    pen_int = 2.0 * sbn_code_length(n_feat, integer_code_length=True)
    return {"marginal": sbn_monitor(cmi_bits, n_rows, pen, "marginal")[0],
            "cumulative": sbn_monitor(cmi_bits, n_rows, pen, "cumulative")[0],
            "marginal_int": sbn_monitor(cmi_bits, n_rows, pen_int, "marginal")[0]}


def _one_state(X: pd.DataFrame) -> int:
    """Attributes with a single value in the training part (e.g. no MDLP cut): their CMI with every other attribute
    is 0, so the marginal rule can never attach them and at most ``n - 1 - count`` edges can be added."""
    return int(sum(X[c].nunique() <= 1 for c in X.columns))


def table_task(name: str, reps: list, data_home=None) -> list[dict]:
    """Accuracies and edge counts of every model on the splits ``reps`` of one data set."""
    from sklearn.model_selection import train_test_split

    spec = _spec(name)
    X, y, cont = load(spec, data_home)
    rows = []
    for r in reps:
        train, test = train_test_split(np.arange(len(X)), train_size=spec.n_train, test_size=spec.n_test,
                                       random_state=r)
        Xd = discretise(X, y, train, cont)
        Xtr, Xte, ytr, yte = Xd.iloc[train], Xd.iloc[test], y[train], y[test]
        row = {"rep": r, "n_features": X.shape[1], "one_state": _one_state(Xtr)}
        for alpha in ALPHAS:
            for key, est in _learners(alpha).items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(Xtr, ytr)
                row[key, alpha] = float(np.mean(est.predict(Xte) == yte))
                if alpha == ALPHAS[0] and key.startswith("sbn"):
                    row["edges", key] = len(est.structure_.augmenting_edges())
                    if key == "sbn":
                        row["edges", "sbn_int"] = _monitor_variants(est)["marginal_int"]
        rows.append(row)
    return rows


def growth_task(fraction: float, reps: list, data_home=None) -> list[dict]:
    """SBN edge counts (marginal, cumulative, integer m) on Cleve training samples of ``fraction`` of the rows."""
    from sklearn.model_selection import train_test_split

    from pgmpy_ext.classifiers import SBNClassifier

    X, y, cont = load(_spec("Cleve"), data_home)
    n_train = int(round(fraction * len(X)))
    rows = []
    for r in reps:
        train, _ = train_test_split(np.arange(len(X)), train_size=n_train, random_state=r)
        Xd = discretise(X, y, train, cont)
        sbn = SBNClassifier(alpha=0.0).fit(Xd.iloc[train], y[train])
        row = {"rep": r, "fraction": fraction, "n_train": n_train, "n_features": X.shape[1],
               "one_state": _one_state(Xd.iloc[train]),
               **_monitor_variants(sbn)}
        if r == 0:
            row["monitor"] = sbn.monitor_trace_.copy()
            row["penalty_bits"] = sbn.structure_.trace["penalty_bits"]
        rows.append(row)
    return rows


def _chunks(n: int, size: int) -> list[list[int]]:
    return [list(range(a, min(n, a + size))) for a in range(0, n, size)]


# ---------------------------------------------------------------------------------------------- summaries
def _acc(rows, key) -> np.ndarray:
    return 100.0 * np.array([r[key] for r in rows], dtype=np.float64)


def _within(values: np.ndarray, target: float) -> tuple[float, float, bool]:
    lo, hi = np.percentile(values, [5, 95])
    return float(lo), float(hi), bool(lo - PRINT_TOL - 1e-9 <= target <= hi + PRINT_TOL + 1e-9)


def _checked(spec: DataSpec, k: int, key: str) -> float:
    """The thesis value a cell is checked against (the printed one, or its D24 correction)."""
    return TYPO_FIXES.get((spec.target, key), TARGETS[spec.target][k])


def _sbn_wins(rows, alpha, sbn="sbn") -> float:
    return float(np.mean([r[sbn, alpha] >= max(r["nb", alpha], r["tan", alpha]) - 1e-12 for r in rows]))


def _reachable(rows, edges: int) -> float:
    """Share of splits where ``edges`` fits in a forest over the attributes that are not single-valued (the most
    the marginal rule can add: a single-valued attribute has zero CMI with everything, so k_e = 2m > 0)."""
    return float(np.mean([edges <= max(0, r["n_features"] - 1 - r["one_state"]) for r in rows]))


def _edge_hist(values, max_edges: int) -> str:
    counts = np.bincount(np.asarray(values, dtype=np.int64), minlength=max_edges + 1)
    return ", ".join(f"{e}:{c}" for e, c in enumerate(counts) if c)


# ---------------------------------------------------------------------------------------------- report
def _accuracy_table(results: dict, alpha: float) -> list[str]:
    header = ["Dataset", "rows (ours / thesis)", "train / test", "NB thesis", "NB ours", "TAN thesis", "TAN ours",
              "SBN thesis", "SBN ours", "SBN-cum ours", "SBN ≥ max(NB, TAN)", "SBN-cum ≥ max(NB, TAN)"]
    rows = []
    for spec in DATASETS:
        t = TARGETS[spec.target]
        res = results.get(spec.name)
        if res is None or res.get("missing"):
            rows.append([spec.name, f"– / {spec.thesis_rows}", f"{spec.n_train} / {spec.n_test}", fmt(t[0]),
                         "not run", fmt(t[1]), "not run", fmt(t[2]), "not run", "–", "–", "–"])
            continue
        rr = res["rows"]
        cells = [spec.name, f"{res['n_rows']} / {spec.thesis_rows}", f"{spec.n_train} / {spec.n_test}"]
        for k, key in enumerate(("nb", "tan", "sbn")):
            cells += [fmt(t[k]), pm(_acc(rr, (key, alpha)))]
        cells += [pm(_acc(rr, ("sbn_cum", alpha))), f"{100 * _sbn_wins(rr, alpha):.0f}%",
                  f"{100 * _sbn_wins(rr, alpha, 'sbn_cum'):.0f}%"]
        rows.append(cells)
    return md_table(header, rows)


def _range_table(results: dict, alpha: float) -> list[str]:
    header = ["Dataset", "NB: ours 5-95% (thesis)", "TAN: ours 5-95% (thesis)", "SBN: ours 5-95% (thesis)",
              "thesis order", "our mean order"]
    rows = []
    for spec in DATASETS:
        res = results.get(spec.name)
        if res is None or res.get("missing"):
            continue
        t = TARGETS[spec.target]
        rr = res["rows"]
        cells = [spec.name]
        means = {}
        for k, key in enumerate(("nb", "tan", "sbn")):
            vals = _acc(rr, (key, alpha))
            target = _checked(spec, k, key)
            lo, hi, ok = _within(vals, target)
            means[key] = vals.mean()
            fix = "; D24" if target != t[k] else ""
            cells.append(f"{lo:.2f}-{hi:.2f} ({target:.2f}{fix}) {'in' if ok else '**out**'}")
        cells.append(_order({"nb": t[0], "tan": t[1], "sbn": t[2]}))
        cells.append(_order(means, ORDER_TOL))
        rows.append(cells)
    return md_table(header, rows)


def _order(values: dict, tol: float = 0.005) -> str:
    """'SBN > TAN = NB' style ordering (neighbours within ``tol`` points are '=')."""
    items = sorted(values.items(), key=lambda kv: -kv[1])
    out = MODEL_NAMES[items[0][0]]
    for (_, prev), (key, val) in zip(items, items[1:]):
        out += (" = " if abs(prev - val) < tol else " > ") + MODEL_NAMES[key]
    return out


def _edges_table(results: dict) -> list[str]:
    header = ["Dataset", "thesis e / (n-1)", "ours n-1", "SBN (marginal) mean ± std", "distribution (edges:splits)",
              "SBN-cum mean ± std", "SBN integer m (D1) mean ± std", "single-valued attributes (mean)",
              "splits where the thesis e is reachable", "thesis e within our 5-95%"]
    rows = []
    for spec in DATASETS:
        t = TARGETS[spec.target]
        res = results.get(spec.name)
        if res is None or res.get("missing"):
            rows.append([spec.name, f"{t[3]} / {t[4]}", "–", "not run", "–", "–", "–", "–", "–", "–"])
            continue
        rr = res["rows"]
        m = rr[0]["n_features"] - 1
        e = np.array([r["edges", "sbn"] for r in rr])
        lo, hi = np.percentile(e, [5, 95])
        rows.append([spec.name, f"{t[3]} / {t[4]}", str(m), pm(e), _edge_hist(e, m),
                     pm([r["edges", "sbn_cum"] for r in rr]), pm([r["edges", "sbn_int"] for r in rr]),
                     fmt(np.mean([r["one_state"] for r in rr]), 1), f"{100 * _reachable(rr, t[3]):.0f}%",
                     f"{lo:.0f}-{hi:.0f}: {'yes' if lo <= t[3] <= hi else '**no**'}"])
    return md_table(header, rows)


def _growth_section(growth: dict | None, st: Settings, skipped: str) -> list[str]:
    L = ["## Cleve: SBN edges against the training-set size (thesis Figs. 3.4-3.7)", ""]
    if growth is None:
        return L + [f"Not run: {skipped}.", ""]
    L += [f"{st.n_growth_splits} random training samples per fraction of the {CLEVE_COMPLETE_ROWS} complete rows, "
          "MDLP fitted on each sample, maximum-likelihood CMI; edges of the 12 possible. The thesis reports one "
          "sample per fraction.", ""]
    header = ["training fraction", "rows", "thesis edges", "SBN marginal: mean ± std", "median", "5-95%",
              "distribution (edges:samples)", "SBN-cum: mean ± std", "SBN integer m: mean ± std",
              "single-valued attributes (mean)", "samples where the thesis count is reachable (marginal)",
              "samples with exactly the thesis count (marginal / cum)"]
    rows = []
    for f in st.growth_fractions:
        rr = growth[f]
        e = np.array([r["marginal"] for r in rr])
        c = np.array([r["cumulative"] for r in rr])
        lo, hi = np.percentile(e, [5, 95])
        t = GROWTH_TARGETS[f]
        rows.append([f"{100 * f:.0f}%", str(rr[0]["n_train"]), str(t), pm(e), f"{np.median(e):.0f}",
                     f"{lo:.0f}-{hi:.0f}", _edge_hist(e, 12), pm(c), pm([r["marginal_int"] for r in rr]),
                     fmt(np.mean([r["one_state"] for r in rr]), 1), f"{100 * _reachable(rr, t):.0f}%",
                     f"{100 * np.mean(e == t):.0f}% / {100 * np.mean(c == t):.0f}%"])
    L += md_table(header, rows)
    ex = growth[0.5][0] if 0.5 in growth else None
    if ex is not None and "monitor" in ex:
        mon = ex["monitor"]
        L += ["", f"The monitor on sample 0 at 50% (N = {ex['n_train']}, 2m = {ex['penalty_bits']:.3f} bits; thesis "
              "Fig. 3.7: the 6th edge is the last with a negative value). k_e = 2m - N·I_2(edge), K_e = Σ k_i:", ""]
        L += md_table(["step", "edge", "I_2 (bits)", "k_e (bits)", "K_e (bits)", "accepted (marginal)"],
                      [[int(r.step), f"{r.edge[0]} – {r.edge[1]}", f"{r.cmi_bits:.4f}", f"{r.k_bits:.2f}",
                        f"{r.K_bits:.2f}", "yes" if r.accepted else "no"] for r in mon.itertuples()])
    L.append("")
    return L


def _findings(results: dict, growth: dict | None, st: Settings) -> list[str]:
    """Generated statements: where the thesis's numbers fall in our split distributions."""
    L = ["## Summary: where we match the thesis and where not", ""]
    ran = [s for s in DATASETS if s.name in results and not results[s.name].get("missing")]
    if not ran:
        return L + ["No data set was run.", ""]
    a0 = ALPHAS[0]
    inside, outside = [], []
    for spec in ran:
        t = TARGETS[spec.target]
        for k, key in enumerate(("nb", "tan", "sbn")):
            vals = _acc(results[spec.name]["rows"], (key, a0))
            target = _checked(spec, k, key)
            lo, hi, ok = _within(vals, target)
            (inside if ok else outside).append(f"{spec.name} {MODEL_NAMES[key]} (thesis {target:.2f}, ours "
                                               f"{vals.mean():.2f}, 5-95% {lo:.2f}-{hi:.2f})")
    n_cells = len(inside) + len(outside)
    L.append(f"* Accuracy, alpha = 0: {len(inside)} of {n_cells} thesis cells lie inside the 5-95% range of our "
             f"{st.n_splits} splits (consistent with one random split of the same sizes); outside: "
             + ("; ".join(outside) if outside else "none") + ".")
    wins = {s.name: _sbn_wins(results[s.name]["rows"], a0) for s in ran}
    L.append("* SBN >= max(NB, TAN) (alpha = 0), share of splits: "
             + ", ".join(f"{k} {100 * v:.0f}%" for k, v in wins.items())
             + ". The thesis has it on every data set of its single split.")
    wins1 = {s.name: _sbn_wins(results[s.name]["rows"], 1.0) for s in ran}
    L.append("* The same with Laplace alpha = 1: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in wins1.items()) + ".")
    e_out = []
    for spec in ran:
        t = TARGETS[spec.target]
        e = np.array([r["edges", "sbn"] for r in results[spec.name]["rows"]])
        lo, hi = np.percentile(e, [5, 95])
        if not lo <= t[3] <= hi:
            e_out.append(f"{spec.name} (thesis {t[3]}, ours {e.mean():.1f}, 5-95% {lo:.0f}-{hi:.0f})")
    agree = []
    for spec in ran:
        t = TARGETS[spec.target]
        means = {key: _acc(results[spec.name]["rows"], (key, a0)).mean() for key in ("nb", "tan", "sbn")}
        if _order({"nb": t[0], "tan": t[1], "sbn": t[2]}) == _order(means, ORDER_TOL):
            agree.append(spec.name)
    L.append(f"* Ranking of NB, TAN and SBN by mean accuracy (alpha = 0; within {ORDER_TOL} points = tie) equals the "
             "thesis's single-split ranking on: "
             + (", ".join(agree) or "none") + ".")
    L.append("* SBN edge counts (marginal rule): thesis count inside our 5-95% range on "
             f"{len(ran) - len(e_out)} of {len(ran)} data sets; outside: " + ("; ".join(e_out) or "none") + ".")
    capped = []
    for spec in ran:
        t = TARGETS[spec.target]
        reach = _reachable(results[spec.name]["rows"], t[3])
        if reach < 0.5:
            capped.append(f"{spec.name} (thesis {t[3]}; reachable in {100 * reach:.0f}% of splits)")
    if capped:
        L.append("* Thesis edge counts the marginal rule cannot reach on most of our splits, because some attributes "
                 "are single-valued in the training part (MDLP kept no cut, or the column is constant in the PMLB "
                 "copy): such an attribute has zero CMI with every other one, so any edge to it has k_e = 2m > 0: "
                 + "; ".join(capped) + ". The thesis's data copy or discretiser must have given those attributes "
                 "more than one value.")
    if growth is not None:
        parts = []
        for f in st.growth_fractions:
            e = np.array([r["marginal"] for r in growth[f]])
            c = np.array([r["cumulative"] for r in growth[f]])
            parts.append(f"{100 * f:.0f}%: thesis {GROWTH_TARGETS[f]}, ours {e.mean():.1f} (median "
                         f"{np.median(e):.0f}; cumulative rule {c.mean():.1f})")
        L.append("* Cleve growth (marginal rule): " + "; ".join(parts) + ". The thesis's 12 edges at 80% are "
                 f"reachable by the marginal rule in {100 * _reachable(growth[0.8], 12):.0f}% of our samples "
                 "(MDLP leaves some continuous attributes uncut); the cumulative rule gives 12.")
    L.append("")
    return L


STATIC_NOTES = """## Why the numbers differ (known causes)

* **One split against many.** Every thesis cell is one random split (an integer count over the test size); ours
  are distributions over seeded splits of the same sizes. On the small sets (Corral, Hepatitis, Iris, Heart,
  Cleve) the split-to-split standard deviation is 2 to 7 points (tables above), so a single-split difference of
  that size carries no evidence either way.
* **Different data copies** (listed below, D17): PMLB's Corral (160 rows), Hepatitis (155 imputed rows instead
  of 80 complete rows; integer-coded lab values), Liver (PMLB's class is "drinks >= 3", not the selector the thesis
  used, so Liver is a different task), Flare (the binary target is not documented in the thesis). Zoo is not
  available.
* **Discretisation.** Our MDLP is a from-scratch Fayyad-Irani implementation fitted per training part; the thesis
  names the method but not the implementation, and implementations differ in tie and boundary handling (and in
  whether the discretiser saw the whole data set). MDLP on 30-400 training rows often keeps no cut at all for an
  attribute (one interval), which removes it from every model and caps the number of SBN edges (column
  "single-valued attributes").
* **Smoothing and ties (D5-D7).** The thesis does not say how zero counts were handled; alpha = 0 with a log
  floor is our faithful reading, alpha = 1 the sensitivity check; class ties go to the first class.
* **Stopping rule (D2).** The thesis's text describes the cumulative rule; its reported edge counts (Corral 3/5)
  fit the marginal rule, our default. Both are reported.
"""


def report(results: dict, growth: dict | None, st: Settings, elapsed: float, n_jobs, quick: bool,
           growth_skipped: str = "") -> str:
    L = ["# Reproduction: seed 000, Table 3.2 (NB, TAN and SBN test accuracy) and the Cleve edge-count growth", "",
         f"Generated by `pgmpy-ext reproduce {NAME}` (module `pgmpy_ext.experiments._seed000_table32`); do not edit "
         "by hand.", "", run_facts(elapsed, n_jobs, quick), "",
         "## Protocol", "",
         f"* Splits: the thesis ran **one** random train/test split per data set with the sizes of its Table 3.1. "
         f"We run {st.n_splits} seeded random splits of the same sizes (`train_test_split(train_size, test_size, "
         f"random_state=r)`, r = 0..{st.n_splits - 1}, not stratified) and compare the thesis's number with our "
         "distribution: mean ± std (ddof 1) and the 5th-95th percentile range.",
         "* Rows with a missing value are removed (section 2.7); continuous attributes are discretised with "
         "Fayyad-Irani MDLP (`MDLPDiscretizer`) fitted on the training part only (D14); nominal attributes keep "
         "every value of the file as a declared state.",
         "* Models: `NaiveBayesClassifier`, `TANClassifier`, `SBNClassifier()` (marginal stopping rule, D2 default) "
         "and `SBNClassifier(stopping=\"cumulative\")` (SBN-cum, the thesis's literal rule), all from the same "
         "maximum-likelihood CMI (D3), Kruskal ties by (-w, i, j) (D9), one root per tree (D10), strict < 0 tests "
         "(D4), m = log2(n + 1) real (D1; the integer m is shown for the edge counts).",
         "* Parameters: **alpha = 0** (maximum likelihood, the thesis's frequencies; unseen parent configurations get "
         "a uniform row, D6; zero probabilities floored at 1e-300 when predicting; class ties go to the first "
         "class, D7) is the faithful setting; **alpha = 1** (Laplace) is the sensitivity check (D5).",
         "* Accuracy = % of the test part classified correctly (section 6.1). 'SBN ≥ max(NB, TAN)' is the share of "
         "splits where SBN's accuracy is at least the better of NB and TAN on that split.",
         "* Thesis numbers are copied from spec section 8.1; Cleve SBN is printed 83.12 in the thesis, although "
         "123/148 = 83.11 (D24).", "",
         "## Test accuracy (%), alpha = 0 (maximum likelihood; faithful setting)", ""]
    L += _accuracy_table(results, 0.0)
    L += ["", "## Test accuracy (%), alpha = 1 (Laplace; sensitivity, D5)", ""]
    L += _accuracy_table(results, 1.0)
    L += ["", "## Where the thesis's single split falls in our distribution (alpha = 0)", "",
          "'in' = the thesis's accuracy lies inside our 5th-95th percentile range over splits. In 'our mean order', "
          f"means within {ORDER_TOL} points are shown as equal.", ""]
    L += _range_table(results, 0.0)
    L += ["", "## SBN augmenting edges e (alpha does not change the structure)", ""]
    L += _edges_table(results)
    L += [""]
    L += _growth_section(growth, st, growth_skipped)
    L += _findings(results, growth, st)
    L += [STATIC_NOTES, "## Data used, and how it differs from the thesis's", ""]
    for spec in DATASETS:
        res = results.get(spec.name, {})
        rows = f"{res['n_rows']} rows used" if res and not res.get("missing") else "not run"
        cont = "all float-stored columns" if spec.continuous == "float" else (", ".join(spec.continuous) or "none")
        L.append(f"* **{spec.name}** ({spec.file or 'n/a'}; {rows}; thesis {spec.thesis_rows}; discretised: {cont})"
                 f": {spec.note}")
    return "\n".join(L) + "\n"


def run(output=None, *, output_dir=None, quick: bool = False, n_jobs: int | None = None, datasets=None, data_home=None,
        growth: bool = True, log=print) -> Path:
    """Run the Table 3.2 reproduction and the Cleve growth experiment; write the Markdown report, return its path.

    Parameters
    ----------
    output : path, optional
        The report file. Give either ``output`` or ``output_dir``, not both.
    output_dir : path, optional
        The folder of the report ``<output_dir>/seed000-table3.2.md`` (created if needed); default: the
        current directory. The committed reports are in ``docs/reproductions/`` (``pgmpy-ext reproduce
        seed000-table3.2 --output-dir docs/reproductions``).
    quick : bool, default False
        A smoke run (3 splits per data set, 5 growth samples per fraction); its report is not the reproduction.
    n_jobs : int, optional
        Worker processes (joblib) over (data set, block of splits); results do not depend on it. None means 1.
    datasets : list of str, optional
        Row names of :data:`DATASETS` to run (default: all; Zoo is reported as not available).
    data_home : path, optional
        Folder holding ``uci/`` (default: ``../shared/datasets`` beside the repository, or ``$PGMPY_EXT_DATA``).
    growth : bool, default True
        Run the Cleve growth experiment (when the Cleve file exists).
    """
    path = report_path(output, NAME, output_dir)
    st = Settings(n_splits=3, n_growth_splits=5) if quick else Settings()
    names = [d.name for d in DATASETS] if datasets is None else list(datasets)
    t0 = time.perf_counter()
    results, tasks = {}, []
    for spec in DATASETS:
        if spec.name not in names:
            continue
        try:
            X, _, _ = load(spec, data_home)
        except FileNotFoundError:
            results[spec.name] = {"missing": True}
            log(f"{spec.name}: not available, skipped")
            continue
        results[spec.name] = {"n_rows": len(X), "rows": []}
        tasks += [(spec.name, chunk, data_home) for chunk in _chunks(st.n_splits, 10)]
    log(f"Table 3.2: {len(tasks)} tasks over {sum(1 for r in results.values() if not r.get('missing'))} data sets")
    for (name, _, _), rows in zip(tasks, parallel_map(table_task, tasks, n_jobs)):
        results[name]["rows"].extend(rows)
    log(f"Table 3.2 done ({time.perf_counter() - t0:.0f} s)")
    growth_res, skipped = None, ""
    if not growth or "Cleve" not in names:
        skipped = "not selected in this run"
    elif results["Cleve"].get("missing"):
        skipped = "the Cleve file is not available in ../shared/datasets"
    else:
        gtasks = [(f, chunk, data_home) for f in st.growth_fractions for chunk in _chunks(st.n_growth_splits, 25)]
        growth_res = {f: [] for f in st.growth_fractions}
        for (f, _, _), rows in zip(gtasks, parallel_map(growth_task, gtasks, n_jobs)):
            growth_res[f].extend(rows)
        log(f"Cleve growth done ({time.perf_counter() - t0:.0f} s)")
    text = report(results, growth_res, st, time.perf_counter() - t0, n_jobs, quick, skipped)
    path = write_report(path, text)
    log(f"report written to {path}")
    return path
