/* Unit test of common/base/atomic_output.c: a temporary (a file, or a directory
 * tree for formats that are directories) is removed on abort and by
 * SIGINT/SIGTERM, after which the process still dies of the signal; a
 * directory is renamed into place on commit; a write error on stdout fails
 * the commit; a signal the caller ignores stays ignored. Each scenario runs
 * in a child process so a signal ends only the child. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/atomic_output.h"
#include "base/util.h"

#include "unit.h"

static char dir[64];

static int exists(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0;
}

static int entries(const char *d) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 0", d);
  return system(cmd) == 0 ? 0 : 1;
}

/* A directory tree of `files` files in two levels under path. */
static void fill_tree(const char *path, int files) {
  char p[512];
  mkdir(path, 0777);
  snprintf(p, sizeof p, "%s/sub", path);
  mkdir(p, 0777);
  snprintf(p, sizeof p, "%s/sub/deeper", path);
  mkdir(p, 0777);
  for (int i = 0; i < files; i++) {
    snprintf(p, sizeof p, "%s/%s/file-with-a-longish-name-%04d.evt", path,
             i % 3 == 0 ? "." : i % 3 == 1 ? "sub" : "sub/deeper", i);
    unit_write_file(p, "data\n");
  }
}

/* Runs fn in a child; returns its wait status. */
static int in_child(void (*fn)(const char *), const char *arg) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    fn(arg);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

static void file_then_signal(const char *sig) {
  char final[128];
  snprintf(final, sizeof final, "%s/out.json", dir);
  tt_output *o = tt_output_begin(final);
  FILE *f = tt_output_fopen(o, "w");
  for (int i = 0; i < 10000; i++) fputs("some partial output\n", f);
  fflush(f);
  raise(atoi(sig));
  _exit(3); /* not reached when the signal ends the process */
}

static void tree_then_signal(const char *sig) {
  char final[128];
  snprintf(final, sizeof final, "%s/archive", dir);
  tt_output *o = tt_output_begin(final);
  fill_tree(tt_output_tmp_path(o), 600);
  raise(atoi(sig));
  _exit(3);
}

static void stdout_full(const char *unused) {
  (void)unused;
  int fd = open("/dev/full", O_WRONLY);
  if (fd < 0 || dup2(fd, 1) < 0) _exit(4);
  tt_output *o = tt_output_begin("-");
  FILE *f = tt_output_fopen(o, "w");
  for (int i = 0; i < 100000; i++) fputs("line of output that does not fit\n", f);
  _exit(tt_output_commit(o) == 0 ? 0 : 1);
}

static void ignored_hup(const char *unused) {
  (void)unused;
  char final[128];
  snprintf(final, sizeof final, "%s/hup.json", dir);
  signal(SIGHUP, SIG_IGN);
  tt_output *o = tt_output_begin(final);
  tt_output_fopen(o, "w");
  raise(SIGHUP);
  _exit(exists(tt_output_tmp_path(o)) ? 0 : 5);
}

int main(void) {
  tt_set_progname("unit_atomic_output");
  /* The cases below are of a signal's default action. A shell starting
   * this test in the background without job control (`( make check & )`)
   * hands it SIGINT ignored, and the library rightly keeps an ignored
   * signal ignored (the SIGHUP case): start from the defaults. */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  snprintf(dir, sizeof dir, "/tmp/tt-unit-out.XXXXXX");
  if (!mkdtemp(dir)) return 2;
  char sig[8];

  for (int s = 0; s < 2; s++) {
    int signo = s ? SIGTERM : SIGINT;
    snprintf(sig, sizeof sig, "%d", signo);
    int st = in_child(file_then_signal, sig);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == signo, "%s: the process still dies of the signal",
          strsignal(signo));
    CHECK(entries(dir) == 0, "%s: the temporary file is removed, nothing left", strsignal(signo));
    st = in_child(tree_then_signal, sig);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == signo, "%s: a directory temporary: dies of it too",
          strsignal(signo));
    CHECK(entries(dir) == 0, "%s: the temporary directory tree (600 files) is removed",
          strsignal(signo));
  }

  /* Abort and commit of a directory, in this process. */
  char final[128];
  snprintf(final, sizeof final, "%s/arch", dir);
  tt_output *o = tt_output_begin(final);
  fill_tree(tt_output_tmp_path(o), 50);
  tt_output_abort(o);
  CHECK(entries(dir) == 0, "abort removes a directory temporary");
  o = tt_output_begin(final);
  fill_tree(tt_output_tmp_path(o), 50);
  char tmp[160];
  snprintf(tmp, sizeof tmp, "%s", tt_output_tmp_path(o));
  CHECK(tt_output_commit(o) == 0, "commit of a directory");
  char probe[256];
  snprintf(probe, sizeof probe, "%s/sub/deeper/file-with-a-longish-name-0002.evt", final);
  CHECK(exists(probe) && !exists(tmp), "the directory is in place, the temporary name gone");

  int st = in_child(stdout_full, NULL);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "a write error on stdout fails the commit");

  st = in_child(ignored_hup, NULL);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "SIGHUP ignored by the caller (nohup) stays ignored");

  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return 2;
  return failures ? 1 : 0;
}
