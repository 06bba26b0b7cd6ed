# The fused code type of the data-sized kernels (header-only; a companion of _typedefs.pxd, kept apart so that the
# kernels that do not use it need not be rebuilt when it changes).
#   fcode_t : one data cell, a state code in 0..card-1 or -1 for missing, in the narrowest signed type the
#             cardinalities allow: numpy int8 (every card <= 127), int16 or int32. The counting kernels, the row keys,
#             the latent-class E step and the classifier posteriors take ``const fcode_t[:, ::1] X``, so narrow-coded
#             data (``pgmpy_ext.data.encode(..., codes_dtype="auto")``) is read without an int32 copy. A kernel reads
#             a cell into an ``intp_t``/``code_t`` local (or combines it with an ``intp_t`` operand) before any
#             arithmetic, so no product or sum is ever formed in the narrow type. Other kernels keep ``code_t``.
from libc.stdint cimport int8_t, int16_t, int32_t

ctypedef fused fcode_t:
    int8_t
    int16_t
    int32_t
