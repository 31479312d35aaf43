/* Nsight Systems' call stacks: CPU samples (COMPOSITE_EVENTS, one row a
 * sample, its frames in SAMPLING_CALLCHAINS) and the backtraces of OS
 * runtime calls (OSRT_CALLCHAINS, linked from OSRT_API.callchainId). Both
 * callchain tables list a stack's frames by stackDepth, 0 the sampled
 * instruction (the leaf); the hub holds them outermost caller first
 * (hub_writer.h, hub_stack_sample), so they are read by stackDepth
 * descending. */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "nsys2db_parts.h"

/* The frame columns every callchain table shares, from alias x, at
 * F_SYMBOL..: symbol id and text, module id and text, kernelMode,
 * unresolved, originalIP (NULL where an export lacks the column). */
enum { F_SYMBOL, F_SYMBOL_TEXT, F_MODULE, F_MODULE_TEXT, F_KERNEL, F_UNRESOLVED, F_PC, F_NCOLS };

static void frame_columns(ns *c, const char *table, const char *x, tt_buf *sql) {
  tt_buf_printf(sql, ", %s.symbol, sy.value, %s.module, mo.value", x, x);
  static const char *const opt[] = {"kernelMode", "unresolved", "originalIP"};
  for (int i = 0; i < 3; i++)
    if (nv_has_column(&c->b.src, table, opt[i])) tt_buf_printf(sql, ", %s.%s", x, opt[i]);
    else tt_buf_puts(sql, ", NULL");
}

static void frame_joins(const char *x, tt_buf *sql) {
  tt_buf_printf(sql, " LEFT JOIN StringIds sy ON sy.id = %s.symbol LEFT JOIN StringIds mo ON "
                     "mo.id = %s.module", x, x);
}

/* A stack being collected: its frames' strings in one arena (offsets, as
 * the arena moves when it grows). Bounded by one stack's depth. */
typedef struct stack_buf {
  hub_frame *f;
  size_t *name_at, *module_at;
  size_t n, cap, names_cap, modules_cap;
  tt_buf text;
} stack_buf;

static void stack_clear(stack_buf *s) {
  s->n = 0;
  tt_buf_clear(&s->text);
}

static size_t stack_text(stack_buf *s, const char *v) {
  size_t at = s->text.len;
  tt_buf_puts(&s->text, v ? v : "");
  tt_buf_putc(&s->text, '\0');
  return at;
}

/* Adds the frame at column `col` of st's row; -1 on a string id missing
 * from StringIds (said). */
static int stack_add(ns *c, stack_buf *s, sqlite3_stmt *st, int col, const char *table,
                     int64_t row) {
  const char *name, *module;
  if (ns_string(c, st, col + F_SYMBOL, table, row, &name) ||
      ns_string(c, st, col + F_MODULE, table, row, &module))
    return -1;
  tt_grow(s->f, s->n + 1, s->cap);
  tt_grow(s->name_at, s->n + 1, s->names_cap);
  tt_grow(s->module_at, s->n + 1, s->modules_cap);
  hub_frame *f = &s->f[s->n];
  memset(f, 0, sizeof *f);
  f->kernel = sqlite3_column_int64(st, col + F_KERNEL) != 0;
  f->unresolved = sqlite3_column_int64(st, col + F_UNRESOLVED) != 0;
  f->pc = sqlite3_column_type(st, col + F_PC) == SQLITE_INTEGER ? sqlite3_column_int64(st, col + F_PC)
                                                               : HUB_NULL;
  s->name_at[s->n] = stack_text(s, name);
  s->module_at[s->n] = stack_text(s, module);
  s->n++;
  return 0;
}

/* The frames' strings, once the arena has stopped moving. */
static const hub_frame *stack_frames(stack_buf *s) {
  for (size_t i = 0; i < s->n; i++) {
    s->f[i].name = s->text.data + s->name_at[i];
    s->f[i].module = s->text.data + s->module_at[i];
  }
  return s->f;
}

static void stack_free(stack_buf *s) {
  free(s->f);
  free(s->name_at);
  free(s->module_at);
  tt_buf_free(&s->text);
}

static sqlite3_stmt *samples_query(ns *c) {
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT e.id, e.start, e.globalTid");
  static const char *const opt[] = {"cpu", "threadState", "cpuCycles"};
  for (int i = 0; i < 3; i++)
    if (nv_has_column(&c->b.src, "COMPOSITE_EVENTS", opt[i])) tt_buf_printf(&c->sql, ", e.%s", opt[i]);
    else tt_buf_puts(&c->sql, ", NULL");
  tt_buf_puts(&c->sql, ", s.id");
  frame_columns(c, "SAMPLING_CALLCHAINS", "s", &c->sql);
  tt_buf_puts(&c->sql, " FROM COMPOSITE_EVENTS e LEFT JOIN SAMPLING_CALLCHAINS s ON s.id = e.id");
  frame_joins("s", &c->sql);
  tt_buf_puts(&c->sql, " ORDER BY e.id, s.stackDepth DESC");
  return nv_prepare(&c->b.src, c->sql.data);
}

enum { S_ID, S_START, S_TID, S_CPU, S_STATE, S_WEIGHT, S_FRAME_ID, S_FRAME };

/* What the sample's frame rows all carry: its CPU, thread state (nsys's
 * number, as exported) and weight (cpuCycles: what the sample counts). */
static const char *sample_extdata(ns *c, sqlite3_stmt *st) {
  nv_json_begin(&c->b.ext);
  static const char *const keys[] = {"cpu", "thread_state", "weight"};
  for (int i = 0; i < 3; i++)
    if (sqlite3_column_type(st, S_CPU + i) == SQLITE_INTEGER)
      nv_json_int(&c->b.ext, keys[i], sqlite3_column_int64(st, S_CPU + i));
  return nv_json_end(&c->b.ext);
}

static void write_sample(ns *c, int64_t g, int64_t ts, stack_buf *s, const char *ext,
                         int64_t *no_stack) {
  static const hub_frame none = {.name = "[no call stack]", .module = "", .pc = HUB_NULL,
                                 .unresolved = 1};
  if (!s->n) ++*no_stack;
  hub_stack_sample(c->b.w, ns_seen(c, ns_pid(g)), ns_tid(g), ts, "timer_sampling",
                 s->n ? stack_frames(s) : &none, s->n ? s->n : 1, ext);
  cupti_cover(&c->b, ts);
}

int ns_cpu_samples(ns *c) {
  const char *t = "COMPOSITE_EVENTS", *frames = "SAMPLING_CALLCHAINS";
  int usable = nv_table_usable(&c->b.src, t, "id,start,globalTid", 0);
  if (usable <= 0) return usable;
  int fu = nv_table_usable(&c->b.src, frames, "id,symbol,module,stackDepth", 0);
  if (fu < 0) return -1;
  if (fu == 0) {
    tt_warn("%s: table %s is absent: CPU samples imported without their call stacks",
            c->b.src.path, frames);
    /* the same query, with no frame ever joined */
  }
  sqlite3_stmt *st = NULL;
  if (fu) {
    st = samples_query(c);
  } else {
    st = nv_prepare(&c->b.src, "SELECT id, start, globalTid, NULL, NULL, NULL, NULL, NULL, NULL, "
                               "NULL, NULL, NULL, NULL, NULL FROM COMPOSITE_EVENTS ORDER BY id");
  }
  if (!st) return -1;
  stack_buf s = {0};
  tt_buf ext = {0};
  int rc = 0, step, have = 0;
  int64_t id = 0, g = 0, ts = 0, no_stack = 0;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t row = sqlite3_column_int64(st, S_ID);
    if (!have || row != id) {
      if (have) write_sample(c, g, ts, &s, ext.data, &no_stack);
      stack_clear(&s);
      have = 1;
      id = row;
      g = sqlite3_column_int64(st, S_TID);
      ts = cupti_time(&c->b, st, S_START);
      tt_buf_clear(&ext);
      tt_buf_puts(&ext, sample_extdata(c, st));
      cupti_progress(&c->b);
    }
    if (sqlite3_column_type(st, S_FRAME_ID) != SQLITE_NULL &&
        (rc = stack_add(c, &s, st, S_FRAME, frames, row)))
      break;
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, t);
  if (!rc && have) write_sample(c, g, ts, &s, ext.data, &no_stack);
  sqlite3_finalize(st);
  if (!rc && no_stack && fu)
    tt_warn("%s: %lld of the CPU samples in %s have no frames in %s: each written with one "
            "frame named [no call stack]",
            c->b.src.path, (long long)no_stack, t, frames);
  stack_free(&s);
  tt_buf_free(&ext);
  return rc;
}

/* The backtraces of OS runtime calls, one lookup (OSRT_CALLCHAINS' primary
 * key) per call that has one. */
struct ns_stacks {
  sqlite3_stmt *lookup;
  stack_buf frames;
  tt_buf json;
};

ns_stacks *ns_stacks_open(ns *c, const char *table) {
  int usable = nv_table_usable(&c->b.src, table, "id,symbol,module,stackDepth", 0);
  if (usable <= 0) return NULL;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT o.id");
  frame_columns(c, table, "o", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s o", table);
  frame_joins("o", &c->sql);
  tt_buf_puts(&c->sql, " WHERE o.id = ?1 ORDER BY o.stackDepth DESC");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return NULL;
  ns_stacks *k = tt_calloc(1, sizeof *k);
  k->lookup = st;
  return k;
}

int ns_stack_json(ns *c, ns_stacks *k, const char *table, int64_t chain, const char **json) {
  *json = NULL;
  if (!k) return 0;
  stack_clear(&k->frames);
  sqlite3_reset(k->lookup);
  sqlite3_bind_int64(k->lookup, 1, chain);
  int step;
  while ((step = sqlite3_step(k->lookup)) == SQLITE_ROW)
    if (stack_add(c, &k->frames, k->lookup, 1, table, chain)) return -1;
  if (step != SQLITE_DONE) return nv_step_error(&c->b.src, table);
  if (!k->frames.n) return 0;
  tt_buf_clear(&k->json);
  hub_call_stack_json(&k->json, stack_frames(&k->frames), k->frames.n);
  *json = k->json.data;
  return 0;
}

void ns_stacks_close(ns_stacks *k) {
  if (!k) return;
  sqlite3_finalize(k->lookup);
  stack_free(&k->frames);
  tt_buf_free(&k->json);
  free(k);
}
