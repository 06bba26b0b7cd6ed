"""Biclustering with scikit-learn's conventions (``rows_``, ``columns_``, ``biclusters_``, ``get_indices``)."""

from pgmpy_ext.biclustering._samba import SAMBA, check_finite_matrix

__all__ = ["SAMBA", "check_finite_matrix"]
