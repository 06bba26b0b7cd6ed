"""Real data as users have it (issue 11): 5-fold CV of NB and TAN, raw columns and behind MDLP, on the data sets the
issue names (real PMLB copies where ../shared/datasets has them, synthetic stand-ins built here where it does not).

Protocol: for each data set, one StratifiedKFold(5, shuffle=True, random_state=0) split, identical for every learner.
Four configurations with every option at its default, as a new user would write them:
``NaiveBayesClassifier()``, ``TANClassifier()``, ``Pipeline([("mdlp", MDLPDiscretizer()), ("clf", ...)])`` for both.
The data are passed as loaded (``pandas.read_csv`` dtypes: int codes stay int64, whole-number floats stay float64,
strings stay object), never cast to category, so values that occur only in a test fold are unseen at fit time.
A cell is the pooled CV accuracy (correct / rows, in %); when a fold raises, the cell names the exception (its message
is listed below the table) and how many of the 5 folds raised. "majority" is the majority-class rate of the whole
set. Every set also runs twice more: with 5% of its feature cells masked (NaN) at random (seed 0): the "+5% NaN"
rows; and with every column except fractional floats cast to a pandas Categorical over the values of the whole file
(the README's workaround at 65964ca for values unseen in a fold, what ``load_dataset`` does): the "category dtype"
rows. A category column is declared categorical by the user, so its numbers are not expected to change.

pgmpy_ext is imported from the CURRENT DIRECTORY (so the same script measures any checkout):
    cd /path/to/checkout && python /path/to/benchmarks/real_data.py --out /tmp/real_data.md \\
        --section "after, at abc123" --compare /path/to/benchmarks/results/real_data.md   # + a before -> after table
Data: ../shared/datasets/uci/<name>.tsv.gz relative to the directory holding this script's repository
(or $PGMPY_EXT_DATA/uci); a set whose file is absent is listed as absent.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, os.getcwd())  # measure the checkout we are run from, not the one this file lives in

from sklearn.model_selection import StratifiedKFold  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402

N_FOLDS = 5
SEED = 0
MASK_RATE = 0.05


# --------------------------------------------------------------------------------------------------- data sets
def data_dir() -> Path:
    env = os.environ.get("PGMPY_EXT_DATA")
    return Path(env) if env else Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"


def load_pmlb(name: str):
    """(X, y) of a shared PMLB copy with read_csv dtypes; None when the file is absent."""
    path = data_dir() / "uci" / f"{name}.tsv.gz"
    if not path.exists():
        return None
    df = pd.read_csv(path, sep="\t")
    return df.drop(columns="target"), df["target"]


def load_sklearn_wine():
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True, as_frame=True)  # bundled with scikit-learn: offline
    return X, y


def _calibrate(z: np.ndarray, rate: float) -> np.ndarray:
    """Intercept b so that mean(sigmoid(z + b)) == rate (bisection; deterministic)."""
    lo, hi = -30.0, 30.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if np.mean(1 / (1 + np.exp(-(z + mid)))) < rate:
            lo = mid
        else:
            hi = mid
    return z + (lo + hi) / 2


def adult_like(n: int = 10_000, seed: int = 0):
    """Synthetic stand-in for UCI adult (48,842 rows; 24% ">50K"), as read_csv gives it: strings for the
    categorical columns, int64 for age, fnlwgt, education-num, capital-gain/-loss, hours-per-week.

    Failure modes reproduced: ``fnlwgt`` is a sampling weight with thousands of distinct integers, independent of
    the class; age, capital-gain, capital-loss and hours-per-week are many-valued integers related to the class;
    ``education-num`` is an int code with 16 values that must stay categorical; ``native-country`` has values seen in
    one or two rows only (unseen in some training folds). The label follows a logistic model of age, education,
    marital status, sex, hours, capital gain and occupation, with the intercept set so that 24% are positive.
    """
    rng = np.random.default_rng(seed)
    sex = rng.choice(["Male", "Female"], n, p=[0.67, 0.33])
    age = np.clip(17 + rng.gamma(3.0, 7.0, n), 17, 90).astype(np.int64)
    ednum = rng.choice(np.arange(1, 17), n, p=np.array([1, 2, 3, 5, 4, 8, 10, 3, 90, 60, 12, 9, 45, 15, 4, 3]) / 274)
    ed_names = ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
                "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate"]
    education = np.array(ed_names)[ednum - 1]
    married = rng.random(n) < np.clip(0.1 + (age - 17) / 60, 0, 0.75)
    marital = np.where(married, "Married-civ-spouse",
                       rng.choice(["Never-married", "Divorced", "Separated", "Widowed", "Married-spouse-absent",
                                   "Married-AF-spouse"], n, p=[0.62, 0.25, 0.06, 0.05, 0.0195, 0.0005]))
    relationship = np.where(married, np.where(sex == "Male", "Husband", "Wife"),
                            rng.choice(["Not-in-family", "Own-child", "Unmarried", "Other-relative"], n,
                                       p=[0.5, 0.3, 0.15, 0.05]))
    occs = ["Prof-specialty", "Craft-repair", "Exec-managerial", "Adm-clerical", "Sales", "Other-service",
            "Machine-op-inspct", "Transport-moving", "Handlers-cleaners", "Farming-fishing", "Tech-support",
            "Protective-serv", "Priv-house-serv", "Armed-Forces"]
    occ_p = np.array([13, 13, 13, 12, 12, 10, 6.5, 5, 4.5, 3.2, 3.1, 2.1, 0.5, 0.03])
    occ_i = rng.choice(len(occs), n, p=occ_p / occ_p.sum())
    occ_eff = np.array([0.8, 0.0, 1.0, -0.2, 0.3, -1.2, -0.5, -0.3, -1.0, -0.8, 0.5, 0.4, -2.0, 0.0])
    workclass = rng.choice(["Private", "Self-emp-not-inc", "Local-gov", "State-gov", "Self-emp-inc",
                            "Federal-gov", "Without-pay", "Never-worked"], n,
                           p=np.array([745, 85, 68, 43, 36, 30.7, 1.8, 0.5]) / 1010.0)
    race = rng.choice(["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"], n,
                      p=[0.855, 0.096, 0.031, 0.01, 0.008])
    hours = np.clip(np.where(rng.random(n) < 0.47, 40, np.round(rng.normal(41, 13, n))), 1, 99).astype(np.int64)
    gain_values = np.unique(np.round(np.exp(rng.normal(8.5, 1.0, 120))).astype(np.int64))
    has_gain = rng.random(n) < 0.08
    gain = np.where(has_gain, rng.choice(gain_values, n), 0).astype(np.int64)
    loss_values = np.unique(np.round(rng.normal(1900, 300, 95)).astype(np.int64))
    loss = np.where(rng.random(n) < 0.047, rng.choice(loss_values, n), 0).astype(np.int64)
    fnlwgt = np.round(np.exp(rng.normal(12.0, 0.55, n))).astype(np.int64)
    countries = ["United-States", "Mexico", "Philippines", "Germany", "Puerto-Rico", "Canada", "India",
                 "El-Salvador", "Cuba", "England", "China", "Jamaica", "South", "Italy", "Dominican-Republic",
                 "Japan", "Guatemala", "Vietnam", "Columbia", "Poland", "Haiti", "Portugal", "Iran", "Taiwan",
                 "Greece", "Nicaragua", "Peru", "Ecuador", "France", "Ireland", "Thailand", "Hong", "Cambodia",
                 "Trinadad&Tobago", "Outlying-US(Guam-USVI-etc)", "Yugoslavia", "Laos", "Scotland", "Honduras",
                 "Hungary", "Holand-Netherlands"]
    c_p = np.r_[9100, 200, 60, 42, 38, 37, 31, 31, 28, 26, 24, 22, 23, 21, 21, 19, 18, 18, 17, 17, 15, 13, 12,
                12, 10, 10, 9, 9, 8, 7, 6, 6, 6, 5, 5, 5, 4, 4, 4, 4, 0.2]
    country = rng.choice(countries, n, p=c_p / c_p.sum())
    z = (0.045 * (age - 38) - 0.0009 * (age - 45) ** 2 + 0.33 * (ednum - 10) + 2.0 * married
         + 0.025 * (hours - 40) + 2.5 * (gain > 5000) - 1.0 * ((gain > 0) & (gain <= 5000)) + 0.9 * (loss > 1800)
         + 0.3 * (sex == "Male") + occ_eff[occ_i])
    p = 1 / (1 + np.exp(-_calibrate(z, 0.24)))
    y = np.where(rng.random(n) < p, ">50K", "<=50K")
    X = pd.DataFrame({"age": age, "workclass": workclass, "fnlwgt": fnlwgt, "education": education,
                      "education-num": ednum.astype(np.int64), "marital-status": marital,
                      "occupation": np.array(occs)[occ_i], "relationship": relationship, "race": race, "sex": sex,
                      "capital-gain": gain, "capital-loss": loss, "hours-per-week": hours,
                      "native-country": country})
    return X, pd.Series(y, name="income")


def hypothyroid_like(n: int = 3163, seed: int = 0):
    """Synthetic stand-in for UCI hypothyroid (3,163 rows; 4.8% hypothyroid): age, TSH, T3, TT4, T4U and FTI are
    whole numbers with tens to hundreds of distinct values (T3 and T4U recorded x10 and x100), strongly related
    to the class (TSH high, TT4/FTI low when hypothyroid); 13 't'/'f' flags and sex are strings;
    ``referral_source`` has one value ("WEST") in a single row, so it is unseen in the training folds."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.048
    m = y.sum()
    age = np.clip(np.round(rng.normal(52, 19, n)), 1, 95).astype(np.int64)
    sex = rng.choice(["F", "M"], n, p=[0.7, 0.3])
    tsh = np.where(y, np.exp(rng.normal(3.4, 0.9, n)), np.exp(rng.normal(0.3, 0.9, n)))
    tt4 = np.where(y, rng.normal(45, 22, n), rng.normal(110, 28, n))
    t4u = np.where(y, rng.normal(0.95, 0.18, n), rng.normal(0.98, 0.17, n))
    t3 = np.where(y, rng.normal(1.2, 0.6, n), rng.normal(2.0, 0.6, n))
    X = pd.DataFrame({"age": age, "sex": sex})
    flags = ["on_thyroxine", "query_on_thyroxine", "on_antithyroid_medication", "thyroid_surgery",
             "query_hypothyroid", "query_hyperthyroid", "pregnant", "sick", "tumor", "lithium", "goitre",
             "hypopituitary", "psych"]
    base = [0.14, 0.02, 0.013, 0.03, 0.07, 0.07, 0.02, 0.03, 0.013, 0.001, 0.03, 0.001, 0.05]
    for f, b in zip(flags, base):
        lift = 2.5 if f in ("query_hypothyroid", "thyroid_surgery") else (0.3 if f == "on_thyroxine" else 1.0)
        X[f] = np.where(rng.random(n) < np.where(y, min(b * lift, 0.9), b), "t", "f")
    X["TSH"] = np.clip(np.round(tsh), 0, 530).astype(np.int64)
    X["T3_x10"] = np.clip(np.round(10 * t3), 0, 100).astype(np.int64)
    X["TT4"] = np.clip(np.round(tt4), 2, 430).astype(np.int64)
    X["T4U_x100"] = np.clip(np.round(100 * t4u), 20, 220).astype(np.int64)
    X["FTI"] = np.clip(np.round(tt4 / t4u), 2, 400).astype(np.int64)
    ref = rng.choice(["other", "SVI", "SVHC", "STMW", "SVHD"], n, p=[0.59, 0.28, 0.1, 0.02, 0.01])
    ref[int(rng.integers(n))] = "WEST"
    X["referral_source"] = ref
    assert m > 0
    return X, pd.Series(np.where(y, "hypothyroid", "negative"), name="class")


def dermatology_like(seed: int = 0):
    """Synthetic stand-in for UCI dermatology (366 rows, 6 classes of 112/61/72/49/52/20): 33 clinical and
    histopathological features coded 0..3 (int64; categorical codes that must stay categorical), a 0/1 family
    history, and ``Age``, an integer with ~60 distinct values weakly related to the class. Each class has its
    own random 0..3 profile; a feature takes its profile value with probability 0.4, else a uniform 0..3 value."""
    rng = np.random.default_rng(seed)
    counts = [112, 61, 72, 49, 52, 20]
    y = np.repeat(np.arange(1, 7), counts)
    profile = rng.integers(0, 4, size=(6, 33))
    keep = rng.random((y.size, 33)) < 0.4
    feats = np.where(keep, profile[y - 1], rng.integers(0, 4, size=(y.size, 33)))
    X = pd.DataFrame(feats.astype(np.int64), columns=[f"f{j:02d}" for j in range(1, 34)])
    X.insert(10, "family_history", (rng.random(y.size) < np.where(y == 2, 0.3, 0.1)).astype(np.int64))
    age_mean = np.array([40, 35, 38, 36, 38, 12])[y - 1]
    X["Age"] = np.clip(np.round(rng.normal(age_mean, 14)), 0, 75).astype(np.int64)
    perm = rng.permutation(y.size)
    return X.iloc[perm].reset_index(drop=True), pd.Series(y[perm], name="class")


def datasets():
    """[(name, source note, loader)] in table order; loaders return (X, y) or None when absent."""
    return [
        ("credit_g (PMLB german)", "real", lambda: load_pmlb("german")),
        ("kr_vs_kp (PMLB chess)", "real", lambda: load_pmlb("chess")),
        ("nursery (for car, krkopt)", "real", lambda: load_pmlb("nursery")),
        ("crx", "real", lambda: load_pmlb("crx")),
        ("wine (PMLB wine_recognition)", "real", lambda: load_pmlb("wine_recognition")),
        ("wine (sklearn load_wine)", "real", load_sklearn_wine),
        ("adult-like", "synthetic", adult_like),
        ("hypothyroid-like", "synthetic", hypothyroid_like),
        ("dermatology-like", "synthetic", dermatology_like),
    ]


def mask_cells(X: pd.DataFrame, rate: float = MASK_RATE, seed: int = SEED) -> pd.DataFrame:
    """A copy of X with ``rate`` of its cells set to NaN at random (int columns become float64, as in read_csv)."""
    rng = np.random.default_rng(seed)
    hit = rng.random(X.shape) < rate
    out = X.copy()
    for j, c in enumerate(X.columns):
        if hit[:, j].any():
            numeric = pd.api.types.is_numeric_dtype(out[c]) and not pd.api.types.is_bool_dtype(out[c])
            col = out[c].astype(np.float64) if numeric else out[c].copy()  # str/object columns take NaN as is
            col[hit[:, j]] = np.nan
            out[c] = col
    return out


def declare_domain(X: pd.DataFrame) -> pd.DataFrame:
    """The README's workaround at 65964ca (what ``load_dataset`` does): every column except floats with a fractional
    part becomes a pandas Categorical over all values in the whole file, so no test-fold value is unseen."""
    out = X.copy()
    for c in X.columns:
        col = X[c]
        if pd.api.types.is_float_dtype(col) and (col.dropna() != np.round(col.dropna())).any():
            continue
        out[c] = pd.Categorical(col)
    return out


# --------------------------------------------------------------------------------------------------- learners
def configurations():
    from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
    from pgmpy_ext.preprocessing import MDLPDiscretizer

    return {
        "NB raw": lambda: NaiveBayesClassifier(),
        "TAN raw": lambda: TANClassifier(),
        "NB + MDLP": lambda: Pipeline([("mdlp", MDLPDiscretizer()), ("clf", NaiveBayesClassifier())]),
        "TAN + MDLP": lambda: Pipeline([("mdlp", MDLPDiscretizer()), ("clf", TANClassifier())]),
    }


def short_error(exc: BaseException, limit: int = 150) -> str:
    msg = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {msg[:limit]}{'...' if len(msg) > limit else ''}"


def cross_validate(make, X, y, splits):
    """(pooled accuracy or None, [error strings per failed fold], seconds)."""
    correct, errors = 0, []
    t0 = time.perf_counter()
    for train, test in splits:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = make().fit(X.iloc[train], y.iloc[train])
                pred = np.asarray(est.predict(X.iloc[test]))
            correct += int((pred == y.iloc[test].to_numpy()).sum())
        except MemoryError as exc:  # keep going: a refused/failed allocation is a result too
            errors.append(short_error(exc) or "MemoryError")
        except Exception as exc:  # noqa: BLE001 (every failure is a table entry)
            errors.append(short_error(exc))
    return (None if errors else correct / len(y)), errors, time.perf_counter() - t0


def describe_checkout() -> str:
    import pgmpy_ext

    root = Path(pgmpy_ext.__file__).resolve().parent.parent
    try:
        rev = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"], capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rev = "unknown"
    return f"pgmpy_ext from `{root}` (git {rev})"


def error_label(msg: str) -> str:
    """A few words for an error message (for the before/after table)."""
    m = msg.lower()
    if "not a state of this node" in m or "not seen during fit" in m or "unseen" in m:
        return "unseen value"
    if "missing value" in m or "finite values" in m:
        return "NaN refused"
    if "has float values" in m:
        return "fractional float refused"
    if "distinct" in m:
        return "many-valued column refused"
    return msg.split(":")[0]


def parse_section(path: Path, prefix: str = "before"):
    """({row name: [config cells]}, {tag: message}) of the first section of a results file whose title starts
    with ``prefix`` (the format :func:`run` writes)."""
    rows, messages, inside = {}, {}, False
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            if inside:
                break
            inside = line[3:].startswith(prefix)
            continue
        if not inside:
            continue
        if line.startswith("| ") and not line.startswith("| data set"):
            parts = [p.strip() for p in line.strip("|").split("|")]
            rows[parts[0]] = parts[5:]
        m = re.match(r"- \[(e\d+)\] (.*)", line)
        if m:
            messages[m.group(1)] = m.group(2)
    return rows, messages


def cell_label(cell: str, messages: dict) -> str:
    m = re.search(r"\[(e\d+)\] \((\d+)/", cell)
    if not m:
        return cell
    return f"{error_label(messages.get(m.group(1), cell))} ({m.group(2)}/{N_FOLDS})"


def compare_table(before: Path, results: dict, messages_now: dict, title: str) -> str:
    rows_before, messages_before = parse_section(before)
    confs = list(configurations())
    lines = [f"## before -> {title}", "",
             "Each cell: before -> now (CV accuracy in %, or what failed in how many folds).", "",
             "| data set | majority | " + " | ".join(confs) + " |", "|---|---|" + "---|" * len(confs)]
    for name, (majority, cells) in results.items():
        old = rows_before.get(name, ["n/a"] * len(cells))
        pairs = [f"{cell_label(a, messages_before)} -> {cell_label(b, messages_now)}" for a, b in zip(old, cells)]
        lines.append(f"| {name} | {majority} | " + " | ".join(pairs) + " |")
    return "\n".join([*lines, ""])


def run(section: str, out: Path | None, only: list[str] | None, compare: Path | None = None) -> str:
    confs = configurations()
    rows, notes, footnotes, results = [], [], {}, {}
    total0 = time.perf_counter()
    for name, source, loader in datasets():
        if only and not any(o in name for o in only):
            continue
        loaded = loader()
        if loaded is None:
            notes.append(f"- {name}: data file absent, skipped.")
            continue
        X, y = loaded
        splits = list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=SEED).split(X, y))
        majority = y.value_counts(normalize=True).max()
        variants = (("", X), (" +5% NaN", mask_cells(X)), (" category dtype", declare_domain(X)))
        for variant, Xv in variants:
            cells = []
            for label, make in confs.items():
                acc, errors, secs = cross_validate(make, Xv, y, splits)
                if acc is not None:
                    cells.append(f"{100 * acc:.2f}")
                else:
                    key = errors[0]
                    tag = footnotes.setdefault(key, f"e{len(footnotes) + 1}")
                    cells.append(f"{key.split(':')[0]} [{tag}] ({len(errors)}/{N_FOLDS})")
                print(f"{name}{variant} | {label}: {cells[-1]} ({secs:.1f} s)", file=sys.stderr, flush=True)
            rows.append(f"| {name}{variant} | {source} | {len(y)} | {X.shape[1]} | {100 * majority:.2f} | "
                        + " | ".join(cells) + " |")
            results[f"{name}{variant}"] = (f"{100 * majority:.2f}", cells)
    total = time.perf_counter() - total0
    lines = [f"## {section}", "", describe_checkout() + f"; {total:.0f} s in all.", "",
             "| data set | data | rows | features | majority | " + " | ".join(confs) + " |",
             "|---|---|---|---|---|" + "---|" * len(confs), *rows, ""]
    if notes:
        lines += [*notes, ""]
    if footnotes:
        lines += ["Errors (the first failing fold's message; (k/5) = folds that raised):", ""]
        lines += [f"- [{tag}] {msg}" for msg, tag in footnotes.items()]
        lines.append("")
    if compare is not None:
        messages_now = {tag: msg for msg, tag in footnotes.items()}
        lines += [compare_table(compare, results, messages_now, section)]
    text = "\n".join(lines)
    if out is not None:
        out.write_text(text)
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="write the markdown section here")
    parser.add_argument("--section", default=None, help='section title, e.g. "after, at abc1234"')
    parser.add_argument("--only", default=None, help="comma-separated substrings of data-set names")
    parser.add_argument("--compare", type=Path, default=None,
                        help="a results file with a 'before...' section (e.g. benchmarks/results/real_data.md): "
                             "also write a before -> now table")
    args = parser.parse_args(argv)
    section = args.section or "results"
    text = run(section, args.out, args.only.split(",") if args.only else None, args.compare)
    print(text)


if __name__ == "__main__":
    main()
