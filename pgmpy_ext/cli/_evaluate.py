"""``pgmpy-ext evaluate``: cross-validate Bayesian-network classifiers on a CSV/TSV file or a shared data set.

The parser arguments are added by :func:`add_arguments` (called from :mod:`pgmpy_ext.cli`) and the command runs in
:func:`run`. Data preparation, stated in ``--help`` too:

* every discrete feature column (strings, booleans, integers, whole-number floats) keeps all the values present in
  the file as its declared states, so a value that occurs only in a test fold is a known state with a smoothed
  probability rather than an error (no class information is used);
* real-valued columns are discretised inside the cross-validation (a ``Pipeline``), so the cut points are learned
  on each training fold only (decision 7 of seed 001).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["DISCRETIZERS", "add_arguments", "available_learners", "run"]

DISCRETIZERS = ("none", "equal-frequency", "equal-width", "mdlp")

#: Short names for classifier classes whose lower-cased name minus "Classifier" is not already short.
_ALIASES = {"naivebayes": "nb", "selectivenaivebayes": "snb", "selectivenb": "snb", "clmultinet": "clmn",
            "chowliumultinet": "clmn", "multinet": "clmn"}


class _UsageError(Exception):
    """A problem with the command line or the data that the user can fix; printed without a traceback."""


def available_learners() -> dict:
    """``{short name: class}`` of every classifier exported by :mod:`pgmpy_ext.classifiers`, discovered at run time.

    The short name is the class name lower-cased without ``Classifier`` (``TANClassifier`` -> ``"tan"``,
    ``KDBClassifier`` -> ``"kdb"``), with aliases for long names (``NaiveBayesClassifier`` -> ``"nb"``).
    """
    from sklearn.base import ClassifierMixin

    import pgmpy_ext.classifiers as clf_module

    out = {}
    for name in getattr(clf_module, "__all__", []):
        cls = getattr(clf_module, name, None)
        if not (isinstance(cls, type) and issubclass(cls, ClassifierMixin)) or inspect.isabstract(cls):
            continue
        if name.endswith("Base") or name.startswith("_"):
            continue
        short = name[: -len("Classifier")] if name.endswith("Classifier") else name
        short = short.lower()
        out[_ALIASES.get(short, short)] = cls
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``pgmpy-ext evaluate``."""
    src = p.add_mutually_exclusive_group()  # one is required, except for --learners list (checked in run)
    src.add_argument("--data", type=Path, help="CSV or TSV file (.tsv/.tab, optionally .gz, are read tab-separated), "
                                                "one column per variable, with a header row")
    src.add_argument("--dataset", help="name of a data set known to pgmpy_ext.datasets.load_dataset")
    p.add_argument("--target", help="class column of --data (required with --data)")
    p.add_argument("--sep", default=None, help="column separator of --data (default: tab for .tsv/.tab, else comma)")
    p.add_argument("--learners", default="nb,tan",
                   help="comma-separated short names of pgmpy_ext.classifiers classes (default nb,tan); a '-tm' "
                        "suffix gives the learner discriminative TM parameters (e.g. nb-tm, tan-tm, ctan-tm); "
                        "'--learners list' prints the available ones")
    p.add_argument("--cv", default="kfold", choices=["kfold", "stratified", "repeated", "loo", "holdout",
                                                     "resubstitution"],
                   help="protocol (default kfold: plain k-fold, one run, seeded)")
    p.add_argument("--folds", type=int, default=10, help="k of the k-fold protocols (default 10)")
    p.add_argument("--repeats", type=int, default=None,
                   help="repetitions (default 1; 10 for --cv repeated); random subsampling for --cv holdout")
    p.add_argument("--test-size", type=float, default=1 / 3, help="test fraction of --cv holdout (default 1/3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the folds and of the learners (default 0)")
    p.add_argument("--discretize", default="equal-frequency", choices=list(DISCRETIZERS),
                   help="how real-valued columns are cut, on each training fold (default equal-frequency); 'none' "
                        "refuses real-valued columns")
    p.add_argument("--bins", type=int, default=5, help="bins per real-valued column (default 5; not used by mdlp)")
    p.add_argument("--alpha", type=float, default=1.0,
                   help="Dirichlet pseudo-count per CPT cell of every learner (default 1.0; 0 = maximum likelihood)")
    add_tm_arguments(p)
    p.add_argument("--fixed-structure", action="store_true",
                   help="learn each structure once on all the data and refit only the parameters per fold")
    p.add_argument("--dropna", action="store_true",
                   help="drop rows with a missing value (default: keep them; the learners count available cases "
                        "and sum missing features out)")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel (learner, fold) tasks (default 1; -1 = all cores)")
    p.add_argument("--plot", type=Path, default=None,
                   help="save a plot of the per-fold accuracies here (PNG/PDF/SVG by the suffix): one row per learner, "
                        "each fold a point, the mean and its 95%% confidence interval (corrected resampled t), on an "
                        "axis zoomed on the data")
    p.add_argument("--output", type=Path, default=None, help="write the per-fold results (CSV) here")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")


# ---------------------------------------------------------------------------------------------- data
def _read_table(path: Path, sep: str | None) -> pd.DataFrame:
    if not path.is_file():
        raise _UsageError(f"--data {str(path)!r} is not a file.")
    if sep is None:
        suffixes = [s.lower() for s in path.suffixes]
        sep = "\t" if (".tsv" in suffixes or ".tab" in suffixes) else ","
    try:
        return pd.read_csv(path, sep=sep)
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise _UsageError(f"could not read --data {str(path)!r}: {err}") from None


def _load(args) -> tuple[pd.DataFrame, pd.Series]:
    if args.data is not None:
        if not args.target:
            raise _UsageError("--data needs --target, the name of the class column.")
        frame = _read_table(args.data, args.sep)
        if args.target not in frame.columns:
            raise _UsageError(f"--target {args.target!r} is not a column of {str(args.data)!r} (columns: "
                              f"{list(frame.columns)!r}).")
        y = frame.pop(args.target)
        return frame, y
    try:
        from pgmpy_ext.datasets import load_dataset
    except ImportError:
        raise _UsageError("--dataset needs pgmpy_ext.datasets.load_dataset, which this installation does not have; "
                          "use --data FILE --target COLUMN instead.") from None
    try:
        X, y = load_dataset(args.dataset)
    except (KeyError, ValueError, FileNotFoundError) as err:
        raise _UsageError(f"--dataset {args.dataset!r}: {err}") from None
    if not isinstance(X, pd.DataFrame):
        X = pd.DataFrame(X)
    if not isinstance(y, pd.Series):
        y = pd.Series(np.asarray(y), name=args.target or "class")
    return X.reset_index(drop=True), y.reset_index(drop=True)


def _is_continuous(col: pd.Series) -> bool:
    if not pd.api.types.is_float_dtype(col.dtype):
        return False
    vals = col.dropna().to_numpy(dtype=float)
    return bool(vals.size) and not np.all(vals == np.round(vals))


def continuous_columns(X: pd.DataFrame) -> list:
    """The columns to discretise: those the discretisers of :mod:`pgmpy_ext.preprocessing` select by default
    (their fitted ``columns_``), so the command line follows the library's rule; float columns with a fractional
    value when the discretisers are not available. Decided on all the rows, from the values only (no labels)."""
    try:
        from pgmpy_ext.preprocessing import EqualWidthDiscretizer

        probe = EqualWidthDiscretizer(n_bins=2).fit(X)  # columns=None: the library's default selection
        cols = getattr(probe, "columns_", None)
    except (ImportError, ValueError, TypeError):
        cols = None
    if cols is None:
        cols = [c for c in X.columns if _is_continuous(X[c])]
    return [c for c in X.columns if c in set(cols)]


def _prepare(X: pd.DataFrame, y: pd.Series, dropna: bool) -> tuple[pd.DataFrame, pd.Series, list]:
    """Declare the full domain of every discrete column; return (X, y, continuous column names).

    Missing feature cells are kept (the learners count available cases at fit and sum missing features out at
    predict; a learner that needs complete data says so) unless ``dropna``; a missing class label is refused (or
    its row dropped with ``dropna``)."""
    missing = (X.isna().any(axis=1) | y.isna()) if dropna else y.isna()
    if missing.any():
        if not dropna:
            r = int(np.flatnonzero(missing.to_numpy())[0])
            raise _UsageError(f"{int(missing.sum())} row(s) have a missing class label (first: row {X.index[r]!r}); "
                              "pass --dropna to remove them.")
        X, y = X.loc[~missing].reset_index(drop=True), y.loc[~missing].reset_index(drop=True)
    if X.shape[0] < 2:
        raise _UsageError(f"the data have {X.shape[0]} usable row(s); a learner needs more.")
    out = {}
    continuous = continuous_columns(X)
    for c in X.columns:
        col = X[c]
        if c in continuous:
            out[c] = col if pd.api.types.is_numeric_dtype(col.dtype) else col.astype(float)
            continue
        if isinstance(col.dtype, pd.CategoricalDtype):
            out[c] = col
            continue
        if pd.api.types.is_float_dtype(col.dtype):  # whole-number floats (e.g. int codes read with a NaN): ints
            values = [None if np.isnan(v) else int(v) for v in col.to_numpy(dtype=np.float64)]
        else:
            values = col.tolist()
        present = {v for v in values if not pd.isna(v)}
        try:
            cats = sorted(present)
        except TypeError:
            cats = sorted(present, key=lambda v: (type(v).__name__, repr(v)))
        out[c] = pd.Categorical(values, categories=cats)
    if y.name is None or y.name in X.columns:
        y = y.rename("class")
    if pd.api.types.is_float_dtype(y.dtype) and np.all(y.to_numpy() == np.round(y.to_numpy())):
        y = y.astype(np.int64)
    return pd.DataFrame(out, index=X.index), y, continuous


def _discretizer(kind: str, columns: list, n_bins: int):
    """A discretiser of ``pgmpy_ext.preprocessing`` for the real-valued ``columns`` (None when there are none)."""
    if not columns:
        return None
    if kind == "none":
        raise _UsageError(f"columns {columns!r} have real values; pass --discretize equal-frequency (or equal-width, "
                          "mdlp) to cut them into bins on each training fold.")
    if kind != "mdlp" and n_bins < 2:
        raise _UsageError(f"--bins == {n_bins}, must be >= 2.")
    try:
        from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLPDiscretizer
    except ImportError:
        raise _UsageError(f"--discretize {kind} needs pgmpy_ext.preprocessing, which this installation does not have; "
                          "discretise the file yourself and pass --discretize none.") from None
    if kind == "mdlp":
        return MDLPDiscretizer(columns=list(columns))
    cls = EqualFrequencyDiscretizer if kind == "equal-frequency" else EqualWidthDiscretizer
    return cls(n_bins=n_bins, columns=list(columns))


def _normalise_name(name: str, avail: dict) -> str | None:
    """A learner short name as typed -> its key in ``avail``: dashes and underscores are ignored and the aliases
    apply (``cl-multinet`` -> ``clmn``, ``structural-tm`` -> ``structuraltm``); None when unknown."""
    key = name.replace("-", "").replace("_", "")
    key = _ALIASES.get(key, key)
    return key if key in avail else None


def resolve_learner(name: str, avail: dict | None = None) -> tuple[str, bool]:
    """``(key in available_learners(), with TM parameters)`` of one name as typed on the command line; None as the
    key when the name is unknown. A '-tm' suffix asks for TM parameters unless the whole name is a learner
    (``structural-tm``)."""
    avail = available_learners() if avail is None else avail
    name = name.strip().lower()
    whole = _normalise_name(name, avail)
    if whole is not None:
        return whole, False
    if name.endswith("-tm"):
        return _normalise_name(name.removesuffix("-tm"), avail), True
    return None, False


def add_tm_arguments(p: argparse.ArgumentParser) -> None:
    """``--tm-solver`` and ``--tm-prior-strength`` (shared by ``evaluate`` and ``fit``); their defaults are the
    library's (``TMEstimator()``), resolved when a learner is built."""
    p.add_argument("--tm-solver", default=None, choices=["tm", "lbfgs"],
                   help="optimiser of the '-tm' learners (default: TMEstimator's, lbfgs: L-BFGS on the conditional "
                        "log-likelihood plus a Gaussian prior around the generative parameters); tm = the thesis's "
                        "TM iteration without a prior")
    p.add_argument("--tm-prior-strength", default=None, type=_prior_strength,
                   help="strength of that prior (default: TMEstimator's, 'auto' = 30 with lbfgs, none with tm; 0 = "
                        "no prior, the thesis's objective, which overfits separable data)")


def _prior_strength(text: str):
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a number >= 0, got {text!r}") from None
    if not (value >= 0 and np.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected 'auto' or a number >= 0, got {text!r}")
    return value


def tm_options(args) -> dict:
    """The ``TMEstimator`` options the TM arguments set (the library's defaults for those left out)."""
    out = {}
    if getattr(args, "tm_solver", None) is not None:
        out["solver"] = args.tm_solver
    if getattr(args, "tm_prior_strength", None) is not None:
        out["prior_strength"] = args.tm_prior_strength
    return out


def _learners(spec: str, alpha: float, seed: int, tm_kw: dict | None = None) -> dict:
    avail = available_learners()
    names = [s.strip().lower() for s in spec.split(",") if s.strip()]
    if not names:
        raise _UsageError("--learners is empty; give e.g. --learners nb,tan.")
    unknown = [n for n in names if resolve_learner(n, avail)[0] is None]
    if unknown:
        raise _UsageError(f"unknown learner(s) {unknown!r}; available: {', '.join(sorted(avail))} (each also with "
                          "a '-tm' suffix when it takes a parameter estimator).")
    out = {}
    for n in dict.fromkeys(names):
        key, tm = resolve_learner(n, avail)
        base = key
        cls = avail[base]
        params = cls().get_params()
        kw = {}
        if "alpha" in params:
            kw["alpha"] = alpha
        if "random_state" in params:
            kw["random_state"] = seed
        if tm:
            if "estimator" not in params:
                raise _UsageError(f"learner {base!r} takes no parameter estimator, so {n!r} is not available "
                                  "(structuraltm already learns TM parameters).")
            from pgmpy_ext.parameters import TMEstimator

            # the TM starts from the smoothed counts (alpha) and maximises the conditional likelihood (plus the
            # prior's log-density around those smoothed generative parameters)
            kw["estimator"] = TMEstimator(alpha=alpha, **(tm_kw or {}))
        out[(base.upper() if len(base) <= 4 else base) + ("-TM" if tm and len(base) <= 4 else "-tm" if tm else "")] = \
            cls(**kw)
    return out


# ---------------------------------------------------------------------------------------------- report
def _fmt(x: float, spec: str = ".4f") -> str:
    return "n/a" if x is None or not np.isfinite(x) else format(x, spec)


def _report(results: pd.DataFrame, protocol: str, out) -> None:
    from pgmpy_ext.evaluation import pairwise_tests, summarize

    summ = summarize(results)
    loo = bool(summ["loo"].all())
    acc_head = "accuracy % (± se)" if loo else "accuracy % (mean ± std)"
    out(f"\n{protocol}\n")
    out(f"| learner | {acc_head} | test CLL/row | train CLL/row | train LL/row | arcs | fit time (s) |")
    out("|---|---|---|---|---|---|---|")
    for _, r in summ.iterrows():
        out(f"| {r['learner']} | {r['report']} | {_fmt(r['test_cll'])} | {_fmt(r['train_cll'])} | "
            f"{_fmt(r['train_ll'])} | {_fmt(r['structure_size'], '.1f')} | {_fmt(r['fit_time'], '.3f')} |")
    if len(summ) < 2:
        return
    pw = pairwise_tests(results)
    out("\nPairwise tests on the fold accuracies (two-sided p-values; paired by fold):\n")
    out("| A | B | A − B (pp) | paired t p | Wilcoxon p | Mann–Whitney p |")
    out("|---|---|---|---|---|---|")
    for _, r in pw.iterrows():
        diff = round(100 * r["mean_difference"], 2) + 0.0  # + 0.0 turns -0.0 into 0.0
        out(f"| {r['learner_a']} | {r['learner_b']} | {diff:+.2f} | {_fmt(r['ttest_p'])} | "
            f"{_fmt(r['wilcoxon_p'])} | {_fmt(r['mannwhitney_p'])} |")


def _protocol_line(args, n_rows: int, continuous: list, disc: str) -> str:
    if args.cv in ("kfold", "stratified", "repeated"):
        reps = args.repeats if args.repeats is not None else (10 if args.cv == "repeated" else 1)
        what = f"{args.folds}-fold {'stratified ' if args.cv != 'kfold' else ''}CV, {reps} run(s)"
    elif args.cv == "holdout":
        what = f"hold-out (test {args.test_size:.3g}), {args.repeats or 1} run(s)"
    elif args.cv == "loo":
        what = "leave-one-out"
    else:
        what = "resubstitution (train = test)"
    line = f"# {what}, seed {args.seed}, {n_rows} rows, alpha={args.alpha}"
    if any(resolve_learner(n)[1] for n in args.learners.split(",") if n.strip()):
        from pgmpy_ext.parameters import TMEstimator, prior_strengths

        est = TMEstimator(**tm_options(args))
        strength = prior_strengths(est.prior_strength, est.solver)[0]
        line += f"; TM solver {est.solver}, prior strength {strength:g}"
    if continuous:
        line += f"; {len(continuous)} real-valued column(s) cut per training fold ({disc}"
        line += ")" if disc == "mdlp" else f", {args.bins} bins)"
    if args.fixed_structure:
        line += "; structures fixed on all the data"
    return line


def _names(cols: list, limit: int = 20) -> str:
    shown = ", ".join(str(c) for c in cols[:limit])
    return shown + (f", ... (+{len(cols) - limit} more)" if len(cols) > limit else "") if cols else "none"


def _n_states(col: pd.Series) -> int:
    if isinstance(col.dtype, pd.CategoricalDtype):
        return len(col.cat.categories)
    return int(col.nunique(dropna=True))


def columns_line(X: pd.DataFrame, continuous: list, how: str) -> str:
    """The header line that says which feature columns of ``X`` are discretised (and how) and which are kept as
    categorical variables, with every value in the file declared as a state (their number in parentheses, so that
    an ID-like or many-valued numeric column kept as categorical is visible)."""
    kept = [c for c in X.columns if c not in set(continuous)]
    return (f"# columns: {len(continuous)} discretised ({how}): {_names(list(continuous))}; {len(kept)} kept as "
            f"categorical (states): {_names([f'{c} ({_n_states(X[c])})' for c in kept])}")


def _discretize_how(kind: str, n_bins: int, where: str) -> str:
    return f"{kind}{'' if kind == 'mdlp' else f', {n_bins} bins'}{where}"


def _plot(results: pd.DataFrame, name: str, path: Path, out) -> None:
    """``--plot``: the per-fold accuracies of every learner on this one data set (points), with the mean and its 95%
    confidence interval (Nadeau & Bengio's corrected resampled t over the folds), on an axis zoomed on the data
    (:func:`~pgmpy_ext.evaluation.plot_fold_accuracies`). ``evaluate`` runs one data set, so the critical-difference
    diagram (ranks over several data sets, :func:`~pgmpy_ext.evaluation.plot_ranks_over_datasets`) is not drawn
    here: folds of one data set are not independent data sets."""
    from pgmpy_ext.evaluation import plot_fold_accuracies

    ax = plot_fold_accuracies(results, dataset=name)
    ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    out(f"fold-accuracy plot (folds as points, mean and 95% confidence interval) saved to {path}")


def run(args, out=print) -> int:
    """Run ``pgmpy-ext evaluate`` with parsed ``args``; returns the exit status (2 on a usage or data error)."""
    try:
        if args.learners.strip().lower() == "list":
            for name, cls in sorted(available_learners().items()):
                out(f"{name}\t{cls.__name__}")
            return 0
        if args.data is None and args.dataset is None:
            raise _UsageError("give the data: --data FILE --target COLUMN, or --dataset NAME.")
        learners = _learners(args.learners, args.alpha, args.seed, tm_options(args))
        X, y = _load(args)
        X, y, continuous = _prepare(X, y, args.dropna)
        disc = _discretizer(args.discretize, continuous, args.bins)
        if disc is not None:
            from sklearn.pipeline import Pipeline

            learners = {k: Pipeline([("discretize", disc), ("classifier", v)]) for k, v in learners.items()}
        from pgmpy_ext.evaluation import make_splits

        try:  # check the protocol against the data before any fitting
            make_splits(X, y, cv=args.cv, n_splits=args.folds, n_repeats=args.repeats, test_size=args.test_size,
                        random_state=args.seed)
        except ValueError as err:
            raise _UsageError(str(err)) from None
    except _UsageError as err:
        print(f"pgmpy-ext evaluate: error: {err}", file=sys.stderr)
        return 2
    from pgmpy_ext.evaluation import cross_validate_learners

    results = cross_validate_learners(learners, X, y, cv=args.cv, n_splits=args.folds, n_repeats=args.repeats,
                                      test_size=args.test_size, random_state=args.seed,
                                      fixed_structure=args.fixed_structure, n_jobs=args.n_jobs,
                                      show_progress=not args.no_progress)
    _report(results, _protocol_line(args, X.shape[0], continuous, args.discretize) + "\n" +
            columns_line(X, continuous, _discretize_how(args.discretize, args.bins, ", per training fold")),
            out)
    if args.output is not None:
        results.to_csv(args.output, index=False)
        out(f"\nper-fold results written to {args.output}")
    if args.plot is not None:
        _plot(results, args.data.name if args.data is not None else args.dataset, args.plot, out)
    return 0
