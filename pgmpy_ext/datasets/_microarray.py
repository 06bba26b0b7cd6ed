"""Loader for the shared gene-expression matrices (``../shared/datasets/microarray/``); nothing is downloaded."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["MICROARRAYS", "load_microarray"]

#: name -> (file, class labels by code, description)
MICROARRAYS = {
    "leukemia": ("ALLAML.mat", {1: "ALL", 2: "AML"}, "Golub et al. 1999, 72 x 7129 (standardised), ALL 47 / AML 25"),
    "colon": ("colon.mat", {1: "normal", 2: "tumour"}, "Alon et al. 1999, 62 x 2000 (values -2..2), 40 / 22"),
    "lymphoma": ("lymphoma.mat", None, "Alizadeh et al. 2000, 96 x 4026 (values -2..2), 9 classes"),
}


def _microarray_dirs(data_home) -> list[Path]:
    roots = []
    if data_home is not None:
        roots.append(Path(data_home).expanduser())
    env = os.environ.get("PGMPY_EXT_DATA")
    if env:
        roots.append(Path(env).expanduser())
    roots.append(Path(__file__).resolve().parent.parent.parent.parent / "shared" / "datasets")
    return [r / "microarray" for r in roots] + roots


def load_microarray(name: str, *, data_home=None):
    """One of the shared microarray sets as ``(X, y)``: a float DataFrame (samples x genes, columns ``g0, g1,
    ...``, index ``s0, s1, ...``) and a Series named ``"class"``.

    ``name`` is ``"leukemia"`` (``ALLAML.mat``; ALL/AML), ``"colon"`` (``colon.mat``; the file codes 1 and 2 are
    read as normal (22) and tumour (40), the counts of Alon et al.) or ``"lymphoma"`` (``lymphoma.mat``; class
    codes 1..9 as integers). The files are the scikit-feature copies read with ``scipy.io.loadmat`` from
    ``data_home``, ``$PGMPY_EXT_DATA`` or the repository's ``../shared/datasets`` (each with or without a
    ``microarray/`` subfolder); a FileNotFoundError lists where it looked.
    """
    if name not in MICROARRAYS:
        raise ValueError(f"name == {name!r}, must be one of {sorted(MICROARRAYS)!r}.")
    fname, labels, _ = MICROARRAYS[name]
    tried = []
    for d in _microarray_dirs(data_home):
        path = d / fname
        tried.append(str(path))
        if path.is_file():
            from scipy.io import loadmat

            mat = loadmat(path)
            X = np.asarray(mat["X"], dtype=np.float64)
            codes = np.asarray(mat["Y"]).ravel().astype(int)
            y = pd.Series([labels[c] for c in codes] if labels else codes, name="class")
            frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])],
                                 index=[f"s{i}" for i in range(X.shape[0])])
            y.index = frame.index
            return frame, y
    raise FileNotFoundError(f"microarray set {name!r} ({fname}) not found; looked in: {tried}. Put the shared "
                            "datasets folder beside the repository or set $PGMPY_EXT_DATA.")
