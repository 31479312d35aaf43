/* Reading a profiler's SQLite export safely, for the importers of SQLite
 * formats (nvprof, Nsight Systems): read-only, physical tables only, schema
 * checked up front, leftover columns carried into extdata so nothing is
 * dropped; plus small helpers that build extdata JSON objects. */
#ifndef TT_SOURCE_DB_H
#define TT_SOURCE_DB_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* ---- reading an export ------------------------------------------------ */

typedef struct nv_src {
  sqlite3 *db;
  const char *path;
  char *bad_time; /* the first time nv_time could not place (nv_time_error) */
  /* What the export says of its own version ("nvprof Version 8"), named
   * in every message about its layout; the tool sets it once read. */
  char layout[128];
} nv_src;

/* Opens read-only (query_only, trusted_schema off) and checks the file is
 * a SQLite database. Returns 0, or prints an error naming the file. */
int nv_src_open(nv_src *s, const char *path);
/* The same for `file`, naming `path` in every message: an input read
 * through a temporary copy (a decompressed .gz) is reported by its own
 * name. */
int nv_src_open_named(nv_src *s, const char *file, const char *path);
void nv_src_close(nv_src *s);

/* A physical table (never a view an input might plant) of that name. */
int nv_has_table(nv_src *s, const char *table);
int nv_has_column(nv_src *s, const char *table, const char *column);
/* Checks every column of the comma-separated list exists; otherwise prints
 * "FILE: table T has no column C (LAYOUT): ..." and returns -1. */
int nv_require_columns(nv_src *s, const char *table, const char *columns);
/* Whether table can be read for the comma-separated columns: 1 it can;
 * 0 it is absent, or lacks a column but has no rows (nothing is lost:
 * versions differ in the columns of tables they leave empty); -1 it has
 * rows but lacks a column, after nv_require_columns' message. An
 * `optional` table (descriptions the import does without) lacking a
 * column gives 0 and a warning naming the table, column and layout. */
int nv_table_usable(nv_src *s, const char *table, const char *columns, int optional);

/* Column col of the current row as a time in ns, plus offset (a session
 * start). A value that is not an integer, or leaves +-2^62 ns once offset
 * is added (no overflow, no garbage in the hub), gives offset instead and
 * the first such one is kept: nv_time_error then reports it ("FILE:
 * TABLE.column: 'VALUE' is not a time ..., row id N", the row named when
 * the query's first column is the table's id or _id_) and returns -1. */
int64_t nv_time(nv_src *s, sqlite3_stmt *st, int col, int64_t offset);
int nv_time_error(nv_src *s);

/* Prepares sql; on error prints the file and SQLite's message. */
sqlite3_stmt *nv_prepare(nv_src *s, const char *sql);
/* The integer in the first column of the first row of sql; dflt when
 * there is none (no row, NULL, or a query that does not prepare). */
int64_t nv_first_int(nv_src *s, const char *sql, int64_t dflt);
/* Reports a failed sqlite3_step. */
int nv_step_error(nv_src *s, const char *table);

/* Appends `alias."col"` for every column of table not in the
 * comma-separated `consumed` list, each preceded by a comma: the columns
 * the hub has no place for, which go to extdata under their own name. */
void nv_rest_columns(nv_src *s, const char *table, const char *alias, const char *consumed,
                     tt_buf *select);
/* Appends the columns from index `from` of the current row as members of
 * the object being built (blobs as hex strings, NULLs left out). */
void nv_rest_json(sqlite3_stmt *st, int from, tt_buf *json);

/* ---- building extdata JSON objects ------------------------------------ */
/* nv_json_begin clears b and opens "{"; each member adds its own comma;
 * nv_json_end closes the object and returns the text. */
void nv_json_begin(tt_buf *b);
void nv_json_int(tt_buf *b, const char *key, int64_t v);
void nv_json_str(tt_buf *b, const char *key, const char *v);
void nv_json_raw(tt_buf *b, const char *key, const char *json);
const char *nv_json_end(tt_buf *b);

/* What a tool knows of a table it does not import: `holds` says what is
 * in it ("CPU samples"); notes with the same text form one group. An
 * array ends with a zeroed entry. */
typedef struct nv_table_note {
  const char *table, *holds;
} nv_table_note;

/* The non-empty tables not in the comma-separated `handled` list (entries
 * ending in '*' are prefixes), reported, never dropped silently: one
 * warning line naming them grouped by what they hold, in the notes'
 * order, the tables the notes do not know last with the layout:
 *   "FILE: 3 tables not imported (no place in the hub): CPU
 *   samples (COMPOSITE_EVENTS); other tables, in LAYOUT (X, Y); --verbose
 *   for each table's rows"
 * With --verbose (tt_verbose) instead, a warning per table: "FILE: table T
 * (N rows, HOLDS) has no hub mapping (LAYOUT): not imported". A table a
 * tool starts to import leaves the report by joining `handled`; its
 * note may stay. */
void nv_warn_unhandled(nv_src *s, const char *handled, const nv_table_note *notes);

#endif
