/* A kernel's short name, as Nsight Systems shows it: the demangled
 * function's qualified name without its return type, template arguments
 * and parameters. Shared by every tool that shortens kernel names. */
#ifndef TT_KERNEL_NAME_H
#define TT_KERNEL_NAME_H
#include "base/util.h"

/* out = the short name of `name` (a display name, or a mangled "_Z..."
 * symbol, demangled first):
 *   "void (anonymous namespace)::softmax_warp_forward<float, 4>(float*, int)"
 *       -> "(anonymous namespace)::softmax_warp_forward"
 *   "at::native::vectorized_elementwise_kernel<4, at::native::Foo>"
 *       -> "at::native::vectorized_elementwise_kernel"
 * A name that is no C++ signature ("Memset (Device)", "Cijk_Ailk_...")
 * stays whole. Different names can have one short name: a caller that
 * groups by it must keep them apart itself. */
void tt_kernel_short_name(const char *name, tt_buf *out);

/* What a piece of GPU work does, from its name alone, for comparing runs
 * whose kernels share no names (two vendors' libraries): out = one of
 *   "GEMM", "attention", "convolution", "softmax", "normalization",
 *   "reduction", "elementwise", "memset", "copy HtoD" (and DtoH, DtoD,
 *   HtoH, "copy" when the direction is not known), "collective
 *   AllReduce" (AllGather, ReduceScatter, Broadcast, Reduce, SendRecv,
 *   AllToAll; "collective" alone when the name says no type), "other".
 * is_copy / copy_dir: a copy and its direction (hub_copy_dir's values:
 * 1 HtoD, 2 DtoH, 3 DtoD, 4 HtoH, 0 unknown); is_memset likewise. The
 * words are matched case-insensitively in the name (cutlass, Cijk_,
 * cublas, flash, fmha, nccl, rccl ...): a heuristic, and named as one
 * wherever its result is shown. */
void tt_kernel_category(const char *name, int is_copy, int copy_dir, int is_memset, tt_buf *out);

/* A name with the vendors' spellings made one: "cudnn_" and "miopen_"
 * become "dnn_", a "cuda" or "hip" that starts a word (cudaLaunchKernel,
 * hipLaunchKernel, aten::_cudnn_rnn / aten::miopen_rnn) becomes "gpu".
 * out = the neutral name; the rest is copied as it is. */
void tt_vendor_neutral_name(const char *name, tt_buf *out);

#endif
