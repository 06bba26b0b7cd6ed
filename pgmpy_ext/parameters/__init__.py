"""Parameter learners: pgmpy ``DiscreteParameterEstimator`` faces and their engines on encoded data."""

from pgmpy_ext.parameters._bound_collapse import (
    STOPPING_RULES,
    ParamSearchResult,
    SupernodeNB,
    bound_collapse,
    fit_bc_em,
    fit_supernode_em,
    ml_parameters,
    random_parameters,
)
from pgmpy_ext.parameters._tm import (
    DEFAULT_PRIOR_STRENGTH,
    LINE_SEARCHES,
    PRIOR_MEANS,
    THESIS_GRID,
    TMEstimator,
    TMResult,
    check_tm_params,
    class_children,
    cv_cll,
    cv_log_proba,
    fit_tm,
    inner_folds,
    prior_strengths,
)

__all__ = ["DEFAULT_PRIOR_STRENGTH", "LINE_SEARCHES", "PRIOR_MEANS", "THESIS_GRID", "TMEstimator", "TMResult",
           "check_tm_params", "class_children", "cv_cll", "cv_log_proba", "fit_tm", "inner_folds", "prior_strengths"]
from pgmpy_ext.parameters._em import LatentEM  # noqa: E402

__all__ += ["LatentEM"]
__all__ += ["STOPPING_RULES", "ParamSearchResult", "SupernodeNB", "bound_collapse", "fit_bc_em", "fit_supernode_em",
            "ml_parameters", "random_parameters"]
