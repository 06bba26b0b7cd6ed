"""scikit-learn's estimator checks (``parametrize_with_checks``) on every public scikit-learn estimator (issue 24).

Most estimators run them beside their own tests (``CHECKED_BESIDE`` says where; a test below reads those files, so
the claim cannot go stale). Every other public estimator, found through the packages' ``__all__``, is checked here
with the fast settings of the bad-input probe, so a new estimator is covered as soon as it is exported. The pgmpy
faces (``LatentEM``, ``TMEstimator``: ``fit(model, data)``, pgmpy's ``DiscreteParameterEstimator`` contract) are not
scikit-learn estimators and have their own contract tests.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

import pgmpy_ext.classifiers as clf_mod
from pgmpy_ext._compat import DiscreteParameterEstimator
from tests.bad_input_cases import public_estimators, spec_for

TESTS = Path(__file__).resolve().parent

#: Estimators whose scikit-learn checks live beside their own tests.
CHECKED_BESIDE = {
    **dict.fromkeys((  # enumerated there from pgmpy_ext.classifiers.__all__
        "NaiveBayesClassifier", "TANClassifier", "ABNClassifier", "FANClassifier", "SBNClassifier", "BANClassifier",
        "CLMultinetClassifier", "KDBClassifier", "SelectiveNBClassifier", "CTANClassifier", "StructuralTMClassifier",
        "K2Classifier"), "classifiers/test_contract.py"),
    "CEMClustering": "clustering/test_cem.py",
    "ConstructiveInductionClustering": "clustering/test_constructive.py",
    "LatentClassEM": "clustering/test_latent.py",
    "EMAClustering": "clustering/test_latent.py",
    "SelectiveLatentClassClustering": "clustering/test_relevance.py",
    "EMATANClustering": "clustering/test_ematan_sklearn.py",
    "EMTANClustering": "clustering/test_ematan_sklearn.py",
    "EMCompleteBNClustering": "clustering/test_ematan_sklearn.py",
    "BBNDTClassifier": "ensembles/test_itdt.py",
    "ITDTEnsembleClassifier": "ensembles/test_itdt.py",
    "BENCHClassifier": "ensembles/test_bench.py",
    "NaiveBayesMap": "maps/test_nbsom.py",
    "SAMBA": "biclustering/test_samba.py",
    "EqualFrequencyDiscretizer": "preprocessing/test_discretizers.py",
    "EqualWidthDiscretizer": "preprocessing/test_discretizers.py",
    "MDLPDiscretizer": "preprocessing/test_discretizers.py",
    "C45Classifier": "tree/test_c45.py",
}

_DISCRETE = ("continuous Gaussian blobs: a learner on discrete data rejects real-valued columns by design "
             "(discretise first)")
_NAN_AT_PREDICT = ("predict/score sum NaN cells out exactly while fit refuses them; allow_nan=False describes fit, "
                   "and the tag cannot say 'predict only'")

_NOT_GENOTYPES = ("scikit-learn's generated X holds real numbers (with positive_only, integers far above 2 as well), "
                  "not genotypes: a dosage matrix holds whole numbers 0..ploidy and anything else is refused by "
                  "design, naming the locus and the individual. The same contracts (fit returns self, parameters "
                  "untouched, pickling, same seed and n_jobs, no mutation, numpy input, empty / one-row / one-locus "
                  "input, predict on no rows) run on genotypes in tests/test_bad_input.py")

#: Expected failures of the estimators checked here, each with its reason.
XFAILS = {
    "BruteForceSNBAveraging": {"check_clustering": _DISCRETE, "check_estimators_nan_inf": _NAN_AT_PREDICT},
    "PopulationEMA": dict.fromkeys((
        "check_clustering", "check_fit_score_takes_y", "check_estimators_overwrite_params",
        "check_dont_overwrite_parameters", "check_estimators_fit_returns_self", "check_readonly_memmap_input",
        "check_n_features_in_after_fitting", "check_positive_only_tag_during_fit", "check_estimators_dtypes",
        "check_complex_data", "check_dtype_object", "check_pipeline_consistency", "check_estimators_pickle",
        "check_estimators_pickle(readonly_memmap=True)", "check_f_contiguous_array_estimator",
        "check_non_transformer_estimators_n_iter", "check_methods_sample_order_invariance",
        "check_methods_subset_invariance", "check_fit2d_1sample", "check_fit2d_1feature", "check_dict_unchanged",
        "check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in", "check_fit2d_predict1d"),
        _NOT_GENOTYPES),
}


def _sklearn_estimators() -> dict:
    return {n: c for n, c in public_estimators().items()
            if issubclass(c, BaseEstimator) and not issubclass(c, DiscreteParameterEstimator)}


#: Lighter settings than the probe's where scikit-learn's checks use wider data (check_dtype_object fits 10
#: features: 1,024 selective naive Bayes structures for the brute-force average).
LIGHTER = {"BruteForceSNBAveraging": {"n_init": 1, "max_iter": 3, "n_burn": 2, "n_gibbs": 4}}

HERE = [spec_for(n, c).make(**LIGHTER.get(n, {})) for n, c in sorted(_sklearn_estimators().items())
        if n not in CHECKED_BESIDE]


def test_every_public_scikit_learn_estimator_is_checked_somewhere():
    names = set(_sklearn_estimators())
    assert len(names) >= 30
    for name, where in CHECKED_BESIDE.items():
        assert name in names, f"{name} is not a public estimator any more; drop it from CHECKED_BESIDE"
        text = (TESTS / where).read_text(encoding="utf-8")
        call = text[text.index("@parametrize_with_checks("):]
        call = call[:call.index("\ndef ")]
        # classifiers/test_contract.py checks CLASSIFIERS, built from pgmpy_ext.classifiers.__all__
        by_all = "parametrize_with_checks(CLASSIFIERS" in call and "clf_mod.__all__" in text and \
            name in clf_mod.__all__
        assert re.search(rf"\b{name}\b", call) or by_all, f"{where} does not run parametrize_with_checks on {name}"
    assert {type(e).__name__ for e in HERE} == names - set(CHECKED_BESIDE)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(HERE, expected_failed_checks=lambda est: XFAILS.get(type(est).__name__, {}))
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)
