/* Private to the hub reader's files: the one order every merge of the
 * reader keeps (the direct merge's cursors, the merge in passes' record
 * streams). */
#ifndef TT_HUB_READER_ORDER_H
#define TT_HUB_READER_ORDER_H
#include <stdint.h>

/* A row's place in the merge: the key of a cursor's current row, and of
 * a record merged in passes (hub_reader_passes.c), so both merges order
 * by the one comparator below. end is the row's own (a record's end is
 * raised to its start when the row ends before it starts). */
typedef struct hr_merge_key {
  int64_t start, end, row_id;
  int32_t table, db; /* table_id; index of the input (hub_db) */
} hr_merge_key;

/* Time order; at one start time a launch (region) before GPU work, since
 * the GPU work finds its launch among the launches already read; within a
 * table the enclosing interval first; samples (flow ends) last; then the
 * inputs' order and the row id: no two rows tie. */
static inline int hr_merge_less(const hr_merge_key *a, const hr_merge_key *b) {
  if (a->start != b->start) return a->start < b->start;
  if (a->table != b->table) return a->table < b->table;
  if (a->end != b->end) return a->end > b->end;
  if (a->db != b->db) return a->db < b->db;
  return a->row_id < b->row_id;
}

#endif
