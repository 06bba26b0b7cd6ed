"""load_dataset / list_datasets: resolution order, clear errors, column types; the shared sets (skipped when
../shared/datasets is absent) against the numbers of ../shared/datasets/README.md."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.datasets import list_datasets, load_dataset
from pgmpy_ext.preprocessing import MDLPDiscretizer

TOY = "a\tb\ttarget\tc\n1\t0.5\tno\tx\n3\t1.25\tyes\ty\n1\t2.0\tyes\tx\n"


def _write(path, text=TOY):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


# ------------------------------------------------------------------------------------------------ offline
@pytest.mark.parametrize("filename", ["toy.tsv", "toy.tsv.gz", "uci/toy.tsv.gz"], ids=["tsv", "tsv.gz", "uci"])
def test_load_by_name_from_data_home(tmp_path, filename):
    _write(tmp_path / filename)
    X, y = load_dataset("toy", data_home=tmp_path)
    assert list(X.columns) == ["a", "b", "c"]                          # class column removed wherever it is
    assert y.name == "target"
    assert y.tolist() == ["no", "yes", "yes"]
    assert isinstance(X["a"].dtype, pd.CategoricalDtype)
    assert X["a"].cat.categories.tolist() == [1, 3]                    # integer codes stay ints
    assert X["b"].dtype == np.float64                                  # has fractions: continuous
    assert X["c"].cat.categories.tolist() == ["x", "y"]


def test_load_by_path_csv_and_whole_number_floats(tmp_path):
    path = _write(tmp_path / "d.csv", "target,k,w\n0,1.0,0.5\n1,2.0,1.5\n1,,2.5\n")
    X, y = load_dataset(path)
    assert y.tolist() == [0, 1, 1]
    # whole-number floats are discrete: int categories, a missing cell stays missing
    assert X["k"].cat.categories.tolist() == [1, 2]
    assert X["k"].isna().tolist() == [False, False, True]
    assert [type(v) for v in X["k"].dropna()] == [int, int]
    assert X["w"].dtype == np.float64
    X2, _ = load_dataset(str(path), continuous="float")
    assert X2["k"].dtype == np.float64


def test_environment_variable_and_precedence(tmp_path, monkeypatch):
    _write(tmp_path / "env" / "uci" / "toy.tsv.gz")
    _write(tmp_path / "home" / "toy.tsv", "target\tz\n1\t5\n")
    monkeypatch.setenv("PGMPY_EXT_DATA", str(tmp_path / "env"))
    X, _ = load_dataset("toy")
    assert list(X.columns) == ["a", "b", "c"]
    X, _ = load_dataset("toy", data_home=tmp_path / "home")             # data_home is searched first
    assert list(X.columns) == ["z"]
    assert "toy" in list_datasets()
    assert "toy" in list_datasets(data_home=tmp_path / "home")


def test_not_found_lists_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("PGMPY_EXT_DATA", str(tmp_path / "env"))
    with pytest.raises(FileNotFoundError, match=r"Data set 'no_such_set' not found\. Looked for") as info:
        load_dataset("no_such_set", data_home=tmp_path / "home")
    msg = str(info.value)
    for d in (tmp_path / "home" / "uci", tmp_path / "home", tmp_path / "env" / "uci"):
        assert repr(str(d)) in msg
    assert "shared" in msg
    with pytest.raises(FileNotFoundError, match=r"Data file '.*missing\.tsv' does not exist"):
        load_dataset(tmp_path / "missing.tsv")


def test_bad_inputs(tmp_path):
    path = _write(tmp_path / "t.tsv", "a\tlabel\n1\t0\n")
    with pytest.raises(ValueError, match=r"has no class column 'target' \(columns: \['a', 'label'\]\)"):
        load_dataset(path)
    X, y = load_dataset(path, target="label")
    assert y.tolist() == [0]
    with pytest.raises(ValueError, match=r"continuous == 'all', must be one of \('fraction', 'float'\)"):
        load_dataset(path, continuous="all")
    with pytest.raises(TypeError, match=r"name_or_path must be a data-set name or a path, got int"):
        load_dataset(3)


# ------------------------------------------------------------------------------------------------ shared sets
# rows, features, float-valued features (README: stored as float), features with fractions, classes
README = {
    "iris": (150, 4, 4, 4, 3),
    "cleve": (303, 13, 5, 1, 2),
    "wine_recognition": (178, 13, 11, 11, 3),
    "vote": (435, 16, 0, 0, 2),
    "corral": (160, 6, 0, 0, 2),
}


@pytest.mark.parametrize("name", list(README), ids=list(README))
def test_shared_sets_shapes_and_types(shared_datasets, name):
    rows, n_feat, n_float, n_frac, n_classes = README[name]
    raw = pd.read_csv(shared_datasets / "uci" / f"{name}.tsv.gz", sep="\t")
    X, y = load_dataset(name, data_home=shared_datasets)
    assert X.shape == (rows, n_feat)
    assert y.name == "target"
    assert y.nunique() == n_classes
    assert y.tolist() == raw["target"].tolist()
    assert list(X.columns) == [c for c in raw.columns if c != "target"]
    continuous = [c for c in X.columns if X[c].dtype == np.float64]
    assert len(continuous) == n_frac
    for c in X.columns:
        if c in continuous:
            assert np.array_equal(X[c].to_numpy(), raw[c].to_numpy(dtype=np.float64))
        else:                                                           # every value of the file is a category
            assert isinstance(X[c].dtype, pd.CategoricalDtype)
            assert X[c].cat.categories.tolist() == sorted(int(v) for v in raw[c].unique())
            assert X[c].astype(np.int64).tolist() == raw[c].astype(np.int64).tolist()
    X_float, _ = load_dataset(name, data_home=shared_datasets, continuous="float")
    assert int((X_float.dtypes == np.float64).sum()) == n_float


def test_wine_class_column_is_first(shared_datasets):
    header = pd.read_csv(shared_datasets / "uci" / "wine_recognition.tsv.gz", sep="\t", nrows=0).columns
    assert header[0] == "target"
    X, y = load_dataset("wine_recognition", data_home=shared_datasets)
    assert "target" not in X.columns
    assert sorted(y.unique().tolist()) == [1, 2, 3]


def test_list_datasets_shared(shared_datasets):
    names = list_datasets(data_home=shared_datasets)
    assert {"iris", "mofn_3_7_10", "tic_tac_toe", "wine_recognition", "parity5+5"} <= set(names)
    assert len([p for p in (shared_datasets / "uci").iterdir() if p.name.endswith(".tsv.gz")]) <= len(names)


def test_iris_mdlp_cut_points(shared_datasets):
    # Fayyad-Irani MDLP on all 150 iris rows gives two cuts per attribute; these are the intervals Weka's
    # supervised Discretize filter (the same MDL criterion) reports for iris.
    X, y = load_dataset("iris", data_home=shared_datasets)
    cuts = MDLPDiscretizer().fit(X, y).cut_points_
    expected = {"sepal-length": [5.55, 6.15], "sepal-width": [2.95, 3.35], "petal-length": [2.45, 4.75],
                "petal-width": [0.8, 1.75]}
    assert cuts.keys() == expected.keys()
    for c, v in expected.items():
        np.testing.assert_allclose(cuts[c], v, rtol=0, atol=1e-12)    # midpoints, e.g. (3.3 + 3.4) / 2
