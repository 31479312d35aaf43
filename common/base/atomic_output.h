/* Outputs appear complete or not at all: every output is written under a
 * temporary name beside its final path and renamed when complete. A failed
 * run (tt_die, an error, SIGINT/SIGTERM/SIGHUP) removes every temporary it
 * created; a temporary may be a file or a directory the caller made at
 * tt_output_tmp_path (a format that is a directory), removed with all it
 * holds, from the signal handler too (async-signal-safe calls only). A
 * write error on stdout (-o - on a full disk) fails tt_output_commit. */
#ifndef TT_ATOMIC_OUTPUT_H
#define TT_ATOMIC_OUTPUT_H
#include <stdio.h>

typedef struct tt_output tt_output;

/* Reserves a temporary path for `final_path` ("-" means stdout, written
 * directly). Returns the handle; tt_output_tmp_path() is where to write. */
tt_output *tt_output_begin(const char *final_path);
const char *tt_output_tmp_path(const tt_output *o);
const char *tt_output_final_path(const tt_output *o);
int tt_output_is_stdout(const tt_output *o);
/* An output written in place (tmp == final: an existing directory a sink
 * replaces at exit) may say where it stages the new content, so the
 * caller can measure what was written; NULL when not said. */
void tt_output_set_staged(tt_output *o, const char *path);
const char *tt_output_staged_path(const tt_output *o);
/* Opens the temporary path with fopen(mode); dies with a message on error. */
FILE *tt_output_fopen(tt_output *o, const char *mode);
/* Renames the temporary to the final path (closing the FILE if opened by
 * tt_output_fopen). Returns 0 on success; on error the temporary is removed. */
int tt_output_commit(tt_output *o);
/* tt_output_commit for one part of several: renamed now, but removed again
 * (file or directory) by tt_output_abort_all or a signal until
 * tt_output_keep_parts() says the whole run succeeded, so a failed split
 * leaves none of its parts. An output written in place (stdout, a device)
 * is not removed. */
int tt_output_commit_part(tt_output *o);
void tt_output_keep_parts(void);
/* Renames a part committed by tt_output_commit_part (a size split planned
 * ahead learns its names' width at the end); 0, or -1 (said). */
int tt_output_rename_part(const char *from, const char *to);
/* Removes the temporary and frees the handle. */
void tt_output_abort(tt_output *o);
/* The final path of the pending output whose temporary is `path` (the same
 * string, or an absolute form ending in it), else `path`: messages about a
 * temporary then name what the user asked for. */
const char *tt_output_name_of(const char *path);
/* Removes a file, or a directory with everything in it; only
 * async-signal-safe calls, so a format's own signal handler may use it
 * (db2otf2's staging directories). errno is kept. */
void tt_output_remove_tree(const char *path);
/* Called by tt_die and on SIGINT/SIGTERM: removes all pending temporaries
 * and the parts not yet kept (said on stderr, from a signal too). */
void tt_output_abort_all(void);

#endif
