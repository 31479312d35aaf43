/* What an input file is, told before a tool tries to parse it, so a user
 * who hands a tool the wrong file hears which tool reads it instead of a
 * parser error: "-" (standard input is not read), a missing file, a
 * directory, JSON or gzip (a Kineto trace), a SQLite file of a known
 * profiler (nvprof, Nsight Systems, RPD) or a rocpd hub, a gzipped
 * SQLite file (.rpd.gz), an ETDump. */
#ifndef TT_INPUT_CHECK_H
#define TT_INPUT_CHECK_H

typedef enum tt_input_kind {
  TT_INPUT_OTHER,   /* nothing recognised: the tool's own parser decides */
  TT_INPUT_HUB,     /* SQLite with rocpd_event/rocpd_string tables */
  TT_INPUT_RPD,     /* rocmProfileData (rocpd_api, rocpd_op) */
  TT_INPUT_NVPROF,  /* nvprof (StringTable) */
  TT_INPUT_NSYS,    /* Nsight Systems export (StringIds) */
  TT_INPUT_SQLITE,  /* another SQLite database */
  TT_INPUT_JSON,    /* JSON text, or gzip (Kineto traces are .json.gz) */
  TT_INPUT_SQLITE_GZ, /* gzip holding a SQLite file (an .rpd.gz) */
  TT_INPUT_ETDUMP   /* ExecuTorch ETDump flatbuffer (identifier ED00) */
} tt_input_kind;

/* Checks that `path` is a readable regular file; otherwise prints
 * "PATH: is a directory" (or the reason) and returns -1. */
int tt_input_check(const char *path);

/* Sniffs the first bytes (and a SQLite file's table names, read-only). */
tt_input_kind tt_input_kind_of(const char *path);

/* "a rocpd hub database", "JSON (a Kineto trace?)", ... */
const char *tt_input_kind_name(tt_input_kind k);

/* The tools that read this kind ("kineto2db", "db2json, db2perfetto"),
 * NULL when none is known. */
const char *tt_input_kind_tools(tt_input_kind k);

/* For an importer named `tool`: when the input is of a kind another tool
 * reads, prints "PATH: this is X, not Y: use Z" and returns -1. */
int tt_input_refuse_foreign(const char *path, const char *tool);

/* The check every SQLite input gets before SQLite opens it, with a clear
 * message naming `name` (the file itself when NULL: a decompressed copy is
 * reported by its original's name), where SQLite would say "file is not a
 * database" or read a cut file until it needs a missing page:
 *   "NAME: is a directory, not a database";
 *   "NAME: not a SQLite database (byte 0: no SQLite header)", or "...: this
 *   is JSON or gzip (a Kineto trace?); import it with kineto2db first";
 *   "NAME: truncated: N bytes, shorter than the SQLite header (100)";
 *   "NAME: truncated: N bytes, the SQLite header says M (P pages of S)"
 *   (not in WAL mode, where pages may live in the -wal).
 * Returns 0 when the file passes, else -1. */
int tt_sqlite_check_header(const char *file, const char *name);

#endif
