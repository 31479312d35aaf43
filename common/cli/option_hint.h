/* What a usage error in the options says (issue 45, item 10): one line
 * naming the option at fault, the nearest long option when one is close
 * ("did you mean --format?"), and "see PROG --help", instead of the whole
 * usage. cli.c calls it for getopt's errors. */
#ifndef TT_OPTION_HINT_H
#define TT_OPTION_HINT_H
#include "base/util.h"

struct option;

/* The long option (of the zero-terminated table) nearest to `given` (the
 * name without "--" or "=VALUE"): the one at the smallest edit distance
 * (insertions, deletions, substitutions, swaps of two neighbours), when
 * that distance is at most a third of the name (at least 1, at most 3);
 * NULL when none is that close. */
const char *tt_option_nearest(const char *given, const struct option *longopts);

/* Prints the one-line error for the option in `arg` (as it was on the
 * command line: "--formt", "--format=x", "-Z") and exits with status 2.
 * `kind`: '?' an unknown or ambiguous option, or a value given to an
 * option that takes none; ':' a missing value. `shortopt` is getopt's
 * optopt (0 for a long option). */
TT_NORETURN void tt_option_error(const char *arg, int kind, int shortopt,
                                 const struct option *longopts);

#endif
