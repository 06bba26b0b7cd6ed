"""pgmpy-ext: fast Bayesian-network learners for pgmpy, with Cython kernels and a scikit-learn face.

Importing the package imports pgmpy through :mod:`pgmpy_ext._compat`, which filters, once and narrowly, the
FutureWarning pgmpy 1.1.2 emits about its own deprecated ``pgmpy.estimators.StructureScore`` module.
"""

import logging

from pgmpy_ext import _compat  # noqa: F401  (first: pgmpy imports with its import-time warning filtered)
from pgmpy_ext.data import EncodedData, encode

__version__ = "0.1.0.dev0"

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = ["EncodedData", "encode", "__version__"]
