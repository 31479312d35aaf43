#include "base/input_check.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/sqlite_setup.h"
#include "base/util.h"

int tt_input_check(const char *path) {
  if (strcmp(path, "-") == 0) {
    tt_error("-: reading standard input is not supported: give a file name");
    return -1;
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    tt_error("%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    tt_error("%s: is a directory, not a file", path);
    return -1;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    tt_error("%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  fclose(f);
  return 0;
}

static int has_table(sqlite3 *db, const char *glob) {
  sqlite3_stmt *st;
  int found = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name GLOB ?1",
                         -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, glob, -1, SQLITE_STATIC);
  found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

static tt_input_kind sqlite_kind(const char *path) {
  sqlite3 *db = NULL;
  tt_input_kind k = TT_INPUT_SQLITE;
  /* Read-only and schema only: nothing of the file is run. */
  if (tt_sqlite_open_input(path, &db) != SQLITE_OK) { /* no -wal/-shm beside it */
    sqlite3_close(db);
    return k;
  }
  sqlite3_exec(db, "PRAGMA trusted_schema=OFF", NULL, NULL, NULL);
  if (has_table(db, "rocpd_event*") && has_table(db, "rocpd_string*") &&
      !has_table(db, "rocpd_api"))
    k = TT_INPUT_HUB;
  else if (has_table(db, "rocpd_api") || has_table(db, "rocpd_op"))
    k = TT_INPUT_RPD;
  else if (has_table(db, "StringTable"))
    k = TT_INPUT_NVPROF;
  else if (has_table(db, "StringIds"))
    k = TT_INPUT_NSYS;
  sqlite3_close(db);
  return k;
}

tt_input_kind tt_input_kind_of(const char *path) {
  unsigned char head[16] = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return TT_INPUT_OTHER;
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  if (n == 16 && memcmp(head, "SQLite format 3", 16) == 0) return sqlite_kind(path);
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
    /* A gzipped SQLite file is an .rpd.gz (rpd2db unpacks it); any other
     * gzip is taken for a Kineto trace. */
    gzFile gz = gzopen(path, "rb");
    char inner[16] = {0};
    int got = gz ? gzread(gz, inner, sizeof inner) : 0;
    if (gz) gzclose(gz);
    if (got == 16 && memcmp(inner, "SQLite format 3", 16) == 0) return TT_INPUT_SQLITE_GZ;
    return TT_INPUT_JSON;
  }
  if (n >= 8 && (memcmp(head + 4, "ED00", 4) == 0 || (n >= 12 && memcmp(head + 8, "ED00", 4) == 0)))
    return TT_INPUT_ETDUMP;
  size_t i = 0;
  if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3; /* UTF-8 BOM */
  while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
  if (i < n && (head[i] == '{' || head[i] == '[')) return TT_INPUT_JSON;
  return TT_INPUT_OTHER;
}

const char *tt_input_kind_name(tt_input_kind k) {
  switch (k) {
  case TT_INPUT_HUB: return "a rocpd hub database";
  case TT_INPUT_RPD: return "an RPD (rocmProfileData) database";
  case TT_INPUT_NVPROF: return "an nvprof database";
  case TT_INPUT_NSYS: return "an Nsight Systems SQLite export";
  case TT_INPUT_SQLITE: return "a SQLite database of unknown layout";
  case TT_INPUT_JSON: return "JSON or gzip (a Kineto trace?)";
  case TT_INPUT_SQLITE_GZ: return "a gzipped SQLite database (an .rpd.gz?)";
  case TT_INPUT_ETDUMP: return "an ExecuTorch ETDump";
  default: return "a file of unknown format";
  }
}

const char *tt_input_kind_tools(tt_input_kind k) {
  switch (k) {
  case TT_INPUT_HUB: return "db2json, db2perfetto, db2otf2 or db2summary";
  case TT_INPUT_RPD: return "rpd2db";
  case TT_INPUT_NVPROF: return "nvvp2db";
  case TT_INPUT_NSYS: return "nsys2db";
  case TT_INPUT_JSON: return "kineto2db";
  case TT_INPUT_SQLITE_GZ: return "rpd2db";
  case TT_INPUT_ETDUMP: return "etprof2db";
  default: return NULL;
  }
}

int tt_input_refuse_foreign(const char *path, const char *tool) {
  tt_input_kind k = tt_input_kind_of(path);
  const char *tools = tt_input_kind_tools(k);
  if (!tools || strstr(tools, tool)) return 0;
  tt_error("%s: this is %s, not an input of %s: use %s", path, tt_input_kind_name(k), tool, tools);
  return -1;
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int tt_sqlite_check_header(const char *file, const char *name) {
  if (!name) name = file;
  FILE *f = fopen(file, "rb");
  if (!f) {
    tt_error("%s: cannot open: %s", name, strerror(errno));
    return -1;
  }
  struct stat st;
  int have_size = fstat(fileno(f), &st) == 0;
  if (have_size && S_ISDIR(st.st_mode)) {
    fclose(f);
    tt_error("%s: is a directory, not a database", name);
    return -1;
  }
  unsigned char head[100] = {0};
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  if (n < 16 || memcmp(head, "SQLite format 3", 16) != 0) {
    tt_input_kind k = tt_input_kind_of(file);
    const char *tools = tt_input_kind_tools(k);
    if (tools)
      tt_error("%s: not a SQLite database: this is %s; import it with %s first", name,
               tt_input_kind_name(k), tools);
    else
      tt_error("%s: not a SQLite database (byte 0: no SQLite header)", name);
    return -1;
  }
  if (n < sizeof head) {
    tt_error("%s: truncated: %zu bytes, shorter than the SQLite header (100)", name, n);
    return -1;
  }
  /* A half-copied file: the header's page count (valid when its
   * version-valid-for number matches the change counter) says how long the
   * file must be; SQLite itself notices only when it reads a missing page.
   * In WAL mode (byte 18 is 2) newer pages may live in the -wal: not
   * checked then. */
  uint32_t psz = (uint32_t)head[16] << 8 | head[17];
  unsigned long long page = psz == 1 ? 65536 : psz, pages = be32(head + 28);
  if (head[18] != 2 && have_size && pages > 0 && be32(head + 24) == be32(head + 92) &&
      (unsigned long long)st.st_size < page * pages) {
    tt_error("%s: truncated: %lld bytes, the SQLite header says %llu (%llu pages of %llu)", name,
             (long long)st.st_size, page * pages, pages, page);
    return -1;
  }
  return 0;
}
