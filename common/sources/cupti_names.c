#include "sources/cupti_names.h"

#include <stdio.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- CUPTI names ------------------------------------------------------ */

const char *tt_cupti_runtime_name(int64_t cbid) {
  return cbid > 0 && cbid < tt_cupti_runtime_names_count ? tt_cupti_runtime_names[cbid] : NULL;
}

const char *tt_cupti_driver_name(int64_t cbid) {
  return cbid > 0 && cbid < tt_cupti_driver_names_count ? tt_cupti_driver_names[cbid] : NULL;
}

size_t tt_cuda_api_name_len(const char *name) {
  size_t n = strlen(name), d = 0;
  while (d < n && isdigit((unsigned char)name[n - 1 - d])) d++;
  /* Version tags have 4+ digits (_v3020, _v10000); _v2/_v3 are real names. */
  if (d >= 4 && n >= d + 2 && name[n - d - 1] == 'v' && name[n - d - 2] == '_') return n - d - 2;
  return n;
}

#define PICK(table, k) \
  ((k) >= 0 && (size_t)(k) < sizeof table / sizeof *table ? table[k] : "Unknown")

const char *tt_cupti_memcpy_kind(int64_t kind) {
  static const char *const t[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                  "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  return PICK(t, kind);
}

const char *tt_cupti_memory_kind(int64_t kind) {
  static const char *const t[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                  "Array",   "Managed",  "Device Static", "Managed Static"};
  return PICK(t, kind);
}

const char *tt_nsys_memory_kind(int64_t kind) {
  static const char *const t[] = {"Pageable", "Pinned",        "Device",         "Array",
                                  "Managed",  "Device Static", "Managed Static", "Unknown"};
  return PICK(t, kind);
}

int tt_memory_kind_on_device(const char *k) {
  return strcmp(k, "Device") == 0 || strcmp(k, "Array") == 0 ||
         strcmp(k, "Device Static") == 0 || strcmp(k, "Managed") == 0 ||
         strcmp(k, "Managed Static") == 0;
}

const char *tt_cupti_sync_type(int64_t type) {
  static const char *const t[] = {"Unknown synchronization", "Event synchronize",
                                  "Stream wait event", "Stream synchronize",
                                  "Context synchronize"};
  return PICK(t, type);
}

const char *tt_cupti_overhead_kind(int64_t kind) {
  switch (kind) {
  case 1: return "Driver compiler";
  case 1 << 16: return "CUPTI buffer flush";
  case 2 << 16: return "CUPTI instrumentation";
  case 3 << 16: return "CUPTI resource";
  case 4 << 16: return "Runtime-triggered module loading";
  case 5 << 16: return "Lazy function loading";
  case 6 << 16: return "Command buffer full";
  default: return "Profiler overhead";
  }
}


void tt_cuda_memcpy_name(char *buf, size_t n, int64_t copy_kind, const char *src,
                         const char *dst) {
  snprintf(buf, n, "Memcpy %s (%s -> %s)", tt_cupti_memcpy_kind(copy_kind), src, dst);
}

void tt_cuda_memset_name(char *buf, size_t n, const char *memory_kind) {
  snprintf(buf, n, "Memset (%s)", memory_kind ? memory_kind : "Device");
}
