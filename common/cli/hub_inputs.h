/* The hubs one operand names, for a tool that takes a run as one operand
 * (db2diff's BASE and CAND): a hub; several hubs joined by commas
 * ("rank0.db,rank1.db"); or a directory, standing for the hubs in it, as
 * rocprofv3 writes a run's per-process databases: its regular files
 * ending in ".db" (rocprofv3's "_results.db" among them), in name order,
 * subdirectories not entered. */
#ifndef TT_HUB_INPUTS_H
#define TT_HUB_INPUTS_H
#include <stddef.h>

typedef struct tt_hub_inputs {
  char **paths; /* each malloc'ed */
  size_t n;
} tt_hub_inputs;

/* 0, or -1 after saying why ("DIR: no hub (*.db) in this directory",
 * "DIR: cannot read: ..."; an empty name in a comma list). */
int tt_hub_inputs_expand(const char *operand, tt_hub_inputs *out);
void tt_hub_inputs_free(tt_hub_inputs *in);

#endif
