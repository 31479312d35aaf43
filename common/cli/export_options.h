/* The exporters' command line: the options every exporter shares
 * (tt_export_opts, exporter.h), parsed and checked together, a wrong one
 * refused with status 2 before anything is opened. Private to the
 * exporters' driver (export*.c). */
#ifndef TT_EXPORT_OPTIONS_H
#define TT_EXPORT_OPTIONS_H
#include <stdint.h>

#include "cli/exporter.h"

/* Parses argv into o (dies on a usage error). */
void tt_export_parse(int argc, char **argv, const tt_exporter *ex, tt_export_opts *o);

/* --start/--end's value s on the inputs' span [lo, hi): absolute ns, a
 * duration after lo, or a percentage of the span (dies when it is none). */
int64_t tt_export_resolve_time(const char *opt, const char *s, int64_t lo, int64_t hi);

/* "t.json" + ".w003" -> "t.w003.json" (before the extension; ".json.gz"
 * counts as one). */
char *tt_part_path(const char *output, const char *tag);

/* Parses "250ms", "1.5s", "100us", "42ns", "42" (ns) into ns; -1 on error. */
int tt_parse_duration(const char *s, int64_t *ns);

/* What --max-part-size auto means for ex: its viewer's limit. */
uint64_t tt_export_auto_limit(const tt_exporter *ex);

#endif
