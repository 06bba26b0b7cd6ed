"""The bad-input suite (issue 24, item 7): every case of ``tests/bad_input_cases.py`` on every public estimator must
end in a result that passes its checks (``ok``) or in a clear error (``clear``): no unclear error, no silent wrong
result.

The estimators come from the ``__all__`` of the estimator packages, so a new public estimator is probed as soon as
it is exported (and ``test_every_public_estimator_has_a_probe_spec`` asks for its fast settings). The cases run on
tiny data with one shared fit per estimator; ``benchmarks/bad_input_probe.py`` prints the same cases as a table of
counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.bad_input_cases import (
    SPECS_BY_NAME,
    all_specs,
    cases_for,
    judge_error,
    public_estimators,
    run_case,
)

CASES = [case for spec in all_specs() for case in cases_for(spec)]


def test_every_public_estimator_has_a_probe_spec():
    missing = sorted(set(public_estimators()) - set(SPECS_BY_NAME))
    assert not missing, f"add fast settings and a data kind for {missing} to tests/bad_input_cases.SPECS_BY_NAME"
    assert len(public_estimators()) >= 32


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case):
    res = run_case(case)
    assert res.outcome in ("ok", "clear"), f"{res.outcome}: {res.detail}"


# ------------------------------------------------------------------------------------------------ the judge itself
def test_the_judge_tells_clear_from_unclear_errors():
    assert judge_error(ValueError("alpha == nan, must be a finite number >= 0."), ("alpha",)).outcome == "clear"
    assert judge_error(IndexError("index 0 is out of bounds for axis 0 with size 0")).outcome == "unclear"
    assert judge_error(KeyError("f0")).outcome == "unclear"
    assert judge_error(ValueError("must be >= 0."), ("alpha",)).outcome == "unclear"  # does not name it
    assert judge_error(TypeError("alpha must be an instance of <class 'int'>"), ("alpha",)).outcome == "unclear"
    assert judge_error(ValueError("could not convert string to float: 'a'")).outcome == "unclear"
    assert judge_error(ValueError("Column 'f0' has value 7 at row 'r3' that was not seen during fit"),
                       ("f0", "r3")).outcome == "clear"


def test_the_probe_catches_silent_wrong_results():
    """A deliberately broken estimator (NaN output, a mutated input, a seed it ignores) is caught as silent."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    from tests.bad_input_cases import Spec, discrete_xy

    class Broken(ClassifierMixin, BaseEstimator):
        _parameter_constraints: dict = {}

        def __init__(self, random_state=None):
            self.random_state = random_state

        def fit(self, X, y):
            X.iloc[:, 0] = 0  # mutates the caller's data
            self.classes_ = np.unique(y)
            self.n_features_in_ = X.shape[1]
            self._noise = np.random.default_rng().random()  # ignores random_state
            return self

        def predict_proba(self, X):
            out = np.full((len(X), 2), self._noise)
            out[0, 0] = np.nan
            return out

        def predict(self, X):
            return self.classes_[np.argmax(np.nan_to_num(self.predict_proba(X)), axis=1)]

    spec = Spec(name="Broken", cls=Broken, kind="classifier", data=discrete_xy, supervised=True)
    outcomes = {c.name: run_case(c) for c in cases_for(spec)}
    assert outcomes["no-mutation"].outcome == "silent"
    assert outcomes["same-seed-same-result"].outcome == "silent"
    assert outcomes["fit-constant-column"].outcome == "silent"  # NaN in predict_proba
    assert outcomes["fit-empty"].outcome == "silent"  # accepted without an error
    assert "NaN" in outcomes["fit-constant-column"].detail
