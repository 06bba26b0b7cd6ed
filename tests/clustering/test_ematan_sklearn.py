"""scikit-learn's estimator checks on EMATANClustering and the chapter-7 EM baselines."""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from pgmpy_ext.clustering import EMATANClustering, EMCompleteBNClustering, EMTANClustering

_XFAIL = {"check_clustering": "continuous Gaussian blobs: these discrete clusterers reject real-valued columns by "
                              "design (discretise first)",
          "check_estimators_nan_inf": "predict/score sum NaN cells out exactly (by enumerating their completions) "
                                      "while fit refuses them; allow_nan=False describes fit, and the tag cannot say "
                                      "'predict only' (as CEMClustering)"}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks([EMATANClustering(n_init=1, max_iter=5), EMTANClustering(n_init=1, max_iter=5),
                          EMCompleteBNClustering(n_init=1, max_iter=5)],
                         expected_failed_checks=lambda est: _XFAIL)
def test_sklearn_compatible(estimator, check):
    check(estimator)
