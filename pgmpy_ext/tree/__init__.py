"""Decision trees for discrete data: C4.5 (WEKA's J48 semantics) as a scikit-learn classifier, and the features a
fitted tree tests (the feature selection of BBN-DT / BBN-ITDT, Pansombut's thesis, chapters 2-3)."""

from pgmpy_ext.tree._c45 import C45Classifier, used_tree_features

__all__ = ["C45Classifier", "used_tree_features"]
