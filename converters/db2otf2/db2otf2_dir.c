/* The archive is a directory (traces.otf2, traces.def, traces/), so the
 * single-file temporary of common/base/atomic_output.h is not enough: the
 * archive is written into a staging directory beside the final one and
 * renamed once complete. A failure, tt_die or a signal removes the staging
 * directory, so nothing half-written is ever left. An existing path is
 * replaced only when it is an OTF2 archive (or empty), never a directory
 * of other files. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db2otf2.h"
#include "base/atomic_output.h"
#include "base/util.h"

/* Staging directories of this run. One that replaces an existing archive
 * is put in place at exit, and only when the run succeeded: the driver
 * also ends a part when the stream failed, and a failed run must leave the
 * old archive as it was. The others are renamed by the driver (removing
 * them afterwards is a no-op) or removed when the run fails.
 *
 * The signal handler walks the list, on whichever thread the signal
 * reaches (a size split writes its parts on a second thread): a stage is
 * linked complete, by one pointer store, and none is unlinked before exit,
 * so the handler never sees a half-built list (as atomic_output keeps its
 * own). At exit the list is freed with the signals blocked. */
typedef struct pending {
  char *stage, *final;
  int own;
  struct pending *next;
} pending;
static pending *volatile stages;
static pending *volatile *stages_end = &stages;
static struct sigaction old_actions[3];
static const int signals[3] = {SIGINT, SIGTERM, SIGHUP};
static int cleanup_installed;

/* A file or a directory tree, by atomic_output's async-signal-safe removal
 * (the signal handler's too). */
static void remove_tree(const char *path) { tt_output_remove_tree(path); }

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
  sigset_t mask, all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &mask); /* a handler would walk the list being freed */
  for (pending *p = stages, *next; p; p = next) {
    if (status == 0 && !failed && p->own && swap_in(p->stage, p->final)) failed = 1;
    remove_tree(p->stage);
    next = p->next;
    free(p->stage);
    free(p->final);
    free(p);
  }
  stages = NULL;
  stages_end = &stages;
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  if (failed) {
    fflush(NULL);
    _exit(1);
  }
}

static void on_signal(int sig) {
  for (pending *p = stages; p; p = p->next) remove_tree(p->stage);
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
  sigfillset(&sa.sa_mask); /* one cleanup at a time */
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
  pending *p = tt_calloc(1, sizeof *p);
  *p = (pending){tt_strdup(a->stage), tt_strdup(final), a->own_stage, NULL};
  *stages_end = p; /* linked complete, in one store */
  stages_end = &p->next;
  return 0;
}

void o2_stage_discard(o2_archive *a) {
  if (!a->stage) return;
  remove_tree(a->stage);
  for (pending *p = stages; p; p = p->next)
    if (strcmp(p->stage, a->stage) == 0) p->own = 0; /* nothing to put in place */
}
