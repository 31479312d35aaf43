/* Interning per sequence: an event name, a category or a debug-annotation
 * name is written once (InternedData in the packet that first uses it) and
 * then referred to by iid. The tables are bounded: when they reach the
 * bound, the next packet clears the sequence's incremental state and the
 * tables start over, so a trace with millions of distinct names still runs
 * in bounded memory (such names are then re-sent after each reset). */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2perfetto.h"

#define PF_INTERN_MAX_ENTRIES 100000
#define PF_INTERN_MAX_BYTES (8u << 20)

void pf_intern_init(pf_intern *in) {
  memset(in, 0, sizeof *in);
  in->max_entries = PF_INTERN_MAX_ENTRIES;
  in->max_bytes = PF_INTERN_MAX_BYTES;
  /* For tests: a small bound shows the reset path on a small input. */
  const char *env = getenv("TT_PERFETTO_INTERN_LIMIT");
  if (env && atol(env) > 0) in->max_entries = (size_t)atol(env);
  for (int t = 0; t < PF_NTABLES; t++) in->next_iid[t] = 1;
  Perfetto__Protos__InternedData init = PERFETTO__PROTOS__INTERNED_DATA__INIT;
  in->data = init;
}

static void queue(pf_intern *in, int t, uint64_t iid, const char *s, size_t n) {
  size_t *count = t == PF_NAMES        ? &in->data.n_event_names
                  : t == PF_CATEGORIES ? &in->data.n_event_categories
                  : t == PF_VALUES     ? &in->data.n_debug_annotation_string_values
                                       : &in->data.n_debug_annotation_names;
  if (*count == in->cap[t]) {
    /* offsets[t] and the table's two arrays share cap[t]: each grows from
     * the same old capacity to the same new one */
    size_t need = *count + 1, old = in->cap[t], cap = old, cap2 = old;
    switch (t) {
    case PF_NAMES:
      tt_grow(in->names, need, cap);
      tt_grow(in->name_ptrs, need, cap2);
      break;
    case PF_CATEGORIES:
      tt_grow(in->cats, need, cap);
      tt_grow(in->cat_ptrs, need, cap2);
      break;
    case PF_VALUES:
      tt_grow(in->vals, need, cap);
      tt_grow(in->val_ptrs, need, cap2);
      break;
    default:
      tt_grow(in->anns, need, cap);
      tt_grow(in->ann_ptrs, need, cap2);
    }
    tt_grow(in->offsets[t], need, in->cap[t]);
  }
  size_t i = (*count)++;
  /* The strings go to one buffer that may move: pointers are set in take. */
  in->offsets[t][i] = in->text.len;
  tt_buf_put_utf8(&in->text, s, n); /* protobuf strings are UTF-8 */
  tt_buf_append(&in->text, "", 1);
  switch (t) {
  case PF_NAMES: {
    Perfetto__Protos__EventName e = PERFETTO__PROTOS__EVENT_NAME__INIT;
    e.has_iid = 1;
    e.iid = iid;
    in->names[i] = e;
    break;
  }
  case PF_CATEGORIES: {
    Perfetto__Protos__EventCategory e = PERFETTO__PROTOS__EVENT_CATEGORY__INIT;
    e.has_iid = 1;
    e.iid = iid;
    in->cats[i] = e;
    break;
  }
  case PF_VALUES: {
    Perfetto__Protos__InternedString e = PERFETTO__PROTOS__INTERNED_STRING__INIT;
    e.has_iid = 1;
    e.iid = iid;
    e.has_str = 1;
    e.str.len = in->text.len - 1 - in->offsets[t][i]; /* as stored: UTF-8 repaired */
    in->vals[i] = e;
    break;
  }
  default: {
    Perfetto__Protos__DebugAnnotationName e = PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT;
    e.has_iid = 1;
    e.iid = iid;
    in->anns[i] = e;
  }
  }
}

static void table_grow(pf_itable *m) {
  size_t cap = m->cap ? 2 * m->cap : 64;
  pf_islot *slots = tt_calloc(cap, sizeof *slots);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].iid) continue;
    size_t j = m->slots[i].hash & (cap - 1);
    while (slots[j].iid) j = (j + 1) & (cap - 1);
    slots[j] = m->slots[i];
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
}

uint64_t pf_intern_strn(pf_intern *in, int t, const char *s, size_t n) {
  pf_itable *m = &in->map[t];
  uint64_t h = tt_hash_str(s, n);
  if (m->cap) {
    for (size_t i = h & (m->cap - 1); m->slots[i].iid; i = (i + 1) & (m->cap - 1)) {
      const pf_islot *e = &m->slots[i];
      if (e->hash == h && e->len == n && (n == 0 || memcmp(in->keys.data + e->off, s, n) == 0))
        return e->iid;
    }
  }
  if ((m->count + 1) * 4 >= m->cap * 3) table_grow(m);
  size_t i = h & (m->cap - 1);
  while (m->slots[i].iid) i = (i + 1) & (m->cap - 1);
  uint64_t iid = in->next_iid[t]++;
  m->slots[i] = (pf_islot){h, iid, in->keys.len, n};
  m->count++;
  tt_buf_append(&in->keys, s, n);
  in->entries++;
  in->bytes += n + 1;
  queue(in, t, iid, s, n);
  return iid;
}

uint64_t pf_intern_str(pf_intern *in, int t, const char *s) {
  return pf_intern_strn(in, t, s, strlen(s));
}

int pf_intern_reset_if_full(pf_intern *in) {
  if (in->entries < in->max_entries && in->bytes < in->max_bytes) return 0;
  for (int t = 0; t < PF_NTABLES; t++) {
    pf_itable *m = &in->map[t];
    if (m->cap) memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
    in->next_iid[t] = 1;
  }
  tt_buf_clear(&in->keys);
  in->entries = in->bytes = 0;
  in->resets++;
  return 1;
}

Perfetto__Protos__InternedData *pf_intern_take(pf_intern *in) {
  Perfetto__Protos__InternedData *d = &in->data;
  if (!d->n_event_names && !d->n_event_categories && !d->n_debug_annotation_names &&
      !d->n_debug_annotation_string_values)
    return NULL;
  for (size_t i = 0; i < d->n_event_names; i++) {
    in->names[i].name = in->text.data + in->offsets[PF_NAMES][i];
    in->name_ptrs[i] = &in->names[i];
  }
  for (size_t i = 0; i < d->n_event_categories; i++) {
    in->cats[i].name = in->text.data + in->offsets[PF_CATEGORIES][i];
    in->cat_ptrs[i] = &in->cats[i];
  }
  for (size_t i = 0; i < d->n_debug_annotation_names; i++) {
    in->anns[i].name = in->text.data + in->offsets[PF_ANNOTATIONS][i];
    in->ann_ptrs[i] = &in->anns[i];
  }
  for (size_t i = 0; i < d->n_debug_annotation_string_values; i++) {
    in->vals[i].str.data = (uint8_t *)in->text.data + in->offsets[PF_VALUES][i];
    in->val_ptrs[i] = &in->vals[i];
  }
  d->debug_annotation_string_values = in->val_ptrs;
  d->event_names = in->name_ptrs;
  d->event_categories = in->cat_ptrs;
  d->debug_annotation_names = in->ann_ptrs;
  return d;
}

size_t pf_intern_bound(const pf_intern *in) {
  const Perfetto__Protos__InternedData *d = &in->data;
  size_t entries = d->n_event_names + d->n_event_categories + d->n_debug_annotation_names +
                   d->n_debug_annotation_string_values;
  /* interned_data itself, then per entry: the entry, its iid, its name. */
  return entries ? PF_FIELD_MAX * (1 + 3 * entries) + in->text.len : 0;
}

void pf_intern_done(pf_intern *in) {
  in->data.n_event_names = in->data.n_event_categories = in->data.n_debug_annotation_names = 0;
  in->data.n_debug_annotation_string_values = 0;
  tt_buf_clear(&in->text);
}

void pf_intern_free(pf_intern *in) {
  for (int t = 0; t < PF_NTABLES; t++) {
    free(in->map[t].slots);
    free(in->offsets[t]);
  }
  tt_buf_free(&in->keys);
  free(in->names);
  free(in->name_ptrs);
  free(in->cats);
  free(in->cat_ptrs);
  free(in->anns);
  free(in->ann_ptrs);
  free(in->vals);
  free(in->val_ptrs);
  tt_buf_free(&in->text);
}
