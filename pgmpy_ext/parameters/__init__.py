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
    LINE_SEARCHES,
    SOLVERS,
    THESIS_GRID,
    TMEstimator,
    TMResult,
    check_tm_params,
    class_children,
    fit_tm,
)

__all__ = ["LINE_SEARCHES", "SOLVERS", "THESIS_GRID", "TMEstimator", "TMResult", "check_tm_params", "class_children",
           "fit_tm"]
from pgmpy_ext.parameters._em import LatentEM  # noqa: E402

__all__ += ["LatentEM"]
__all__ += ["STOPPING_RULES", "ParamSearchResult", "SupernodeNB", "bound_collapse", "fit_bc_em", "fit_supernode_em",
            "ml_parameters", "random_parameters"]
