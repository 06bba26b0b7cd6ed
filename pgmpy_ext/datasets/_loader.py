"""Loader for the shared PMLB-format data files (``../shared/datasets/uci/<name>.tsv.gz``) or any such file by path.

Nothing is downloaded: the files are looked up on disk only (see :func:`load_dataset` for where).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["DATA_ENV_VAR", "list_datasets", "load_dataset"]

#: Environment variable naming a data folder (the one holding ``uci/``), as for the benchmarks and tests.
DATA_ENV_VAR = "PGMPY_EXT_DATA"

_SUFFIXES = (".tsv.gz", ".tsv", ".csv.gz", ".csv")
# pgmpy_ext/datasets/_loader.py -> the repository root is three levels up; shared/ sits beside the repository.
_REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def _search_dirs(data_home) -> list[Path]:
    """Folders searched for ``<name>.tsv.gz``, in order: data_home, $PGMPY_EXT_DATA, the repository's
    ../shared/datasets; each as ``<dir>/uci`` then ``<dir>`` itself."""
    roots = []
    if data_home is not None:
        roots.append(Path(data_home).expanduser())
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        roots.append(Path(env).expanduser())
    roots.append(_REPO_ROOT.parent / "shared" / "datasets")
    out = []
    for root in roots:
        for d in (root / "uci", root):
            if d not in out:
                out.append(d)
    return out


def _looks_like_path(name: str) -> bool:
    return name.endswith(_SUFFIXES) or os.sep in name or (os.altsep is not None and os.altsep in name)


def _resolve(name_or_path, data_home) -> Path:
    if isinstance(name_or_path, os.PathLike):
        name_or_path = os.fspath(name_or_path)
    if not isinstance(name_or_path, str):
        raise TypeError(f"name_or_path must be a data-set name or a path, got {type(name_or_path).__name__}.")
    if _looks_like_path(name_or_path):
        path = Path(name_or_path).expanduser()
        if path.is_file():
            return path
        raise FileNotFoundError(f"Data file {str(path)!r} does not exist.")
    tried = []
    for d in _search_dirs(data_home):
        for suffix in _SUFFIXES:
            candidate = d / f"{name_or_path}{suffix}"
            tried.append(str(candidate))
            if candidate.is_file():
                return candidate
    raise FileNotFoundError(
        f"Data set {name_or_path!r} not found. Looked for <name>.tsv.gz/.tsv/.csv.gz/.csv in: "
        f"{[str(d) for d in _search_dirs(data_home)]!r}. Pass data_home=..., set ${DATA_ENV_VAR} to the folder "
        "that holds uci/, or pass the file's path.")


def _is_continuous(col: pd.Series, rule: str = "fraction") -> bool:
    if not pd.api.types.is_float_dtype(col.dtype):
        return False
    if rule == "float":
        return True
    vals = col.to_numpy(dtype=np.float64, na_value=np.nan)
    vals = vals[np.isfinite(vals)]
    return bool(np.any(vals != np.round(vals)))


def _as_categorical(col: pd.Series) -> pd.Categorical:
    """Discrete column -> Categorical whose categories are all values in the file (sorted); whole-number floats
    become ints."""
    if pd.api.types.is_float_dtype(col.dtype):
        vals = col.to_numpy(dtype=np.float64, na_value=np.nan)
        present = ~np.isnan(vals)
        if present.all():
            col = pd.Series(vals.astype(np.int64), index=col.index, name=col.name)
        else:  # keep NaN as a missing cell; the ints go in an object column so they stay ints
            obj = np.full(vals.shape, np.nan, dtype=object)
            obj[present] = vals[present].astype(np.int64).tolist()
            col = pd.Series(obj, index=col.index, name=col.name)
    values = col.dropna().unique().tolist()
    try:
        categories = sorted(values)
    except TypeError:
        categories = sorted(values, key=lambda v: (type(v).__name__, repr(v)))
    return pd.Categorical(col, categories=categories)


def load_dataset(name_or_path, *, data_home=None, target: str = "target",
                 continuous: str = "fraction") -> tuple[pd.DataFrame, pd.Series]:
    """Load a PMLB-format data set (a shared UCI copy by name, or any tab/comma-separated file by path).

    Parameters
    ----------
    name_or_path : str or path-like
        A name such as ``"iris"`` (see :func:`list_datasets`), looked up as ``<name>.tsv.gz`` (then ``.tsv``,
        ``.csv.gz``, ``.csv``) in, in order: ``data_home/uci`` and ``data_home``; ``$PGMPY_EXT_DATA/uci`` and
        ``$PGMPY_EXT_DATA``; ``../shared/datasets/uci`` and ``../shared/datasets`` beside the repository. Or the
        path of a ``.tsv``, ``.tsv.gz``, ``.csv`` or ``.csv.gz`` file (tab-separated unless the name says csv),
        with one header row.
    data_home : str or path-like, optional
        A folder searched first.
    target : str, default "target"
        Name of the class column (PMLB's convention). It may be anywhere, e.g. first in ``wine_recognition``.
    continuous : {"fraction", "float"}, default "fraction"
        Which columns are continuous. ``"fraction"``: float columns with at least one value that is not a whole
        number (what pgmpy-ext's discretisers select by default). ``"float"``: every column stored as float in
        the file, e.g. ``63.0`` (the "float-valued features" count of ``../shared/datasets/README.md``; cleve has
        5 such columns but only 1 with fractions). With ``"float"``, discretise with ``columns="numeric"``.

    Returns
    -------
    X : pandas.DataFrame
        The other columns, in file order. A **continuous** column (see ``continuous``) is returned as float64.
        Every other column is **discrete** and is
        returned as a pandas Categorical whose categories are all the values that occur in the file, sorted
        (integer codes stay ints, e.g. ``[0, 1, 2]``), so that every state is declared even when a
        cross-validation fold misses it.
    y : pandas.Series
        The class column as read (integer codes in the PMLB files), named ``target``.

    Raises
    ------
    FileNotFoundError
        When the data set is not found; the message lists every folder searched.
    ValueError
        When the file has no column named ``target``.

    Notes
    -----
    The PMLB copies already replaced missing values, and some differ from the versions used in the seed
    documents (see ``../shared/datasets/README.md``). Deciding "continuous" per file (not per fold) uses only which
    values exist, never the labels.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "toy.tsv").write_text("a\\tb\\ttarget\\n1\\t0.5\\t0\\n3\\t1.25\\t1\\n1\\t2.0\\t1\\n")
    >>> X, y = load_dataset("toy", data_home=d)
    >>> X.dtypes.astype(str).tolist(), X["a"].cat.categories.tolist(), y.tolist()
    (['category', 'float64'], [1, 3], [0, 1, 1])
    """
    if continuous not in ("fraction", "float"):
        raise ValueError(f"continuous == {continuous!r}, must be one of ('fraction', 'float').")
    path = _resolve(name_or_path, data_home)
    sep = "," if path.name.endswith((".csv", ".csv.gz")) else "\t"
    df = pd.read_csv(path, sep=sep)
    if target not in df.columns:
        raise ValueError(f"{str(path)!r} has no class column {target!r} (columns: {list(df.columns)!r}); pass "
                         "target=<name of the class column>.")
    y = df.pop(target)
    X = pd.DataFrame({c: (df[c].astype(np.float64) if _is_continuous(df[c], continuous) else _as_categorical(df[c]))
                      for c in df.columns}, index=df.index)
    return X, y


def list_datasets(*, data_home=None) -> list[str]:
    """Names of the data sets :func:`load_dataset` can find by name (sorted; empty when no data folder exists).

    Parameters
    ----------
    data_home : str or path-like, optional
        A folder searched first, as in :func:`load_dataset`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "toy.tsv").write_text("a\\ttarget\\n1\\t0\\n")
    >>> "toy" in list_datasets(data_home=d)
    True
    """
    names = set()
    for d in _search_dirs(data_home):
        if d.is_dir():
            for p in d.iterdir():
                for suffix in _SUFFIXES:
                    if p.is_file() and p.name.endswith(suffix):
                        names.add(p.name[: -len(suffix)])
                        break
    return sorted(names)
