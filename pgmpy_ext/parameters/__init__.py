"""Parameter learners: pgmpy ``DiscreteParameterEstimator`` faces (``LatentEM``, ``TMEstimator``) and their engines
on encoded data.

The public API is ``__all__``. The engines (TM's ``fit_tm``, the supernode EM / Bound and Collapse / BC+EM of
constructive induction) stay importable from here for pgmpy-ext's higher layers, benchmarks and tests; they are not
part of the public API (design note ``docs/decisions/issue24-one-vocabulary.md``, "Public surface").
"""

from pgmpy_ext.parameters._em import LatentEM
from pgmpy_ext.parameters._tm import TMEstimator

__all__ = ["LatentEM", "TMEstimator"]

# Engines: importable for pgmpy-ext's own higher layers, benchmarks and tests; not public (not in __all__).
from pgmpy_ext.parameters._bound_collapse import (  # noqa: E402, F401
    STOPPING_RULES,
    ParamSearchResult,
    SupernodeNB,
    bound_collapse,
    fit_bc_em,
    fit_supernode_em,
    ml_parameters,
    random_parameters,
)
from pgmpy_ext.parameters._tm import (  # noqa: E402, F401
    DEFAULT_PRIOR_STRENGTH,
    LINE_SEARCHES,
    PRIOR_MEANS,
    SOLVERS,
    THESIS_GRID,
    TMResult,
    check_tm_params,
    class_children,
    cv_cll,
    cv_log_proba,
    fit_tm,
    inner_folds,
    prior_strengths,
    uses_evidence,
)
