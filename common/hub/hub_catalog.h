/* The hub catalog: which hubs a SQLite file holds, and the one rule for
 * which of them the tools accept. The hub reader (every db2* tool) and
 * dbmerge both find and check hubs here, so they agree.
 *
 * The rule (docs/hub.md, "Which databases are read"):
 * - A hub is the set of tables rocpd_<name><S> of one suffix S: "_<uuid>"
 *   (rocprofv3, rocpd's merge, dbmerge, these importers) or "" (plain
 *   names). A file holds one hub per S with both rocpd_event<S> and
 *   rocpd_string<S> tables (views do not count: the rocpd_<name> views of
 *   a merged file are not a hub of their own). Hubs are listed in S order.
 * - A hub is accepted when its rocpd_metadata<S> declares schema_version
 *   3 or 3.<minor> (every schema_version row it has) and no compressed
 *   data: a tag containing "compress" (any case) whose value is other than
 *   "", "none", "0" or "false" (rocpd 4 can store extdata lz4-compressed,
 *   which would be misread). Anything else is refused, naming the file,
 *   the table and what was found.
 * - Its suffix S is "" or '_' followed by letters, digits and '_' only
 *   (^(_[0-9A-Za-z_]+)?$): rocprofv3 writes "_" + its uuid with '_' for
 *   '-'. Any other text (a quote, a space, SQL) is refused before S is put
 *   in any SQL, so every table name built from it is a plain identifier.
 * dbmerge adds two rules of its output's layout (rocpd's merge): each hub
 * needs its uuid in its table names (S not ""), and all hubs merged the
 * same schema_version (the views are a UNION ALL of their tables).
 *
 * Errors follow util.h's policy for input faults: one message naming the
 * file (tt_error), and -1. */
#ifndef TT_HUB_CATALOG_H
#define TT_HUB_CATALOG_H
#include <sqlite3.h>
#include <stddef.h>

typedef struct tt_hub_catalog {
  char **suffixes; /* "_<uuid>" or "", in order */
  size_t n, cap;
} tt_hub_catalog;

/* The hubs of schema `db` ("main", or the name of an ATTACHed database)
 * of conn, without checking them. Silent: -1 when the schema cannot be
 * read (the caller says why, or leaves it to a later open). */
int tt_hub_catalog_list(sqlite3 *conn, const char *db, tt_hub_catalog *out);
void tt_hub_catalog_free(tt_hub_catalog *c);

/* Applies the rule to hub `suffix` of schema `db`; `path` names the file
 * in messages. On success returns 0 and, when version is not NULL, sets
 * *version to its schema_version (the last declared; free() it). */
int tt_hub_catalog_check(sqlite3 *conn, const char *db, const char *path, const char *suffix,
                         char **version);

/* Whether suffix follows the grammar above. tt_hub_catalog_check refuses
 * the others; tt_hub_catalog_list lists them all, unchecked. */
int tt_hub_catalog_suffix_ok(const char *suffix);

/* The message for a file that holds no hub: which tool imports it when it
 * is a profiler's database, else that it has no rocpd_event/rocpd_string
 * tables. */
void tt_hub_catalog_refuse_empty(const char *path);

#endif
