# Shared C types of the kernels (header-only).
#   code_t    : one data cell, a state code in 0..card-1, or -1 for missing (numpy int32)
#   float64_t : counts, weights, log-probabilities (numpy float64; exact for integer counts up to 2**53)
#   intp_t    : indices, sizes, offsets (numpy intp)
from libc.stdint cimport int32_t, int64_t

ctypedef int32_t code_t
ctypedef double float64_t
ctypedef Py_ssize_t intp_t
ctypedef int64_t int64
