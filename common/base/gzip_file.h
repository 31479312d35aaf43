/* A stdio FILE that writes gzip (through zlib), so a sink that writes a
 * FILE gets "-o trace.json.gz" for free. fclose() finishes the gzip
 * stream and reports a write error as a non-zero return. */
#ifndef TT_GZIP_FILE_H
#define TT_GZIP_FILE_H
#include <stdio.h>

/* Creates `path` (truncating it); NULL with errno set on failure. */
FILE *tt_gzip_fopen(const char *path);

/* Whether a path names a gzip file by its ending (".gz"). */
int tt_path_is_gz(const char *path);

#endif
