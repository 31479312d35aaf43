/* What an input file is, told before a tool tries to parse it, so a user
 * who hands a tool the wrong file hears which tool reads it instead of a
 * parser error: "-" (standard input is not read), a missing file, a
 * directory, JSON or gzip (a Kineto trace), a SQLite file of a known
 * profiler (nvprof, Nsight Systems, RPD) or a rocpd hub, a gzipped
 * SQLite file (an .rpd.gz, or a gzipped export that must be gunzipped
 * first), an Nsight Systems report (.nsys-rep, which must be exported),
 * an empty file, an ETDump. */
#ifndef TT_INPUT_CHECK_H
#define TT_INPUT_CHECK_H
#include <stddef.h>

typedef enum tt_input_kind {
  TT_INPUT_OTHER,   /* nothing recognised: the tool's own parser decides */
  TT_INPUT_HUB,     /* SQLite with rocpd_event/rocpd_string tables */
  TT_INPUT_RPD,     /* rocmProfileData (rocpd_api, rocpd_op) */
  TT_INPUT_NVPROF,  /* nvprof (StringTable) */
  TT_INPUT_NSYS,    /* Nsight Systems export (StringIds) */
  TT_INPUT_SQLITE,  /* another SQLite database */
  TT_INPUT_JSON,    /* JSON text, or gzip (Kineto traces are .json.gz) */
  TT_INPUT_SQLITE_GZ, /* gzip holding a SQLite file of no known layout */
  TT_INPUT_ETDUMP,  /* ExecuTorch ETDump flatbuffer (identifier ED00) */
  TT_INPUT_RPD_GZ,  /* gzip holding an RPD (an .rpd.gz: rpd2db unpacks it) */
  TT_INPUT_NSYS_GZ, /* gzip holding an Nsight Systems export: gunzip it */
  TT_INPUT_NVPROF_GZ, /* gzip holding an nvprof database: gunzip it */
  TT_INPUT_HUB_GZ,  /* gzip holding a hub: gunzip it */
  /* An Nsight Systems report, by its name (.nsys-rep, .qdrep) and a
   * content that is no SQLite, gzip or JSON: its binary layout is
   * NVIDIA's and unpublished, so a renamed report is not told by its
   * bytes. It is exported (nsys export --type sqlite), then imported. */
  TT_INPUT_NSYS_REP,
  TT_INPUT_EMPTY    /* 0 bytes */
} tt_input_kind;

/* Checks that `path` is a readable regular file with something in it;
 * otherwise prints "PATH: is a directory", "PATH: is empty (0 bytes)" (or
 * the reason) and returns -1. */
int tt_input_check(const char *path);

/* Sniffs the first bytes (and a SQLite file's table names, read-only). */
tt_input_kind tt_input_kind_of(const char *path);

/* "a rocpd hub database", "JSON (a Kineto trace?)", ... */
const char *tt_input_kind_name(tt_input_kind k);

/* The tools that read this kind ("kineto2db", "db2json, db2perfetto"),
 * NULL when none is known or the file must be turned into another first
 * (tt_input_kind_advice). */
const char *tt_input_kind_tools(tt_input_kind k);

/* What to do with a file of this kind that no tool reads as it is, with
 * `path` in the commands: "gunzip it first: gunzip -k PATH, then nsys2db
 * PATH-without-.gz"; "export it with `nsys export --type sqlite -o
 * X.sqlite X.nsys-rep`, then nsys2db X.sqlite". Written into buf (n
 * bytes); NULL when the kind needs none (its tools read it). */
const char *tt_input_kind_advice(tt_input_kind k, const char *path, char *buf, size_t n);

/* For an importer named `tool`: when the input is of a kind another tool
 * reads, prints "PATH: this is X, not Y: use Z" and returns -1; when it
 * must be turned into another file first (gunzipped, exported), "PATH:
 * this is X: ADVICE" (tt_input_kind_advice). */
int tt_input_refuse_foreign(const char *path, const char *tool);

/* The check every SQLite input gets before SQLite opens it, with a clear
 * message naming `name` (the file itself when NULL: a decompressed copy is
 * reported by its original's name), where SQLite would say "file is not a
 * database" or read a cut file until it needs a missing page:
 *   "NAME: is a directory, not a database"; "NAME: is empty (0 bytes)";
 *   "NAME: not a SQLite database (byte 0: no SQLite header)", or "...: this
 *   is JSON or gzip (a Kineto trace?); import it with kineto2db first";
 *   "NAME: truncated: N bytes, shorter than the SQLite header (100)";
 *   "NAME: truncated: N bytes, the SQLite header says M (P pages of S)"
 *   (not in WAL mode, where pages may live in the -wal).
 * Returns 0 when the file passes, else -1. */
int tt_sqlite_check_header(const char *file, const char *name);

#endif
