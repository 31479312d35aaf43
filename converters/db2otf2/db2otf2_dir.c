/* The archive is a directory (traces.otf2, traces.def, traces/), so the
 * single-file temporary of common/base/atomic_output.h is not enough: the
 * archive is written into a staging directory beside the final one and
 * renamed once complete. A failure, tt_die or a signal removes the staging
 * directory, so nothing half-written is ever left. An existing path is
 * replaced only when it is an OTF2 archive (or empty), never a directory
 * of other files. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db2otf2.h"
#include "base/util.h"

/* Staging directories of this run. One that replaces an existing archive
 * is put in place at exit, and only when the run succeeded: the driver
 * also ends a part when the stream failed, and a failed run must leave the
 * old archive as it was. The others are renamed by the driver (removing
 * them afterwards is a no-op) or removed when the run fails. */
typedef struct pending {
  char *stage, *final;
  int own;
} pending;
static pending *stages;
static size_t nstages;
static struct sigaction old_actions[3];
static const int signals[3] = {SIGINT, SIGTERM, SIGHUP};
static int cleanup_installed;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

static void remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode))
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  else
    remove(path);
}

/* Replaces an existing archive: old aside, new in, old removed. */
static int swap_in(const char *stage, const char *final) {
  tt_buf old = {0};
  tt_buf_printf(&old, "%s.old%ld", final, (long)getpid());
  remove_tree(old.data);
  int rc = 0;
  struct stat st;
  int existed = lstat(final, &st) == 0;
  if (existed && rename(final, old.data) != 0) {
    tt_error("%s: cannot move the existing archive aside: %s", final, strerror(errno));
    rc = -1;
  } else if (rename(stage, final) != 0) {
    tt_error("%s: cannot rename from %s: %s", final, stage, strerror(errno));
    if (existed) rename(old.data, final);
    rc = -1;
  } else {
    remove_tree(old.data);
  }
  tt_buf_free(&old);
  return rc;
}

static void at_exit(int status, void *arg) {
  (void)arg;
  int failed = 0;
  for (size_t i = 0; i < nstages; i++) {
    if (status == 0 && !failed && stages[i].own && swap_in(stages[i].stage, stages[i].final))
      failed = 1;
    remove_tree(stages[i].stage);
    free(stages[i].stage);
    free(stages[i].final);
  }
  free(stages);
  stages = NULL;
  nstages = 0;
  if (failed) {
    fflush(NULL);
    _exit(1);
  }
}

static void on_signal(int sig) {
  for (size_t i = 0; i < nstages; i++) remove_tree(stages[i].stage);
  for (int i = 0; i < 3; i++) {
    if (signals[i] != sig) continue;
    /* Then whatever was there before (atomic_output's cleanup, which
     * re-raises with the default action). */
    sigaction(sig, &old_actions[i], NULL);
    if (old_actions[i].sa_handler != SIG_DFL && old_actions[i].sa_handler != SIG_IGN) {
      old_actions[i].sa_handler(sig);
      return;
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_cleanup(void) {
  if (cleanup_installed) return;
  cleanup_installed = 1;
  on_exit(at_exit, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; i++) sigaction(signals[i], &sa, &old_actions[i]);
}

/* An existing directory may be replaced when it is empty or holds an OTF2
 * archive named like ours. */
static int replaceable_dir(const char *path) {
  tt_buf b = {0};
  tt_buf_printf(&b, "%s/traces.otf2", path);
  struct stat st;
  int ok = stat(b.data, &st) == 0;
  tt_buf_free(&b);
  if (ok) return 1;
  DIR *d = opendir(path);
  if (!d) return 0;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(d)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) empty = 0;
  closedir(d);
  return empty;
}

int o2_stage_begin(o2_archive *a, tt_output *out) {
  const char *final = a->part->path;
  size_t n = strlen(final);
  if (n > 1 && final[n - 1] == '/') {
    /* The staging directory goes beside the archive, named after it. */
    tt_error("%s: give the archive directory without a trailing '/'", final);
    return -1;
  }
  install_cleanup();
  struct stat st;
  tt_buf b = {0};
  if (lstat(final, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      tt_error("%s: exists and is not a directory (an OTF2 archive is a directory); "
               "not overwritten", final);
      return -1;
    }
    if (!replaceable_dir(final)) {
      tt_error("%s: exists and is not an OTF2 archive (no traces.otf2); not overwritten", final);
      return -1;
    }
  }
  /* atomic_output writes an existing non-file in place (tmp == final):
   * then the staging directory and its rename are ours. */
  a->own_stage = strcmp(tt_output_tmp_path(out), final) == 0;
  if (a->own_stage) {
    tt_buf_printf(&b, "%s.tmp%ld", final, (long)getpid());
    tt_output_set_staged(out, b.data); /* the driver counts its bytes there */
  }
  else
    tt_buf_puts(&b, tt_output_tmp_path(out));
  a->stage = b.data;
  remove_tree(a->stage);
  if (mkdir(a->stage, 0777) != 0) {
    tt_error("%s: cannot create directory %s: %s", final, a->stage, strerror(errno));
    free(a->stage);
    a->stage = NULL;
    return -1;
  }
  stages = tt_realloc(stages, (nstages + 1) * sizeof *stages);
  stages[nstages++] = (pending){tt_strdup(a->stage), tt_strdup(final), a->own_stage};
  return 0;
}

void o2_stage_discard(o2_archive *a) {
  if (!a->stage) return;
  remove_tree(a->stage);
  for (size_t i = 0; i < nstages; i++)
    if (strcmp(stages[i].stage, a->stage) == 0) stages[i].own = 0; /* nothing to put in place */
}
