/* How many threads a tool may use (`--threads N`): the one knob every tool
 * that can pipeline its work on a second core shares (the importers: the
 * hub's inserts; db2json, db2perfetto, db2otf2: a size split's planning;
 * db2summary and dbmerge have no second thread and no --threads). The single-threaded
 * path stays reachable (--threads 1) and its output is the reference the
 * threaded path must match byte for byte. */
#ifndef TT_THREADS_H
#define TT_THREADS_H

/* How many CPUs this process may run on (its affinity mask, as nproc
 * counts them); at least 1. */
int tt_threads_cpus(void);

/* The default ("auto"): 2 when this process may run on at least two CPUs
 * (tt_threads_cpus), else 1, and never more than auto_max (what the
 * tool's measurements justify turning on by default). */
int tt_threads_default(int auto_max);

/* Parses the argument of --threads: 1, 2 or "auto" (tt_threads_default);
 * returns -1 on anything else. */
int tt_threads_parse(const char *s, int auto_max);

#endif
