"""One vocabulary across every public estimator (issue 24; design note docs/decisions/issue24-one-vocabulary.md).

* every public estimator states the constraints of all its parameters in one table (``_parameter_constraints``), its
  defaults satisfy them, and a wrong value of any constrained parameter is refused naming that parameter;
* only the vocabulary's names are used for its concepts (no ``eps``/``atol`` thresholds, no ``te``, no learning
  rates called ``alpha``), with one set of values for ``missing`` and ``handle_unknown`` and one default ``n_jobs``;
* the user guide's parameter table (``docs/site/guide/vocabulary.rst``) is ``get_params()`` of every public
  estimator, and every public name of the estimator packages is in the README or the user guide.
"""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from pgmpy_ext.data import MISSING_OPTIONS
from pgmpy_ext.utils import Interval, Options, check_params
from tests.bad_input_cases import ESTIMATOR_PACKAGES, public_estimators  # one enumeration of the public surface

README = Path(__file__).resolve().parents[1] / "README.md"
GUIDE = Path(__file__).resolve().parents[1] / "docs" / "site" / "guide"
#: The guide's parameter table: these columns, in this order.
VOCABULARY = ["alpha", "tol", "max_iter", "n_init", "init", "missing", "handle_unknown", "random_state", "n_jobs"]
#: Names that must not stand for a vocabulary concept (thresholds, restarts, seeds, workers, pseudo-counts).
SYNONYMS = {"eps", "atol", "rtol", "epsilon", "threshold_tol", "te", "n_restarts", "n_starts", "restarts", "seed",
            "rng", "n_threads", "threads", "pseudo_counts", "smooth", "alpha_sig", "verbose", "na_policy",
            "unknown", "on_unknown", "missing_values"}




ESTIMATORS = public_estimators()


def defaults(cls) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls().get_params(deep=False)


def test_the_estimator_list_is_complete():
    assert len(ESTIMATORS) >= 32
    for name in ("LatentEM", "TMEstimator", "C45Classifier", "SAMBA", "NaiveBayesMap", "PopulationEMA",
                 "BENCHClassifier", "MDLPDiscretizer", "CEMClustering", "K2Classifier"):
        assert name in ESTIMATORS


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_one_table_states_every_parameter_and_the_defaults_satisfy_it(name):
    cls = ESTIMATORS[name]
    params = defaults(cls)
    table = cls._parameter_constraints
    assert set(params) <= set(table), f"{name}: no constraint for {sorted(set(params) - set(table))}"
    check_params(cls(), params=params)


def _bad_value(constraints):
    """A value no constraint accepts: a string for numbers and bools, an unknown string for option sets."""
    if any(c is None or c in ("any", "array-like", "callable") or isinstance(c, type) for c in constraints):
        return None
    if all(isinstance(c, Options) for c in constraints):
        return "not-an-option"
    if any(isinstance(c, Interval) and c.type is not None for c in constraints):
        return "not-a-number" if not any(isinstance(c, Options) for c in constraints) else float("nan")
    return "not-a-bool"


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_constrained_parameter_refuses_a_wrong_value_by_name(name):
    cls = ESTIMATORS[name]
    checked = 0
    for param, constraints in cls._parameter_constraints.items():
        bad = _bad_value(constraints)
        if bad is None or param not in defaults(cls):
            continue
        with pytest.raises((TypeError, ValueError), match=rf"^{re.escape(param)} == "):
            check_params(cls(), params={param: bad})
        checked += 1
    assert checked >= 1 or set(cls._parameter_constraints) == {"columns"}  # MDLP: columns only


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_only_vocabulary_names_and_values(name):
    params = defaults(ESTIMATORS[name])
    table = ESTIMATORS[name]._parameter_constraints
    assert not (set(params) & SYNONYMS), f"{name} uses {sorted(set(params) & SYNONYMS)}"
    if "alpha" in params:  # a Dirichlet pseudo-count: one non-negative number
        assert all(isinstance(c, Interval) for c in table["alpha"]), name
        assert isinstance(params["alpha"], float)
    if "missing" in params:
        allowed = {v for c in table["missing"] for v in c.values}
        assert allowed <= set(MISSING_OPTIONS)
        assert params["missing"] in allowed
    if "handle_unknown" in params:
        assert {v for c in table["handle_unknown"] for v in c.values} == {"ignore", "error"}
        assert params["handle_unknown"] == "ignore"
    if "n_jobs" in params:
        assert params["n_jobs"] is None
    if "tol" in params:  # a threshold: one non-negative number, never a rule name
        assert all(isinstance(c, Interval) for c in table["tol"]), name
    if "stopping" in params:  # a rule, never a threshold
        assert all(isinstance(c, Options) for c in table["stopping"]), name
    doc = ESTIMATORS[name].__doc__ or ""
    for param in set(params) & {"tol", "n_jobs", "missing", "handle_unknown"}:
        assert re.search(rf"^\s+{param}\b.*:", doc, re.MULTILINE) or re.search(rf"\b{param}\b", doc), \
            f"{name} does not document {param}"


def test_tol_says_what_it_measures():
    for name, cls in ESTIMATORS.items():
        if "tol" not in defaults(cls):
            continue
        doc = cls.__doc__ or ""
        m = re.search(r"^    tol : .*\n((?:        .*\n)+)", doc, re.MULTILINE)
        text = m.group(1) if m else ""
        assert re.search(r"log-likelihood|parameter|CPD entry|score|CLL|conditional", text), \
            f"{name}: the tol docstring does not say what it measures"


# ------------------------------------------------------------------------------------------------ user guide
def table_rows() -> list[list[str]]:
    """The estimator x vocabulary table, from ``get_params()`` (None: the estimator has no such option)."""
    rows = []
    for pkg in ESTIMATOR_PACKAGES:
        module = importlib.import_module(f"pgmpy_ext.{pkg}")
        for name in module.__all__:
            if name not in ESTIMATORS:
                continue
            params = defaults(ESTIMATORS[name])
            rows.append([f"{pkg}.{name}"] + [repr(params[v]) if v in params else None for v in VOCABULARY])
    return rows


def guide_table() -> str:
    r"""The guide's rst ``list-table`` of the vocabulary (``\-``: the estimator has no such option)."""
    lines = [".. list-table::", "   :header-rows: 1", "", "   * - estimator"] + [f"     - ``{v}``" for v in VOCABULARY]
    for name, *cells in table_rows():
        lines.append(f"   * - ``{name}``")
        lines += [f"     - ``{c}``" if c is not None else "     - \\-" for c in cells]
    return "\n".join(lines)


def test_guide_parameter_table_is_get_params_of_every_public_estimator():
    text = (GUIDE / "vocabulary.rst").read_text(encoding="utf-8")
    start = text.index(".. list-table::")
    end = text.find("\n\n", text.index("   * - ", start))
    got = text[start:end if end >= 0 else len(text)].rstrip("\n")
    assert got == guide_table(), ("docs/site/guide/vocabulary.rst's parameter table is stale; print the new one with "
                                  "python tests/test_vocabulary.py")


def _user_docs() -> str:
    return README.read_text(encoding="utf-8") + "".join(p.read_text(encoding="utf-8") for p in GUIDE.glob("*.rst"))


@pytest.mark.parametrize("pkg", ESTIMATOR_PACKAGES)
def test_every_public_name_is_in_the_user_docs(pkg):
    text = _user_docs()
    module = importlib.import_module(f"pgmpy_ext.{pkg}")
    missing = [n for n in module.__all__ if f"`{n}" not in text and f"{n}(" not in text and f" {n}," not in text]
    assert not missing, f"pgmpy_ext.{pkg} exports {missing}, which neither the README nor the user guide mentions"


def test_table_helper_can_fail():
    rows = table_rows()
    assert len(rows) == len(ESTIMATORS)
    assert all(len(row) == len(VOCABULARY) + 1 for row in rows)
    assert not any(row[0].startswith("pgmpy_ext") for row in rows)  # rows are package.Class, no module prefix
    assert guide_table().count("   * - ") == len(ESTIMATORS) + 1


if __name__ == "__main__":  # print the table for docs/site/guide/vocabulary.rst
    print(guide_table())


# ------------------------------------------------------------------------------------------------ issue examples
def test_issue_examples_numpy_scalars_and_silent_values():
    import pandas as pd

    from pgmpy_ext._compat import DiscreteBayesianNetwork
    from pgmpy_ext.maps import NaiveBayesMap
    from pgmpy_ext.parameters import LatentEM

    X = np.random.default_rng(0).normal(size=(40, 2))
    a = NaiveBayesMap(grid=(np.int64(3), 3), n_epochs=np.int64(2), n_init=np.int64(2), random_state=0).fit(X)
    b = NaiveBayesMap(grid=(3, 3), n_epochs=2, n_init=2, random_state=0).fit(X)
    np.testing.assert_array_equal(a.ll_traces_, b.ll_traces_)
    rng = np.random.default_rng(1)
    df = pd.DataFrame({c: rng.integers(0, 2, 50) for c in "ABC"})
    bn = DiscreteBayesianNetwork([("H", "A"), ("H", "B"), ("H", "C")], latents={"H"})
    with pytest.raises(ValueError, match=r"latent_card == 0, must be None or an int >= 1 or an instance of dict"):
        LatentEM(latent_card=0).fit(bn, df)
    with pytest.raises(ValueError, match=r"latent_card == 0, must be >= 1"):
        LatentEM(latent_card={"H": 0}).fit(bn, df)
    assert len(LatentEM(latent_card=3, random_state=0).fit(bn, df).state_names_["H"]) == 3
