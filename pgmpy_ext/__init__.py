"""pgmpy-ext: fast Bayesian-network learners for pgmpy, with Cython kernels and a scikit-learn face."""

import logging

__version__ = "0.1.0.dev0"

logging.getLogger(__name__).addHandler(logging.NullHandler())

from pgmpy_ext.data import EncodedData, encode  # noqa: E402

__all__ = ["EncodedData", "encode", "__version__"]
