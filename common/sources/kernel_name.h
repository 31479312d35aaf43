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

#endif
