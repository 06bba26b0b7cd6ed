"""Structure learning engines and pgmpy StructureEstimator faces."""

from pgmpy_ext.structure._trees import (
    TreeResult,
    fit_chow_liu_tree,
    fit_tan_tree,
    maximum_spanning_forest,
    orient_forest,
)

__all__ = ["TreeResult", "fit_chow_liu_tree", "fit_tan_tree", "maximum_spanning_forest", "orient_forest"]
