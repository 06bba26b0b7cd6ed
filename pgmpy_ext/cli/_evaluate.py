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
    add_reading_arguments(p)
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
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the folds and of the learners (default 0)")
    p.add_argument("--discretize", default="equal-frequency", choices=list(DISCRETIZERS),
                   help="how real-valued columns are cut, on each training fold (default equal-frequency); 'none' "
                        "refuses real-valued columns")
    p.add_argument("--bins", type=int_at_least(2), default=5,
                   help="bins per real-valued column (default 5; not used by mdlp)")
    p.add_argument("--alpha", type=float, default=1.0,
                   help="Dirichlet pseudo-count per CPT cell of every learner (default 1.0; 0 = maximum likelihood)")
    add_tm_arguments(p)
    p.add_argument("--fixed-structure", action="store_true",
                   help="learn each structure once on all the data and refit only the parameters per fold")
    p.add_argument("--dropna", action="store_true",
                   help="drop rows with a missing value (default: keep them; the learners count available cases "
                        "and sum missing features out)")
    p.add_argument("--n-jobs", type=n_jobs_value, default=1,
                   help="parallel (learner, fold) tasks (default 1; -1 = all cores)")
    p.add_argument("--plot", type=Path, default=None,
                   help="save a plot of the per-fold accuracies here (PNG/PDF/SVG by the suffix): one row per learner, "
                        "each fold a point, the mean and its 95%% confidence interval (corrected resampled t), on an "
                        "axis zoomed on the data")
    p.add_argument("--output", type=Path, default=None, help="write the per-fold results (CSV) here")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")


# ---------------------------------------------------------------------------------------------- arguments
def int_at_least(low: int):
    """An argparse ``type``: an int >= ``low`` (argparse prints the message as one line, naming the option)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}; give an integer >= {low}")
        return value

    parse.__name__ = f"int >= {low}"
    return parse


def n_jobs_value(text: str) -> int:
    """An argparse ``type`` for ``--n-jobs``: a non-zero int (-1: all cores)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value == 0:
        raise argparse.ArgumentTypeError("0 workers cannot run anything; give 1 (no parallelism), 2, ... or -1 "
                                         "(all cores)")
    return value


def add_reading_arguments(p: argparse.ArgumentParser) -> None:
    """``--sep``, ``--encoding``, ``--na-values``, ``--no-default-na``: how ``--data`` is read (pandas' ``read_csv``
    options of the same names)."""
    p.add_argument("--sep", default=None, help="column separator of --data (default: tab for .tsv/.tab, else comma)")
    p.add_argument("--encoding", default="utf-8", help="text encoding of --data (default utf-8; e.g. latin-1)")
    p.add_argument("--na-values", action="append", default=None, metavar="MARKERS",
                   help="comma-separated cell values that mark a missing value, e.g. --na-values '?,-' (UCI files "
                        "write '?'); added to pandas' default markers (empty field, NA, N/A, NaN, null, ...) unless "
                        "--no-default-na is given. Repeatable; a marker holding a comma needs its own option")
    p.add_argument("--no-default-na", action="store_true",
                   help="use only the --na-values markers (pandas' keep_default_na=False): e.g. 'NA' or 'None' is "
                        "then a value, and an empty field is missing only if --na-values lists ''")
    p.add_argument("--index-col", default=None, metavar="COLUMN",
                   help="column of --data holding the row labels (default: the row number, from 0): messages and "
                        "output name rows by it, and it is not a feature")


def _na_markers(args) -> list | None:
    """The ``--na-values`` markers as one list (None when none was given)."""
    items = getattr(args, "na_values", None)
    if not items:
        return None
    out = []
    for item in items:
        out.extend(m.strip() if m.strip() else m for m in item.split(","))
    return out


def one_line(err: BaseException) -> str:
    """An exception as one line: its message (or its type when it has none) and its notes (e.g. the learner and
    fold of a cross-validation)."""
    text = " ".join(str(err).split()) or type(err).__name__
    notes = " ".join(" ".join(str(n).split()) for n in getattr(err, "__notes__", ()))
    if isinstance(err, OSError) and err.filename and str(err.filename) not in text:
        text += f" ({err.filename})"
    return f"{text} {notes}" if notes else text


def dropna_hint(err: BaseException, args) -> str:
    """The command line's own fix for a learner that refuses missing training cells."""
    if "missing value" in str(err) and not getattr(args, "dropna", True):
        return " On the command line, --dropna drops the rows with a missing value."
    return ""


def check_learner_options(est, what: str) -> None:
    """Check a learner's options (and its nested parameter estimator's) against its table of constraints before any
    data is read: a wrong ``--alpha`` or ``--param`` is one line naming the option."""
    from pgmpy_ext.utils import check_params

    target = est.steps[-1][1] if hasattr(est, "steps") else est
    for obj in (target, target.get_params(deep=False).get("estimator")):
        if obj is None or not hasattr(type(obj), "_parameter_constraints"):
            continue
        try:
            check_params(obj)
        except (ValueError, TypeError) as err:
            raise _UsageError(f"{what}: {err}") from None


def _check_picture_path(path: Path) -> None:
    """``--plot``: a file type matplotlib can write (checked before any fitting)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as err:  # pragma: no cover - matplotlib is a test dependency
        raise _UsageError("--plot needs matplotlib: pip install matplotlib") from err
    kinds = Figure().canvas.get_supported_filetypes()
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in kinds:
        raise _UsageError(f"--plot {str(path)!r}: matplotlib cannot write {suffix or 'a file without extension'!r}; "
                          f"use one of {', '.join('.' + k for k in sorted(kinds))} (e.g. structure.png).")


# ---------------------------------------------------------------------------------------------- data
#: The first bytes of the compressed formats pandas reads, so a file is read by what it holds, not by its name.
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"PK\x03\x04", "zip"), (b"\xfd7zXZ\x00", "xz"),
          (b"\x28\xb5\x2f\xfd", "zstd"))


def _compression(path: Path) -> str | None:
    with open(path, "rb") as f:
        head = f.read(8)
    return next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)


def _first_line(path: Path, compression: str | None, encoding: str) -> str:
    """The first line of a (possibly compressed) text file, '' when it cannot be read."""
    import bz2
    import gzip
    import lzma

    opener = {None: open, "gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(compression)
    if opener is None:
        return ""
    try:
        with opener(path, "rt", encoding=encoding, errors="replace") as f:
            return f.readline()
    except (OSError, EOFError, ValueError):
        return ""


def _read_table(path: Path, sep: str | None, args=None) -> pd.DataFrame:
    """``--data`` as a DataFrame, with one clear message (no traceback) for every way a file can be unreadable:
    missing, a folder, not allowed, empty, compressed in another format than its name says (the content decides),
    not in the given encoding, rows of another width than the header, one column named like a header with another
    separator, or the same column name twice (pandas would rename the second one silently)."""
    where = f"--data {str(path)!r}"
    if not path.exists():
        raise _UsageError(f"{where} does not exist.")
    if not path.is_file():
        raise _UsageError(f"{where} is not a file (a folder?); give a CSV or TSV file.")
    try:
        compression = _compression(path)
    except OSError as err:
        raise _UsageError(f"could not open {where}: {err.strerror or err}.") from None
    if path.stat().st_size == 0:
        raise _UsageError(f"{where} is empty (0 bytes); give a file with a header row and data rows.")
    if sep is None:
        suffixes = [s.lower() for s in path.suffixes]
        sep = "\t" if (".tsv" in suffixes or ".tab" in suffixes) else ","
    encoding = getattr(args, "encoding", None) or "utf-8"
    na = _na_markers(args)
    keep_default = not getattr(args, "no_default_na", False)
    options = {"sep": sep, "compression": compression, "encoding": encoding, "na_values": na,
               "keep_default_na": keep_default}
    shown_sep = {"\t": "tab", ",": "comma"}.get(sep, repr(sep))
    try:
        frame = pd.read_csv(path, **options)
        header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False,
                             **{k: v for k, v in options.items() if k not in ("na_values", "keep_default_na")})
    except pd.errors.EmptyDataError:
        raise _UsageError(f"{where} has no header row (only blank lines?); give a CSV/TSV file whose first line "
                          "names the columns.") from None
    except pd.errors.ParserError as err:
        first = _first_line(path, compression, encoding)
        other = next((c for c in (";", "\t", ",", "|") if c != sep and c in first and sep not in first), None)
        hint = ""
        if other is not None:
            hint = f" The header line holds no {shown_sep} but {'tab' if other == chr(9) else repr(other)}: pass " \
                   f"--sep {repr(other) if other != chr(9) else chr(39) + chr(92) + 't' + chr(39)}."
        raise _UsageError(f"could not read {where}: {str(err).strip()}. Check the separator (now {shown_sep}; "
                          f"--sep sets it) and that every row has as many fields as the header.{hint}") from None
    except UnicodeDecodeError as err:
        raise _UsageError(f"{where} is not {encoding} text (byte {err.object[err.start:err.start + 1]!r} at "
                          f"position {err.start}); pass its encoding, e.g. --encoding latin-1.") from None
    except (OSError, EOFError, ValueError) as err:  # a damaged archive, a zip holding several files, ...
        what = f"a {compression} archive" if compression else "a text file"
        raise _UsageError(f"could not read {where} as {what}: {err}.") from None
    names = [str(v) for v in header.iloc[0].tolist()] if header.shape[0] else []
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise _UsageError(f"{where} names the column(s) {dup!r} more than once in its header; every column needs its "
                          "own name (pandas would rename the second one silently): rename them.")
    index_col = getattr(args, "index_col", None)
    if index_col is not None and index_col not in frame.columns:
        raise _UsageError(f"--index-col {index_col!r} is not a column of {str(path)!r} (columns: "
                          f"{columns_text(frame.columns)}).")
    for i, name in enumerate(names):
        if name.strip() or i >= frame.shape[1] or frame.columns[i] == index_col:
            continue
        read_as = str(frame.columns[i])
        if frame.iloc[:, i].isna().all():
            raise _UsageError(f"{where}: column {i + 1} has no name in the header and no value in any row (a "
                              "separator at the end of every line?); remove it from the file.")
        raise _UsageError(f"{where}: column {i + 1} has no name in the header (pandas reads it as {read_as!r}); name "
                          f"it, or pass --index-col {read_as!r} if it holds the row labels (pandas' to_csv writes "
                          "them so).")
    if index_col is not None:
        frame = frame.set_index(index_col)
    if frame.shape[1] == 1:
        name = str(frame.columns[0])
        other = next((c for c in (";", "\t", ",", "|") if c != sep and c in name), None)
        if other is not None:
            shown = "tab" if other == "\t" else repr(other)
            option = "'\\t'" if other == "\t" else repr(other)
            raise _UsageError(f"{where} was read as one column named {name[:60]!r}: its separator looks like "
                              f"{shown}; pass --sep {option}.")
    for note in text_among_numbers(frame, na):
        print(f"# warning: {note}", file=sys.stderr)
    return frame


def row_label(value):
    """A row label as the user wrote it (a numpy scalar as its Python value, so messages say 3, not np.int64(3))."""
    return value.item() if isinstance(value, np.generic) else value


def columns_text(columns, limit: int = 12) -> str:
    """A list of column names for a one-line message: the first ``limit`` and how many more."""
    names = [str(c) for c in columns]
    if len(names) <= limit:
        return repr(names)
    return repr(names[:limit])[:-1] + f", ... and {len(names) - limit} more]"


def _close_names(name: str, columns) -> list[str]:
    """Columns a mistyped name probably meant (case-insensitive match first, then difflib's close matches)."""
    import difflib

    names = [str(c) for c in columns]
    same = [c for c in names if c.casefold() == str(name).casefold()]
    return same or difflib.get_close_matches(str(name), names, n=3)


def text_among_numbers(frame: pd.DataFrame, na_markers=None, max_markers: int = 3) -> list[str]:
    """The columns pandas read as text because a few cells are not numbers (e.g. '?' or '-' marking a missing
    value, as UCI files do): one note each, naming the column, the text values, their rows and the fix, so such a
    marker is not silently learnt as a state of its own."""
    notes = []
    for c in frame.columns:
        col = frame[c]
        if not (pd.api.types.is_object_dtype(col.dtype) or pd.api.types.is_string_dtype(col.dtype)):
            continue  # pandas 3 reads text as its 'str' dtype, older pandas as object
        present = col.dropna()
        if present.empty or not all(isinstance(v, str) for v in present.tolist()[:1000]):
            continue
        numeric = pd.to_numeric(present, errors="coerce")
        text = present[numeric.isna()]
        kinds = sorted(set(text.tolist()))
        if not 0 < len(kinds) <= max_markers or numeric.notna().sum() < len(present) / 2:
            continue
        shown = ", ".join(repr(k) for k in kinds)
        flag = ",".join(kinds)
        first = row_label(text.index[0])
        notes.append(f"column {str(c)!r} holds numbers and the text {shown} ({len(text)} row(s), first at row "
                     f"{first!r}): the column is read as text categories with {shown} a state of its own; if it "
                     f"marks a missing value, pass --na-values {flag!r}.")
    return notes


def _no_rows(frame: pd.DataFrame, path: Path) -> None:
    """Training data: a file with a header and no data rows is refused naming the file."""
    if frame.shape[0] == 0:
        raise _UsageError(f"--data {str(path)!r} has a header and no data rows; a learner needs rows to learn from.")


def _load(args) -> tuple[pd.DataFrame, pd.Series]:
    if args.data is not None:
        if not args.target:
            raise _UsageError("--data needs --target, the name of the class column.")
        frame = _read_table(args.data, args.sep, args)
        _no_rows(frame, args.data)
        if args.target not in frame.columns:
            close = _close_names(args.target, frame.columns)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise _UsageError(f"--target {args.target!r} is not a column of {str(args.data)!r} (columns: "
                              f"{columns_text(frame.columns)}).{hint}")
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
            raise _UsageError(f"{int(missing.sum())} row(s) have a missing class label (first: row "
                              f"{row_label(X.index[r])!r}); pass --dropna to remove them.")
        X, y = X.loc[~missing], y.loc[~missing]  # the kept rows keep their labels (the file's row numbers)
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
                   help="strength of that prior (default: TMEstimator's, 'auto' = chosen per fit by the evidence "
                        "(Laplace) fixed point with lbfgs, none with tm; 'evidence' = the same; a number = that "
                        "strength, 30 = the fixed default before the evidence rule; 0 = no prior, the thesis's "
                        "objective, which overfits separable data)")


def _prior_strength(text: str):
    if text in ("auto", "evidence"):
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'auto', 'evidence' or a number >= 0, got {text!r}") from None
    if not (value >= 0 and np.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected 'auto', 'evidence' or a number >= 0, got {text!r}")
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
        from pgmpy_ext.parameters import TMEstimator, prior_strengths, uses_evidence

        est = TMEstimator(**tm_options(args))
        if uses_evidence(est.prior_strength, est.solver):
            line += f"; TM solver {est.solver}, prior strength by the evidence rule"
        else:
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
        for name, learner in learners.items():
            check_learner_options(learner, f"learner {name}")
        if args.plot is not None:
            _check_picture_path(args.plot)
        X, y = _load(args)
        X, y, continuous = _prepare(X, y, args.dropna)
        if y.nunique() < 2:
            raise _UsageError(f"the class column {y.name!r} has a single value {y.iloc[0]!r}; a classifier needs at "
                              "least 2 classes.")
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

    try:
        results = cross_validate_learners(learners, X, y, cv=args.cv, n_splits=args.folds, n_repeats=args.repeats,
                                          test_size=args.test_size, random_state=args.seed,
                                          fixed_structure=args.fixed_structure, n_jobs=args.n_jobs,
                                          show_progress=not args.no_progress)
    except (ValueError, TypeError) as err:  # a learner refusing a training fold (its message names the fix)
        print(f"pgmpy-ext evaluate: error: {one_line(err)}{dropna_hint(err, args)}", file=sys.stderr)
        return 2
    _report(results, _protocol_line(args, X.shape[0], continuous, args.discretize) + "\n" +
            columns_line(X, continuous, _discretize_how(args.discretize, args.bins, ", per training fold")),
            out)
    if args.output is not None:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        results.to_csv(args.output, index=False)
        out(f"\nper-fold results written to {args.output}")
    if args.plot is not None:
        _plot(results, args.data.name if args.data is not None else args.dataset, args.plot, out)
    return 0
