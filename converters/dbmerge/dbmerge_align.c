/* dbmerge --align (dbmerge_align.h). */
#include "dbmerge_align.h"

#include <string.h>

#include "base/util.h"
#include "hub/hub_align.h"

/* The time columns of the rocpd tables that have any. */
static const struct {
  const char *base, *cols[4];
} time_cols[] = {
    {"rocpd_region", {"start", "end"}},
    {"rocpd_kernel_dispatch", {"start", "end"}},
    {"rocpd_memory_copy", {"start", "end"}},
    {"rocpd_memory_allocate", {"start", "end"}},
    {"rocpd_sample", {"timestamp"}},
    {"rocpd_info_process", {"init", "fini", "start", "end"}},
    {"rocpd_info_thread", {"start", "end"}},
};

/* tt_align_time(t): t on the timeline, exactly as the reader maps it
 * (hub_time_map_apply); NULL and non-integers as they are. */
static void align_time(sqlite3_context *cx, int argc, sqlite3_value **v) {
  (void)argc;
  if (sqlite3_value_type(v[0]) != SQLITE_INTEGER) {
    sqlite3_result_value(cx, v[0]);
    return;
  }
  const hub_time_map *m = sqlite3_user_data(cx);
  sqlite3_result_int64(cx, hub_time_map_apply(m, sqlite3_value_int64(v[0])));
}

/* The map tt_align_time applies: set per table (a function cannot be
 * redefined while the input's schema is being stepped). */
static hub_time_map current;

int dbm_align_register(sqlite3 *out) {
  if (sqlite3_create_function(out, "tt_align_time", 1, SQLITE_UTF8, &current, align_time, NULL,
                              NULL) == SQLITE_OK)
    return 0;
  tt_error("tt_align_time: %s", sqlite3_errmsg(out));
  return -1;
}

int dbm_align_table(sqlite3 *out, const char *path, const char *name, const char *base,
                    const hub_time_map *m) {
  for (size_t i = 0; i < sizeof time_cols / sizeof *time_cols; i++) {
    if (strcmp(time_cols[i].base, base) != 0) continue;
    current = *m;
    tt_buf sql = {0};
    char *q = sqlite3_mprintf("UPDATE main.\"%w\" SET ", name);
    tt_buf_puts(&sql, q);
    sqlite3_free(q);
    for (size_t c = 0; c < 4 && time_cols[i].cols[c]; c++) {
      q = sqlite3_mprintf("%s\"%w\" = tt_align_time(\"%w\")", c ? ", " : "", time_cols[i].cols[c],
                          time_cols[i].cols[c]);
      tt_buf_puts(&sql, q);
      sqlite3_free(q);
    }
    char *err = NULL;
    int rc = sqlite3_exec(out, sql.data, NULL, NULL, &err);
    if (rc != SQLITE_OK) tt_error("%s: aligning %s: %s", path, name, err ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
    tt_buf_free(&sql);
    return rc == SQLITE_OK ? 0 : -1;
  }
  return 0;
}

int dbm_align_mark(sqlite3 *out, const char *path, const char *suffix, const char *method) {
  char *sql = sqlite3_mprintf("INSERT INTO main.\"rocpd_metadata%w\" (tag, value) VALUES (%Q, %Q)",
                              suffix, HUB_ALIGNED_TAG, method);
  char *err = NULL;
  int rc = sqlite3_exec(out, sql, NULL, NULL, &err);
  if (rc != SQLITE_OK) tt_error("%s: marking it aligned: %s", path, err ? err : sqlite3_errstr(rc));
  sqlite3_free(err);
  sqlite3_free(sql);
  return rc == SQLITE_OK ? 0 : -1;
}
