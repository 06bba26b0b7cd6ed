"""Data-set generators (synthetic data sets from the reproduced papers); every generator runs offline."""

from pgmpy_ext.datasets._synthetic import CORRAL_FEATURES, make_corral

__all__ = ["CORRAL_FEATURES", "make_corral"]
