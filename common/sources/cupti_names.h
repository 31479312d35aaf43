/* The CUPTI vocabulary nvvp2db and nsys2db share: callback-id to API
 * function names, memcpy/memory/sync/overhead kinds, API name
 * normalisation. */
#ifndef TT_CUPTI_NAMES_H
#define TT_CUPTI_NAMES_H
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* ---- CUPTI names ------------------------------------------------------ */

/* Generated tables (cupti_cbid_table.c, built by make from schema/cupti/
 * by scripts/gen-cupti-table.sh), indexed by cbid. */
extern const char *const tt_cupti_runtime_names[];
extern const int tt_cupti_runtime_names_count;
extern const char *const tt_cupti_driver_names[];
extern const int tt_cupti_driver_names_count;

/* Function name of a runtime / driver cbid, or NULL when unknown. */
const char *tt_cupti_runtime_name(int64_t cbid);
const char *tt_cupti_driver_name(int64_t cbid);

/* Length of `name` without a trailing CUDA-version tag `_vNNNN` (4 or more
 * digits: cudaLaunchKernel_v7000 -> cudaLaunchKernel). A real `_v2` stays.
 * Nsight Systems stores the tagged enum name; nvprof's cbid table gives the
 * untagged one: both tools therefore write the same name. */
size_t tt_cuda_api_name_len(const char *name);

/* CUpti_ActivityMemcpyKind (also nsys' ENUM_CUDA_MEMCPY_OPER): "HtoD"... */
const char *tt_cupti_memcpy_kind(int64_t kind);
/* CUpti_ActivityMemoryKind (nvprof): 0 Unknown, 1 Pageable, 2 Pinned, ... */
const char *tt_cupti_memory_kind(int64_t kind);
/* nsys' ENUM_CUDA_MEM_KIND: 0 Pageable ... 6 Managed Static, 7 Unknown. */
const char *tt_nsys_memory_kind(int64_t kind);
/* Whether a memory kind name (as returned above) lives on the GPU. */
int tt_memory_kind_on_device(const char *kind_name);
/* CUpti_ActivitySynchronizationType: "Event synchronize", ... */
const char *tt_cupti_sync_type(int64_t type);
/* CUpti_ActivityOverheadKind: "CUPTI buffer flush", ... */
const char *tt_cupti_overhead_kind(int64_t kind);

/* The names GPU copies and memsets get, as Kineto writes them, so traces
 * from every importer read alike: "Memcpy HtoD (Pageable -> Device)",
 * "Memset (Device)". memory_kind NULL means "Device". */
void tt_cuda_memcpy_name(char *buf, size_t n, int64_t copy_kind, const char *src,
                         const char *dst);
void tt_cuda_memset_name(char *buf, size_t n, const char *memory_kind);

#endif
