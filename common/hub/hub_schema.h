/* The rocpd v3 schema text, embedded at build time from the schema/ SQL files
 * (see the Makefile), with {{uuid}} and {{guid}} placeholders. */
#ifndef TT_HUB_SCHEMA_H
#define TT_HUB_SCHEMA_H
extern const char hub_schema_sql[];
extern const char hub_index_sql[];
/* Expands the placeholders; the caller frees the result. */
char *hub_schema_expand(const char *template_sql, const char *guid);
#endif
