/* Outputs appear complete or not at all: every output is written under a
 * temporary name beside its final path and renamed when complete. A failed
 * run (tt_die, a fatal signal) removes every temporary it created. */
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
/* Opens the temporary path with fopen(mode); dies with a message on error. */
FILE *tt_output_fopen(tt_output *o, const char *mode);
/* Renames the temporary to the final path (closing the FILE if opened by
 * tt_output_fopen). Returns 0 on success; on error the temporary is removed. */
int tt_output_commit(tt_output *o);
/* Removes the temporary and frees the handle. */
void tt_output_abort(tt_output *o);
/* Called by tt_die and on SIGINT/SIGTERM: removes all pending temporaries. */
void tt_output_abort_all(void);

#endif
