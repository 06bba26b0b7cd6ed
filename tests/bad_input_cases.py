"""The bad-input probe of every public estimator (issue 24, item 7): the cases, how each is run and how its outcome
is judged. ``tests/test_bad_input.py`` runs every case as a test; ``benchmarks/bad_input_probe.py`` runs them all
and prints the counts by outcome and estimator family.

Estimators are enumerated from the ``__all__`` of the estimator packages (:data:`ESTIMATOR_PACKAGES`, the same list
as ``tests/test_vocabulary.py``), so a new public estimator is probed as soon as it is exported; :func:`spec_for`
then needs its fast settings and its data kind (a new estimator without an entry fails
``test_every_public_estimator_has_a_probe_spec``).

Outcomes (one per case):

``ok``
    The call succeeded and its result passed every check (finite output of the right length, the caller's data
    unchanged, the same result where it must be the same).
``clear``
    A ``ValueError``/``TypeError`` (``NotFittedError`` included) whose message names what the case requires (the
    parameter; the column; the user's row label; the value) and reads like a sentence, not a library internal.
``unclear``
    Any other exception (``IndexError``, ``KeyError``, ...), a message missing a required name, one of numpy's or
    pandas' internal messages, or a refusal of valid input (a numpy scalar where a number is allowed).
``silent``
    Wrong without an error: NaN or infinite output, output of the wrong length, the caller's data modified, a
    different result for the same seed / for ``n_jobs`` 1 and 2 / after pickling / on dask data, an invalid
    parameter accepted, dask data computed where the estimator's ``fit`` refuses it.
"""

from __future__ import annotations

import importlib
import inspect
import io
import math
import numbers
import pickle
import re
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

from pgmpy_ext._compat import DiscreteBayesianNetwork, DiscreteParameterEstimator
from pgmpy_ext.utils import Interval, Options

#: The packages whose ``__all__`` is the public estimator surface (tests/test_vocabulary.py imports it).
ESTIMATOR_PACKAGES = ["classifiers", "clustering", "ensembles", "maps", "popgen", "parameters", "preprocessing",
                      "biclustering", "tree"]

OUTCOMES = ("ok", "clear", "unclear", "silent")


def public_estimators() -> dict:
    """``{Class name: class}`` of every public estimator (scikit-learn face or pgmpy parameter estimator)."""
    out = {}
    for pkg in ESTIMATOR_PACKAGES:
        module = importlib.import_module(f"pgmpy_ext.{pkg}")
        for name in module.__all__:
            obj = getattr(module, name)
            if not inspect.isclass(obj) or name.startswith("Base") or name.endswith("Base"):
                continue
            if issubclass(obj, (BaseEstimator, DiscreteParameterEstimator)):
                out[name] = obj
    return out


# ------------------------------------------------------------------------------------------------ data
def discrete_xy(n: int = 40, m: int = 4, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Discrete features of mixed types tied to a two-class label (or a two-cluster structure)."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    cols = {}
    for j in range(m):
        flip = rng.random(n) < 0.2
        v = np.where(flip, 1 - z, z)
        if j % 3 == 1:
            cols[f"f{j}"] = np.where(v == 1, "yes", "no").astype(object)
        elif j % 3 == 2:
            cols[f"f{j}"] = v + rng.integers(0, 2, n) * 2  # 4 int states
        else:
            cols[f"f{j}"] = v
    X = pd.DataFrame(cols)
    return X, pd.Series(np.where(z == 1, "pos", "neg"), name="label")


def continuous_xy(n: int = 40, m: int = 6, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    X = pd.DataFrame(rng.normal(size=(n, m)) + z[:, None] * 1.5, columns=[f"g{j}" for j in range(m)])
    return X, pd.Series(z, name="label")


def genotype_frame(n: int = 30, loci: int = 6, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """0..2 dosages of two populations (a DataFrame, one column per locus)."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    p = np.where(z[:, None] == 1, 0.8, 0.2) * np.ones((1, loci))
    X = pd.DataFrame(rng.binomial(2, p), columns=[f"L{j}" for j in range(loci)])
    return X, pd.Series(z, name="pop")


# ------------------------------------------------------------------------------------------------ specs
@dataclass
class Spec:
    """How to probe one estimator class."""

    name: str
    cls: type
    kind: str  # "classifier" | "clusterer" | "transformer" | "bicluster" | "pgmpy"
    data: Callable  # () -> (X, y)
    fast: dict = field(default_factory=dict)  # constructor arguments that keep a fit tiny
    supervised: bool = False  # fit(X, y)
    features: str = "discrete"  # "discrete" (a fractional float is refused), "real" (numbers only) or "any"
    dask_fit: bool = False  # fit accepts a dask DataFrame
    dask_predict: bool = False  # predict maps over a dask DataFrame's partitions
    network: Callable | None = None  # pgmpy face: () -> DiscreteBayesianNetwork to fit
    values: str = "int"  # how to write an unseen value into the first column: "int" | "float" | "none"
    missing_at_fit: bool = True  # NaN cells are fitted (else refused, naming column and row)
    family: str = ""

    @property
    def discrete(self) -> bool:
        return self.features == "discrete"

    def make(self, **kw):
        """An instance with the fast settings (and ``random_state=0`` where the estimator takes one)."""
        known = self.cls().get_params(deep=False)
        params = {"random_state": 0} if "random_state" in known else {}
        params.update(self.fast)
        params.update(kw)
        params = {k: v for k, v in params.items() if k in known}
        return self.cls(**params)


def _latent_network():
    return DiscreteBayesianNetwork([("H", "f0"), ("H", "f1"), ("H", "f2"), ("H", "f3")], latents={"H"})


def _tm_network():
    return DiscreteBayesianNetwork([("label", "f0"), ("label", "f1"), ("label", "f2"), ("label", "f3")])


_CLUSTER_FAST = {"n_clusters": 2, "n_init": 2, "max_iter": 10, "random_state": 0}

#: Fast settings and data kind per public estimator (a new estimator needs an entry).
SPECS_BY_NAME: dict[str, dict] = {
    # classifiers (the counting ones fit on dask through compress; SelectiveNB refuses it; the single-network ones
    # predict on dask partition by partition, the CL multinet refuses)
    **{n: {"kind": "classifier", "supervised": True, "dask_fit": True, "dask_predict": True, "family": "classifiers"}
       for n in ("NaiveBayesClassifier", "TANClassifier", "ABNClassifier", "FANClassifier", "SBNClassifier",
                 "BANClassifier", "KDBClassifier", "CTANClassifier", "K2Classifier")},
    "CLMultinetClassifier": {"kind": "classifier", "supervised": True, "dask_fit": True, "family": "classifiers"},
    "SelectiveNBClassifier": {"kind": "classifier", "supervised": True, "dask_predict": True,
                              "family": "classifiers"},
    "StructuralTMClassifier": {"kind": "classifier", "supervised": True, "dask_fit": True, "dask_predict": True,
                               "family": "classifiers", "fast": {"max_iter": 50, "max_candidates": 30}},
    # clusterers
    "LatentClassEM": {"kind": "clusterer", "dask_fit": True, "fast": _CLUSTER_FAST, "family": "clustering"},
    "EMAClustering": {"kind": "clusterer", "dask_fit": True, "fast": _CLUSTER_FAST, "family": "clustering"},
    "SelectiveLatentClassClustering": {"kind": "clusterer", "fast": _CLUSTER_FAST, "family": "clustering"},
    "EMATANClustering": {"kind": "clusterer", "fast": {**_CLUSTER_FAST, "order": "columns"},
                         "missing_at_fit": False, "family": "clustering"},
    "EMTANClustering": {"kind": "clusterer", "fast": _CLUSTER_FAST, "missing_at_fit": False,
                        "family": "clustering"},
    "EMCompleteBNClustering": {"kind": "clusterer", "fast": {**_CLUSTER_FAST, "order": "columns"},
                               "missing_at_fit": False, "family": "clustering"},
    "ConstructiveInductionClustering": {"kind": "clusterer", "fast": {"n_clusters": 2, "max_iter": 5,
                                                                      "random_state": 0},
                                        "missing_at_fit": False, "family": "clustering"},
    "BruteForceSNBAveraging": {"kind": "clusterer", "fast": {"n_clusters": 2, "n_init": 2, "n_burn": 5,
                                                             "n_gibbs": 10, "max_iter": 10, "random_state": 0},
                               "missing_at_fit": False, "family": "clustering"},
    "CEMClustering": {"kind": "clusterer", "fast": {"n_clusters": 2, "n_init": 2, "n_stochastic_steps": 5,
                                                    "max_classification_steps": 10, "random_state": 0},
                      "missing_at_fit": False, "family": "clustering"},
    "PopulationEMA": {"kind": "clusterer", "data": genotype_frame, "fast": _CLUSTER_FAST, "family": "popgen"},
    # ensembles and trees
    "BBNDTClassifier": {"kind": "classifier", "supervised": True, "family": "ensembles/tree"},
    "ITDTEnsembleClassifier": {"kind": "classifier", "supervised": True, "fast": {"n_rounds": 2},
                               "family": "ensembles/tree"},
    "C45Classifier": {"kind": "classifier", "supervised": True, "features": "any", "family": "ensembles/tree"},
    "BENCHClassifier": {"kind": "classifier", "supervised": True, "data": continuous_xy, "features": "real",
                        "values": "float", "random_state": 0, "family": "ensembles/tree"},
    # maps, biclustering, discretisers: real-valued input
    "NaiveBayesMap": {"kind": "clusterer", "data": continuous_xy, "features": "real", "values": "float",
                      "fast": {"grid": (3, 3), "n_epochs": 3, "n_init": 2, "random_state": 0},
                      "family": "maps/biclustering"},
    "SAMBA": {"kind": "bicluster", "data": continuous_xy, "features": "real", "values": "float",
              "fast": {"n_seeds": 20, "min_cols": 2, "random_state": 0}, "family": "maps/biclustering"},
    "EqualFrequencyDiscretizer": {"kind": "transformer", "data": continuous_xy, "features": "real",
                                  "values": "float", "family": "preprocessing"},
    "EqualWidthDiscretizer": {"kind": "transformer", "data": continuous_xy, "features": "real", "values": "float",
                              "family": "preprocessing"},
    "MDLPDiscretizer": {"kind": "transformer", "supervised": True, "data": continuous_xy, "features": "real",
                        "values": "float", "family": "preprocessing"},
    # pgmpy faces
    "LatentEM": {"kind": "pgmpy", "network": _latent_network, "fast": {"max_iter": 20, "random_state": 0},
                 "missing_at_fit": False, "family": "parameters"},
    "TMEstimator": {"kind": "pgmpy", "network": _tm_network, "supervised": True,
                    "fast": {"class_node": "label", "max_iter": 20}, "missing_at_fit": False,
                    "family": "parameters"},
}


def _bench_fast():
    from pgmpy_ext.biclustering import SAMBA
    from pgmpy_ext.classifiers import K2Classifier

    return {"biclusterer": SAMBA(kernel_size=1, min_cols=1, n_seeds=20, random_state=0),
            "estimator": K2Classifier(max_parents=1), "random_state": 0}


def spec_for(name: str, cls: type) -> Spec:
    kw = dict(SPECS_BY_NAME[name])
    kw.pop("random_state", None)
    data = kw.pop("data", discrete_xy)
    if name == "BENCHClassifier":
        kw["fast"] = _bench_fast()
    return Spec(name=name, cls=cls, data=data, **kw)


def all_specs() -> list[Spec]:
    return [spec_for(n, c) for n, c in public_estimators().items() if n in SPECS_BY_NAME]


# ------------------------------------------------------------------------------------------------ running
def fit(spec: Spec, est, X, y):
    """Fit ``est`` on (X, y) as its face wants."""
    if spec.kind == "pgmpy":
        data = X.assign(**{y.name: y.to_numpy()}) if spec.supervised and y is not None else X
        return est.fit(spec.network(), data)
    if spec.supervised:
        return est.fit(X, y)
    return est.fit(X)


def outputs(spec: Spec, est, X) -> dict:
    """Everything the fitted estimator says about ``X`` (arrays), for comparisons and finiteness checks."""
    out = {}
    if spec.kind == "pgmpy":
        for cpd in sorted(est.parameters_, key=lambda c: c.variable):
            out[f"cpd:{cpd.variable}"] = np.asarray(cpd.get_values(), dtype=float)
        return out
    if spec.kind == "bicluster":
        out["rows"] = np.asarray(est.rows_, dtype=float)
        out["columns"] = np.asarray(est.columns_, dtype=float)
        return out
    if spec.kind == "transformer":
        t = est.transform(X)
        t = t if isinstance(t, pd.DataFrame) else pd.DataFrame(t)
        if t.shape[1] != X.shape[1]:
            out["transform-columns"] = np.array([np.nan])  # a dropped or added column
        out["transform"] = np.column_stack([pd.Series(t[c]).astype(object).map(
            lambda v: np.nan if v is None or (isinstance(v, float) and math.isnan(v)) else hash(str(v)) % 1000003)
            .to_numpy(dtype=float) for c in t.columns]) if t.shape[1] else np.zeros((len(t), 0))
        return out
    if hasattr(est, "predict_proba"):
        out["predict_proba"] = np.asarray(est.predict_proba(X), dtype=float)
    if hasattr(est, "predict"):
        pred = est.predict(X)
        out["predict"] = np.asarray(pd.Series(np.asarray(pred)).astype(str).map(lambda s: hash(s) % 1000003),
                                    dtype=float)
    if hasattr(est, "transform"):
        out["transform"] = np.asarray(est.transform(X), dtype=float)
    if hasattr(est, "score") and spec.kind == "clusterer":
        out["score"] = np.atleast_1d(float(est.score(X)))
    return out


def _finite_problems(outs: dict, n_rows: int | None) -> list[str]:
    problems = []
    for k, v in outs.items():
        v = np.asarray(v, dtype=float)
        if k == "transform-columns":
            problems.append("transform changed the number of columns")
            continue
        if not np.all(np.isfinite(v)) and not k.startswith("transform"):
            problems.append(f"{k} has NaN/inf")
        if k == "transform" and np.all(np.isnan(v)) and v.size:
            problems.append(f"{k} is all NaN")
        if n_rows is not None and k in ("predict_proba", "predict", "transform") and v.shape[0] != n_rows:
            problems.append(f"{k} has {v.shape[0]} rows, X has {n_rows}")
    return problems


def _same(a: dict, b: dict, *, rtol: float = 0.0) -> list[str]:
    problems = []
    for k in a:
        if k not in b:
            problems.append(f"{k} missing")
            continue
        x, z = np.asarray(a[k], dtype=float), np.asarray(b[k], dtype=float)
        if x.shape != z.shape:
            problems.append(f"{k} shape {x.shape} vs {z.shape}")
        elif rtol == 0.0 and not np.array_equal(x, z, equal_nan=True):
            problems.append(f"{k} differs (max {np.nanmax(np.abs(x - z)):.3g})")
        elif rtol and not np.allclose(x, z, rtol=rtol, atol=1e-12, equal_nan=True):
            problems.append(f"{k} differs (max {np.nanmax(np.abs(x - z)):.3g})")
    return problems


#: Messages of numpy, pandas, Python or scikit-learn internals: an error carrying one is not a clear error.
INTERNAL = re.compile(
    r"must be an instance of <class|index \d+ is out of bounds|unhashable type|object of type .* has no len|"
    r"'NoneType'|could not convert|cannot reshape|operands could not be broadcast|invalid literal|"
    r"unsupported operand|not supported between instances|Length mismatch|zero-size array|"
    r"arrays used as indices|Reindexing only valid|Cannot index|object has no attribute|"
    r"got an unexpected keyword|missing \d+ required positional|list index out of range|"
    r"Expected 2D array|setting an array element|math domain|division by zero|cannot convert float NaN|"
    r"truth value of an? \w+ is ambiguous|ufunc '|at least one array or dtype is required|Unknown label type|"
    r"Length of values|out of bounds for axis|Buffer dtype mismatch|only integer scalar arrays")

#: Messages scikit-learn's own validation gives (clear, and the estimator's job to pass on).
SKLEARN_CLEAR = re.compile(r"Found array with 0 sample|X has \d+ features, but .* is expecting|"
                           r"feature names should match|Feature names (unseen|must be in the same order)")


@dataclass
class Result:
    outcome: str
    detail: str = ""


def judge_error(err: BaseException, needs: tuple = ()) -> Result:
    """``clear`` or ``unclear`` for an exception (``needs``: strings the message must contain, any case)."""
    msg = str(err)
    if not isinstance(err, (ValueError, TypeError)):
        return Result("unclear", f"{type(err).__name__}: {msg[:300]}")
    if INTERNAL.search(msg) and not SKLEARN_CLEAR.search(msg):
        return Result("unclear", f"{type(err).__name__} (internal wording): {msg[:300]}")
    missing = [n for n in needs if str(n).lower() not in msg.lower()]
    if missing:
        return Result("unclear", f"{type(err).__name__} does not name {missing}: {msg[:300]}")
    return Result("clear", f"{type(err).__name__}: {msg[:300]}")


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


# ------------------------------------------------------------------------------------------------ cases
@dataclass
class Case:
    spec: Spec
    name: str
    run: Callable  # () -> Result

    @property
    def id(self) -> str:
        return f"{self.spec.name}-{self.name}"


class Reference:
    """The fitted estimator on the valid data, shared by every case that needs one (one fit per estimator)."""

    _cache: dict = {}

    @classmethod
    def get(cls, spec: Spec):
        if spec.name not in cls._cache:
            X, y = spec.data()
            est = quiet(fit, spec, spec.make(), X, y)
            cls._cache[spec.name] = (est, X, y, quiet(outputs, spec, est, X))
        return cls._cache[spec.name]


def _expect_ok(spec: Spec, make_fit: Callable, *, X_out=None, check_finite=True) -> Result:
    """Run a fit (+ outputs) that must succeed or fail clearly."""
    try:
        est, X = quiet(make_fit)
        outs = quiet(outputs, spec, est, X if X_out is None else X_out)
    except Exception as err:  # noqa: BLE001 - the probe judges every exception
        return judge_error(err)
    problems = _finite_problems(outs, len(X if X_out is None else X_out)) if check_finite else []
    return Result("silent", "; ".join(problems)) if problems else Result("ok")


def _expect_error(fn: Callable, needs: tuple = ()) -> Result:
    """A call that must raise a clear error naming ``needs``; success is a silent wrong result."""
    try:
        quiet(fn)
    except Exception as err:  # noqa: BLE001
        return judge_error(err, needs)
    return Result("silent", f"accepted without an error (expected one naming {list(needs)})")


def _bad_values(constraints: list) -> list[tuple[str, object]]:
    """(label, value) pairs no constraint of the parameter accepts."""
    if any(c is None and len(constraints) == 1 for c in constraints):
        return []
    if any(c in ("any",) or (isinstance(c, type) and c is object) for c in constraints):
        return []
    out = []
    intervals = [c for c in constraints if isinstance(c, Interval)]
    options = [c for c in constraints if isinstance(c, Options)]
    named = [c for c in constraints if isinstance(c, str)]
    accepts_str = any(isinstance(v, str) for o in options for v in o.values)
    if intervals:
        real = any(c.type is numbers.Real for c in intervals)
        if real:
            out.append(("nan", float("nan")))
            if not any(c.allow_inf for c in intervals):
                out.append(("inf", float("inf")))
        lows = [c.low for c in intervals if c.low is not None]
        if lows and len(lows) == len(intervals):
            low = min(lows)
            bad = low - 1 if low > -1e9 else None
            if bad is not None and not any(_accepts(c, bad) for c in constraints):
                out.append(("below", bad if any(c.type is numbers.Real for c in intervals) else int(bad)))
        highs = [c.high for c in intervals if c.high is not None]
        if highs and len(highs) == len(intervals):
            bad = max(highs) + 1
            if not any(_accepts(c, bad) for c in constraints):
                out.append(("above", bad if any(c.type is numbers.Real for c in intervals) else int(bad)))
        if not accepts_str:
            out.append(("string", "abc"))
        if "boolean" not in named:
            out.append(("bool", True))
    elif options:
        if accepts_str:
            out.append(("unknown-option", "not-an-option"))
        else:
            out.append(("string", "abc"))
    elif "boolean" in named:
        out.append(("string", "no"))
    elif "random_state" in named:
        out.append(("string", "abc"))
        out.append(("below", -1))
        out.append(("legacy-RandomState", np.random.RandomState(0)))
    elif "n_jobs" in named:
        out.append(("string", "abc"))
        out.append(("zero", 0))
    elif any(isinstance(c, type) for c in constraints):
        out.append(("string", "abc"))
    return [(lab, v) for lab, v in out if not any(_accepts(c, v) for c in constraints)]


def _accepts(c, value) -> bool:
    from pgmpy_ext.utils.validation import _satisfies

    return _satisfies(c, value)


def _numpy_version(value):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return np.int64(value)
    if isinstance(value, numbers.Real):
        return np.float64(value)
    if isinstance(value, tuple) and value and all(isinstance(v, numbers.Number) and not isinstance(v, bool)
                                                  for v in value):
        return tuple(_numpy_version(v) for v in value)
    return value


def parameter_cases(spec: Spec) -> list[Case]:
    cases = []
    X, y = spec.data()
    table = getattr(spec.cls, "_parameter_constraints", {})
    params = spec.make().get_params(deep=False)
    for pname, constraints in table.items():
        if pname not in params:
            continue
        for label, bad in _bad_values(list(constraints)):
            def run(pname=pname, bad=bad):
                return _expect_error(lambda: fit(spec, spec.make(**{pname: bad}), X.copy(), y.copy()), (pname,))

            cases.append(Case(spec, f"param-{pname}-{label}", run))

    def numpy_scalars():
        base = spec.make()
        kw = {k: _numpy_version(v) for k, v in base.get_params(deep=False).items()
              if _numpy_version(v) is not v and k in table}
        if not kw:
            return Result("ok", "no numeric parameter")
        try:
            a = quiet(fit, spec, spec.make(**kw), X.copy(), y.copy())
        except Exception as err:  # noqa: BLE001
            r = judge_error(err)
            return Result("unclear", f"numpy scalars {sorted(kw)} refused: {r.detail}")
        b = Reference.get(spec)[0]
        problems = _same(quiet(outputs, spec, a, X), quiet(outputs, spec, b, X))
        return Result("silent", "numpy scalars give another result: " + "; ".join(problems)) if problems \
            else Result("ok")

    cases.append(Case(spec, "param-numpy-scalars", numpy_scalars))
    if "random_state" in params:
        cases.append(Case(spec, "param-random_state-generator", lambda: _expect_ok(
            spec, lambda: (fit(spec, spec.make(random_state=np.random.default_rng(0)), X.copy(), y.copy()), X))))
    return cases


def _first_col(X):
    return X.columns[0]


def _with_values(spec: Spec, X: pd.DataFrame, rows, value) -> pd.DataFrame:
    X = X.copy()
    c = _first_col(X)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        if pd.api.types.is_integer_dtype(X[c].dtype):
            X[c] = X[c].astype(float)
        X.loc[X.index[rows], c] = np.nan
        return X
    if not (isinstance(value, float) and pd.api.types.is_float_dtype(X[c].dtype)):
        X[c] = X[c].astype(object)
    X.loc[X.index[rows], c] = value
    return X


def _relabel(X: pd.DataFrame, y=None):
    """A non-default index (string labels in reversed order), so messages can be checked for the user's labels."""
    idx = pd.Index([f"row{900 + i}" for i in range(len(X))][::-1], name="sample")
    X = X.copy()
    X.index = idx
    if y is not None:
        y = y.copy()
        y.index = idx
    return X, y


def data_cases(spec: Spec) -> list[Case]:
    X0, y0 = spec.data()
    cases = []

    def add(name, fn):
        cases.append(Case(spec, name, fn))

    def fit_on(X, y):
        return lambda: (fit(spec, spec.make(), X, y), X)

    # empty input: a clear error (a discretiser has nothing to cut in a frame without columns: either)
    add("fit-empty", lambda: _expect_error(lambda: fit(spec, spec.make(), X0.iloc[:0], y0.iloc[:0])))
    if spec.kind == "transformer":
        add("fit-no-columns", lambda: _expect_ok(spec, fit_on(X0.iloc[:, :0], y0)))
    else:
        add("fit-no-columns", lambda: _expect_error(lambda: fit(spec, spec.make(), X0.iloc[:, :0], y0)))
    # one row: a model or a clear error
    add("fit-one-row", lambda: _expect_ok(spec, fit_on(X0.iloc[:1], y0.iloc[:1])))
    # a constant column
    add("fit-constant-column", lambda: _expect_ok(spec, fit_on(X0.assign(**{_first_col(X0): X0.iloc[0, 0]}), y0)))

    # an all-missing column: fitted (the column carries no information) or refused naming it
    def all_missing():
        X = _with_values(spec, X0, slice(None), np.nan)
        try:
            est, _ = quiet(fit_on(X, y0))
            outs = quiet(outputs, spec, est, X)
        except Exception as err:  # noqa: BLE001
            return judge_error(err, (_first_col(X0),))
        problems = _finite_problems(outs, len(X))
        return Result("silent", "; ".join(problems)) if problems else Result("ok")

    add("fit-all-missing-column", all_missing)

    # some missing cells, under a non-default index: fitted, or refused naming column and the user's row label
    def some_missing():
        X, y = _relabel(X0, y0)
        X = _with_values(spec, X, [3, 7], np.nan)
        try:
            est, _ = quiet(fit_on(X, y))
            outs = quiet(outputs, spec, est, X)
        except Exception as err:  # noqa: BLE001
            return judge_error(err, (_first_col(X0), X.index[3]))
        problems = _finite_problems(outs, len(X))
        if not spec.missing_at_fit and not problems:
            return Result("ok", "fitted on missing cells")
        return Result("silent", "; ".join(problems)) if problems else Result("ok")

    add("fit-missing-cells-index", some_missing)

    # duplicated column names: a clear error naming the column
    def duplicated():
        X = X0.copy()
        X.columns = [X.columns[0], X.columns[0], *X.columns[2:]]
        return _expect_error(lambda: fit(spec, spec.make(), X, y0), (X.columns[0],))

    add("fit-duplicated-columns", duplicated)
    passthrough = spec.kind == "transformer"  # a discretiser leaves the columns it does not cut alone
    real_valued = X0.assign(**{_first_col(X0): np.linspace(0.05, 3.95, len(X0))})
    if spec.features == "discrete":  # a real-valued column: refused naming it
        add("fit-real-valued-column", lambda: _expect_error(lambda: fit(spec, spec.make(), real_valued, y0),
                                                            (_first_col(X0),)))
    elif spec.features == "any":
        add("fit-real-valued-column", lambda: _expect_ok(spec, fit_on(real_valued, y0)))
    if spec.features in ("real", "any"):
        def infinite():
            X = X0.copy()
            X[_first_col(X)] = X[_first_col(X)].astype(float)
            X.iloc[2, 0] = np.inf
            return _expect_error(lambda: fit(spec, spec.make(), X, y0), (_first_col(X0),))

        add("fit-infinite-value", infinite)
    if spec.features == "real":
        text = X0.assign(**{_first_col(X0): "a"})
        add("fit-text-column", (lambda: _expect_ok(spec, fit_on(text, y0))) if passthrough else
            (lambda: _expect_error(lambda: fit(spec, spec.make(), text, y0), (_first_col(X0),))))
    if spec.features in ("discrete", "any"):  # the types a user's frame holds: category, bool, mixed, int labels
        def types():
            X = X0.copy()
            X[X.columns[0]] = X[X.columns[0]].astype("category")
            X[X.columns[-1]] = X[X.columns[-1]].astype(object)
            X.iloc[::5, -1] = "x"  # ints and strings in one column
            X["flag"] = X[X.columns[1]].astype(str) == X[X.columns[1]].astype(str).iloc[0]
            return fit_on(X, y0)()

        add("fit-category-bool-mixed-columns", lambda: _expect_ok(spec, types))

        def int_labels():
            X = X0.copy()
            X.columns = list(range(10, 10 + X.shape[1]))
            return fit_on(X, y0)()

        if spec.kind != "pgmpy":
            add("fit-int-column-labels", lambda: _expect_ok(spec, int_labels))

        def nullable():  # pandas' nullable dtypes (what read_csv(dtype_backend=...) and convert_dtypes() give)
            return fit_on(X0.convert_dtypes(), y0)()

        add("fit-nullable-dtypes", lambda: _expect_ok(spec, nullable))

        def nullable_na():  # the same with a pd.NA cell: fitted or refused like NaN, naming column and row
            X, y = _relabel(X0.convert_dtypes(), y0)
            X.iloc[5, 0] = pd.NA
            try:
                est, _ = quiet(fit_on(X, y))
                outs = quiet(outputs, spec, est, X)
            except Exception as err:  # noqa: BLE001
                return judge_error(err, (_first_col(X0), X.index[5]))
            problems = _finite_problems(outs, len(X))
            return Result("silent", "; ".join(problems)) if problems else Result("ok")

        add("fit-nullable-dtypes-with-NA", nullable_na)
    if spec.kind != "pgmpy" and all(pd.api.types.is_numeric_dtype(t) for t in X0.dtypes):
        def sparse():
            import scipy.sparse as sp

            return _expect_error(lambda: fit(spec, spec.make(), sp.csr_matrix(X0.to_numpy(dtype=float)), y0),
                                 ("sparse",))

        add("fit-sparse-matrix", sparse)

    # an unhashable cell: TypeError (passed through by a discretiser, which does not read the column)
    def unhashable():
        X = X0.copy()
        X[_first_col(X)] = X[_first_col(X)].astype(object)
        X.iat[1, 0] = [1, 2]
        if passthrough:
            return _expect_ok(spec, fit_on(X, y0))
        return _expect_error(lambda: fit(spec, spec.make(), X, y0), (_first_col(X0),))

    add("fit-unhashable-cell", unhashable)
    if spec.supervised:
        def y_missing():
            X, y = _relabel(X0, y0)
            y = y.astype(object).where(np.arange(len(y)) != 2, None)
            return _expect_error(lambda: fit(spec, spec.make(), X, y), (X.index[2],))

        add("fit-y-missing-label", y_missing)
        one_class = pd.Series([y0.iloc[0]] * len(y0), name=y0.name)
        if spec.kind == "transformer":  # MDLP: no cut point (every column one bin) is the answer
            add("fit-y-one-class", lambda: _expect_ok(spec, fit_on(X0, one_class)))
        else:
            add("fit-y-one-class", lambda: _expect_error(lambda: fit(spec, spec.make(), X0, one_class)))
        if spec.kind != "pgmpy":  # the pgmpy face takes the class as a column of data
            add("fit-y-wrong-length", lambda: _expect_error(lambda: fit(spec, spec.make(), X0, y0.iloc[:-3])))

    # the caller's data is never modified (fit and predict)
    def no_mutation():
        X, y = _relabel(X0, y0)
        if spec.missing_at_fit:
            X = _with_values(spec, X, [4], np.nan)
        Xc, yc = X.copy(), y.copy()
        try:
            est = quiet(fit, spec, spec.make(), X, y)
            if spec.kind not in ("pgmpy", "bicluster"):
                quiet(outputs, spec, est, X)
        except Exception as err:  # noqa: BLE001
            return judge_error(err)
        try:
            pd.testing.assert_frame_equal(X, Xc)
            pd.testing.assert_series_equal(y, yc)
        except AssertionError as err:
            return Result("silent", f"the caller's data changed: {str(err)[:200]}")
        return Result("ok")

    add("no-mutation", no_mutation)
    return cases


def predict_cases(spec: Spec) -> list[Case]:
    """Cases on the shared fitted estimator: new data at predict/transform time."""
    if spec.kind in ("pgmpy", "bicluster"):
        return []
    cases = []

    def add(name, fn):
        cases.append(Case(spec, name, fn))

    def new_rows(value=None, rows=(0,)):
        est, X, y, ref = Reference.get(spec)
        Xn, _ = _relabel(X.iloc[:6])
        if value is not None:
            Xn = _with_values(spec, Xn, list(rows), value)
        return est, Xn

    unseen = {"int": 97, "float": 1e6, "none": None}[spec.values]

    def predict_unseen():
        est, Xn = new_rows(unseen)
        try:
            outs = quiet(outputs, spec, est, Xn)
        except Exception as err:  # noqa: BLE001
            return judge_error(err, (_first_col(Xn), Xn.index[0]))
        problems = _finite_problems(outs, len(Xn))
        return Result("silent", "; ".join(problems)) if problems else Result("ok")

    if spec.features in ("discrete", "any"):
        add("predict-unseen-value", predict_unseen)
        if "handle_unknown" in spec.make().get_params(deep=False):
            def unseen_error():
                est, X, y, _ = Reference.get(spec)
                strict = quiet(fit, spec, spec.make(handle_unknown="error"), X, y)
                Xn, _ = _relabel(X.iloc[:6])
                Xn = _with_values(spec, Xn, [2], unseen)
                return _expect_error(lambda: outputs(spec, strict, Xn), (_first_col(Xn), Xn.index[2], str(unseen)))

            add("predict-unseen-error-names-row", unseen_error)

        def all_unseen():  # the column arrives as strings: finite predictions, and a warning naming the column
            from pgmpy_ext.data import UnseenValuesWarning

            est, X, y, _ = Reference.get(spec)
            Xn = X.iloc[:8].copy()
            Xn[_first_col(Xn)] = "zz" + Xn[_first_col(Xn)].astype(str)
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    outs = outputs(spec, est, Xn)
            except Exception as err:  # noqa: BLE001
                return judge_error(err, (_first_col(Xn),))
            problems = _finite_problems(outs, len(Xn))
            warned = [w for w in caught if issubclass(w.category, UnseenValuesWarning)
                      and repr(_first_col(Xn)) in str(w.message)]
            if "handle_unknown" in spec.make().get_params(deep=False) and not warned:
                problems.append(f"column {_first_col(Xn)!r} summed out of every row without an UnseenValuesWarning")
            return Result("silent", "; ".join(problems)) if problems else Result("ok")

        add("predict-column-all-unseen", all_unseen)
    else:
        add("predict-out-of-range-value", predict_unseen)

    def predict_missing():
        est, Xn = new_rows(np.nan, rows=(1, 3))
        try:
            outs = quiet(outputs, spec, est, Xn)
        except Exception as err:  # noqa: BLE001
            return judge_error(err, (_first_col(Xn), Xn.index[1]))
        problems = _finite_problems(outs, len(Xn))
        return Result("silent", "; ".join(problems)) if problems else Result("ok")

    add("predict-missing-cells", predict_missing)

    if "missing" in spec.make().get_params(deep=False) and "error" in _options(spec, "missing"):
        def missing_error():
            est, X, y, _ = Reference.get(spec)
            strict = quiet(fit, spec, spec.make(missing="error"), X, y)
            Xn, _ = _relabel(X.iloc[:6])
            Xn = _with_values(spec, Xn, [4], np.nan)
            return _expect_error(lambda: outputs(spec, strict, Xn), (_first_col(Xn), Xn.index[4]))

        add("predict-missing-error-names-row", missing_error)

    def wrong_columns():
        est, X, y, _ = Reference.get(spec)
        return _expect_error(lambda: outputs(spec, est, X.iloc[:5, :-1]))

    add("predict-missing-column", wrong_columns)

    def renamed_columns():
        est, X, y, _ = Reference.get(spec)
        Xn = X.iloc[:5].rename(columns={X.columns[0]: "zz_other"})
        return _expect_error(lambda: outputs(spec, est, Xn), ("zz_other",))

    add("predict-renamed-column", renamed_columns)

    def extra_column():
        est, X, y, _ = Reference.get(spec)
        return _expect_error(lambda: outputs(spec, est, X.iloc[:5].assign(zz_extra=1)), ("zz_extra",))

    add("predict-extra-column", extra_column)

    def empty_predict():
        est, X, y, _ = Reference.get(spec)
        try:
            outs = quiet(outputs, spec, est, X.iloc[:0])
        except Exception as err:  # noqa: BLE001
            return judge_error(err)
        bad = [k for k, v in outs.items() if k != "score" and np.asarray(v).shape[0] != 0]
        return Result("silent", f"{bad} not empty") if bad else Result("ok")

    add("predict-empty", empty_predict)

    def numpy_input():  # an array with the fitted columns' values: the same result as the DataFrame
        est, X, y, ref = Reference.get(spec)
        try:
            outs = quiet(outputs, spec, est, X.to_numpy())
        except Exception as err:  # noqa: BLE001
            return judge_error(err)
        problems = _same(ref, outs)
        return Result("silent", "; ".join(problems)) if problems else Result("ok")

    if all(pd.api.types.is_numeric_dtype(t) for t in spec.data()[0].dtypes):
        add("predict-numpy-array", numpy_input)

    def index_invariance():  # predictions follow row positions, whatever the index labels
        est, X, y, ref = Reference.get(spec)
        Xr, _ = _relabel(X)
        try:
            outs = quiet(outputs, spec, est, Xr)
        except Exception as err:  # noqa: BLE001
            return judge_error(err)
        problems = _same(ref, outs)
        return Result("silent", "the index labels changed the output: " + "; ".join(problems)) if problems \
            else Result("ok")

    add("predict-non-default-index", index_invariance)

    def not_fitted():
        est = spec.make()
        X, y = spec.data()
        return _expect_error(lambda: outputs(spec, est, X), ("fitted",))

    add("predict-before-fit", not_fitted)
    return cases


def _options(spec: Spec, pname: str) -> set:
    return {v for c in spec.cls._parameter_constraints.get(pname, []) if isinstance(c, Options) for v in c.values}


def contract_cases(spec: Spec) -> list[Case]:
    cases = []

    def add(name, fn):
        cases.append(Case(spec, name, fn))

    def pickled():
        est, X, y, ref = Reference.get(spec)
        try:
            back = pickle.loads(pickle.dumps(est))
            outs = quiet(outputs, spec, back, X)
        except Exception as err:  # noqa: BLE001
            return Result("unclear", f"{type(err).__name__}: {err}")
        problems = _same(ref, outs)
        return Result("silent", "; ".join(problems)) if problems else Result("ok")

    add("pickle-round-trip", pickled)

    def same_seed():
        est, X, y, ref = Reference.get(spec)
        try:
            again = quiet(fit, spec, clone(est) if spec.kind != "pgmpy" else spec.make(), X.copy(), y.copy())
            outs = quiet(outputs, spec, again, X)
        except Exception as err:  # noqa: BLE001
            return judge_error(err)
        problems = _same(ref, outs)
        return Result("silent", "; ".join(problems)) if problems else Result("ok")

    add("same-seed-same-result", same_seed)
    if "n_jobs" in spec.make().get_params(deep=False):
        def n_jobs():
            est, X, y, ref = Reference.get(spec)
            try:
                two = quiet(fit, spec, spec.make(n_jobs=2), X.copy(), y.copy())
                outs = quiet(outputs, spec, two, X)
            except Exception as err:  # noqa: BLE001
                return judge_error(err)
            problems = _same(ref, outs)
            return Result("silent", "; ".join(problems)) if problems else Result("ok")

        add("n_jobs-1-vs-2", n_jobs)

    if spec.kind in ("classifier", "clusterer", "transformer", "bicluster"):
        add("dask-fit", lambda: _dask_fit(spec))
        if spec.kind in ("classifier", "clusterer", "transformer"):
            add("dask-predict", lambda: _dask_predict(spec))
    return cases


def _dask_frame(X):
    import dask
    import dask.dataframe as dd

    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_pandas(X, npartitions=2)


def _has_dask() -> bool:
    try:
        import dask.dataframe  # noqa: F401
    except ImportError:
        return False
    return True


def _dask_fit(spec: Spec) -> Result:
    if not _has_dask():
        return Result("ok", "dask not installed")
    est, X, y, ref = Reference.get(spec)
    dX = _dask_frame(X)
    dy = _dask_frame(y.to_frame())[y.name] if y is not None else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fit(spec, spec.make(), dX, dy)
    except Exception as err:  # noqa: BLE001
        if spec.dask_fit:
            return Result("unclear", f"dask fit documented but fails: {type(err).__name__}: {err}")
        return judge_error(err, ("dask",))
    if not spec.dask_fit:
        return Result("silent", "fit computed a dask DataFrame although the estimator does not take dask data")
    try:
        outs = quiet(outputs, spec, got, X)
    except Exception as err:  # noqa: BLE001
        return judge_error(err)
    problems = _same(ref, outs, rtol=1e-9)
    return Result("silent", "dask fit differs from pandas: " + "; ".join(problems)) if problems else Result("ok")


def _dask_predict(spec: Spec) -> Result:
    if not _has_dask():
        return Result("ok", "dask not installed")
    est, X, y, ref = Reference.get(spec)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = outputs(spec, est, _dask_frame(X))
        outs = {k: np.asarray(v.compute() if hasattr(v, "compute") else v, dtype=float) for k, v in outs.items()}
    except Exception as err:  # noqa: BLE001
        if spec.dask_predict:
            return Result("unclear", f"dask predict documented but fails: {type(err).__name__}: {err}")
        return judge_error(err, ("dask",))
    if not spec.dask_predict:
        return Result("silent", "predict computed a dask DataFrame although the estimator does not take dask data")
    problems = _same(ref, outs, rtol=1e-9)
    return Result("silent", "dask predict differs from pandas: " + "; ".join(problems)) if problems \
        else Result("ok")


def cases_for(spec: Spec) -> list[Case]:
    return parameter_cases(spec) + data_cases(spec) + predict_cases(spec) + contract_cases(spec)


def run_case(case: Case) -> Result:
    try:
        return case.run()
    except Exception as err:  # noqa: BLE001 - a failure of the probe itself is reported, not hidden
        buf = io.StringIO()
        traceback.print_exc(file=buf)
        return Result("unclear", f"probe error {type(err).__name__}: {err}\n{buf.getvalue()[-800:]}")
