#include "base/input_check.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
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
  if (S_ISREG(st.st_mode) && st.st_size == 0) {
    tt_error("%s: is empty (0 bytes)", path);
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

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcasecmp(s + n - m, tail) == 0;
}

/* A gzipped SQLite file's layout, told by the table names of its schema
 * (sqlite_master's CREATE TABLE text, in the first pages of the files
 * these profilers write): the head of the decompressed stream is searched
 * for them, never unpacked whole. */
#define GZ_SCAN_BYTES (4u << 20)
static tt_input_kind gzip_kind(const char *path) {
  gzFile gz = gzopen(path, "rb");
  if (!gz) return TT_INPUT_JSON;
  /* The names sqlite_kind goes by, in its order of precedence below. */
  static const char *const markers[] = {"rocpd_event", "rocpd_string", "rocpd_api", "rocpd_op",
                                        "StringTable", "StringIds"};
  enum { NL = sizeof markers / sizeof *markers, KEEP = 16 };
  int seen[NL] = {0};
  char buf[65536 + KEEP];
  size_t kept = 0, total = 0;
  int got = gzread(gz, buf, 16);
  tt_input_kind k = TT_INPUT_JSON; /* any other gzip: a Kineto trace */
  if (got == 16 && memcmp(buf, "SQLite format 3", 16) == 0) {
    k = TT_INPUT_SQLITE_GZ;
    kept = 16;
    while (total < GZ_SCAN_BYTES && (got = gzread(gz, buf + kept, 65536)) > 0) {
      size_t len = kept + (size_t)got;
      for (int i = 0; i < NL; i++)
        if (!seen[i] && memmem(buf, len, markers[i], strlen(markers[i])))
          seen[i] = 1;
      total += (size_t)got;
      /* a name cut by the buffer's end is found in the next round */
      memmove(buf, buf + len - KEEP, KEEP);
      kept = KEEP;
    }
    /* as sqlite_kind decides on the tables themselves */
    if (seen[0] && seen[1] && !seen[2]) k = TT_INPUT_HUB_GZ;
    else if (seen[2] || seen[3]) k = TT_INPUT_RPD_GZ;
    else if (seen[4]) k = TT_INPUT_NVPROF_GZ;
    else if (seen[5]) k = TT_INPUT_NSYS_GZ;
  }
  gzclose(gz);
  return k;
}

tt_input_kind tt_input_kind_of(const char *path) {
  unsigned char head[16] = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return TT_INPUT_OTHER;
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  if (n == 16 && memcmp(head, "SQLite format 3", 16) == 0) return sqlite_kind(path);
  if (n == 0) return TT_INPUT_EMPTY;
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) return gzip_kind(path);
  if (n >= 8 && (memcmp(head + 4, "ED00", 4) == 0 || (n >= 12 && memcmp(head + 8, "ED00", 4) == 0)))
    return TT_INPUT_ETDUMP;
  size_t i = 0;
  if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3; /* UTF-8 BOM */
  while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
  if (i < n && (head[i] == '{' || head[i] == '[')) return TT_INPUT_JSON;
  if (ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep")) return TT_INPUT_NSYS_REP;
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
  case TT_INPUT_SQLITE_GZ: return "a gzipped SQLite database of unknown layout";
  case TT_INPUT_ETDUMP: return "an ExecuTorch ETDump";
  case TT_INPUT_RPD_GZ: return "a gzipped RPD (rocmProfileData) database";
  case TT_INPUT_NSYS_GZ: return "a gzipped Nsight Systems SQLite export";
  case TT_INPUT_NVPROF_GZ: return "a gzipped nvprof database";
  case TT_INPUT_HUB_GZ: return "a gzipped rocpd hub database";
  case TT_INPUT_NSYS_REP: return "an Nsight Systems report (.nsys-rep)";
  case TT_INPUT_EMPTY: return "an empty file (0 bytes)";
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
  case TT_INPUT_RPD_GZ: return "rpd2db";
  case TT_INPUT_ETDUMP: return "etprof2db";
  default: return NULL;
  }
}

/* path without its last extension when it is `ext`, else path + alt. */
static void renamed(char *out, size_t n, const char *path, const char *ext, const char *alt) {
  size_t len = strlen(path), m = strlen(ext);
  if (len > m && strcasecmp(path + len - m, ext) == 0)
    snprintf(out, n, "%.*s", (int)(len - m), path);
  else
    snprintf(out, n, "%s%s", path, alt);
}

const char *tt_input_kind_advice(tt_input_kind k, const char *path, char *buf, size_t n) {
  char out[4096];
  const char *then = NULL, *ext = ".sqlite";
  switch (k) {
  case TT_INPUT_NSYS_GZ: then = "nsys2db"; break;
  case TT_INPUT_NVPROF_GZ: then = "nvvp2db"; ext = ".nvvp"; break;
  case TT_INPUT_HUB_GZ: then = "db2json, db2perfetto, db2otf2 or db2summary"; ext = ".db"; break;
  case TT_INPUT_SQLITE_GZ: then = "the tool that reads it"; break;
  case TT_INPUT_NSYS_REP: {
    size_t len = strlen(path), m = ends_with(path, ".nsys-rep") ? 9 : ends_with(path, ".qdrep") ? 6 : 0;
    snprintf(out, sizeof out, "%.*s.sqlite", (int)(len - m), path);
    snprintf(buf, n,
             "export it with `nsys export --type sqlite -o %s %s`, then nsys2db %s",
             out, path, out);
    return buf;
  }
  default: return NULL;
  }
  renamed(out, sizeof out, path, ".gz", ext);
  snprintf(buf, n, "gunzip it first (gunzip -c %s > %s), then give %s to %s", path, out, out, then);
  return buf;
}

int tt_input_refuse_foreign(const char *path, const char *tool) {
  tt_input_kind k = tt_input_kind_of(path);
  char advice[8192];
  if (tt_input_kind_advice(k, path, advice, sizeof advice)) {
    tt_error("%s: this is %s: %s", path, tt_input_kind_name(k), advice);
    return -1;
  }
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
  if (n == 0 && have_size && S_ISREG(st.st_mode)) {
    tt_error("%s: is empty (0 bytes)", name);
    return -1;
  }
  if (n < 16 || memcmp(head, "SQLite format 3", 16) != 0) {
    tt_input_kind k = tt_input_kind_of(file);
    const char *tools = tt_input_kind_tools(k);
    char advice[8192];
    if (tt_input_kind_advice(k, name, advice, sizeof advice))
      tt_error("%s: not a SQLite database: this is %s: %s", name, tt_input_kind_name(k), advice);
    else if (tools)
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
