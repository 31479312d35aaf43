/* How many threads a tool may use (`--threads N`): the one knob every tool
 * that can pipeline its work on a second core shares. The single-threaded
 * path stays reachable (--threads 1) and its output is the reference the
 * threaded path must match byte for byte. */
#ifndef TT_THREADS_H
#define TT_THREADS_H

/* Parses the argument of --threads: 1 or 2 ("auto" = the default); returns
 * -1 on anything else. */
int tt_threads_parse(const char *s);

/* The default: 2 when the machine has at least two online CPUs, else 1. */
int tt_threads_default(void);

#endif
